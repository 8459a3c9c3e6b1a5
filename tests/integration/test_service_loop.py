"""``relaybot run``: IDLE wakes it, SIGTERM stops it, a second instance is refused (G9)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.integration.relay_harness import Club, body_of

pytestmark = pytest.mark.integration


def _start(club: Club) -> subprocess.Popen[str]:
    (club.workdir / "relaybot.toml").touch()
    env = {**club.env(), "RELAYBOT_IMAP_POLL_SECONDS": "2"}
    return subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run"], cwd=club.workdir,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait(predicate, timeout: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def _service(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.game(white, black)
    proc = _start(club)
    try:
        assert proc.stderr is not None
        assert "serving" in proc.stderr.readline()  # it holds the instance lock now
        second = club.cli("run", "--once", check=False)
        if club.db_url.startswith("sqlite"):
            # a second instance on the same SQLite database refuses with one clear line
            assert second.returncode == 2
            assert "already running" in second.stderr and len(second.stderr.splitlines()) == 1
            assert "several need PostgreSQL" in second.stderr
        else:
            # G9 on PostgreSQL: it runs its cycle and leaves the scheduled work to the leader
            assert second.returncode == 0, second.stderr
            assert "scheduled: left to the leader" in second.stdout
        # the running service picks the move up by itself (IDLE / poll) and relays it
        before = len(black.inbox())
        white.send("1. e4")
        assert _wait(lambda: len(black.inbox()) > before), proc.stderr
        assert "1. e4" in body_of(black.inbox()[-1])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert proc.returncode == 0
    # once stopped, the lock is free again
    assert club.cli("run", "--once", check=False).returncode == 0


def test_g9_service_relays_stops_on_sigterm_and_refuses_a_second_instance(club: Club) -> None:
    _service(club)


def test_g9_same_on_postgresql(pg_club: Club) -> None:
    _service(pg_club)


def test_g9_a_lost_postgresql_leadership_is_noticed_and_taken_again(pg_club: Club) -> None:
    from sqlalchemy import text

    from relaybot.store.locks import ADVISORY_KEY, InstanceLock

    lock = InstanceLock(pg_club.store)
    lock.acquire()
    assert lock.leader
    lock.heartbeat()  # held: no complaint
    other = InstanceLock(pg_club.store)
    other.acquire()
    assert not other.leader  # a second instance runs, as a follower
    with pg_club.store.engine.connect() as conn:
        # only this schema's lock: other clubs (or test runs) may share the database
        conn.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_locks "
            "WHERE locktype = 'advisory' AND pid <> pg_backend_pid() AND objsubid = 2 "
            "AND classid::bigint = :k "
            "AND objid::bigint = (hashtext(current_schema())::bigint & 4294967295)"),
            {"k": ADVISORY_KEY})
        conn.commit()
    try:
        # the terminated backend lets go of its lock when it has exited, a moment later:
        # the follower's next tries (one a poll interval in the service) take it over
        taken = False
        for _ in range(100):
            taken = other.lead()
            if taken:
                break
            time.sleep(0.05)
        assert taken  # the follower takes the free leadership over
        assert not lock.lead()  # the old leader notices it lost it, and follows
        assert not lock.leader
    finally:
        other.release()
        lock.release()


def test_g9_the_postgresql_leadership_is_per_schema(pg_club: Club) -> None:
    """G9 per club: another club in another schema of the same database leads its own
    scheduled work; a second instance on the same schema follows."""
    from relaybot.store.db import Store
    from relaybot.store.locks import InstanceLock
    from tests.servers.postgres import pg_schema_url

    first = InstanceLock(pg_club.store)
    first.acquire()
    try:
        second = InstanceLock(pg_club.store)
        second.acquire()
        assert first.leader and not second.leader
        second.release()
        with pg_schema_url() as url:
            other = Store.open(url)
            lock = InstanceLock(other)
            lock.acquire()  # another club's schema: leads its own
            assert lock.leader
            lock.release()
            other.dispose()
    finally:
        first.release()
