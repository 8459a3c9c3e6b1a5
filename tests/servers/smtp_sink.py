"""An aiosmtpd capture sink on loopback with scriptable failures (RELIABILITY.md T2).

Usage::

    with SmtpSink() as sink:
        ...send to sink.host:sink.port...
        [mail] = sink.wait_for(1, timeout=5)

Scripted failures apply to the next matching SMTP transactions, in the order they were
scripted, each for *times* transactions:

- ``fail_next("mail" | "rcpt" | "data", "451 4.3.0 try again")``: answer that command
  with the reply. A ``421`` reply also closes the connection, as RFC 5321 says.
- ``drop_after_data()``: after the message data, close the connection without a reply.
  The message is not captured.
- ``drop_connections()``: close the open connections now (a server dropping idle ones).
- ``stall(seconds)``: after the message data, wait *seconds* before the ``250``. If the
  client gives up and disconnects meanwhile, the message is not captured, unless
  ``accept=True``: then it is captured before the stall (the "delivered, but the 250 was
  lost" case that makes a sender resend the same Message-ID).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import functools
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Literal

from aiosmtpd.controller import Controller

from tests.servers.dovecot import free_port

Stage = Literal["mail", "rcpt", "data"]
_STAGES = ("mail", "rcpt", "data")


@dataclass(frozen=True)
class Captured:
    """One message the sink accepted; parsed when a test first looks at it, so the sink
    itself does no parsing while mail flows (benchmarks send thousands)."""

    mail_from: str
    rcpt_tos: list[str]
    raw: bytes
    # the client's (address, port): one per SMTP connection
    peer: tuple[str, int] | None = None

    @functools.cached_property
    def parsed(self) -> EmailMessage:
        """The message as ``email.policy.default`` reads it."""
        message = email.message_from_bytes(self.raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        return message


@dataclass
class _Rule:
    stage: Stage
    action: Literal["reply", "drop", "stall"]
    times: int
    reply: str = ""
    seconds: float = 0.0
    accept: bool = False
    fired: int = field(default=0)


class _Handler:
    """aiosmtpd handler: hooks consult the sink's script, DATA captures."""

    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def _scripted(self, server: Any, stage: Stage) -> _Rule | None:
        rule = self.sink._take(stage)
        if rule is not None and rule.action == "reply" and rule.reply.startswith("421"):
            # 421 = "closing transmission channel": send the reply, then hang up.
            loop = asyncio.get_running_loop()
            transport = server.transport
            loop.call_soon(lambda: transport is not None and transport.close())
        return rule

    async def handle_MAIL(
        self, server: Any, session: Any, envelope: Any, address: str, mail_options: list[str]
    ) -> str:
        self.sink._transports.add(server.transport)
        rule = await self._scripted(server, "mail")
        if rule is not None:
            return rule.reply
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        rule = await self._scripted(server, "rcpt")
        if rule is not None:
            return rule.reply
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        rule = await self._scripted(server, "data")
        if rule is None:
            self.sink._capture(envelope, session.peer)
            return "250 2.0.0 OK queued"
        if rule.action == "reply":
            return rule.reply
        if rule.action == "drop":
            server.transport.abort()
            await asyncio.sleep(3600)  # cancelled by connection_lost
            return "451 4.3.0 not reached"
        # stall
        if rule.accept:
            self.sink._capture(envelope)
        await asyncio.sleep(rule.seconds)  # cancelled if the client hangs up first
        if not rule.accept:
            self.sink._capture(envelope)
        return "250 2.0.0 OK queued (late)"


class SmtpSink:
    """aiosmtpd ``Controller`` on 127.0.0.1 (free port) capturing every accepted message."""

    host = "127.0.0.1"

    def __init__(self) -> None:
        self.port = free_port(self.host)
        self._cond = threading.Condition()
        self._captured: list[Captured] = []
        self._rules: list[_Rule] = []
        self._transports: set[Any] = set()  # of connections that sent a MAIL
        self.controller = Controller(
            _Handler(self),
            hostname=self.host,
            port=self.port,
            ready_timeout=10,
            enable_SMTPUTF8=True,
        )

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start listening."""
        self.controller.start()

    def stop(self) -> None:
        """Stop listening and drop open connections."""
        self.controller.stop()

    def drop_connections(self) -> None:
        """Close every connection that has sent mail, as a server drops idle ones; the
        sink keeps listening. Returns when they are closed."""
        transports, self._transports = self._transports, set()

        def close() -> None:
            for transport in transports:
                transport.close()

        done = threading.Event()
        self.controller.loop.call_soon_threadsafe(lambda: (close(), done.set()))
        done.wait(5)

    def __enter__(self) -> SmtpSink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- captured mail ---------------------------------------------------------------

    @property
    def captured(self) -> list[Captured]:
        """A snapshot of the messages captured so far, in arrival order."""
        with self._cond:
            return list(self._captured)

    def wait_for(self, n: int, timeout: float = 5.0) -> list[Captured]:
        """Wait until at least *n* messages were captured; return them all.

        Raises TimeoutError (saying how many arrived) if that takes longer than *timeout*.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._captured) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"SMTP sink: expected {n} message(s), got {len(self._captured)}"
                    )
                self._cond.wait(left)
            return list(self._captured)

    def clear(self) -> None:
        """Forget captured messages and any scripted failures not yet used."""
        with self._cond:
            self._captured.clear()
            self._rules.clear()

    def _capture(self, envelope: Any, peer: Any = None) -> None:
        raw = bytes(envelope.original_content or envelope.content or b"")
        item = Captured(str(envelope.mail_from), [str(r) for r in envelope.rcpt_tos], raw,
                        tuple(peer) if peer else None)
        with self._cond:
            self._captured.append(item)
            self._cond.notify_all()

    # -- scripted failures -----------------------------------------------------------

    def fail_next(self, stage: Stage, reply: str, times: int = 1) -> None:
        """Answer the next *times* MAIL / RCPT / DATA commands with *reply*.

        *reply* is a full SMTP reply line such as ``"421 4.3.2 shutting down"``,
        ``"451 4.3.0 try again"`` or ``"550 5.1.1 no such user"``.
        """
        if stage not in _STAGES:
            raise ValueError(f"stage must be one of {_STAGES}, not {stage!r}")
        code = reply[:3]
        if not (code.isdigit() and code[0] in "45" and reply[3:4] in (" ", "")):
            raise ValueError(f"reply must start with a 4xx/5xx code: {reply!r}")
        self._add(_Rule(stage, "reply", times, reply=reply))

    def drop_after_data(self, times: int = 1) -> None:
        """Close the next *times* connections after the message data, without a reply."""
        self._add(_Rule("data", "drop", times))

    def stall(self, seconds: float, times: int = 1, *, accept: bool = False) -> None:
        """Wait *seconds* before answering the next *times* DATA (past the client timeout).

        With ``accept=True`` the message is captured before the stall, as if delivered.
        """
        self._add(_Rule("data", "stall", times, seconds=seconds, accept=accept))

    def _add(self, rule: _Rule) -> None:
        if rule.times < 1:
            raise ValueError("times must be >= 1")
        with self._cond:
            self._rules.append(rule)

    def _take(self, stage: Stage) -> _Rule | None:
        with self._cond:
            for rule in self._rules:
                if rule.stage == stage and rule.fired < rule.times:
                    rule.fired += 1
                    if rule.fired == rule.times:
                        self._rules.remove(rule)
                    return rule
            return None
