"""``relaybot event new|list|show|final``: events (groups, matches, ladders, sections,
leagues, salons)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from relaybot.app.progress import progress_bar
from relaybot.cli import club
from relaybot.cli.common import (
    Subparsers,
    json_option,
    member_name,
    now_of,
    now_option,
    open_store,
    parse_date,
    print_json,
    rule_set_options,
)
from relaybot.config import Config


def register(sub: Subparsers) -> None:
    event = sub.add_parser("event", help="events").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    enew = event.add_parser("new", help="create an event and start all its games by mail")
    enew.add_argument("name", help="the event's name")
    enew.add_argument("--kind", required=True,
                      choices=["group", "match", "ladder", "section", "league", "salon"],
                      help="group (a JCCA preliminary group of 4), match, ladder, section (ICCF), "
                           "league (the shogi net league) or salon (the go salon's league)")
    enew.add_argument("--players", required=True, help="addresses, comma separated")
    enew.add_argument("--time-control", default=None,
                      help="10/30, 10/50, bank:20, ... (default: the game's rules)")
    enew.add_argument("--start", type=parse_date, metavar="YYYY-MM-DD",
                      help="the day the clocks start (default today)")
    enew.add_argument("--conditionals", default=None,
                      choices=["binding", "optional", "off"], help="default: the game's rules")
    enew.add_argument("--tiebreaks", default=None,
                      help="tie-breaks in order, comma separated (default sb,solkoff,median,"
                           "direct; a league: start, the order of --players; a salon: "
                           "margin,direct_pair,rating after the win rate)")
    enew.add_argument("--overrun", default="report", choices=["report", "forfeit"],
                      help="a player over the time limit: report it to the TD (default) or forfeit "
                           "the game at once")
    enew.add_argument("--game", default=None,
                      help="the game every pairing plays (default chess; shogi for a "
                           "league, go for a salon)")
    enew.add_argument("--td", metavar="ADDR",
                      help="the event's tournament director (default: [bot] td)")
    enew.add_argument("--final", action="store_true",
                      help="a JCCA final: its results decide who may enter the next one")
    rule_set_options(enew)
    club.event_options(enew)  # issue 30: --fee
    now_option(enew)
    enew.set_defaults(func=cmd_event_new)
    elist = event.add_parser("list", help="every event: name, kind, game, start, games "
                             "(tab-separated)")
    json_option(elist)
    elist.set_defaults(func=cmd_event_list)
    eshow = event.add_parser("show", help="standings, crosstable and games")
    eshow.add_argument("name", help="the event's name")
    eshow.add_argument("--lang", default="en", choices=["ja", "en"],
                       help="language of the table (default en)")
    json_option(eshow)
    eshow.set_defaults(func=cmd_event_show)
    efinal = event.add_parser("final", help="who of a finished group may enter the final")
    efinal.add_argument("name", help="the event's name")
    efinal.set_defaults(func=cmd_event_final)


def cmd_event_new(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.app.service import start_mails
    from relaybot.club.tournaments import EventInput, create_event
    from relaybot.store.models import Event

    store = open_store(cfg)
    now = now_of(args)
    with store.session() as session:
        games = create_event(session, cfg, EventInput(
            name=args.name, kind=args.kind,
            players=[p.strip() for p in args.players.split(",") if p.strip()],
            time_control=args.time_control, start=args.start, conditionals=args.conditionals,
            tiebreaks=args.tiebreaks, overrun=args.overrun, game=args.game,
            grace=args.grace, leave=False if args.no_leave else None, td=args.td,
            final=args.final), now)
        books = club.after_event(session, session.get_one(Event, _event_id(session, args.name)),
                                 games, args, now)
        with progress_bar("start mails") as advance:
            for done, game in enumerate(games, start=1):
                start_mails(session, cfg, game, now)
                advance(done, len(games))
        from relaybot.mail.plurals import count

        print(f"event {' '.join(args.name.split())}: {count(len(games), 'game')} started")
        for game in games:
            print(f"{game.id} {cfg.bot.game_address(game.id)}")
        for line in books:
            print(line)
    return 0


def _event_id(session: Any, name: str) -> int:
    from sqlalchemy import select

    from relaybot.store.models import Event

    return int(session.scalar(select(Event.id).where(Event.name == " ".join(name.split()))))


def cmd_event_list(cfg: Config, args: argparse.Namespace) -> int:
    """Every event, one a line: name, kind, game, start day, games (active of all)."""
    from sqlalchemy import select

    from relaybot.cli.documents import event_list_document
    from relaybot.store.models import Event

    store = open_store(cfg)
    with store.session() as session:
        events = list(session.scalars(select(Event).order_by(Event.start_date, Event.id)))
        found = event_list_document(session, events)
    if args.json:
        print_json(found)
        return 0
    for e in found:
        kind = f"{e['kind']}, final" if e["final"] else e["kind"]
        print(f"{e['event']}\t{kind}\t{e['game'] or '-'}\tfrom {e['start']}\t"
              f"{e['active_games']} of {e['game_count']} games active")
    if not found:
        print("no events yet (relaybot event new)", file=sys.stderr)
    return 0


def cmd_event_show(cfg: Config, args: argparse.Namespace) -> int:
    """The event's standings and crosstable, then its games."""
    from sqlalchemy import select

    from relaybot.club.tournaments import event_text, find_event, salon_secretaries
    from relaybot.mail.wording import progress_text
    from relaybot.store.models import Game

    store = open_store(cfg)
    with store.session() as session:
        event = find_event(session, args.name)
        if args.json:
            from relaybot.cli.documents import event_document

            print_json(event_document(session, event))
            return 0
        kind = f"{event.kind}, final" if event.final else event.kind  # T1
        print(f"{event.name}  ({kind}, {event.time_control}, from {event.start_date})")
        print(event_text(session, event, args.lang))
        from relaybot.cli.documents import result_word

        # as the table above names them (its own standing_names): given name first in
        # English, two players of one name told apart by their member number
        from relaybot.club.tournaments import event_players, standing_names

        names = {i: name.for_language(args.lang)
                 for i, name in standing_names(event_players(session, event)).items()}
        for g in session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)):
            # the result in the TD's words (shogi sente, not the stored 1-0)
            print(f"  {g.id}  {names[g.side0_id]} - {names[g.side1_id]}  "
                  f"{result_word(g) or g.status}  "
                  f"{progress_text(g.ply_count, g.kind, args.lang)}")
        chosen = salon_secretaries(session, event)
        if chosen is not None:  # seed 004 section 6
            who = ", ".join(f"{member_name(m)} <{m.email}>" for m in chosen) or "nobody"
            print(("次のリーグの幹事: " if args.lang == "ja" else
                   "secretaries of the next league: ") + who)
    return 0


def cmd_event_final(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.tournaments import final_entry_for, find_event
    from relaybot.core.events import LAST_FINAL_50, SOLE_FIRST

    store = open_store(cfg)
    with store.session() as session:
        found = final_entry_for(session, find_event(session, args.name))
    if found.unfinished:
        print(f"final entry: nobody yet ({found.unfinished} games still being played)")
        return 0
    why = {SOLE_FIRST: "sole first", LAST_FINAL_50: "50% or more in the last final"}
    shown = [f"{player} ({why.get(reason, 'tied first with 70% or more')}"
             + (f": {final})" if reason == LAST_FINAL_50 else ")")
             for player, reason, final in found.entries]
    print("final entry: " + (", ".join(shown) if shown else "nobody"))
    return 0
