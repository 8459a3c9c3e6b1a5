"""One instance against two, and one host serving two clubs (issue 31), run by hand.

    python -m bench.scale                      # 40 games x 6 plies = 240 move mails each
    python -m bench.scale --games 10 --plies 2 # a quick look

Every scenario runs real ``relaybot run`` services (subprocesses, the real clock) against
a real Dovecot, the aiosmtpd sink (in a child process, stamping each mail as it arrives)
and a fresh schema on the test PostgreSQL (127.0.0.1:5432):

- **one instance**: one ``relaybot run`` on the club's mailbox and schema;
- **two instances**: two ``relaybot run`` on the same mailbox and schema (G9: both IDLE,
  the inbound claims make each mail count once, the outbox is shared by SKIP LOCKED);
- **two clubs, one host**: the same games split between two clubs, each with its own
  mailbox, bot address, secret and schema, one ``relaybot run`` each.

Mail arrives in rounds: one ply of every game at once (one MULTIAPPEND), then the round
waits until the sink has every forward. Printed per scenario: move mails per second
(mails over the rounds' wall time) and the APPEND-to-forward latency (from the end of the
APPEND to the sink's receipt of the forward to the opponent), p50 and p99, and each
figure's ratio to one instance. Two cores also carry Dovecot, PostgreSQL and the sink, so
a second instance cannot double anything here: what it buys is availability.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path

from bench.child import Child
from bench.relay import BenchGame, Member, append_all, make_config, move_mail, random_game
from relaybot.app.runner import run_once
from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import Config
from relaybot.core import tokens
from relaybot.store.db import Store, migrate
from tests.servers.dovecot import Account, Dovecot
from tests.servers.postgres import pg_schema_url

PLAYER_DOMAIN = "players.example"


# -- the sink, in a child process, stamping each mail ------------------------------------


def _sink_child(conn: Connection) -> None:
    """Run the sink until told to stop; ``take`` answers [(time, recipient, kind)]."""
    from tests.servers.smtp_sink import SmtpSink

    sink = SmtpSink()
    stamps: list[tuple[float, str, str]] = []
    seen = 0
    sink.start()
    conn.send((sink.host, sink.port))
    try:
        while True:
            if not conn.poll(0.005):
                got = sink.captured
                now = time.time()
                for c in got[seen:]:  # stamped within 5 ms of its arrival
                    stamps += [(now, r, str(c.parsed["X-Relaybot-Kind"])) for r in c.rcpt_tos]
                seen = len(got)
                continue
            if conn.recv() != "take":
                break
            conn.send(stamps)
            stamps = []
    finally:
        sink.stop()


class StampingSink(Child):
    """The aiosmtpd sink in a forked child that notes when each mail arrived."""

    def __init__(self) -> None:
        super().__init__(_sink_child)
        self.host, self.port = self.hello

    def take(self) -> list[tuple[float, str, str]]:
        """(arrival time, recipient, X-Relaybot-Kind) of every mail since the last call."""
        self._conn.send("take")
        stamps: list[tuple[float, str, str]] = self._conn.recv()
        return stamps



# -- clubs -------------------------------------------------------------------------------


@dataclass
class BenchClub:
    """A club's config, store and games; ``workdir`` holds its services' logs."""

    name: str
    cfg: Config
    store: Store
    account: Account
    games: list[BenchGame]
    workdir: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        """The environment of a ``relaybot run`` on this club."""
        c = self.cfg
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
        (self.workdir / "relaybot.toml").touch()
        env.update({
            "RELAYBOT_CONFIG": str(self.workdir / "relaybot.toml"),
            "RELAYBOT_DATABASE_URL": c.database.url,
            "RELAYBOT_BOT_ADDRESS": c.bot.address, "RELAYBOT_BOT_TD": c.bot.td,
            "RELAYBOT_BOT_LANGUAGE": c.bot.language, "RELAYBOT_BOT_TIMEZONE": c.bot.timezone,
            "RELAYBOT_BOT_SECRET": c.bot.secret,
            "RELAYBOT_IMAP_HOST": c.imap.host, "RELAYBOT_IMAP_PORT": str(c.imap.port),
            "RELAYBOT_IMAP_USER": c.imap.user, "RELAYBOT_IMAP_PASSWORD": c.imap.password,
            "RELAYBOT_SMTP_HOST": c.smtp.host, "RELAYBOT_SMTP_PORT": str(c.smtp.port),
            "RELAYBOT_LOG_LEVEL": "WARNING",
        })
        return env

    def start(self, instances: int) -> None:
        for i in range(instances):
            log = (self.workdir / f"run-{i}.log").open("wb")
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "relaybot.cli", "run"], cwd=self.workdir,
                env=self.env(), stdout=log, stderr=subprocess.STDOUT))

    def stop(self) -> None:
        for proc in self.procs:
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs = []


def set_up(name: str, url: str, account: Account, sink: StampingSink, n_games: int,
           plies: int, rng: random.Random, start: datetime, workdir: Path) -> BenchClub:
    """A club with ``n_games`` games, its start mails sent (one ``run_once``)."""
    cfg = make_config(url, account, sink.host, sink.port)
    bot = replace(cfg.bot, address=f"{name}@club.example", td=f"td-{name}@club.example")
    cfg = replace(cfg, bot=bot)
    store = Store.open(url)
    migrate(store.engine)
    games: list[BenchGame] = []
    key = cfg.bot.token_keys()[0]
    local, domain = cfg.bot.address.split("@")
    with store.session() as session:
        members = []
        for i in range(2 * n_games):
            m = Member(f"Player {name} {i:04d}", f"{name}-p{i:04d}@{PLAYER_DOMAIN}", "en",
                       "Europe/London")
            row = add_member(session, cfg, MemberInput(m.name, m.address, lang=m.lang,
                                                       tz=m.tz), start)
            row.digest = "off"  # the relay is measured here
            session.flush()
            members.append(replace(m, member_id=row.id))
        for g in range(n_games):
            white, black = members[2 * g], members[2 * g + 1]
            game = create_game(session, cfg, GameInput(white=white.address,
                                                       black=black.address), start)
            start_mails(session, cfg, game, start)
            reply_to = tuple(tokens.format_address(local, domain, game.id, tokens.issue(
                key, game.id, str(p.member_id))) for p in (white, black))
            games.append(BenchGame(game.id, white, black, random_game(rng, plies),
                                   (reply_to[0], reply_to[1])))
    while run_once(store, cfg, start).send.sent:
        pass
    club_dir = workdir / name
    club_dir.mkdir(parents=True, exist_ok=True)
    return BenchClub(name, cfg, store, account, games, club_dir)


# -- one scenario ------------------------------------------------------------------------


@dataclass
class Figures:
    name: str
    mails: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.mails / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextlib.contextmanager
def schemas(n: int) -> Iterator[list[str]]:
    """``n`` fresh schemas on the test PostgreSQL, dropped afterwards."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(pg_schema_url("bench")) for _ in range(n)]


