"""In-process mail servers for ``relaybot demo`` and for tests.

:class:`DemoMailServers` runs an IMAP server (pymap's in-memory ``dict`` backend) and an
SMTP server (aiosmtpd) on ``127.0.0.1``, on free ports, inside one background thread with
its own asyncio event loop. Nothing is configured, nothing is written to disk and no root is
needed.

Mail the SMTP server accepts is routed like a tiny MTA would:

* if any recipient is the relay address or a plus address of it
  (``relay+<anything>@club.example``, case-insensitive), one copy is APPENDed into the
  relay's IMAP ``INBOX`` (INTERNALDATE = now), with ``Return-Path`` and one
  ``Delivered-To`` header per such recipient prepended, as a local delivery agent does;
* the other recipients' copy is recorded in :attr:`DemoMailServers.delivered` and handed to
  the ``on_delivery`` callback (the demo prints it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import socket
import threading
from argparse import Namespace
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, cast

from aiosmtpd.smtp import SMTP, Envelope, Session
from proxyprotocol.reader import ProxyProtocolReader
from proxyprotocol.sock import SocketInfo
from pymap.backend.dict import Config as _DictConfig
from pymap.backend.dict import DictBackend, Login
from pymap.concurrent import Subsystem
from pymap.imap import IMAPServer
from pymap.parsing.message import AppendMessage
from pysasl.hashing import Cleartext

__all__ = ["Delivered", "DemoMailServers"]

_log = logging.getLogger(__name__)

_LOOPBACK = "127.0.0.1"
_START_TIMEOUT = 10.0
_CALL_TIMEOUT = 10.0
_NEWLINE = re.compile(rb"\r?\n")


@dataclass(frozen=True)
class Delivered:
    """A message the demo SMTP server accepted for recipients other than the relay.

    Attributes:
        mail_from: The envelope sender (``MAIL FROM``).
        rcpt_tos: The envelope recipients of this copy (never the relay's addresses).
        raw: The message exactly as received in ``DATA``.
    """

    mail_from: str
    rcpt_tos: list[str]
    raw: bytes


class _Config(_DictConfig):
    """pymap dict-backend config with a fixed greeting (no slow ``getfqdn`` lookup)."""

    @property
    def greeting(self) -> bytes:
        return b"relaybot demo IMAP server ready"


class _CoalescingWriter:
    """Stream writer wrapper that sends everything written before ``drain()`` at once.

    pymap writes one response in several ``write()`` calls (``* 1 FETCH (`` then
    ``FLAGS ...)``), and asyncio sends each as its own TCP segment. ``imaplib`` (and so
    ``IMAPClient.idle_check``), reading a non-blocking socket, then sees half a line and
    aborts. Real servers send whole lines, so the demo server does too.
    """

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._buffer = bytearray()

    def write(self, data: bytes) -> None:
        """Queue *data*; it is sent by the next :meth:`drain` or :meth:`close`."""
        self._buffer += data

    def _flush(self) -> None:
        if self._buffer and not self._writer.is_closing():
            self._writer.write(bytes(self._buffer))
        self._buffer.clear()

    async def drain(self) -> None:
        """Send everything queued in one write, then wait for the transport."""
        self._flush()
        await self._writer.drain()

    def close(self) -> None:
        """Send what is queued and close the connection."""
        self._flush()
        self._writer.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


class _IMAPServer(IMAPServer):
    """pymap's connection handler, writing through :class:`_CoalescingWriter`."""

    async def __call__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sock_info: SocketInfo
    ) -> None:
        await super().__call__(
            reader, cast(asyncio.StreamWriter, _CoalescingWriter(writer)), sock_info
        )


def _crlf(raw: bytes) -> bytes:
    """Return *raw* with every line ending normalised to CRLF, as IMAP requires."""
    return _NEWLINE.sub(b"\r\n", raw)


