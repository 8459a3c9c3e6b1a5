"""A read-only look at the mailbox for ``relaybot check`` (issue 28): log in, and read
the ``Authentication-Results`` headers of the last few mails, changing nothing.

Folders are opened with EXAMINE (read-only) and headers fetched with ``BODY.PEEK``, so
neither ``\\Seen`` nor anything else moves; no folder is created.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any, Final

from imapclient.exceptions import IMAPClientError  # type: ignore[import-untyped]

from relaybot.mail.imap.connection import is_network_error, open_client, shutdown
from relaybot.mail.imap.values import PROCESSED, ImapError, ImapSettings

__all__ = ["MailboxSurvey", "survey"]

_FIELD: Final = b"BODY[HEADER.FIELDS (AUTHENTICATION-RESULTS)]"


@dataclass(frozen=True)
class MailboxSurvey:
    """What :func:`survey` saw: the folder's size, whether it exists, and for each mail
    looked at (newest last) its ``Authentication-Results`` values, topmost first."""

    folder_exists: bool
    waiting: int  # mails in the folder (not yet processed)
    results: list[list[str]] = field(default_factory=list)


def survey(settings: ImapSettings, count: int = 10) -> MailboxSurvey:
    """Log in as ``settings`` say and read the ``Authentication-Results`` of the last
    ``count`` mails of the folder and of Processed (where handled mail goes).

    Raises :class:`~relaybot.mail.imap.values.ImapAuthError` when the login is refused,
    :class:`~relaybot.mail.imap.values.ImapError` when the server cannot be reached.
    """
    client = open_client(settings)
    try:
        results: list[list[str]] = []
        waiting = 0
        exists = bool(client.folder_exists(settings.folder))
        for folder in (PROCESSED, settings.folder):  # the older mail first
            if not client.folder_exists(folder):
                continue
            status = client.select_folder(folder, readonly=True)
            if folder == settings.folder:
                waiting = int(status.get(b"EXISTS", 0))
            uids = sorted(int(u) for u in client.search(["ALL"]))[-count:]
            if uids:
                results += _results(client.fetch(uids, [_FIELD.replace(b"BODY", b"BODY.PEEK")
                                                          .decode()]), uids)
        client.logout()
        return MailboxSurvey(exists, waiting, results[-count:])
    except Exception as exc:
        shutdown(client)
        if is_network_error(exc) or isinstance(exc, IMAPClientError):
            raise ImapError(f"IMAP {settings.host}:{settings.port}: {exc}") from exc
        raise


def _results(data: dict[Any, Any], uids: list[int]) -> list[list[str]]:
    """The Authentication-Results values of each fetched mail, in UID order."""
    out: list[list[str]] = []
    parser = BytesHeaderParser(policy=compat32)
    for uid in uids:
        entry = data.get(uid) or {}
        raw = entry.get(_FIELD, b"")
        if not isinstance(raw, bytes):
            raw = b""
        values = parser.parsebytes(raw).get_all("Authentication-Results") or []
        out.append([str(v) for v in values])
    return out
