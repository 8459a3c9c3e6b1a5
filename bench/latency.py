"""Latency of one move through ``relaybot run`` (issue 29), run by hand (see bench/README.md).

    python -m bench.latency                # 100 mails, SQLite and PostgreSQL, with and
                                           # without Dovecot's push (~3 minutes)
    python -m bench.latency --push on      # only with the push (~20 s)
    python -m bench.latency --smoke        # 5 mails each, a few seconds (the test suite)

A real Dovecot, the aiosmtpd sink in a child process and ``relaybot run`` as the operator
starts it (a subprocess, IMAP IDLE, the default settings). With the push (``--push on``,
the default runs both) the Dovecot runs the shipped ``deploy/dovecot/relaybot-wake.lua``
and ``relaybot run`` listens for it (``[imap] wake_listen``); without it, on a Dovecot
without the plugin, IDLE's notice alone tells the bot. One game between two members;
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
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.child import Child
from bench.relay import BenchGame, Member, make_config, move_mail, random_game
from relaybot.app.runner import run_once
from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
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
            accepted, wall = time.monotonic(), time.time()
            head = bytes(envelope.original_content or b"").split(b"\r\n\r\n", 1)[0]
            kind = ""
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"x-relaybot-kind:"):
                    kind = line.split(b":", 1)[1].strip().decode()
            conn.send((accepted, wall, list(envelope.rcpt_tos), kind))
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


class Sink(Child):
    """The timing sink in a forked child (its event loop never waits on ours)."""

    def __init__(self) -> None:
        port = free_port()
        super().__init__(_sink_child, port)
        if self.hello != "ready":
            raise RuntimeError("SMTP sink did not start")
        self.host, self.port = "127.0.0.1", port

    def wait_for(self, rcpt: str, kind: str, timeout: float) -> tuple[float, float] | None:
        """The acceptance time of the next mail of ``kind`` to ``rcpt`` (others skipped):
        (monotonic, wall clock)."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            if not self._conn.poll(left):
                return None
            accepted, wall, rcpts, got = self._conn.recv()
            if got == kind and rcpt in rcpts:
                return float(accepted), float(wall)
        return None

    def drain(self) -> None:
        """Forget what was accepted so far."""
        while self._conn.poll(0):
            self._conn.recv()



# -- the bench ----------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, round(p / 100 * len(ranked)) - 1))]


