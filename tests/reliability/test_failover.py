"""G9 failover (issue 31): two ``relaybot run`` on one PostgreSQL and one mailbox, one of
them killed (SIGKILL) again and again at random points of a batch, then restarted.

The end state is checked as T1 does (harness.end_state): no mail lost on the way in or
out, nothing processed left in INBOX, no outbox row pending; every move applied once,
each of its mails queued once (a resend keeps its Message-ID and its bytes, T14); the
scheduled work (the reminders of games silent for 11 days) done once, and by the new
leader when the old one was killed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.app.outbox import MARK_BATCH
from relaybot.app.service import start_mails
from relaybot.club.new_games import GameInput, create_game
from relaybot.store.locks import LEADER
from relaybot.store.models import Game, Lock, Outbox
from tests.integration.relay_harness import Club, Player
from tests.reliability.harness import (
    assert_lint,
    end_state,
    folder_ids,
    kinds,
    marked,
    plies,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
UCI = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6"]
# where a killed instance is caught: each incarnation sleeps at one of these (once), and
# is killed there if it gets that far before the test loses patience; None: anywhere
POINTS = [None, "after_fetch", "before_commit", "after_commit", "after_smtp_250",
          "after_mark_sent", "after_move"]
GAMES = 3
KILLS_PER_ROUND = 2


def record(sans: list[str]) -> str:
    return " ".join(f"{i // 2 + 1}. {s}" if i % 2 == 0 else s for i, s in enumerate(sans))


@dataclass
class Instance:
    """One ``relaybot run`` process and the crash point it may sleep at."""

    club: Club
    name: str
    proc: subprocess.Popen[str] | None = None
    point: str | None = None
    lives: int = 0
    mark: Path = field(default_factory=Path)
    log: Path = field(default_factory=Path)

    def start(self, rng: random.Random) -> None:
        self.lives += 1
        self.point = rng.choice(POINTS)
        self.mark = self.club.workdir / f"{self.name}-{self.lives}.mark"
        (self.club.workdir / "relaybot.toml").touch()
        env = {**self.club.env(), "RELAYBOT_IMAP_POLL_SECONDS": "1",
               "RELAYBOT_FAULT_MARK": str(self.mark)}
        if self.point is not None:
            env["RELAYBOT_FAULT_AT"] = f"{self.point}:sleep:2"
        self.log = self.club.workdir / f"{self.name}-{self.lives}.log"
        log = self.log.open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run"],
                                     cwd=self.club.workdir, env=env, stdout=log,
                                     stderr=subprocess.STDOUT, text=True)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> int:
        """SIGTERM once it serves (before that, SIGTERM ends Python at once, code -15)."""
        assert self.proc is not None
        wait_until(lambda: self.proc is None or self.proc.poll() is not None
                   or "serving" in self.log.read_text(), 30)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(30)


def _game(club: Club, white: Player, black: Player, when: datetime) -> str:
    """A game and its start mails, queued only: the instances send them."""
    with club.store.session() as session:
        game = create_game(session, club.cfg, GameInput(
            white=white.address, black=black.address, start=when.date()), when)
        start_mails(session, club.cfg, game, when)
        return game.id


def _at_point(instance: Instance) -> bool:
    """The instance sleeps at its crash point now."""
    return instance.point is not None and marked(instance.mark, instance.point)


def _leader_pid(club: Club) -> int | None:
    with club.store.session() as s:
        row = s.get(Lock, LEADER)
        return int(row.holder.split(":")[1]) if row is not None else None


def _done(club: Club, games: list[str], stale: list[str]) -> bool:
    with club.store.session() as s:
        pending = s.scalars(select(Outbox.id).where(Outbox.status == "pending")).all()
        reminded = s.scalars(select(Outbox.game_id).where(Outbox.kind == "reminder")).all()
    return (not pending and set(stale) <= set(reminded)
            and all(plies(club, g) == UCI for g in games)
            and folder_ids(club, "INBOX") == [])


@pytest.mark.slow
def test_g9_two_instances_one_killed_at_random_points_lose_nothing(pg_club: Club) -> None:
    club = pg_club
    rng = random.Random(int(os.environ.get("RELAYBOT_FAILOVER_SEED", "31")))
    # the services run on the real clock: the club's mail is of the last hours
    now = datetime.now(UTC).replace(microsecond=0)
    club.clock = now - timedelta(hours=3)
    pairs = [(club.member(f"White, {i}", f"white{i}@example.org"),
              club.member(f"Black, {i}", f"black{i}@example.org")) for i in range(GAMES)]
    games = [_game(club, w, b, club.clock) for w, b in pairs]
    # a game silent for 11 days: the first leader's sweep owes its reminder (J11)
    quiet = [club.member(f"Quiet, {i}", f"quiet{i}@example.org") for i in range(4)]
    stale = [_game(club, quiet[0], quiet[1], now - timedelta(days=11))]

    a, b = Instance(club, "a"), Instance(club, "b")
    a.start(rng)
    b.start(rng)
    kills: Counter[str] = Counter()
    delivered: list[bytes] = []
    takeovers = 0
    try:
        assert wait_until(lambda: all(p.inbox() for w_b in pairs for p in w_b), 40), \
            "the start mails never went out"
        for ply in range(len(OPENING)):
            for white, black in pairs:
                mover = white if ply % 2 == 0 else black
                delivered.append(mover.send(record(OPENING[: ply + 1]),
                                            at=club.clock + timedelta(minutes=1)))
            for kill in range(KILLS_PER_ROUND):
                takeovers += _kill_one(club, rng, (a, b), stale, quiet, now, kills,
                                       leader_too=ply in (2, 5) and kill == 0)
        assert wait_until(lambda: _done(club, games, stale), 60), "the mail never settled"
    finally:
        codes = [a.stop(), b.stop()]
    assert codes == [0, 0]
    assert takeovers >= 1

    # T1's end state: nothing lost, nothing processed left behind, nothing pending
    state = end_state(club, delivered)
    assert state.lost_in == [] and state.lost_out == []
    assert state.inbox_processed == [] and state.processed_unledgered == []
    assert state.pending == 0
    assert state.applied == GAMES * len(OPENING)
    # each move's mail queued once: every game has the same mail, each kind once per move
    with club.store.session() as s:
        rows = s.scalars(select(Outbox).where(Outbox.game_id.in_(games))).all()
        statuses = s.scalars(select(Game.status).where(Game.id.in_(games))).all()
    assert set(statuses) == {"active"}
    per_game = [Counter(r.kind for r in rows if r.game_id == g) for g in games]
    assert all(c == per_game[0] for c in per_game), per_game
    assert per_game[0]["move"] == len(OPENING), per_game[0]
    # a duplicate is only a resend: the same Message-ID with the same bytes (T14 lint),
    # of a row claimed by the killed instance and accepted before it could mark it (G4)
    assert_lint(club)
    assert state.duplicates <= sum(kills.values()) * MARK_BATCH
    # the scheduled work, once: one reminder per stale game (the members of this test
    # joined this week: their first digest is next week's)
    reminders = [r for r in _all_rows(club) if r.kind == "reminder"]
    assert sorted(r.game_id for r in reminders) == sorted(stale)
    assert len(kinds(club)) == state.out
    state.report("G9/failover", kills=sum(kills.values()), takeovers=takeovers,
                 points="+".join(f"{k}:{v}" for k, v in sorted(kills.items())),
                 reminders=len(reminders))


def _kill_one(club: Club, rng: random.Random, pair: tuple[Instance, Instance],
              stale: list[str], quiet: list[Player], now: datetime, kills: Counter[str],
              *, leader_too: bool) -> int:
    """SIGKILL one instance, at its crash point if it gets there soon, and start it
    again; ``leader_too``: kill the leader, after queuing a sweep's worth of work that
    only the successor can do. Returns 1 for a takeover seen."""
    a, b = pair
    victim = rng.choice([a, b])
    leader = _leader_pid(club)
    if leader_too and leader in (a.pid, b.pid):
        victim = a if leader == a.pid else b
        # a game silent for 11 days: the successor's sweep owes its reminder
        first, second = quiet[len(stale) % len(quiet)], quiet[(len(stale) + 1) % len(quiet)]
        stale.append(_game(club, first, second, now - timedelta(days=11)))
    caught = wait_until(partial(_at_point, victim), rng.uniform(0.2, 2.0))
    kills[victim.point if caught and victim.point else "anywhere"] += 1
    victim.kill()
    took = 0
    if leader == victim.pid:
        survivor = b if victim is a else a
        assert wait_until(lambda: _leader_pid(club) == survivor.pid, 20), (
            f"no takeover after the leader {victim.name} was killed")
        took = 1
    victim.start(rng)
    return took


def _all_rows(club: Club) -> list[Outbox]:
    with club.store.session() as s:
        return list(s.scalars(select(Outbox).order_by(Outbox.id)))
