"""A shogi league season's standings as its players grow (seed 002, issue 29 item 6):
``python -m bench.season [--players 48 208] [--smoke]``.

For each size it makes a SQLite club and one season with ``season new``'s own code
(``club.season_book.create_season``): class S of 8 and classes A, B, ... of 10 (the
seed's S is exactly 8; a class below it has 8 or more), paired as the league pairs
them (28 games in S, 40 in a class of 10), every game then finished with a seeded
random win, loss or 千日手. Then it times, median of several runs each, what a season's
readers ask for:

- **standings**: ``class_results``, every class in standing order (the season's page,
  ``season show``);
- **outcomes**: ``season_outcomes``, each player's promotion, relegation or stay (the
  season's end);
- **season show --json**: ``season_json``, the standings (with the outcomes once the
  season has ended) and the resting players.

It prints each figure, per player, and how it grew from the first size to the next:
a season's games grow with its players (in classes of one size), so a figure that grows
with the games grows linearly in players when the classes keep their size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from sqlalchemy import insert, select, update

from bench.digest import config
from relaybot.club.season_book import (
    SeasonInput,
    class_results,
    create_season,
    find_season,
    season_json,
    season_outcomes,
)
from relaybot.config import Config
from relaybot.core.seasons.classes import S_SIZE, letters
from relaybot.store.db import Store, migrate
from relaybot.store.models import Event, Game, Member, SeasonClass

NOW = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
START = date(2026, 5, 1)
CLASS_SIZE = 10
NAME = "第1期"


def classes_for(players: int) -> list[int]:
    """Class sizes, best first, for about ``players``: S of 8, the rest of 10."""
    below = max(1, round((players - S_SIZE) / CLASS_SIZE))
    return [S_SIZE, *([CLASS_SIZE] * below)]


def build(store: Store, cfg: Config, sizes: Sequence[int], seed: int) -> int:
    """The members, the season and every game finished; returns the number of games."""
    total = sum(sizes)
    with store.session() as session:
        session.execute(insert(Member), [
            {"family": f"棋士{i:04d}", "given": "", "email": f"p{i:04d}@club.example",
             "lang": "ja", "tz": "Asia/Tokyo", "notation": "", "letters": "",
             "digest": "off", "created_at": NOW} for i in range(total)])
        session.commit()
    addresses = [f"p{i:04d}@club.example" for i in range(total)]
    classes, at = [], 0
    for letter, size in zip(letters(len(sizes)), sizes, strict=True):
        classes.append((letter, addresses[at:at + size]))
        at += size
    with store.session() as session:
        create_season(session, cfg, SeasonInput(name=NAME, start=START, classes=classes), NOW)
        session.commit()
    rng = random.Random(seed)
    with store.session() as session:
        events = select(Event.name).join(SeasonClass, SeasonClass.event_id == Event.id)
        ids = list(session.scalars(select(Game.id).where(Game.event.in_(events))))
        for game_id in ids:
            result = rng.choice(["1-0", "0-1", "1-0", "0-1", "1/2-1/2"])
            session.execute(update(Game).where(Game.id == game_id).values(
                status="finished", result=result,
                termination="resignation" if result != "1/2-1/2" else "sennichite",
                end_date=date(2026, 9, 1)))
        session.commit()
    return len(ids)


def timed(fn: Callable[[], object], runs: int) -> float:
    """The median seconds of ``runs`` calls."""
    seconds = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - t0)
    return statistics.median(seconds)


def measure(players: int, runs: int, seed: int) -> dict[str, float | int]:
    """Build a season of about ``players`` and time its three readings."""
    sizes = classes_for(players)
    with tempfile.TemporaryDirectory(prefix="relaybot-season-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'club.db'}"
        cfg = config(url)
        store = Store.open(url)
        migrate(store.engine)
        games = build(store, cfg, sizes, seed)
        figures: dict[str, float | int] = {"players": sum(sizes), "classes": len(sizes),
                                           "games": games}

        def reading(fn: Callable[..., object]) -> Callable[[], object]:
            def run() -> object:
                with store.session() as session:
                    return fn(session, find_season(session, NAME))
            return run

        # the bench checks its own club: every player stands, with every game counted
        rows = reading(class_results)()
        assert isinstance(rows, list)
        stood = sum(len(players) for _, _, players in rows)
        counted = sum(r["games"] for _, _, players in rows for r in players)
        if stood != sum(sizes) or counted != 2 * games:
            print(f"PROBLEM: {stood} of {sum(sizes)} players stand, {counted} of "
                  f"{2 * games} results counted", file=sys.stderr)
            figures["problem"] = 1
        figures["standings"] = timed(reading(class_results), runs)
        figures["outcomes"] = timed(reading(season_outcomes), runs)
        figures["json"] = timed(reading(season_json), runs)
        store.dispose()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[48, 208],
                        help="season sizes (players), each rounded to S of 8 and classes of 10")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="18 and 28 players, 2 runs")
    args = parser.parse_args(argv)
    sizes, runs = ([18, 28], 2) if args.smoke else (args.players, args.runs)
    print("relaybot season bench: one shogi league season, S of 8 and classes of "
          f"{CLASS_SIZE}, every game finished; median of {runs} runs")
    rows = [measure(p, runs, args.seed) for p in sizes]
    if any(row.get("problem") for row in rows):
        return 1
    for row in rows:
        print(f"  {row['players']:5d} players  {row['classes']:2d} classes  "
              f"{row['games']:5d} games   standings {1000 * row['standings']:8.1f} ms"
              f"   outcomes {1000 * row['outcomes']:8.1f} ms   season show --json "
              f"{1000 * row['json']:8.1f} ms   ({1000 * row['json'] / row['players']:.2f} ms "
              "per player)")
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        grow = b["players"] / a["players"]
        print(f"  players x{grow:.1f}, games x{b['games'] / a['games']:.1f}: standings "
              f"x{b['standings'] / a['standings']:.1f}, outcomes "
              f"x{b['outcomes'] / a['outcomes']:.1f}, season show --json "
              f"x{b['json'] / a['json']:.1f}"
              " (linear in players: about the first figure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
