"""The mail server's wake-up: a tiny HTTP listener that makes ``relaybot run`` look now.

Dovecot tells an IDLE-ing client about new mail only half a second after it lands (a
fixed delay in its mailbox watcher). With ``[imap] wake_listen`` set, ``relaybot run``
also listens for one HTTP request, ``POST /wake``, which Dovecot's push_notification
plugin sends the moment a delivery to the bot's folder commits
(``deploy/dovecot/relaybot-wake.lua``); the service then ends its IDLE and polls.

A wake is only a hint. The poll it starts is the same look at the whole folder as any
other, so a forged or repeated wake costs one poll and nothing else; wakes that arrive while one is
pending (or during a poll) are one wake; :class:`PushBudget` caps the polls wakes may
start, so a flood of requests cannot turn into a flood of polls. Without any wake (no
listener, Dovecot not configured, the request lost) IDLE and the poll interval find the
mail as before.

The listener answers every request at once from its own thread, on one socket per
request with a deadline and a size cap, so a slow or garbage client never holds up
a delivery's wake or the service.
"""

from __future__ import annotations

import errno
import logging
import os
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from relaybot.app.logs import event

log = logging.getLogger(__name__)

WAKE_PATH: Final = "/wake"
MAX_HEAD: Final = 8 * 1024  # request line and headers: Dovecot's are ~150 bytes
MAX_DRAIN: Final = 64 * 1024  # a body is read and thrown away up to this much
CLIENT_SECONDS: Final = 2.0  # a connection that has not finished by then is closed
MAX_CLIENTS: Final = 32  # connections served at once; more are closed at once


