"""The wake listener of ``relaybot run`` (issue 29): what it answers, and that nothing a
client sends it (garbage, floods, half requests) does more than one wake or stops it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from relaybot.app.wake import (
    MAX_CLIENTS,
    MAX_HEAD,
    PushBudget,
    WakeListener,
    Wakeup,
    judge,
)
from relaybot.config import ConfigError, load_config, split_listen
from tests.servers.wake_client import WAKE, ask

# -- what a request gets -------------------------------------------------------------------


@pytest.mark.parametrize(("head", "status"), [
    (b"POST /wake HTTP/1.1\r\nHost: x\r\nContent-Length: 0", 204),
    (b"POST /wake?user=relay HTTP/1.1\r\nHost: x", 204),  # a query is ignored
    (b"POST /wake HTTP/1.0", 204),
    (b"POST /wake HTTP/1.1\r\nContent-Length: 5", 204),  # a body is not waited for
    # Dovecot's client with a body waits for "100 Continue": the final answer comes at once
    (b"POST /wake HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5", 204),
    (b"GET /wake HTTP/1.1\r\nHost: x", 405),
    (b"POST / HTTP/1.1\r\nHost: x", 404),
    (b"POST /wake/../admin HTTP/1.1", 404),
    (b"POST /wake HTTP/1.1\r\nContent-Length: 999999999", 413),
    (b"POST /wake HTTP/1.1\r\nContent-Length: -1", 400),
    (b"POST /wake HTTP/1.1\r\nTransfer-Encoding: chunked", 400),
    (b"POST /wake HTTP/1.1\r\nno colon here", 400),
    (b"POST /wake", 400),
    (b"POST /wake SMTP/1.0", 400),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),  # a TLS hello
    (b"", 400),
])
def test_only_post_wake_wakes(head: bytes, status: int) -> None:
    assert judge(head) == status


def test_wake_listen_is_host_and_port_or_nothing(tmp_path: object) -> None:
    assert split_listen("") is None
    assert split_listen("127.0.0.1:8025") == ("127.0.0.1", 8025)
    assert split_listen("[::1]:8025") == ("::1", 8025)
    assert split_listen("relaybot-run:8025") == ("relaybot-run", 8025)
    for bad in ("8025", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "http://x:1/wake",
                "a b:1"):
        with pytest.raises(ValueError):
            split_listen(bad)
    cfg = load_config(environ={"RELAYBOT_CONFIG": "/dev/null",
                               "RELAYBOT_IMAP_WAKE_LISTEN": "127.0.0.1:8025"})
    assert cfg.imap.wake_address() == ("127.0.0.1", 8025)
    with pytest.raises(ConfigError) as err:
        load_config(environ={"RELAYBOT_CONFIG": "/dev/null",
                             "RELAYBOT_IMAP_WAKE_LISTEN": "http://127.0.0.1:8025/wake"})
    message = str(err.value)
    assert "imap.wake_listen" in message and "HOST:PORT" in message
    assert "RELAYBOT_IMAP_WAKE_LISTEN" in message and "\n" not in message


# -- the flag and the budget ---------------------------------------------------------------


def test_a_burst_of_wakes_is_one_wake() -> None:
    wakeup = Wakeup()
    try:
        assert not wakeup.take()
        for _ in range(1000):
            wakeup.set()
        assert wakeup.is_set()
        assert wakeup.take()
        assert not wakeup.is_set() and not wakeup.take()
    finally:
        wakeup.close()


def test_the_budget_lets_a_burst_through_then_a_rate() -> None:
    now = [100.0]
    budget = PushBudget(rate=8, burst=3, clock=lambda: now[0])
    for _ in range(3):
        assert budget.delay() == 0
        budget.spend()
    assert budget.delay() == 0.125  # one token in an eighth of a second
    now[0] += 0.125
    assert budget.delay() == 0
    budget.spend()
    now[0] += 60  # refilled, never beyond the burst
    for _ in range(3):
        budget.spend()
    assert budget.delay() > 0


# -- the listener on a real socket ------------------------------------------------------------


class Woken:
    """Counts the wakes a listener delivers; lets a test wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self.event = threading.Event()

    def __call__(self) -> None:
        self.count += 1
        self.event.set()