@dataclass
class LatencyResult:
    backend: str
    ms: list[float] = field(default_factory=list)  # APPEND -> the forward accepted
    # split at the moment the bot started the poll that found the mail (its "poll" log
    # line): the wait before it (the server's IDLE notice), the bot's own work after it
    wait_ms: list[float] = field(default_factory=list)
    bot_ms: list[float] = field(default_factory=list)
    woke: Counter[str] = field(default_factory=Counter)  # what started that poll
    lost: int = 0
    problems: list[str] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile (nearest rank) of the latencies in milliseconds."""
        return percentile(self.ms, p)


def _polls(log: Path) -> list[tuple[float, str]]:
    """(wall-clock time, what woke it) of every poll ``relaybot run`` logged (JSON lines,
    debug level: the ``poll`` event), in order. The log's times are milliseconds."""
    polls = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if data.get("event") == "poll":
            stamp = datetime.strptime(data["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
            polls.append((stamp.timestamp(), str(data.get("after", ""))))
    return polls


def _split(result: LatencyResult, sent: list[tuple[float, float]],
           polls: list[tuple[float, str]]) -> None:
    """Each mail's latency split at the last poll that started before its forward was
    accepted (``sent``: (APPEND start, accepted), wall clock); a poll that started before
    the APPEND (its search ran after it) counts from the APPEND."""
    for appended, accepted in sent:
        started = [(t, why) for t, why in polls if t <= accepted + 0.001]
        if not started:
            continue
        t, why = started[-1]
        begin = min(max(t, appended), accepted)
        result.wait_ms.append(1000 * (begin - appended))
        result.bot_ms.append(1000 * (accepted - begin))
        result.woke[why if t >= appended - 0.001 else "already polling"] += 1


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


def _env(cfg: Any, url: str, workdir: Path, wake: str = "") -> dict[str, str]:
    """``relaybot run``'s environment: the club's settings, nothing else of ours;
    ``wake``: its ``[imap] wake_listen`` ("" none)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    (workdir / "relaybot.toml").touch()
    env.update({
        "RELAYBOT_DATABASE_URL": url, "RELAYBOT_BOT_ADDRESS": cfg.bot.address,
        "RELAYBOT_BOT_TD": cfg.bot.td, "RELAYBOT_BOT_LANGUAGE": cfg.bot.language,
        "RELAYBOT_BOT_TIMEZONE": cfg.bot.timezone, "RELAYBOT_BOT_SECRET": cfg.bot.secret,
        "RELAYBOT_IMAP_HOST": cfg.imap.host, "RELAYBOT_IMAP_PORT": str(cfg.imap.port),
        "RELAYBOT_IMAP_USER": cfg.imap.user, "RELAYBOT_IMAP_PASSWORD": cfg.imap.password,
        "RELAYBOT_SMTP_HOST": cfg.smtp.host, "RELAYBOT_SMTP_PORT": str(cfg.smtp.port),
        "RELAYBOT_IMAP_WAKE_LISTEN": wake,
        "RELAYBOT_CONFIG": str(workdir / "relaybot.toml"),
        # JSON lines at debug level: the bench reads when each poll started
        "RELAYBOT_LOG_LEVEL": "debug", "RELAYBOT_LOG_FORMAT": "json",
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
                  seed: int, wake: str = "") -> LatencyResult:
    """``mails`` moves of one game through ``relaybot run`` on ``backend``; ``wake``: the
    address ``relaybot run`` listens on for ``server``'s push ("" none)."""
    result = LatencyResult(backend + ("+push" if wake else ""))
    sent: list[tuple[float, float]] = []  # (APPEND start, forward accepted), wall clock
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
            with _service(_env(cfg, url, workdir, wake), workdir) as proc, \
                    account.client(None) as imap:
                # connected (its first poll logged) and settled into IDLE, the warm-up done
                deadline = time.monotonic() + 30
                while not _polls(workdir / "run.log") and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(0.5)
                for ply in range(mails):
                    if proc.poll() is not None:
                        result.problems.append(f"relaybot run exited ({proc.returncode})")
                        break
                    when = datetime.now(UTC).replace(microsecond=0)
                    raw = move_mail(game, ply, when)
                    opponent = game.black if ply % 2 == 0 else game.white
                    t0, wall0 = time.monotonic(), time.time()
                    imap.append("INBOX", raw, msg_time=when)
                    accepted = sink.wait_for(opponent.address, "move", timeout=30)
                    if accepted is None:
                        result.lost += 1
                        result.problems.append(f"ply {ply + 1}: no forward within 30 s")
                        break
                    result.ms.append(1000 * (accepted[0] - t0))
                    sent.append((wall0, accepted[1]))
            _split(result, sent, _polls(workdir / "run.log"))
    finally:
        if os.environ.get("RELAYBOT_BENCH_KEEP"):
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _row(r: LatencyResult) -> str:
    p50, p99 = r.percentile(50), r.percentile(99)
    verdict = ("ok" if p50 < TARGET_P50_MS and p99 < TARGET_P99_MS else "MISSED")
    return (f"  {r.backend:<10} {len(r.ms):>4} mails  APPEND -> sink  {_quartet(r.ms)}  "
            f"mean {statistics.fmean(r.ms) if r.ms else 0.0:7.1f} ms   targets p50 < "
            f"{TARGET_P50_MS:.0f}, p99 < {TARGET_P99_MS:.0f}: {verdict}\n"
            f"  {r.backend:<10} {len(r.wait_ms):>4} mails  seen after      {_quartet(r.wait_ms)}"
            f"  APPEND -> the poll that found it\n"
            f"  {r.backend:<10} {len(r.bot_ms):>4} mails  the bot's own   {_quartet(r.bot_ms)}"
            f"  that poll's start -> sink\n"
            f"  {r.backend:<10} found by: "
            + ", ".join(f"{_WOKE.get(k, k)} {n}" for k, n in sorted(r.woke.items())))


_WOKE = {"news": "IMAP news (IDLE, EXISTS)", "timeout": "the poll interval",
         "connect": "the first poll", "push": "Dovecot's push"}


def _quartet(ms: Sequence[float]) -> str:
    p50, p90, p99 = (percentile(ms, p) for p in (50, 90, 99))
    return (f"p50 {p50:7.1f} ms  p90 {p90:7.1f} ms  p99 {p99:7.1f} ms  "
            f"max {max(ms, default=0.0):7.1f} ms")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--push", choices=("on", "off", "both"), default="both",
                        help="Dovecot's push to `relaybot run` ([imap] wake_listen), "
                             "without it (IDLE alone), or both (default)")
    parser.add_argument("--smoke", action="store_true", help="5 mails per backend (the tests)")
    args = parser.parse_args(argv)
    mails = 5 if args.smoke else args.mails
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    pushes = {"on": (True,), "off": (False,), "both": (False, True)}[args.push]
    results = []
    sink = Sink()  # first: forks before Dovecot's threads exist
    try:
        for push in pushes:
            # one port for every run on this Dovecot: each `relaybot run` listens on it
            # in turn (the Lua script reads the URL from Dovecot's settings)
            wake = f"127.0.0.1:{free_port()}" if push else ""
            with Dovecot(wake_url=f"http://{wake}/wake" if push else None) as server:
                for backend in backends:
                    results.append(latency_bench(server, sink, backend, mails, args.seed,
                                                 wake))
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