def scenario(name: str, server: Dovecot, sink: StampingSink, clubs: int, instances: int,
             n_games: int, plies: int, seed: int, workdir: Path,
             timeout: float = 120.0) -> Figures:
    """Run one scenario; ``n_games`` are split between ``clubs`` clubs."""
    figures = Figures(name)
    rng = random.Random(seed)
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    with schemas(clubs) as urls:
        club_list = [set_up(f"c{k}{name[:3]}", url, server.new_account(f"scale{k}"), sink,
                            n_games // clubs, plies, rng, start, workdir / name)
                     for k, url in enumerate(urls)]
        sink.take()  # the start mails
        try:
            for club in club_list:
                club.start(instances)
            time.sleep(3.0)  # the services are up and IDLE (not timed)
            sink.take()
            for ply in range(plies):
                when = start + timedelta(minutes=ply + 1)
                appended: dict[str, float] = {}
                t0 = time.time()
                for club in club_list:
                    append_all(club.account, [(move_mail(g, ply, when), when)
                                              for g in club.games])
                    done = time.time()
                    for g in club.games:
                        appended[(g.black if ply % 2 == 0 else g.white).address] = done
                forwards: dict[str, float] = {}
                deadline = time.time() + timeout
                while len(forwards) < len(appended) and time.time() < deadline:
                    time.sleep(0.02)
                    for stamp, rcpt, kind in sink.take():
                        if kind == "move" and rcpt in appended:
                            forwards.setdefault(rcpt, stamp)
                if len(forwards) < len(appended):
                    figures.problems.append(f"ply {ply + 1}: {len(appended) - len(forwards)} "
                                            "forwards missing")
                figures.seconds += max(forwards.values(), default=time.time()) - t0
                figures.mails += len(forwards)
                figures.latencies += [forwards[r] - appended[r] for r in forwards]
        finally:
            for club in club_list:
                club.stop()
                club.store.dispose()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--plies", type=int, default=6)
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args(argv)
    sink = StampingSink()  # first: forks before any thread exists
    workdir = Path(tempfile.mkdtemp(prefix="relaybot-scale-"))
    rows: list[Figures] = []
    try:
        with Dovecot() as server:
            for name, clubs, instances in (("one instance", 1, 1), ("two instances", 1, 2),
                                           ("two clubs, one host", 2, 1)):
                rows.append(scenario(name, server, sink, clubs, instances, args.games,
                                     args.plies, args.seed, workdir))
    finally:
        sink.stop()
    base = rows[0]
    print(f"\n{args.games} games x {args.plies} plies = {args.games * args.plies} move mails "
          f"per scenario; {os.cpu_count()} cores (Dovecot, PostgreSQL and the sink too)\n")
    print("| scenario | mails/s | ratio | p50 latency | p99 latency | p50 ratio |")
    print("|---|---|---|---|---|---|")
    for f in rows:
        print(f"| {f.name} | {f.rate:.1f} | {f.rate / base.rate if base.rate else 0:.2f} | "
              f"{f.pct(0.5):.2f} s | {f.pct(0.99):.2f} s | "
              f"{f.pct(0.5) / base.pct(0.5) if base.latencies else 0:.2f} |")
    problems = [f"{f.name}: {p}" for f in rows for p in f.problems]
    for p in problems:
        print("PROBLEM", p)
    print(f"(logs in {workdir}; median of {len(base.latencies)} latencies, "
          f"{statistics.mean(base.latencies) if base.latencies else 0:.2f} s mean for one)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