@pytest.fixture
def listener() -> Iterator[tuple[WakeListener, Woken]]:
    woken = Woken()
    server = WakeListener(("127.0.0.1", 0), woken)
    server.start()
    try:
        yield server, woken
    finally:
        server.close()




def test_post_wake_wakes_once_and_is_answered_204(
        listener: tuple[WakeListener, Woken]) -> None:
    server, woken = listener
    answer = ask(server.address, WAKE)
    assert answer.startswith(b"HTTP/1.1 204 No Content\r\n")
    assert woken.count == 1 and server.wakes == 1
    # a body, sent along or after the head, is read and thrown away; still one wake each
    assert ask(server.address, WAKE.replace(b"Length: 0", b"Length: 11") + b'{"uid": 17}'
                ).startswith(b"HTTP/1.1 204")
    assert woken.count == 2


def test_anything_else_is_refused_and_wakes_nothing(
        listener: tuple[WakeListener, Woken]) -> None:
    server, woken = listener
    assert ask(server.address, b"GET /wake HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405")
    assert ask(server.address, b"POST /admin HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404")
    assert ask(server.address, b"\x00\xff garbage\r\n\r\n").startswith(b"HTTP/1.1 400")
    huge = b"POST /wake HTTP/1.1\r\nX: " + b"a" * (2 * MAX_HEAD)
    assert ask(server.address, huge).startswith(b"HTTP/1.1 431")
    assert woken.count == 0 and server.refused == 4
    assert ask(server.address, WAKE).startswith(b"HTTP/1.1 204")  # and it still serves
    assert woken.count == 1


def test_silent_and_half_open_clients_do_not_hold_up_a_wake(
        listener: tuple[WakeListener, Woken]) -> None:
    server, woken = listener
    idle = [socket.create_connection(server.address, timeout=10) for _ in range(3)]
    half = socket.create_connection(server.address, timeout=10)
    half.sendall(b"POST /wake HTTP/1.1\r\nHost: x\r\n")  # never finished
    try:
        assert ask(server.address, WAKE).startswith(b"HTTP/1.1 204")
        assert woken.count == 1
        # the silent ones are closed at their deadline (a read then sees the end)
        half.settimeout(10)
        assert half.recv(100) == b""
    finally:
        for sock in [*idle, half]:
            sock.close()


def test_a_flood_of_connections_is_cut_and_the_listener_lives_on(
        listener: tuple[WakeListener, Woken]) -> None:
    server, woken = listener
    flood = [socket.create_connection(server.address, timeout=10)
             for _ in range(MAX_CLIENTS + 20)]
    try:
        cut = set()
        for i, sock in enumerate(flood):
            try:
                sock.sendall(WAKE)
            except (ConnectionResetError, BrokenPipeError):  # cut before it could ask
                cut.add(i)
        answers = []
        for i, sock in enumerate(flood):
            try:
                answers.append(b"" if i in cut else sock.recv(100))
            except ConnectionResetError:
                answers.append(b"")
        # some were closed unanswered while the others were served; every answer a 204
        assert all(a == b"" or a.startswith(b"HTTP/1.1 204") for a in answers)
    finally:
        for sock in flood:
            sock.close()
    assert 1 <= woken.count <= MAX_CLIENTS + 20
    before = woken.count
    # the flood's last connections may still hold their places for a moment (the listener
    # has not yet read that they closed): a wake then is cut, and the next one is served
    assert served_soon(server.address).startswith(b"HTTP/1.1 204")
    assert woken.count == before + 1


def served_soon(address: tuple[str, int], seconds: float = 5.0) -> bytes:
    """A wake's answer once the listener serves again; b"" if it never does in time."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = ask(address, WAKE)
        except (ConnectionResetError, BrokenPipeError):
            answer = b""
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


def test_a_port_in_use_is_refused_when_the_listener_is_made() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(OSError):
            WakeListener(taken.getsockname(), lambda: None)


def test_close_stops_the_thread_and_frees_the_port() -> None:
    server = WakeListener(("127.0.0.1", 0), lambda: None)
    server.start()
    address = server.address
    server.close()
    server.close()  # twice is harmless
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=2).close()
