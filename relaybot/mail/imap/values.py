"""The values and errors of the IMAP facade, and the checks on its command arguments.

Pure: no network. Command arguments are UIDs (ints) and folder names from
configuration; :func:`check_uid` and :func:`check_folder_name` refuse anything else,
so nothing from mail content reaches the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

__all__ = [
    "PROCESSED",
    "QUARANTINE",
    "Fetched",
    "ImapAuthError",
    "ImapError",
    "ImapSettings",
    "check_folder_name",
    "check_uid",
]

PROCESSED: Final = "Processed"
QUARANTINE: Final = "Quarantine"

_TLS_MODES: Final = ("none", "starttls", "ssl")


class ImapError(OSError):
    """The IMAP connection failed or the server refused a command; reconnect and retry."""


class ImapAuthError(ImapError):
    """The server rejected the login (wrong settings rather than a network fault)."""


@dataclass(frozen=True)
class ImapSettings:
    """Where and how to reach the inbound mailbox.

    ``tls`` is ``"none"`` (plain, for loopback tests), ``"starttls"`` or ``"ssl"``
    (implicit TLS, usually port 993). ``timeout`` bounds every socket operation, in
    seconds. ``oauth2_command``, when set, prints the OAuth 2.0 access token the login
    uses instead of ``password`` (relaybot.mail.oauth).
    """

    host: str
    port: int
    user: str
    password: str = field(repr=False)
    tls: str = "none"
    folder: str = "INBOX"
    timeout: float = 60.0
    oauth2_command: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.tls not in _TLS_MODES:
            raise ValueError(f"tls must be one of {_TLS_MODES}, not {self.tls!r}")
        check_folder_name(self.folder)
        if self.timeout <= 0:
            raise ValueError("timeout must be > 0")


@dataclass(frozen=True)
class Fetched:
    """One message as fetched: ``raw`` is None exactly when ``too_big`` is True.

    ``internaldate`` is the server's INTERNALDATE (arrival time) as an aware UTC datetime.
    """

    uid: int
    raw: bytes | None
    internaldate: datetime
    size: int
    too_big: bool


def check_folder_name(folder: str) -> None:
    """Refuse a folder name that is empty or holds CR, LF or NUL (it goes on the wire)."""
    if not folder or any(ch in folder for ch in "\r\n\0"):
        raise ValueError(f"unusable IMAP folder name: {folder!r}")


def check_uid(uid: int) -> int:
    """*uid* if it is a positive int (not a bool), else ``ValueError``."""
    if isinstance(uid, bool) or not isinstance(uid, int) or uid <= 0:
        raise ValueError(f"bad UID: {uid!r}")
    return uid
