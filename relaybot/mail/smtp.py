"""Sending with aiosmtplib; failures are classified, never swallowed."""

from __future__ import annotations

import ssl
from dataclasses import dataclass

import aiosmtplib

from relaybot.config import ConfigError, SmtpConfig


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
        await client.connect()
        if cfg.user:
            await client.login(cfg.user, cfg.password)
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

    async def send(self, envelope_from: str, recipient: str, raw: bytes) -> SendResult:
        """Send one message; a broken connection raises ``ConnectionError``."""
        client = self._client
        if client is None or not client.is_connected:
            raise ConnectionError("SMTP connection lost")
        try:
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
