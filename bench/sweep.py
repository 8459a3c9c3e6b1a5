"""Deadline sweep benchmark (G10), run by hand: ``relaybot.app.sweep.sweep`` on a big store.

    python -m bench.sweep                  # 100,000 games on SQLite and PostgreSQL
    python -m bench.sweep --smoke          # 2,000 games, a few seconds
    python -m bench.sweep --profile        # also cProfile the none-due and the due sweep

For each backend (a SQLite file in a temp dir; a fresh schema on the test PostgreSQL,
``RELAYBOT_TEST_PG``, dropped afterwards) the schema is made by ``migrate`` and
``2 * games`` members and ``games`` active games are bulk-inserted with Core
``executemany`` in batches. Every game's ``due_at`` lies in the next 30 days, so at
``NOW`` nothing is due. Then:

1. none due: ``sweep`` at ``NOW``, median of several runs (target < 50 ms: the sweep must
   cost what is due, not what is stored: one index range scan on ``ix_games_due_at``);
2. 1% due: every 100th game gets ``due_at <= NOW`` and a start date 12 (reminder) or 25
   (reminder and TD escalation) days back; one timed sweep processes them all, queueing
   mail in the outbox, and the per-game cost is reported;
3. after: one more sweep at ``NOW``, which must find nothing left to do.

The due-games query is captured as the sweep sends it (SQL and parameters) and its plan
is printed (``EXPLAIN QUERY PLAN`` / ``EXPLAIN (ANALYZE, BUFFERS)``) with none and with
1% due, to show the index is used. No mail server is contacted: the sweep only writes
outbox rows. PostgreSQL gets ``ANALYZE games`` after the load, as autovacuum would.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, bindparam, event, func, select, text

from relaybot.app.sweep import sweep
from relaybot.app.warmup import warm_up
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig, new_secret
from relaybot.store.db import Store, migrate
from relaybot.store.models import Base, Game, Outbox
from tests.servers.postgres import pg_schema_url

RELAY = "relay@club.example"
TD = "td@club.example"
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
HORIZON = timedelta(days=30)
ZONES = ("Asia/Tokyo", "Europe/London", "America/New_York", "Europe/Berlin")
LANGS = ("en", "ja")
DUE_EVERY = 100  # 1% of the games fall due
BATCH = 5000  # rows per executemany
TARGET_NONE_MS = 50.0

MEMBERS = Base.metadata.tables["members"]
GAMES = Base.metadata.tables["games"]


def make_config(url: str) -> Config:
    """The config ``tests/integration/relay_harness.py`` builds; no server is contacted."""
    return Config(
        database=DatabaseConfig(url=url),
        bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="en", td=TD,
                      secret=new_secret()),
        imap=ImapConfig(host="127.0.0.1", port=1, user="relay", password="", tls="none",
                        folder="INBOX", poll_seconds=1),
        smtp=SmtpConfig(host="127.0.0.1", port=1, user="", password="", tls="none",
                        timeout=5),
    )


# -- the data ----------------------------------------------------------------------------


def _batches(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _members(games: int) -> Iterator[dict[str, Any]]:
    created = NOW - timedelta(days=400)
    for i in range(1, 2 * games + 1):
        yield {
            "id": i, "family": f"Player {i}", "email": f"p{i}@players.example",
            "lang": LANGS[i % len(LANGS)], "tz": ZONES[i % len(ZONES)],
            "notation": "san", "letters": "en", "created_at": created,
        }


def game_id(i: int) -> str:
    return f"g{i:07d}"


def _games(games: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    span = int(HORIZON.total_seconds())
    start = (NOW - timedelta(days=5)).date()
    created = NOW - timedelta(days=5)
    for i in range(games):
        gid = game_id(i)
        yield {
            "id": gid, "kind": "chess", "event": None, "round": "-",
            "side0_id": 2 * i + 1, "side1_id": 2 * i + 2, "time_control": "10/30",
            "conditionals": "binding", "notation": None, "start_date": start,
            "status": "active", "result": None, "termination": None, "end_date": None,
            "plies": "", "ply_count": 0, "position": START_FEN, "draw_offer_by": None,
            "side0_rating": None, "side1_rating": None,
            "last_out_message_id": f"<start.{gid}@club.example>", "grace": 1,
            "leave_allowed": 1,
            "due_at": NOW + timedelta(seconds=rng.randint(60, span)),
            "created_at": created, "updated_at": created,
        }


def load(engine: Engine, games: int, seed: int) -> float:
    """Members and games by Core executemany; returns the seconds taken."""
    t0 = time.perf_counter()
    with engine.begin() as conn:
        for batch in _batches(_members(games), BATCH):
            conn.execute(MEMBERS.insert(), batch)
        for batch in _batches(_games(games, seed), BATCH):
            conn.execute(GAMES.insert(), batch)
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("ANALYZE games"))
            conn.execute(text("ANALYZE members"))
    return time.perf_counter() - t0


def make_due(engine: Engine, games: int) -> tuple[int, int]:
    """Every ``DUE_EVERY``-th game falls due; returns (due games, mails expected).

    The even ones started 12 days ago (the J11 reminder is due), the odd ones 25 days
    ago (reminder and TD escalation); ``due_at`` is within the last two hours.
    """
    today = NOW.astimezone(ZoneInfo("Asia/Tokyo")).date()
    rows: list[dict[str, Any]] = []
    expected = 0
    for n, i in enumerate(range(0, games, DUE_EVERY)):
        both = n % 2 == 1
        expected += 2 if both else 1
        rows.append({
            "gid": game_id(i),
            "new_due": NOW - timedelta(minutes=1 + (n * 7) % 120),
            "new_start": today - timedelta(days=25 if both else 12),
        })
    stmt = (GAMES.update().where(GAMES.c.id == bindparam("gid"))
            .values(due_at=bindparam("new_due"), start_date=bindparam("new_start")))
    with engine.begin() as conn:
        for batch in _batches(iter(rows), BATCH):
            conn.execute(stmt, batch)
    return len(rows), expected


# -- measuring ---------------------------------------------------------------------------


@dataclass
class Row:
    backend: str
    case: str
    games: int
    due: int
    queued: int
    seconds: float
    note: str = ""


@dataclass
class Result:
    rows: list[Row] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)
    profiles: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    setup_seconds: float = 0.0


def _due_count(store: Store) -> int:
    with store.session() as session:
        return int(session.scalar(
            select(func.count()).select_from(Game)
            .where(Game.due_at <= NOW, Game.status == "active")
        ) or 0)


def _outbox_kinds(store: Store) -> dict[str, int]:
    with store.session() as session:
        return {str(k): int(n) for k, n in session.execute(
            select(Outbox.kind, func.count()).group_by(Outbox.kind)).all()}


def _timed(fn: Callable[[], int], profile: list[str] | None, title: str) -> tuple[int, float]:
    """Run ``fn`` once: (its result, seconds); cProfiled into ``profile`` when given."""
    prof = cProfile.Profile() if profile is not None else None
    t0 = time.perf_counter()
    if prof is not None:
        prof.enable()
    out = fn()
    if prof is not None:
        prof.disable()
    seconds = time.perf_counter() - t0
    if prof is not None and profile is not None:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
        profile.append(f"-- {title}\n{buf.getvalue()}")
    return out, seconds


def capture_due_query(store: Store, cfg: Config) -> tuple[str, Any]:
    """The due-games SELECT exactly as the sweep sends it (SQL, DBAPI parameters)."""
    seen: list[tuple[str, Any]] = []

    def _hook(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
              _executemany: bool) -> None:
        flat = " ".join(statement.split())
        if "FROM games" in flat and "due_at <=" in flat and not seen:
            seen.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", _hook)
    try:
        sweep(store, cfg, NOW)
    finally:
        event.remove(store.engine, "before_cursor_execute", _hook)
    if not seen:
        raise RuntimeError("the sweep sent no SELECT on games with due_at <= ?")
    return seen[0]


def explain(store: Store, query: tuple[str, Any], title: str) -> str:
    statement, parameters = query
    if store.engine.dialect.name == "sqlite":
        prefix = "EXPLAIN QUERY PLAN "
    else:
        prefix = "EXPLAIN (ANALYZE, BUFFERS) "
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql(prefix + statement, parameters).all()
    if store.engine.dialect.name == "sqlite":
        lines = [str(r[-1]) for r in rows]  # (id, parent, notused, detail)
    else:
        lines = [str(r[0]) for r in rows]
    sql = " ".join(statement.split())
    body = "\n".join("    " + line for line in lines)
    return f"-- {title}\n    {sql}\n    params: {parameters!r}\n{body}"


def bench_backend(backend: str, url: str, games: int, repeat: int, seed: int,
                  profile: bool) -> Result:
    result = Result()
    cfg = make_config(url)
    store = Store.open(url)
    try:
        t0 = time.perf_counter()
        migrate(store.engine)
        load_seconds = load(store.engine, games, seed)
        result.setup_seconds = time.perf_counter() - t0
        print(f"[{backend}] migrated and loaded {2 * games} members, {games} games "
              f"in {result.setup_seconds:.1f} s (insert {load_seconds:.1f} s)", file=sys.stderr)
        profiles = result.profiles if profile else None

        # 1. none due: warm up (connection, compiled-statement cache), then the median
        query = capture_due_query(store, cfg)
        result.plans.append(explain(store, query, f"{backend}, none due"))
        if _due_count(store) != 0:
            result.problems.append(f"{backend}: games due before any were made due")
        times: list[float] = []
        for k in range(repeat):
            queued, seconds = _timed(lambda: sweep(store, cfg, NOW),
                                     profiles if k == 0 else None, f"{backend}: none due")
            times.append(seconds)
            if queued:
                result.problems.append(f"{backend}: none-due sweep queued {queued}")
        median = statistics.median(times)
        result.rows.append(Row(
            backend, f"none due (median of {repeat})", games, 0, 0, median,
            f"min {min(times) * 1e3:.2f}, max {max(times) * 1e3:.2f} ms; target < "
            f"{TARGET_NONE_MS:.0f} ms: {'ok' if median * 1e3 < TARGET_NONE_MS else 'MISS'}",
        ))
        if median * 1e3 >= TARGET_NONE_MS:
            result.problems.append(f"{backend}: none-due sweep {median * 1e3:.1f} ms "
                                   f">= {TARGET_NONE_MS:.0f} ms")

        # 2. 1% due: one sweep processes them all
        due, expected = make_due(store.engine, games)
        if store.engine.dialect.name == "postgresql":
            result.plans.append(explain(store, query, f"{backend}, {due} due"))
        else:
            result.plans.append(explain(store, query, f"{backend}, {due} due (same plan)"))
        found = _due_count(store)
        if found != due:
            result.problems.append(f"{backend}: {found} games due, expected {due}")
        queued, seconds = _timed(lambda: sweep(store, cfg, NOW), profiles,
                                 f"{backend}: {due} due")
        kinds = _outbox_kinds(store)
        result.rows.append(Row(
            backend, "1% due", games, due, queued, seconds,
            f"{seconds * 1e3 / max(due, 1):.2f} ms/game; outbox "
            + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
        ))
        if queued != expected or sum(kinds.values()) != expected:
            result.problems.append(f"{backend}: queued {queued} (outbox {kinds}), "
                                   f"expected {expected}")

        # 3. right after: nothing left to do
        left = _due_count(store)
        queued, seconds = _timed(lambda: sweep(store, cfg, NOW), None, f"{backend}: after")
        result.rows.append(Row(backend, "after", games, left, queued, seconds,
                               "the sweep moved every due_at on"))
        if left or queued:
            result.problems.append(f"{backend}: after the sweep {left} still due, "
                                   f"{queued} queued")
    finally:
        store.dispose()
    return result


@contextlib.contextmanager
def sqlite_url(db_dir: str | None) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="relaybot-sweep-", dir=db_dir) as tmp:
        yield f"sqlite:///{Path(tmp) / 'relaybot.db'}"


# -- report ------------------------------------------------------------------------------


def table(rows: Sequence[Row]) -> str:
    head = ("backend", "case", "games", "due", "queued", "seconds", "ms", "")
    cells = [head] + [
        (r.backend, r.case, f"{r.games:,}", f"{r.due:,}", f"{r.queued:,}", f"{r.seconds:.4f}",
         f"{r.seconds * 1e3:.2f}", r.note)
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    right = {2, 3, 4, 5, 6}
    lines = []
    for c in cells:
        lines.append("  ".join(
            (c[i].rjust(widths[i]) if i in right else c[i].ljust(widths[i]))
            for i in range(len(head))
        ).rstrip())
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sweep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--smoke", action="store_true", help="2,000 games, a few seconds")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    parser.add_argument("--db-dir", default=None, help="where the SQLite file goes")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the first none-due sweep and the due sweep")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games = 2000
    if args.games < DUE_EVERY:
        parser.error(f"need --games >= {DUE_EVERY}")
    repeat = 5 if args.smoke else 9
    # as `relaybot run` does at start: the games imported and the templates compiled, so
    # the timed sweep costs what a sweep of the running service costs, not the first
    # import of python-chess (about a second, once per process)
    warm_up()

    t0 = time.perf_counter()
    results: list[Result] = []
    if args.backend in ("both", "sqlite"):
        with sqlite_url(args.db_dir) as url:
            results.append(bench_backend("sqlite", url, args.games, repeat, args.seed,
                                         args.profile))
    if args.backend in ("both", "postgresql"):
        with pg_schema_url("bench") as url:
            results.append(bench_backend("postgresql", url, args.games, repeat, args.seed,
                                         args.profile))
    total = time.perf_counter() - t0

    print(f"relaybot sweep bench: {args.games:,} active games, {2 * args.games:,} members, "
          f"now = {NOW.isoformat()}, due_at spread over the next {HORIZON.days} days")
    print(table([row for r in results for row in r.rows]))
    print("  setup (migrate + insert): "
          + ", ".join(f"{r.rows[0].backend} {r.setup_seconds:.1f} s" for r in results if r.rows)
          + f"; total {total:.1f} s")
    print("\nplans of the due-games query, as the sweep sends it:")
    for r in results:
        for plan in r.plans:
            print(plan)
    for r in results:
        for prof in r.profiles:
            print(prof)
    problems = [p for r in results for p in r.problems]
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
