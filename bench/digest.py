"""Weekly digests for a big club (D1): ``python -m bench.digest [--members 10000] [--smoke]``.

Builds a SQLite (and, with ``--postgresql``, a PostgreSQL) club of N members with 5
active games each (4 moves played in every game, one event of 4 per 4 members),
then times ``relaybot.app.digest.send_digests`` queueing one digest per member, and
reports the process's peak RSS (timed without tracemalloc, which slows it fivefold). A second
run in the same week must queue nothing. Target: under 20 s for 10,000 members.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import chess
from sqlalchemy import func, insert, select

from relaybot.app.digest import send_digests
from relaybot.app.warmup import warm_up
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig, new_secret
from relaybot.store.db import Store, migrate
from relaybot.store.models import (
    Event,
    EventPlayer,
    Game,
    Member,
    MemberRating,
    Move,
    Outbox,
    RatingChange,
)
from tests.servers.postgres import pg_schema_url

NOW = datetime(2026, 6, 3, 9, 0, tzinfo=UTC)
OPENING = ["e2e4", "e7e5", "g1f3", "b8c6"]
SANS = ["e4", "e5", "Nf3", "Nc6"]


def config(url: str) -> Config:
    return Config(
        database=DatabaseConfig(url=url),
        bot=BotConfig(address="relay@club.example", timezone="Asia/Tokyo", language="en",
                      td="td@club.example", secret=new_secret()),
        imap=ImapConfig("127.0.0.1", 1, "u", "p", "none", "INBOX"),
        smtp=SmtpConfig("127.0.0.1", 1, "", "", "none"),
    )


def populate(store: Store, members: int, rounds: int = 2) -> int:
    """Members, ``2 * rounds + 1`` games each (5 by default), 4 moves per game, events
    of 4, chess (and some shogi) ratings, a few rated results this week; returns the game count."""
    board = chess.Board()
    for uci in OPENING:
        board.push(chess.Move.from_uci(uci))
    fen = board.fen()
    start = NOW.date() - timedelta(days=20)
    with store.engine.begin() as conn:
        conn.execute(insert(Member), [
            {"id": i + 1, "family": f"Member{i:05d}", "given": "Test", "email": f"m{i}@example.org",
             "lang": "ja" if i % 2 else "en", "tz": "Asia/Tokyo",
             "notation": "san", "letters": "en", "digest": "weekly",
             "last_digest_week": None, "bounces": 0, "created_at": NOW}
            for i in range(members)])
        # ratings per member and game: everyone in chess, every third member in shogi too
        conn.execute(insert(MemberRating), [
            {"member_id": i + 1, "kind": kind, "rating": 1200 + i % 800, "provisional": 0,
             "rated_games": 20, "rb_opponents": [], "rb_wins": 0, "rb_losses": 0}
            for i in range(members) for kind in ("chess", "shogi")
            if kind == "chess" or i % 3 == 0])
        pairs = [(i, (i + k) % members) for i in range(members) for k in range(1, rounds + 1)]
        pairs += [(i, i + members // 2) for i in range(members // 2)]
        games = []
        for n, (w, b) in enumerate(pairs):
            games.append({
                "id": f"g{n:07d}", "kind": "chess", "event": f"Section {w // 4}", "round": "-",
                "side0_id": w + 1, "side1_id": b + 1, "time_control": "10/30",
                "conditionals": "binding", "notation": None, "start_date": start,
                "status": "active", "plies": " ".join(OPENING), "ply_count": 4,
                "position": fen, "grace": 1, "leave_allowed": 1, "proposals": [],
                "due_at": NOW + timedelta(days=5), "created_at": NOW, "updated_at": NOW})
        # this week's results: one finished game in every 20th section, rated (D1)
        finished = [{**games[0], "id": f"f{w:07d}", "event": f"Section {w // 4}",
                     "side0_id": w + 1, "side1_id": w + 2, "status": "finished",
                     "result": "1-0", "termination": "resignation",
                     "end_date": NOW.date() - timedelta(days=2), "due_at": None}
                    for w in range(0, members - 1, 80)]
        games += finished
        for chunk in range(0, len(games), 5000):
            conn.execute(insert(Game), games[chunk:chunk + 5000])
        conn.execute(insert(RatingChange), [
            {"game_id": g["id"], "member_id": g[side], "before": 1500, "after": 1500 + delta,
             "at": NOW - timedelta(days=2)}
            for g in finished for side, delta in (("side0_id", 30), ("side1_id", -30))])
        moves = [{"game_id": g["id"], "ply": p, "canon": OPENING[p], "text": SANS[p], "keys": "",
                  "sent_at": datetime.combine(start, datetime.min.time(), UTC)
                  + timedelta(days=2 * p + 1), "auto": 0}
                 for g in games for p in range(4)]
        for chunk in range(0, len(moves), 10000):
            conn.execute(insert(Move), moves[chunk:chunk + 10000])
        conn.execute(insert(Event), [
            {"id": e + 1, "name": f"Section {e}", "kind": "group", "time_control": "10/30",
             "conditionals": "binding", "start_date": start, "tiebreaks": "sb,solkoff",
             "created_at": NOW} for e in range(members // 4)])
        conn.execute(insert(EventPlayer), [
            {"event_id": i // 4 + 1, "member_id": i + 1, "seat": i % 4 + 1}
            for i in range(members // 4 * 4)])
    return len(games)


def run(url: str, members: int, label: str, rounds: int = 2) -> bool:
    store = Store.open(url)
    migrate(store.engine)
    t0 = time.perf_counter()
    games = populate(store, members, rounds)
    setup = time.perf_counter() - t0
    cfg = config(url)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    queued = send_digests(store, cfg, NOW, force=True)  # members joined this week too
    seconds = time.perf_counter() - t0
    again = send_digests(store, cfg, NOW + timedelta(hours=3), force=True)
    with store.session() as session:
        rows = session.scalar(select(func.count(Outbox.id)).where(Outbox.kind == "digest"))
    store.dispose()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ok = queued == members and again == 0 and rows == members
    print(f"  {label:<10} {members:>6} members {games:>6} games  setup {setup:6.1f} s  "
          f"digests {queued:>6} in {seconds:6.2f} s ({seconds / max(queued, 1) * 1000:.2f} ms "
          f"each)  peak RSS {rss:5.0f} MiB (+{rss - rss_before:4.0f} MiB while sending)  "
          f"second run {again}  target <20 s: {'ok' if seconds < 20 else 'MISSED'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=10000)
    parser.add_argument("--smoke", action="store_true", help="200 members, seconds")
    parser.add_argument("--games-per-member", type=int, default=5,
                        help="active games of each member, odd (the cost growth table)")
    parser.add_argument("--postgresql", action="store_true", help="also on PostgreSQL")
    args = parser.parse_args()
    members = 200 if args.smoke else args.members
    rounds = max(1, (args.games_per_member - 1) // 2)
    print(f"relaybot digest bench: {members} members x {2 * rounds + 1} games, "
          f"week of {NOW:%Y-%m-%d}")
    warm_up()  # as `relaybot run` does at start: imports and templates are not timed
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        ok &= run(f"sqlite:///{Path(tmp) / 'digest.db'}", members, "sqlite", rounds)
    if args.postgresql:
        with pg_schema_url("bench") as url:
            ok &= run(url, members, "postgresql", rounds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
