"""How relaybot opens an IMAP session and lets go of one, shared by the poller's
:class:`~relaybot.mail.imap.mailbox.Mailbox` and ``relaybot check``'s read-only
:func:`~relaybot.mail.imap.survey.survey`: the connection, STARTTLS and the login
(:func:`open_client`), the drop without a LOGOUT (:func:`shutdown`), and which
exceptions mean the network or the server failed (:func:`is_network_error`).
"""

from __future__ import annotations

import imaplib
import ssl
from typing import Any

from imapclient import IMAPClient  # type: ignore[import-untyped]
from imapclient.exceptions import (  # type: ignore[import-untyped]
    IMAPClientError,
    LoginError,
)

from relaybot.mail.imap.values import ImapAuthError, ImapError, ImapSettings
from relaybot.mail.oauth import TokenCommandError, access_token
from relaybot.mail.preflight import PROBE_SECONDS, tls_hint

__all__ = ["is_network_error", "open_client", "shutdown"]


def is_network_error(exc: BaseException) -> bool:
    """True if ``exc`` is a failure of the connection or of the IMAP exchange (a socket
    error, a timeout, a NO/BAD answer, an unreadable response), after which the session
    is not to be trusted; False for anything else, such as a bug, which callers let
    through unchanged."""
    return isinstance(exc, OSError | IMAPClientError | imaplib.IMAP4.error)


def shutdown(client: Any) -> None:
    """Close ``client``'s socket without a LOGOUT round trip; never raises.

    For a session that failed or may be mid-command (idling, say), where a LOGOUT would
    wait out the socket timeout. ``None`` (nothing opened yet) is allowed.
    """
    if client is None:
        return
    try:
        client.shutdown()
    except (OSError, IMAPClientError, imaplib.IMAP4.error):
        pass


def open_client(s: ImapSettings) -> Any:
    """A logged-in IMAPClient for ``s``, no folder selected: the connection, STARTTLS
    and the login, by password or by OAuth 2.0 (OAUTHBEARER where the server offers it,
    else XOAUTH2) with a token from ``s.oauth2_command``.

    Raises :class:`ImapAuthError` when the login is refused or no token could be had,
    :class:`ImapError` when the server cannot be reached; when the TLS mode does not
    fit the port, that error says what to set (relaybot.mail.preflight).
    """
    client: Any = None
    try:
        context = ssl.create_default_context() if s.tls != "none" else None
        client = IMAPClient(
            s.host,
            port=s.port,
            use_uid=True,
            ssl=s.tls == "ssl",
            ssl_context=context,
            timeout=s.timeout,
        )
        client.normalise_times = False
        if s.tls == "starttls":
            client.starttls(context)
    except Exception as exc:
        shutdown(client)
        if not is_network_error(exc):
            raise
        hint = tls_hint("imap", s.host, s.port, s.tls, min(s.timeout, PROBE_SECONDS))
        if hint is not None:
            raise ImapError(f"IMAP connect to {s.host}:{s.port} failed: {hint}") from exc
        raise ImapError(f"IMAP connect to {s.host}:{s.port} failed: {exc}") from exc
    try:
        _login(client, s)
    except Exception as exc:
        shutdown(client)
        if isinstance(exc, ImapError):
            raise
        if is_network_error(exc):
            raise ImapError(f"IMAP login to {s.host}:{s.port} failed: {exc}") from exc
        raise
    return client


def _login(client: Any, s: ImapSettings) -> None:
    """Log in with the password, or with an OAuth 2.0 access token."""
    if not s.oauth2_command.strip():
        try:
            client.login(s.user, s.password)
        except LoginError as exc:
            raise ImapAuthError(f"IMAP login refused for {s.user!r}: {exc}") from exc
        return
    try:
        token = access_token(s.oauth2_command, "imap.oauth2_command")
    except TokenCommandError as exc:
        raise ImapAuthError(str(exc)) from exc
    bearer = client.has_capability("AUTH=OAUTHBEARER")
    try:
        if bearer:
            client.oauthbearer_login(s.user, token)
        else:
            client.oauth2_login(s.user, token)
    except LoginError as exc:
        mechanism = "OAUTHBEARER" if bearer else "XOAUTH2"
        raise ImapAuthError(
            f"IMAP login refused for {s.user!r} with the access token from "
            f"imap.oauth2_command ({mechanism}): {exc}; is the token for this mailbox "
            "and still valid?") from exc