class _Handler:
    """aiosmtpd handler that routes each message to the relay INBOX or to ``delivered``."""

    def __init__(self, servers: DemoMailServers) -> None:
        self._servers = servers

    async def handle_DATA(  # the hook name aiosmtpd looks up
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        """Route one accepted message; always answer 250 once it is stored."""
        content = envelope.original_content or b""
        if isinstance(content, str):  # only with decode_data=True, which we do not use
            content = content.encode("utf-8", "surrogateescape")
        await self._servers._route(envelope.mail_from or "", list(envelope.rcpt_tos), content)
        return "250 Message accepted for delivery"


class DemoMailServers:
    """IMAP (pymap dict backend) + SMTP (aiosmtpd) on 127.0.0.1, free ports, in a thread.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. After :meth:`start`,
    the bot logs in to ``imap_host:imap_port`` (no TLS) with ``imap_user`` /
    ``imap_password`` and sends through ``smtp_host:smtp_port`` (no TLS, no AUTH).

    Attributes:
        relay_address: The bot's address; plus addresses of it go to the relay INBOX too.
        imap_host, imap_port, imap_user, imap_password: The relay mailbox's IMAP login.
        smtp_host, smtp_port: Where to send mail.
        delivered: Every message accepted that was NOT for the relay, in arrival order.
    """

    def __init__(
        self,
        relay_address: str = "relay@club.example",
        *,
        on_delivery: Callable[[Delivered], None] | None = None,
    ) -> None:
        local, sep, domain = relay_address.rpartition("@")
        if not sep or not local or not domain:
            raise ValueError(f"relay_address is not an e-mail address: {relay_address!r}")
        self.relay_address = relay_address
        self._relay_local = local.lower()
        self._relay_domain = domain.lower()
        self.on_delivery = on_delivery
        self.imap_host = _LOOPBACK
        self.imap_port = 0
        self.imap_user = local.split("+", 1)[0]
        self.imap_password = secrets.token_urlsafe(12)
        self.smtp_host = _LOOPBACK
        self.smtp_port = 0
        self.delivered: list[Delivered] = []
        self._delivered_cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._backend: DictBackend | None = None

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True between a successful :meth:`start` and :meth:`stop`."""
        return self._thread is not None and self._thread.is_alive() and self._ready.is_set()

    def start(self) -> None:
        """Start both servers in a background thread; return once they accept connections.

        Raises:
            RuntimeError: if already started, or if the servers could not start.
        """
        if self._thread is not None:
            raise RuntimeError("demo mail servers already started")
        self._ready.clear()
        self._startup_error = None
        self._thread = threading.Thread(
            target=self._thread_main, name="relaybot-demo-mail", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            self.stop()
            raise RuntimeError("demo mail servers did not start in time")
        if self._startup_error is not None:
            error = self._startup_error
            self.stop()
            raise RuntimeError(f"demo mail servers failed to start: {error}") from error

    def stop(self) -> None:
        """Stop both servers, drop open connections and join the thread. Idempotent."""
        thread, loop, stop_event = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        if loop is not None and stop_event is not None:
            with contextlib.suppress(RuntimeError):  # loop already closed
                loop.call_soon_threadsafe(stop_event.set)
        thread.join(_START_TIMEOUT)
        if thread.is_alive():  # pragma: no cover - defensive
            _log.warning("demo mail server thread did not stop in time")
        self._thread = None
        self._loop = None
        self._stop_event = None
        self._backend = None

    def __enter__(self) -> DemoMailServers:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- public helpers --------------------------------------------------------------------

    def is_relay_address(self, address: str) -> bool:
        """True if *address* is the relay address or a plus address of it (any case)."""
        local, sep, domain = address.strip().strip("<>").rpartition("@")
        if not sep or domain.lower() != self._relay_domain:
            return False
        local = local.lower()
        return local == self._relay_local or local.startswith(self._relay_local + "+")

    def deliver_to_relay(self, raw: bytes, internaldate: datetime | None = None) -> None:
        """APPEND *raw* into the relay mailbox's INBOX.

        Args:
            raw: The whole message; line endings are normalised to CRLF.
            internaldate: The INTERNALDATE to give it; now if None, UTC if naive.

        Raises:
            RuntimeError: if the servers are not running, or if called from the server
                thread itself (e.g. inside ``on_delivery``).
        """
        loop = self._loop
        if loop is None or not self.running:
            raise RuntimeError("demo mail servers are not running")
        if threading.current_thread() is self._thread:
            raise RuntimeError("deliver_to_relay() cannot be called from the server thread")
        future = asyncio.run_coroutine_threadsafe(self._append(raw, internaldate), loop)
        future.result(_CALL_TIMEOUT)

    def wait_for_delivered(self, count: int, timeout: float = 5.0) -> bool:
        """Block until :attr:`delivered` holds at least *count* messages.

        Returns:
            True if it does, False if *timeout* seconds passed first.
        """
        with self._delivered_cond:
            return self._delivered_cond.wait_for(lambda: len(self.delivered) >= count, timeout)

    # -- server thread ---------------------------------------------------------------------

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # pragma: no cover - reported through start()
            if not self._ready.is_set():
                self._startup_error = exc
                self._ready.set()
            else:
                _log.exception("demo mail servers crashed")

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        try:
            imap_server, smtp_server = await self._start_servers()
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            await self._stop_event.wait()
        finally:
            for server in (smtp_server, imap_server):
                server.close()
            # Open connections are not closed by Server.close(); asyncio.run() cancels
            # their tasks on the way out, which makes pymap send BYE and close them.

    async def _start_servers(self) -> tuple[asyncio.Server, asyncio.Server]:
        args = Namespace(
            host=_LOOPBACK,
            port=0,
            debug=False,
            cert=None,
            key=None,
            tls=False,
            passlib_cfg=None,
            proxy_protocol=None,
            inherited_sockets=None,
            demo_data=False,
            demo_user=self.imap_user,
            demo_password=self.imap_password,
        )
        config = _Config.from_args(
            args,
            # The default CPU subsystem is a ThreadPoolExecutor that is never shut down;
            # hashing one demo password inline is instant.
            cpu_subsystem=Subsystem.for_asyncio(),
            # The default password hash (PBKDF2) costs ~0.2 s per login; this throwaway
            # in-memory user does not need it.
            hash_context=Cleartext(),
            invalid_user_sleep=0.0,
            reject_dnsbl=False,
        )
        config.apply_context()
        backend = DictBackend(Login(config), config)
        await DictBackend._add_demo_user(config, backend.login)
        self._backend = backend

        imap_cb = ProxyProtocolReader(config.proxy_protocol).get_callback(
            _IMAPServer(backend.login, config)
        )
        imap_server = await asyncio.start_server(imap_cb, host=_LOOPBACK, port=0)
        self.imap_port = _bound_port(imap_server)

        handler = _Handler(self)
        loop = asyncio.get_running_loop()
        smtp_server = await loop.create_server(
            lambda: SMTP(
                handler, hostname="localhost", ident="relaybot demo SMTP", enable_SMTPUTF8=True
            ),
            host=_LOOPBACK,
            port=0,
        )
        self.smtp_port = _bound_port(smtp_server)
        # Create the (empty) relay mailbox now, so the first login sees an INBOX.
        async with backend.login.demo_user_identity.new_session():
            pass
        return imap_server, smtp_server

    async def _append(self, raw: bytes, internaldate: datetime | None) -> None:
        backend = self._backend
        if backend is None:
            raise RuntimeError("demo mail servers are not running")
        when = internaldate or datetime.now(UTC)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        message = AppendMessage(_crlf(raw), when, frozenset())
        async with backend.login.demo_user_identity.new_session() as session:
            await session.append_messages("INBOX", [message])

    async def _route(self, mail_from: str, rcpt_tos: list[str], raw: bytes) -> None:
        relay_rcpts = [r for r in rcpt_tos if self.is_relay_address(r)]
        other_rcpts = [r for r in rcpt_tos if not self.is_relay_address(r)]
        if relay_rcpts:
            trace = f"Return-Path: <{mail_from}>\r\n" + "".join(
                f"Delivered-To: {rcpt}\r\n" for rcpt in relay_rcpts
            )
            await self._append(trace.encode("utf-8") + raw, None)
        if other_rcpts:
            item = Delivered(mail_from=mail_from, rcpt_tos=other_rcpts, raw=raw)
            with self._delivered_cond:
                self.delivered.append(item)
                self._delivered_cond.notify_all()
            if self.on_delivery is not None:
                try:
                    self.on_delivery(item)
                except Exception:
                    _log.exception("on_delivery callback failed")


def _bound_port(server: asyncio.Server) -> int:
    """Return the TCP port *server* listens on."""
    for sock in server.sockets:
        if sock.family == socket.AF_INET:
            return int(sock.getsockname()[1])
    raise RuntimeError("server has no IPv4 socket")
