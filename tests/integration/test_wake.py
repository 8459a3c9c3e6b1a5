"""``relaybot run`` woken by Dovecot's push (issue 29): the shipped Lua script on a real
Dovecot POSTs to ``[imap] wake_listen`` when mail lands, and the service polls at once.

The poll interval is long (290 s) in these tests, so a mail found within the test was found
by the push or by IDLE's notice; the ``poll`` debug event says which (``after``).
Nothing here is timed: what is checked is what woke each poll and what became of the mail.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.relay_harness import Club, Player
from tests.servers.dovecot import Dovecot, DovecotError, free_port
from tests.servers.smtp_sink import SmtpSink
from tests.servers.wake_client import WAKE, ask

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def pushing() -> Iterator[tuple[Dovecot, str]]:
    """A Dovecot running deploy/dovecot/relaybot-wake.lua, and the address its pushes go
    to: each test's ``relaybot run`` listens there in turn."""
    wake = f"127.0.0.1:{free_port()}"
    try:
        server = Dovecot(wake_url=f"http://{wake}/wake")
        server.start()
    except DovecotError as exc:
        pytest.fail(f"cannot start the test Dovecot with the push plugin: {exc}",
                    pytrace=False)
    try:
        yield server, wake
    finally:
        server.close()


@pytest.fixture
def push_club(pushing: tuple[Dovecot, str], smtp_sink: SmtpSink,
              tmp_path: Path) -> Iterator[Club]:
    server, _wake = pushing
    if not server.running:
        server.start()
    club = Club(server.new_account(), smtp_sink, f"sqlite:///{tmp_path / 'club.db'}", tmp_path)
    yield club
    club.store.dispose()


