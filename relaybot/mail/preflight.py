"""Mistakes in the mail settings, told in one line each (issue 28).

Two kinds:

* before any connection (:func:`login_problems`): a login with an empty password would
  only be refused by the server, with a message that names no setting;
* after a failed connection (:func:`tls_hint`): a TLS mode that does not match the port
  fails with ``[SSL: WRONG_VERSION_NUMBER]`` (TLS spoken to a plain-text port) or a
  silent wait for a greeting that never comes (plain text spoken to an implicit-TLS
  port). The hint looks at what the port answers and names the setting to change.

設定の誤り（空のパスワード、ポートに合わない TLS の指定）を 1 行で伝えます。
"""

from __future__ import annotations

import socket
import ssl
from typing import Final

from relaybot.config import Config, ImapConfig, SmtpConfig

__all__ = ["PROBE_SECONDS", "imap_login_problem", "login_problems", "smtp_login_problem",
           "tls_hint"]

PROBE_SECONDS: Final = 5.0
"""How long a probe waits for a port to answer."""


def imap_login_problem(imap: ImapConfig) -> str | None:
    """Why an IMAP login cannot work as configured, or None."""
    if imap.oauth2_command.strip():
        return None
    if not imap.password:
        return ("imap.password is empty: set it in the config file or in "
                "RELAYBOT_IMAP_PASSWORD (or set imap.oauth2_command for an OAuth 2.0 "
                "mailbox)")
    return None


def smtp_login_problem(smtp: SmtpConfig) -> str | None:
    """Why an SMTP login cannot work as configured, or None (no ``user``: no login)."""
    if not smtp.user or smtp.oauth2_command.strip():
        return None
    if not smtp.password:
        return ("smtp.password is empty while smtp.user is set: set it in the config "
                "file or in RELAYBOT_SMTP_PASSWORD, clear smtp.user to send without a "
                "login, or set smtp.oauth2_command for an OAuth 2.0 mailbox")
    return None


def login_problems(cfg: Config) -> list[str]:
    """Every login setting that cannot work, one line each, without connecting."""
    found = [imap_login_problem(cfg.imap), smtp_login_problem(cfg.smtp)]
    return [line for line in found if line is not None]


def tls_hint(section: str, host: str, port: int, tls: str,
             timeout: float = PROBE_SECONDS) -> str | None:
    """What to set when ``tls`` does not fit what ``host:port`` speaks, or None.

    Called after a connection failed. ``tls = "ssl"``: the port is asked for its
    greeting in plain text; an answer means the port is a plain one (143, 25, 587).
    ``"none"`` or ``"starttls"``: a TLS handshake is tried (certificates are not checked:
    only whether the port speaks TLS at once, as 993 and 465 do). ``section`` is
    ``imap`` or ``smtp``.
    """
    if tls == "ssl":
        if _answers_plain_text(host, port, timeout):
            return (f"{host} port {port} answers in plain text, not TLS: set "
                    f"{section}.tls = \"starttls\" (or \"none\" on a trusted network)")
        return None
    if _speaks_tls(host, port, timeout):
        return (f"{host} port {port} expects TLS from the first byte: set "
                f"{section}.tls = \"ssl\"")
    return None


def _answers_plain_text(host: str, port: int, timeout: float) -> bool:
    """True when the port greets in text (``* OK``, ``220 ...``) without being asked."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            greeting = sock.recv(64)
    except OSError:
        return False
    # a TLS server says nothing first; what a plain one says starts with a digit or "*"
    return bool(greeting) and greeting[:1] in b"*0123456789"


def _speaks_tls(host: str, port: int, timeout: float) -> bool:
    """True when a TLS handshake with the port succeeds (its certificate unchecked)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # a probe: only whether TLS answers at all
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=host):
            return True
    except (OSError, ssl.SSLError):
        return False
