"""Sending with aiosmtplib; failures are classified, never swallowed."""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass

import aiosmtplib

from relaybot.config import ConfigError, SmtpConfig
from relaybot.mail.oauth import access_token, b64, oauthbearer, xoauth2
from relaybot.mail.preflight import PROBE_SECONDS, tls_hint


@dataclass(frozen=True)
class SendResult:
    """``ok``; or ``temporary`` (4xx, dropped, timeout: retry) or ``permanent`` (5xx)."""

    status: str
    detail: str = ""


def _classify(code: int, text: str) -> SendResult:
    if 200 <= code < 300:
        return SendResult("ok", f"{code} {text}")
    if 500 <= code < 600:
        return SendResult("permanent", f"{code} {text}")
    return SendResult("temporary", f"{code} {text}")


async def oauth_login(client: aiosmtplib.SMTP, user: str, token: str, host: str,
                      port: int) -> None:
    """AUTH with an OAuth 2.0 access token: OAUTHBEARER (RFC 7628) where the server
    offers it, else XOAUTH2. By hand, since aiosmtplib before 5 has neither.

    Raises ``SMTPAuthenticationError`` with one line when the token is refused.
    """
    await client.ehlo()
    # the server's own list: aiosmtplib's supported_auth_methods keeps only those it knows
    methods = str(client.esmtp_extensions.get("auth", "")).lower().split()
    bearer = "oauthbearer" in methods
    if not bearer and "xoauth2" not in methods:
        raise aiosmtplib.SMTPAuthenticationError(
            504, f"{host} offers no OAuth 2.0 login (AUTH {' '.join(methods).upper() or '-'}"
                 "): clear smtp.oauth2_command and use a password")
    mechanism = "OAUTHBEARER" if bearer else "XOAUTH2"
    initial = oauthbearer(user, token, host, port) if bearer else xoauth2(user, token)
    response = await client.execute_command(b"AUTH", mechanism.encode(), b64(initial).encode())
    if response.code == 334:
        # the refusal comes as a challenge holding a JSON error: the client answers it
        # (RFC 7628 3.2.3: ^A; XOAUTH2: an empty line) and gets the final 5xx
        response = await client.execute_command(b"AQ==" if bearer else b"")
    if response.code != 235:
        raise aiosmtplib.SMTPAuthenticationError(
            response.code,
            f"SMTP login refused for {user!r} with the access token from "
            f"smtp.oauth2_command ({mechanism}): {response.code} {response.message}; "
            "is the token for this mailbox and still valid?")


class SmtpSender:
    """One SMTP connection used for a batch of messages."""

    def __init__(self, cfg: SmtpConfig) -> None:
        self.cfg = cfg
        self._client: aiosmtplib.SMTP | None = None

    async def __aenter__(self) -> SmtpSender:
        cfg = self.cfg
        problem = cfg.plaintext_auth_problem()
        if problem is not None:  # never a password in the clear to another host
            raise ConfigError(problem)
        client = aiosmtplib.SMTP(
            hostname=cfg.host,
            port=cfg.port,
            timeout=cfg.timeout,
            use_tls=cfg.tls == "ssl",
            start_tls=cfg.tls == "starttls",
            tls_context=ssl.create_default_context() if cfg.tls != "none" else None,
        )
        try:
            await client.connect()
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            # a TLS mode that does not fit the port: say which one does
            hint = await asyncio.to_thread(tls_hint, "smtp", cfg.host, cfg.port, cfg.tls,
                                           min(float(cfg.timeout), PROBE_SECONDS))
            if hint is None:
                raise
            raise aiosmtplib.SMTPConnectError(hint) from exc
        try:
            if cfg.user and cfg.oauth2_command.strip():
                token = await asyncio.to_thread(access_token, cfg.oauth2_command,
                                                "smtp.oauth2_command")
                await oauth_login(client, cfg.user, token, cfg.host, cfg.port)
            elif cfg.user:
                await client.login(cfg.user, cfg.password)
        except BaseException:
            client.close()
            raise
        self._client = client
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            try:
                await self._client.quit()
            except (aiosmtplib.SMTPException, OSError):
                self._client.close()
            self._client = None

    @property
    def connected(self) -> bool:
        """False once the server closed the connection (421, a drop, a timeout)."""
        return self._client is not None and self._client.is_connected

    async def alive(self, timeout: float = 3.0) -> bool:
        """True if the connection still answers NOOP within ``timeout`` seconds: one kept
        open between sends may have been dropped by the server, or silently by a NAT on
        the way. A connection that does not answer is closed (no QUIT waits on it later).
        Never raises."""
        client = self._client
        if client is None or not client.is_connected:
            return False
        try:
            response = await client.noop(timeout=timeout)
        except (aiosmtplib.SMTPException, OSError, TimeoutError):
            client.close()
            return False
        return 200 <= response.code < 300

    async def quit(self, timeout: float) -> None:
        """QUIT, waiting at most ``timeout`` seconds for the answer; closed either way.
        Never raises."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            await client.quit(timeout=timeout)
        except (aiosmtplib.SMTPException, OSError, TimeoutError):
            client.close()

    async def send(self, envelope_from: str, recipient: str, raw: bytes) -> SendResult:
        """Send one message; a broken connection raises ``ConnectionError``."""
        client = self._client
        if client is None or not client.is_connected:
            raise ConnectionError("SMTP connection lost")
        try:
            if _wire_ready(raw):
                errors, response = await _sendmail_ready(client, envelope_from, recipient, raw)
            else:
                errors, response = await client.sendmail(envelope_from, [recipient], raw)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            first = exc.recipients[0]
            return _classify(first.code, first.message)
        except aiosmtplib.SMTPResponseException as exc:
            if exc.code in (421,):
                client.close()
            return _classify(exc.code, exc.message)
        if errors:
            code, text = next(iter(errors.values()))
            return _classify(code, text)
        return SendResult("ok", response)


def _wire_ready(raw: bytes) -> bool:
    """True when ``raw`` already has CRLF line endings only and ends with one: what
    ``compose.flatten`` writes (the outbox's mail)."""
    crlf = raw.count(b"\r\n")
    return raw.endswith(b"\r\n") and raw.count(b"\n") == crlf and raw.count(b"\r") == crlf


async def _sendmail_ready(client: aiosmtplib.SMTP, envelope_from: str, recipient: str,
                          raw: bytes) -> tuple[dict[str, aiosmtplib.SMTPResponse], str]:
    """``client.sendmail`` for one recipient and a message already on the wire's line
    endings (:func:`_wire_ready`): its SIZE is its length. aiosmtplib's own ``sendmail``
    rewrites a whole message's line endings with a regex once for SIZE and again for
    DATA; this spares the first (a 20 kB mail with a board picture, twice per move,
    issue 29). Errors as ``sendmail`` raises them; the envelope is reset after one."""
    # (SIZE is only a courtesy: before the first EHLO, which ``mail`` sends, it is left out)
    options = [f"SIZE={len(raw)}"] if client.supports_extension("size") else []
    try:
        await client.mail(envelope_from, options=options)
        try:
            await client.rcpt(recipient)
        except aiosmtplib.SMTPRecipientRefused as exc:
            raise aiosmtplib.SMTPRecipientsRefused([exc]) from exc
        response = await client.data(raw)
    except (aiosmtplib.SMTPResponseException, aiosmtplib.SMTPRecipientsRefused):
        try:
            await client.rset()
        except (ConnectionError, aiosmtplib.SMTPResponseException):
            pass  # disconnected or refused on the reset: the first error is the one to tell
        raise
    return {}, response.message