class Running:
    """``relaybot run`` in a subprocess, its log (JSON lines, debug) in a file."""

    def __init__(self, club: Club, wake: str) -> None:
        (club.workdir / "relaybot.toml").touch()
        self.log_path = club.workdir / "run.log"
        self._log = self.log_path.open("wb")
        env = {**club.env(), "RELAYBOT_IMAP_POLL_SECONDS": "290",
               "RELAYBOT_IMAP_WAKE_LISTEN": wake,
               "RELAYBOT_LOG_LEVEL": "debug", "RELAYBOT_LOG_FORMAT": "json"}
        self.proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run"],
                                     cwd=club.workdir, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def events(self) -> list[dict[str, Any]]:
        """Every JSON line logged so far."""
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def polls(self) -> list[str]:
        """What woke each poll so far (the ``after`` of each ``poll`` event)."""
        return [e["after"] for e in self.events() if e["event"] == "poll"]

    def found_by(self, uid: int) -> str:
        """What woke the poll that processed mail ``uid``."""
        woke = None
        for e in self.events():
            if e["event"] == "poll":
                woke = e["after"]
            elif e["event"] == "inbound" and e.get("uid") == uid:
                assert woke is not None
                return str(woke)
        raise AssertionError(f"uid {uid} was not processed:\n{self.log_path.read_text()}")

    def wait_for(self, what: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until ``what()`` holds (a bound for a broken run, not a speed check)."""
        end = time.monotonic() + timeout
        while not what():
            assert self.proc.poll() is None, self.log_path.read_text()
            assert time.monotonic() < end, self.log_path.read_text()
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGTERM, then its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(30)
        finally:
            self._log.close()
        return status


def _ask(address: str, request: bytes) -> bytes:
    """``request`` to the wake listener at ``address`` ("HOST:PORT"); its whole answer."""
    host, port = address.rsplit(":", 1)
    return ask((host, int(port)), request)




def _started(club: Club, wake: str) -> Running:
    """``relaybot run`` serving, its first poll (at connect) logged."""
    run = Running(club, wake)
    run.wait_for(lambda: "connect" in run.polls())
    return run


def _game_served(club: Club, wake: str) -> tuple[Player, Player, Running]:
    """White and Black in one game, and ``relaybot run`` serving it with the listener."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.game(white, black)
    return white, black, _started(club, wake)


def test_a_mail_is_picked_up_because_of_the_push(
        push_club: Club, pushing: tuple[Dovecot, str]) -> None:
    _server, wake = pushing
    white, black, run = _game_served(push_club, wake)
    try:
        # a wake with no mail behind it (forged, or Dovecot's for mail already taken):
        # one more poll, which finds nothing
        assert _ask(wake, WAKE).startswith(b"HTTP/1.1 204")
        run.wait_for(lambda: run.polls().count("push") >= 1)
        before = len(black.inbox())
        white.send("1. e4")
        run.wait_for(lambda: len(black.inbox()) > before)
        inbound = [e for e in run.events() if e["event"] == "inbound"]
        assert [e["outcome"] for e in inbound] == ["move"]
        # the poll that found it was started by Dovecot's push, not by IDLE's notice
        # (half a second later) nor by the poll interval (290 s)
        assert run.found_by(inbound[0]["uid"]) == "push"
        run.wait_for(lambda: push_club.account.uids() == [])  # moved out of INBOX
    finally:
        assert run.stop() == 0
    assert "listening for the mail server's wake-up" in run.log_path.read_text()


def test_garbage_and_forged_wakes_do_no_harm(
        push_club: Club, pushing: tuple[Dovecot, str]) -> None:
    _server, wake = pushing
    white, black, run = _game_served(push_club, wake)
    host, port = wake.rsplit(":", 1)
    silent = socket.create_connection((host, int(port)), timeout=10)  # says nothing
    try:
        for request, status in [(b"GET /wake HTTP/1.1\r\n\r\n", b"405"),
                                (b"POST /admin HTTP/1.1\r\n\r\n", b"404"),
                                (b"\x16\x03\x01\x00\xff\x01\x00\x00\xfb\x03\x03" * 10, b""),
                                (b"POST /wake HTTP/1.1\r\nX: " + b"y" * 20000, b"431"),
                                (b"\r\n\r\n", b"400")]:
            answer = _ask(wake, request)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 " + status), answer
        for _ in range(50):  # a flood of forged wakes: a few polls, held to the budget
            assert _ask(wake, WAKE).startswith(b"HTTP/1.1 204")
        run.wait_for(lambda: "push" in run.polls())
        # a real mail still goes through, found by the push
        before = len(black.inbox())
        white.send("1. e4")
        run.wait_for(lambda: len(black.inbox()) > before)
        [inbound] = [e for e in run.events() if e["event"] == "inbound"]
        assert inbound["outcome"] == "move"
        assert run.found_by(inbound["uid"]) == "push"
        assert run.proc.poll() is None  # still serving
    finally:
        silent.close()
        assert run.stop() == 0
    events = run.events()
    # nothing was processed but the one move, and no error was logged
    assert [e["outcome"] for e in events if e["event"] == "inbound"] == ["move"]
    assert not [e for e in events if e["level"] == "error"]
    # the refused requests are told once as a warning (a wrong URL in Dovecot's settings
    # shows), the rest at debug
    refused = [e for e in events if e["event"] == "wake_refused"]
    assert [e["level"] for e in refused].count("warning") == 1
    assert len(refused) >= 4
    # at most a budget's worth of polls came of 50 wakes (the flood coalesced)
    assert run.polls().count("push") <= 50


def test_without_the_push_idle_still_finds_the_mail(club: Club) -> None:
    """A listener that no push ever reaches (a Dovecot without the plugin): IDLE's notice
    finds the mail, as it always did."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.game(white, black)
    run = _started(club, f"127.0.0.1:{free_port()}")
    try:
        before = len(black.inbox())
        white.send("1. e4")
        run.wait_for(lambda: len(black.inbox()) > before)
        [inbound] = [e for e in run.events() if e["event"] == "inbound"]
        assert run.found_by(inbound["uid"]) == "news"
    finally:
        assert run.stop() == 0


def test_a_wake_port_in_use_is_one_line_and_exit_2(club: Club) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = club.cli("run", extra_env={"RELAYBOT_IMAP_WAKE_LISTEN": f"127.0.0.1:{port}"},
                        check=False)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f"imap.wake_listen = 127.0.0.1:{port}: cannot listen there" in proc.stderr
