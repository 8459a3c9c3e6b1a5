"""Latency of one move through ``relaybot run`` (issue 29), run by hand (see bench/README.md).

    python -m bench.latency                # 100 mails, SQLite and PostgreSQL (~1 minute)
    python -m bench.latency --smoke        # 3 mails each, a few seconds (the test suite)

A real Dovecot, the aiosmtpd sink in a child process and ``relaybot run`` as the operator
starts it (a subprocess, IMAP IDLE, the default settings). One game between two members;
each move mail is APPENDed to the bot's INBOX when the forward of the previous one has
reached the sink, so exactly one mail is in flight. The figure per mail is from the start
of its APPEND to the moment the sink accepted the forward to the opponent (both clocks are
the system's monotonic clock, shared by the processes). Prints p50, p90, p99 and max per
backend against the targets (p50 < 50 ms, p99 < 200 ms); missed targets are printed, not
failed. The exit status is 1 when a forward did not arrive at all.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.relay import BenchGame, Member, make_config, move_mail, random_game
from relaybot.app.runner import run_once
from relaybot.app.service import start_mails
from relaybot.club.admin import GameInput, MemberInput, add_member, create_game
from relaybot.core import tokens
from relaybot.store.db import Store, migrate
from tests.servers.dovecot import Account, Dovecot, free_port
from tests.servers.postgres import pg_schema_url

TARGET_P50_MS = 50.0
TARGET_P99_MS = 200.0
PLAYER_DOMAIN = "players.example"


# -- the sink: tells the parent the moment each mail was accepted -------------------------


def _sink_child(conn: Connection, port: int) -> None:
    """An aiosmtpd sink that sends (monotonic time, recipients, kind) for each mail."""
    from aiosmtpd.controller import Controller

    class Handler:
        async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
            accepted = time.monotonic()
            head = bytes(envelope.original_content or b"").split(b"\r\n\r\n", 1)[0]
            kind = ""
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"x-relaybot-kind:"):
                    kind = line.split(b":", 1)[1].strip().decode()
            conn.send((accepted, list(envelope.rcpt_tos), kind))
            return "250 OK"

    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    conn.send("ready")
    try:
        conn.recv()  # anything: stop
    except EOFError:
        pass
    finally:
        controller.stop()


class Sink:
    """The timing sink in a forked child (its event loop never waits on ours)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self.host, self.port = "127.0.0.1", free_port()
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_sink_child, args=(child, self.port), daemon=True)
        self._proc.start()
        child.close()
        if not self._conn.poll(30) or self._conn.recv() != "ready":
            raise RuntimeError("SMTP sink did not start")

    def wait_for(self, rcpt: str, kind: str, timeout: float) -> float | None:
        """The acceptance time of the next mail of ``kind`` to ``rcpt`` (others skipped)."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            if not self._conn.poll(left):
                return None
            accepted, rcpts, got = self._conn.recv()
            if got == kind and rcpt in rcpts:
                return float(accepted)
        return None

    def drain(self) -> None:
        """Forget what was accepted so far."""
        while self._conn.poll(0):
            self._conn.recv()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.send("stop")
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()


# -- the bench ----------------------------------------------------------------------------


@dataclass
class LatencyResult:
    backend: str
    ms: list[float] = field(default_factory=list)
    lost: int = 0
    problems: list[str] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile (nearest rank) of the latencies in milliseconds."""
        if not self.ms:
            return 0.0
        ranked = sorted(self.ms)
        return ranked[min(len(ranked) - 1, max(0, round(p / 100 * len(ranked)) - 1))]


def _club(store: Store, cfg: Any, plies: int, seed: int, start: datetime) -> BenchGame:
    """Two members and one chess game of ``plies`` random moves to play."""
    members = [Member("Sato, Hanako", f"sato@{PLAYER_DOMAIN}", "ja", "Asia/Tokyo"),
               Member("Brown, Tom", f"brown@{PLAYER_DOMAIN}", "en", "Europe/London")]
    key = cfg.bot.token_keys()[0]
    local, domain = cfg.bot.address.split("@")
    with store.session() as session:
        ids = []
        for m in members:
            member = add_member(session, cfg, MemberInput(m.name, m.address, lang=m.lang,
                                                          tz=m.tz), start)
            member.digest = "off"
            session.flush()
            ids.append(member.id)
        game = create_game(session, cfg, GameInput(white=members[0].address,
                                                   black=members[1].address,
                                                   event="Latency 2026"), start)
        start_mails(session, cfg, game, start)
        reply_to = tuple(tokens.format_address(local, domain, game.id,
                                               tokens.issue(key, game.id, str(i)))
                         for i in ids)
        return BenchGame(game.id, members[0], members[1],
                         random_game(random.Random(seed), plies), (reply_to[0], reply_to[1]))