class Wakeup:
    """A flag any thread may set and a ``poll()`` can wait on (a self-pipe).

    Setting it while it is set does nothing, so a burst of wakes is one wake.
    """

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._lock = threading.Lock()
        self._set = False
        self.closed = False

    def fileno(self) -> int:
        """The descriptor that is readable while the flag is set."""
        return self._read

    def set(self) -> None:
        """Raise the flag (thread-safe, never blocks)."""
        with self._lock:
            if self._set or self.closed:
                return  # closed: its descriptor numbers may belong to another file now
            self._set = True
            try:
                os.write(self._write, b"!")
            except OSError:  # closed, or (impossible with one byte) full: it is set anyway
                pass

    def is_set(self) -> bool:
        """True while the flag is raised."""
        return self._set

    def take(self) -> bool:
        """Lower the flag; True if it was raised."""
        with self._lock:
            was, self._set = self._set, False
            if self.closed:
                return was
            try:
                while os.read(self._read, 64):
                    pass
            except OSError:  # nothing left to read (EAGAIN), or closed
                pass
        return was

    def close(self) -> None:
        """Close both ends of the pipe (once)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            for fd in (self._read, self._write):
                try:
                    os.close(fd)
                except OSError:
                    pass


@dataclass
class PushBudget:
    """How many polls wakes may start: ``burst`` at once, then ``rate`` a second.

    A token bucket. Real deliveries stay far below it (one mail at a time, and a burst
    of mail is found by one poll); a flood of forged requests is held to ``rate`` polls
    a second. A wake over the budget is not lost: the service waits for the next token.
    """

    rate: float = 10.0
    burst: float = 10.0
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(default=-1.0, init=False)
    _at: float = field(default=0.0, init=False)

    def _fill(self) -> None:
        now = self.clock()
        if self._tokens < 0:
            self._tokens, self._at = self.burst, now
            return
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now

    def delay(self) -> float:
        """Seconds until a wake may start a poll (0 when it may now)."""
        self._fill()
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.rate

    def spend(self) -> None:
        """A wake started a poll."""
        self._fill()
        self._tokens = max(0.0, self._tokens - 1)


# -- the listener ------------------------------------------------------------------------

_REASONS: Final = {204: "No Content", 400: "Bad Request", 404: "Not Found",
                   405: "Method Not Allowed", 413: "Content Too Large",
                   431: "Request Header Fields Too Large"}


def _response(status: int) -> bytes:
    """A complete HTTP/1.1 answer that closes the connection."""
    reason = _REASONS[status]
    if status == 204:
        return b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
    body = f"{status} {reason}\n".encode()
    extra = "Allow: POST\r\n" if status == 405 else ""
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n{extra}"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def judge(head: bytes) -> int:
    """The HTTP status to answer a request whose head (request line and headers, without
    the blank line) is ``head``.

    204 for ``POST /wake`` (a query string is ignored), 405 for another method on it,
    404 for another path, 400 for anything that is not an HTTP/1.x request or has a
    chunked body, 413 for a body over :data:`MAX_DRAIN`. A body is never waited for: a
    wake has nothing to say (and to ``Expect: 100-continue`` the final status is the
    answer, so the client sends none).
    """
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1.") or not parts[1].startswith(b"/"):
        return 400
    method, target = parts[0], parts[1].split(b"?", 1)[0]
    length = 0
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            return 400
        name, value = name.strip().lower(), value.strip()
        if name == b"content-length":
            if not value.isdigit() or len(value) > 9:
                return 400
            length = int(value)
        elif name == b"transfer-encoding":
            return 400
    if target != WAKE_PATH.encode():
        return 404
    if method != b"POST":
        return 405
    return 413 if length > MAX_DRAIN else 204


@dataclass
class _Client:
    sock: socket.socket
    deadline: float
    head: bytearray = field(default_factory=bytearray)
    out: bytes = b""
    answered: bool = False
    closing: bool = False  # answered and shut for writing: reading what is left until EOF
    thrown: int = 0  # bytes read and thrown away after the answer


class WakeListener:
    """``POST /wake`` on ``address`` calls ``on_wake`` (from the listener's thread).

    The socket is bound when the listener is made, so a port in use is reported before
    the service says it serves; :meth:`start` runs the loop in a daemon thread and
    :meth:`close` stops it.
    """

    def __init__(self, address: tuple[str, int], on_wake: Callable[[], None]) -> None:
        """Bind and listen on ``address``; raises OSError when that is not possible."""
        self.on_wake = on_wake
        infos = socket.getaddrinfo(address[0], address[1], type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        family, kind, proto, _name, where = infos[0]
        server = socket.socket(family, kind, proto)
        try:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(where)
            server.listen(64)
            server.setblocking(False)
        except OSError:
            server.close()
            raise
        self._server = server
        self._stop = Wakeup()
        self._thread: threading.Thread | None = None
        self.wakes = 0  # requests that woke the service
        self.refused = 0  # requests answered with an error
        self._warned = 0.0

    @property
    def address(self) -> tuple[str, int]:
        """The bound (host, port): the port the system chose when 0 was asked."""
        host, port = self._server.getsockname()[:2]
        return str(host), int(port)

    def start(self) -> None:
        """Serve in a daemon thread until :meth:`close`."""
        self._thread = threading.Thread(target=self._serve, name="relaybot-wake", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving, close every socket; safe to call twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self._server.close()
        self._stop.close()

    # -- the loop --------------------------------------------------------------------

    def _serve(self) -> None:
        clients: dict[int, _Client] = {}
        with selectors.DefaultSelector() as sel:
            sel.register(self._server, selectors.EVENT_READ)
            sel.register(self._stop.fileno(), selectors.EVENT_READ)
            try:
                while not self._stop.is_set():
                    now = time.monotonic()
                    soonest = min((c.deadline for c in clients.values()), default=now + 60)
                    ready = sel.select(max(0.0, soonest - now))
                    # the clients first: those that closed free their places before new
                    # connections are counted against MAX_CLIENTS
                    for key, mask in ready:
                        if key.fileobj is not self._server and isinstance(key.fileobj,
                                                                            socket.socket):
                            self._step(sel, clients, key.fileobj, mask)
                    if any(key.fileobj is self._server for key, _mask in ready):
                        self._accept(sel, clients)
                    now = time.monotonic()
                    for client in [c for c in clients.values() if c.deadline <= now]:
                        self._drop(sel, clients, client)
            except Exception:  # never take the service down: IDLE and polling go on
                log.exception("wake listener failed; new mail is found by IDLE and polling")
            finally:
                for client in list(clients.values()):
                    self._drop(sel, clients, client)

    def _accept(self, sel: selectors.BaseSelector, clients: dict[int, _Client]) -> None:
        for _ in range(MAX_CLIENTS):
            try:
                sock, _peer = self._server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    return  # out of descriptors: leave the rest in the backlog for now
                raise
            if len(clients) >= MAX_CLIENTS:
                sock.close()  # a flood: the connections served now are enough
                continue
            sock.setblocking(False)
            clients[sock.fileno()] = _Client(sock, time.monotonic() + CLIENT_SECONDS)
            sel.register(sock, selectors.EVENT_READ)

    def _step(self, sel: selectors.BaseSelector, clients: dict[int, _Client],
              sock: socket.socket, mask: int) -> None:
        client = clients.get(sock.fileno())
        if client is None:
            return
        try:
            if mask & selectors.EVENT_READ and not self._read(client):
                self._drop(sel, clients, client)
                return
            if client.out:
                sent = sock.send(client.out)
                client.out = client.out[sent:]
            if client.answered and not client.out and not client.closing:
                # answered: tell the client so, then read whatever it still sends until
                # it closes (closing with unread bytes would reset the connection, and
                # the client could lose the answer)
                sock.shutdown(socket.SHUT_WR)
                client.closing = True
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(sel, clients, client)
            return
        sel.modify(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if client.out else 0))

    def _read(self, client: _Client) -> bool:
        """Read what is there; False when the connection is done with (the peer closed
        it, or sent more than :data:`MAX_DRAIN` after its answer)."""
        data = client.sock.recv(16 * 1024)
        if not data:
            return False
        if client.answered:  # a body, or garbage after a refusal: thrown away
            client.thrown += len(data)
            return client.thrown <= MAX_DRAIN
        client.head += data
        end = client.head.find(b"\r\n\r\n")
        if end < 0:
            if len(client.head) > MAX_HEAD:
                self._answer(client, 431, bytes(client.head[:MAX_HEAD]))
            return True
        self._answer(client, judge(bytes(client.head[:end])), bytes(client.head[:end]))
        return True

    def _answer(self, client: _Client, status: int, head: bytes) -> None:
        if status == 204:
            self.wakes += 1
            self.on_wake()  # before the answer: the poll is under way when Dovecot goes on
        else:
            self.refused += 1
            self._note_refused(status, head)
        client.answered, client.out = True, _response(status)
        client.head.clear()

    def _note_refused(self, status: int, head: bytes) -> None:
        """One warning per ten minutes (the rest at debug): a wrong URL in Dovecot's
        settings shows up once, and a flood of garbage does not flood the log."""
        line = head.split(b"\r\n", 1)[0][:120].decode("ascii", "replace")
        now = time.monotonic()
        level = logging.DEBUG
        if now - self._warned >= 600 or self._warned == 0.0:
            self._warned, level = now, logging.WARNING
        event(log, "wake_refused", level, status=status, request=line,
              hint=f"only POST {WAKE_PATH} wakes relaybot")

    def _drop(self, sel: selectors.BaseSelector, clients: dict[int, _Client],
              client: _Client) -> None:
        clients.pop(client.sock.fileno(), None)
        try:
            sel.unregister(client.sock)
        except (KeyError, ValueError):
            pass
        client.sock.close()
