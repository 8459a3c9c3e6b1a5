"""``relaybot season new|show|next``: the shogi net league's seasons (seed 002)."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from relaybot.cli.common import CliError, Subparsers, open_store, parse_date, parse_now
from relaybot.config import Config

CLASSES = {"one": "class", "other": "classes"}

OUTCOME_JA = {"promoted": "昇級", "stays": "残留", "relegated": "降級", "rest": "休場",
              "withdrawn": "棄権"}


def register(sub: Subparsers) -> None:
    season = sub.add_parser("season", help="the shogi league's seasons").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    snew = season.add_parser("new", help="create a season with its classes and start its "
                                         "games by mail")
    snew.add_argument("name", help="the season's name, e.g. 第2期")
    snew.add_argument("--game", default="shogi", choices=["shogi"],
                      help="the game (shogi, the net league's)")
    snew.add_argument("--start", required=True, type=parse_date, metavar="YYYY-MM-DD",
                      help="the season's first day, the first of a month (January or July "
                           "as a rule); the games start on its 10th day")
    snew.add_argument("--class", dest="classes", action="append", required=True,
                      metavar="LETTER=ADDR,ADDR,...",
                      help="a class and its players in their starting order, best class "
                           "first: S=..., then A=..., B=...")
    snew.add_argument("--td", metavar="ADDR", help="the season's TD (default: [bot] td)")
    snew.add_argument("--secretary", action="append", default=[], metavar="LETTER=ADDR",
                      help="a class's secretary, who gets its monthly progress report "
                           "(default: the TD)")
    snew.add_argument("--rounding", default="round", choices=["round", "floor", "ceil"],
                      help="one third for promotion and relegation when the classes "
                           "below S differ twofold in size: rounded (default), down or up")
    snew.add_argument("--now", metavar="ISO-8601", help="the time the season is made")
    snew.set_defaults(func=cmd_season_new)
    sshow = season.add_parser("show", help="the classes' standings and, at the end, "
                                           "each player's outcome")
    sshow.add_argument("name", help="the season's name")
    sshow.add_argument("--json", action="store_true", help="one JSON document on stdout")
    sshow.set_defaults(func=cmd_season_show)
    snext = season.add_parser("next", help="the next season from a season's final "
                                           "standings")
    snext.add_argument("name", help="the season that ended")
    snext.add_argument("new_name", help="the next season's name")
    snext.add_argument("--start", required=True, type=parse_date, metavar="YYYY-MM-DD",
                       help="the next season's first day")
    snext.add_argument("--join", action="append", default=[], metavar="ADDR=POINTS|CLASS",
                       help="a first-timer with declared points (placed by the table) or "
                            "an explicit class")
    snext.add_argument("--rest", action="append", default=[], metavar="ADDR",
                       help="a player sitting the next season out (休場)")
    snext.add_argument("--secretary", action="append", default=[], metavar="LETTER=ADDR",
                       help="a class's secretary in the next season")
    snext.add_argument("--dry-run", action="store_true",
                       help="print the classes without creating the season")
    snext.add_argument("--now", metavar="ISO-8601", help="the time the season is made")
    snext.set_defaults(func=cmd_season_next)


def _pairs(values: list[str], option: str, form: str = "KEY=VALUE") -> list[tuple[str, str]]:
    out = []
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip() or not rest.strip():
            raise CliError(f"{option}: write {form}, not {value!r}")
        out.append((key.strip(), rest.strip()))
    return out


def cmd_season_new(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.app.service import start_mails
    from relaybot.club.season_book import SeasonInput, create_season
    from relaybot.mail.plurals import count

    now = parse_now(args.now) or datetime.now(UTC)
    classes = [(letter.upper(), [p.strip() for p in players.split(",") if p.strip()])
               for letter, players in _pairs(args.classes, "--class",
                                             "LETTER=ADDR,ADDR,...")]
    secretaries = {k.upper(): v.lower()
                   for k, v in _pairs(args.secretary, "--secretary", "LETTER=ADDR")}
    store = open_store(cfg)
    with store.session() as session:
        season, games = create_season(session, cfg, SeasonInput(
            name=args.name, start=args.start, classes=classes, game=args.game, td=args.td,
            secretaries=secretaries, rounding=args.rounding), now)
        for game in games:
            start_mails(session, cfg, game, now)
        print(f"season {season.name}: {count(len(classes), CLASSES)}, "
              f"{count(len(games), 'game')}, {season.start_date} to {season.end_date}")
        for game in games:
            print(f"{game.id} {cfg.bot.game_address(game.id)}")
    return 0


def cmd_season_show(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.season_book import find_season, season_json
    from relaybot.mail.plurals import count

    store = open_store(cfg)
    with store.session() as session:
        data = season_json(session, find_season(session, args.name))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    state = "ended" if data["ended"] else "running"
    print(f"{data['season']}  ({data['game']}, {data['start']} to {data['end']}, {state})")
    for cls in data["classes"]:
        print(f"\n{cls['class']}  {cls['event']}")
        for p in cls["players"]:
            outcome = f"  {p['outcome']}" if p["outcome"] else ""
            mark = "" if p["state"] == "playing" else f" [{p['state']}]"
            print(f"  {p['rank']:>2}. {p['email']}  (start {p['start_order']})  "
                  f"{count(p['wins'], 'win')} {count(p['losses'], 'loss')}{mark}{outcome}")
    if data["resting"]:
        print("\nresting: " + ", ".join(f"{r['email']} ({r['class']})"
                                        for r in data["resting"]))
    for t in data["titles"]:
        print(f"\n{t['title']}: {t['email']}")
    return 0


def cmd_season_next(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.app.service import start_mails
    from relaybot.club.season_book import (
        check_next,
        create_season,
        find_season,
        next_input,
        plan_next,
    )
    from relaybot.mail.plurals import count

    now = parse_now(args.now) or datetime.now(UTC)
    joins = _pairs(args.join, "--join", "ADDR=POINTS or ADDR=CLASS")
    secretaries = {k.upper(): v.lower()
                   for k, v in _pairs(args.secretary, "--secretary", "LETTER=ADDR")}
    store = open_store(cfg)
    with store.session() as session:
        season = find_season(session, args.name)
        plan = plan_next(session, season, joins, args.rest)
        check_next(session, season, args.new_name, args.start)  # before a line is printed
        for letter, placed in plan.classes:
            print(f"{letter}: " + ", ".join(f"{p.start_order}. {p.player} ({p.band})"
                                            for p in placed))
        if plan.resting:
            print("resting: " + ", ".join(f"{a} ({c})" for a, c in plan.resting))
        if args.dry_run:
            session.rollback()
            return 0
        new, games = create_season(session, cfg, next_input(
            season, args.new_name, args.start, plan, secretaries), now)
        for game in games:
            start_mails(session, cfg, game, now)
        print(f"season {new.name}: {count(len(plan.classes), CLASSES)}, "
              f"{count(len(games), 'game')}, {new.start_date} to {new.end_date}")
    return 0