def _env(cfg: Any, url: str, workdir: Path) -> dict[str, str]:
    """``relaybot run``'s environment: the club's settings, nothing else of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    (workdir / "relaybot.toml").touch()
    env.update({
        "RELAYBOT_DATABASE_URL": url, "RELAYBOT_BOT_ADDRESS": cfg.bot.address,
        "RELAYBOT_BOT_TD": cfg.bot.td, "RELAYBOT_BOT_LANGUAGE": cfg.bot.language,
        "RELAYBOT_BOT_TIMEZONE": cfg.bot.timezone, "RELAYBOT_BOT_SECRET": cfg.bot.secret,
        "RELAYBOT_IMAP_HOST": cfg.imap.host, "RELAYBOT_IMAP_PORT": str(cfg.imap.port),
        "RELAYBOT_IMAP_USER": cfg.imap.user, "RELAYBOT_IMAP_PASSWORD": cfg.imap.password,
        "RELAYBOT_SMTP_HOST": cfg.smtp.host, "RELAYBOT_SMTP_PORT": str(cfg.smtp.port),
        "RELAYBOT_CONFIG": str(workdir / "relaybot.toml"),
        "PYTHONPATH": os.pathsep.join(p for p in (str(Path(__file__).resolve().parent.parent),
                                                  os.environ.get("PYTHONPATH", "")) if p),
    })
    return env


@contextlib.contextmanager
def _service(env: dict[str, str], workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``relaybot run`` until the block ends (SIGTERM), its log in ``workdir``."""
    log = (workdir / "run.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run"], cwd=workdir,
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def _append(account: Account, raw: bytes, when: datetime) -> None:
    with account.client(None) as imap:
        imap.append("INBOX", raw, msg_time=when)


def latency_bench(server: Dovecot, sink: Sink, backend: str, mails: int,
                  seed: int) -> LatencyResult:
    """``mails`` moves of one game through ``relaybot run`` on ``backend``."""
    result = LatencyResult(backend)
    workdir = Path(tempfile.mkdtemp(prefix="relaybot-latency-"))
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    try:
        with contextlib.ExitStack() as stack:
            url = (f"sqlite:///{workdir / 'relaybot.db'}" if backend == "sqlite"
                   else stack.enter_context(pg_schema_url("bench")))
            account = server.new_account(f"latency-{backend}")
            cfg = make_config(url, account, sink.host, sink.port)
            store = Store.open(url)
            migrate(store.engine)
            game = _club(store, cfg, mails, seed, start)
            run_once(store, cfg, start)  # the start mails, before the clock runs
            store.dispose()
            sink.drain()
            # one connection kept open for the APPENDs, as an MTA's delivery agent would
            with _service(_env(cfg, url, workdir), workdir) as proc, \
                    account.client(None) as imap:
                time.sleep(1.0)  # let it connect and settle into IDLE
                for ply in range(mails):
                    if proc.poll() is not None:
                        result.problems.append(f"relaybot run exited ({proc.returncode})")
                        break
                    when = datetime.now(UTC).replace(microsecond=0)
                    raw = move_mail(game, ply, when)
                    opponent = game.black if ply % 2 == 0 else game.white
                    t0 = time.monotonic()
                    imap.append("INBOX", raw, msg_time=when)
                    accepted = sink.wait_for(opponent.address, "move", timeout=30)
                    if accepted is None:
                        result.lost += 1
                        result.problems.append(f"ply {ply + 1}: no forward within 30 s")
                        break
                    result.ms.append(1000 * (accepted - t0))
    finally:
        if os.environ.get("RELAYBOT_BENCH_KEEP"):
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _row(r: LatencyResult) -> str:
    p50, p90, p99 = (r.percentile(p) for p in (50, 90, 99))
    peak = max(r.ms, default=0.0)
    verdict = ("ok" if p50 < TARGET_P50_MS and p99 < TARGET_P99_MS else "MISSED")
    return (f"  {r.backend:<10} {len(r.ms):>4} mails  p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  "
            f"p99 {p99:7.1f} ms  max {peak:7.1f} ms  mean "
            f"{statistics.fmean(r.ms) if r.ms else 0.0:7.1f} ms   targets p50 < "
            f"{TARGET_P50_MS:.0f}, p99 < {TARGET_P99_MS:.0f}: {verdict}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--smoke", action="store_true", help="3 mails per backend (the tests)")
    args = parser.parse_args(argv)
    mails = 3 if args.smoke else args.mails
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    results = []
    sink = Sink()  # first: forks before Dovecot's threads exist
    try:
        with Dovecot() as server:
            for backend in backends:
                results.append(latency_bench(server, sink, backend, mails, args.seed))
    finally:
        sink.stop()
    print(f"relaybot latency bench: `relaybot run` (IMAP IDLE), one move mail at a time, "
          f"APPEND -> the forward accepted by the SMTP sink, {mails} mails")
    for r in results:
        print(_row(r))
    problems = [f"{r.backend}: {p}" for r in results for p in r.problems]
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
