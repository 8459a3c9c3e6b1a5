"""T1 crash anywhere, T6 poison mail, T7 a locked or vanished database (RELIABILITY.md)."""

from __future__ import annotations

import sqlite3
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from relaybot.store.models import InboundFailure
from tests.integration.relay_harness import TD, Club, Player
from tests.reliability.harness import (
    assert_lint,
    assert_sound,
    captured_ids,
    crash,
    end_state,
    folder_ids,
    kinds,
    marked,
    message_id,
    plies,
    restart,
    run_bot,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

CRASH_POINTS = ["after_fetch", "before_commit", "after_commit", "after_outbox_insert",
                "after_smtp_250", "after_mark_sent", "after_move"]
OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
UCI = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"]


def record(sans: list[str]) -> str:
    return " ".join(f"{i // 2 + 1}. {s}" if i % 2 == 0 else s for i, s in enumerate(sans))


def two_players(club: Club) -> tuple[Player, Player, str]:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    return white, black, club.game(white, black)


def _t1(club: Club, test_id: str) -> None:
    white, black, gid = two_players(club)
    delivered: list[bytes] = []
    resent = 0
    for i, point in enumerate(CRASH_POINTS):
        mover = white if i % 2 == 0 else black
        delivered.append(mover.send(record(OPENING[: i + 1])))
        before = Counter(captured_ids(club))
        crash(club, point)
        restart(club)
        assert plies(club, gid) == UCI[: i + 1], point  # exactly the moves expected
        assert folder_ids(club, "INBOX") == [], point  # INBOX keeps no processed mail
        again = Counter(captured_ids(club)) - before
        dupes = [m for m, n in again.items() if n > 1]
        if point == "after_smtp_250":
            # G4: the mail between its 250 and mark-sent, and any mail accepted meanwhile
            # on the other connections (smtp.connections), each resent once, same Message-ID
            assert 1 <= len(dupes) <= club.cfg.smtp.connections, again
            assert max(again.values()) == 2, again
            resent = len(dupes)
        else:
            assert dupes == [], (point, again)
    restart(club)  # one more cycle changes nothing
    state = end_state(club, delivered)
    assert_sound(state, duplicates=resent)
    assert state.applied == len(CRASH_POINTS)
    assert_lint(club)
    state.report(test_id, points=len(CRASH_POINTS))


@pytest.mark.slow
def test_t01_crash_at_every_point_then_restart(club: Club) -> None:
    _t1(club, "T1")


@pytest.mark.slow
def test_t01_crash_at_every_point_then_restart_postgresql(pg_club: Club) -> None:
    _t1(pg_club, "T1/pg")


def test_t06_poison_mail_quarantined_after_three_tries_one_alert_later_mail_flows(
    club: Club,
) -> None:
    white, black, gid = two_players(club)
    poison = white.compose("1. e4")
    poison.replace_header("Message-ID", "<poison-7@example.jp>")
    club.deliver(poison.as_bytes())
    good = white.send("1. e4")  # a later mail of the same cycle
    delivered = [poison.as_bytes(), good]
    fault = "process:raise:poison-7"
    for attempt in (1, 2):
        restart(club, env={"RELAYBOT_FAULT_AT": fault})
        assert folder_ids(club, "INBOX") == ["poison-7@example.jp"], attempt  # G1: it stays
        assert plies(club, gid) == ["e2e4"]  # later mail flows meanwhile
    restart(club, env={"RELAYBOT_FAULT_AT": fault})
    assert folder_ids(club, "INBOX") == []
    assert folder_ids(club, "Quarantine") == ["poison-7@example.jp"]
    for _ in range(2):  # nothing more happens to it: one alert only
        restart(club, env={"RELAYBOT_FAULT_AT": fault})
    delivered.append(black.send("1. e4 e5"))
    restart(club, env={"RELAYBOT_FAULT_AT": fault})
    assert plies(club, gid) == ["e2e4", "e7e5"]
    alerts = [k for k in kinds(club, TD) if k == "quarantine"]
    assert len(alerts) == 1
    with club.store.session() as s:
        failure = s.scalars(select(InboundFailure)).one()
        assert failure.attempts == 3 and "InjectedFault" in failure.last_error
    state = end_state(club, delivered)
    assert_sound(state)
    assert_lint(club)
    state.report("T6", quarantined=1, alerts=len(alerts))


def _t7_sqlite(club: Club, tmp_path: Path) -> None:
    white, _black, gid = two_players(club)
    delivered = [white.send("1. e4")]
    mark = tmp_path / "mark"
    db_file = club.db_url.removeprefix("sqlite:///")
    url = f"{club.db_url}?timeout=1"
    # the bot pauses after FETCH; meanwhile another connection takes the write lock
    result: list[subprocess.CompletedProcess[str]] = []
    bot = threading.Thread(target=lambda: result.append(run_bot(
        club, "after_fetch:sleep:1", mark=mark, env={"RELAYBOT_DATABASE_URL": url})))
    holder = sqlite3.connect(db_file, timeout=10)
    bot.start()
    try:
        assert wait_until(lambda: marked(mark, "after_fetch"), 30)
        holder.execute("BEGIN IMMEDIATE")
        # busy timeout 1 s: the bot's transaction fails, rolls back, and is retried
        wait_until(lambda: False, 3.5)
        assert folder_ids(club, "INBOX") == [message_id(delivered[0])]  # until commit
        assert holder.execute("SELECT count(*) FROM inbound").fetchone()[0] == 0
    finally:
        holder.rollback()
        holder.close()
    bot.join(60)
    assert result and result[0].returncode == 0, result[0].stderr if result else "hung"
    assert "retrying" in result[0].stderr  # rolled back and retried, never quarantined
    assert plies(club, gid) == ["e2e4"]
    assert folder_ids(club, "INBOX") == []
    with club.store.session() as s:
        assert s.scalars(select(InboundFailure)).all() == []
    state = end_state(club, delivered)
    assert_sound(state)
    state.report("T7", lock_held_s=3.5, retried=1)


def test_t07_sqlite_write_lock_held_rolls_back_and_retries(club: Club, tmp_path: Path) -> None:
    _t7_sqlite(club, tmp_path)


def test_t07_postgresql_backend_terminated_mid_transaction(
    pg_club: Club, tmp_path: Path
) -> None:
    club = pg_club
    white, _black, gid = two_players(club)
    delivered = [white.send("1. e4")]
    mark = tmp_path / "mark"
    result: list[subprocess.CompletedProcess[str]] = []
    bot = threading.Thread(target=lambda: result.append(run_bot(
        club, "before_commit:sleep:2", mark=mark)))
    bot.start()
    admin = create_engine(club.db_url, isolation_level="AUTOCOMMIT")
    try:
        assert wait_until(lambda: marked(mark, "before_commit"), 30)
        assert folder_ids(club, "INBOX") == [message_id(delivered[0])]
        with admin.connect() as conn:
            # only the transactions on this club's schema (they hold locks on its tables):
            # other tests, run beside this one (pytest -n), share the database
            killed = conn.execute(text(
                "SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a "
                "WHERE a.state = 'idle in transaction' AND a.pid <> pg_backend_pid() "
                "AND a.pid IN (SELECT l.pid FROM pg_locks l "
                "JOIN pg_class c ON c.oid = l.relation "
                "WHERE l.locktype = 'relation' "
                "AND l.database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database()) "
                "AND c.relnamespace = current_schema()::regnamespace)"
            )).scalars().all()
        assert killed and all(killed)
    finally:
        admin.dispose()
    bot.join(60)
    assert result and result[0].returncode == 0, result[0].stderr if result else "hung"
    assert "retrying" in result[0].stderr
    assert plies(club, gid) == ["e2e4"]
    assert folder_ids(club, "INBOX") == []
    state = end_state(club, delivered)
    assert_sound(state)
    state.report("T7/pg", backends_killed=len(killed), retried=1)
