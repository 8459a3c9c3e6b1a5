"""``relaybot game new|list|show|pgn|record|export``: one game at a time."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from relaybot.cli import club
from relaybot.cli.common import (
    CliError,
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

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from relaybot.store.models import Event, Game


def register(sub: Subparsers) -> None:
    game = sub.add_parser("game", help="games").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    new = game.add_parser("new", help="start a game; prints its id and address")
    new.add_argument("--white", metavar="ADDR",
                     help="the member playing White (the first colour of the game)")
    new.add_argument("--black", metavar="ADDR",
                     help="the member playing Black (the second colour of the game)")
    new.add_argument("--players", metavar="ADDR,ADDR",
                     help="go, instead of --white/--black: the two members, Black by the "
                          "salon's terms (fewer points with --handicap auto) or, in an even "
                          "game, by electronic toss, said in the start mail")
    new.add_argument("--event", metavar="NAME",
                     help="the event the game belongs to (it must exist: event new, or "
                          "--create-event)")
    new.add_argument("--create-event", action="store_true",
                     help="create the --event if there is none of that name (a group for "
                          "chess, a league for shogi, a salon for go)")
    new.add_argument("--game", default="chess",
                     help="the game: chess, shogi (--black is 先手 and moves first) or go "
                     "(Black moves first; White in a handicap game)")
    new.add_argument("--size", type=int, choices=[19, 13, 9], help="go: the board size")
    new.add_argument("--handicap", help="go: N stones (2-9), or auto: stones and komi from the "
                     "two members' salon points, the one with fewer points taking Black")
    new.add_argument("--komi", type=float, help="go: komi added to White (negative: White "
                     "gives Black)")
    new.add_argument("--superko", action="store_const", const="1", default=None,
                     help="go: positional superko (no whole-board position may repeat)")
    new.add_argument("--free", action="store_const", const="1", default=None,
                     help="go: a free game at the players' wish, which leaves the salon's "
                          "points as they were")
    rule_set_options(new)
    club.game_options(new)  # issue 30: --tutorial
    new.add_argument("--time-control", default=None,
                     help="10/30, 10/50, bank:20, ... (default: the game's rules)")
    new.add_argument("--start", type=parse_date, metavar="YYYY-MM-DD",
                     help="the day the clocks start (default today)")
    new.add_argument("--conditionals", default=None, choices=["binding", "optional", "off"],
                     help="conditional moves: binding, optional or off (default: the game's "
                     "rules; optional in shogi)")
    new.add_argument("--notation", choices=["san", "numeric"],
                     help="notation of the game's mail (default: each member's own)")
    new.add_argument("--overrun", default="report", choices=["report", "forfeit"],
                     help="a player over the time limit: report it to the TD (default) or "
                     "forfeit the game at once")
    now_option(new)
    new.set_defaults(func=cmd_game_new)
    glist = game.add_parser("list", help="games: id, game, state or result, players, event "
                            "(tab-separated)")
    glist.add_argument("--active", action="store_true", help="only games still being played")
    glist.add_argument("--event", metavar="NAME", help="only the games of this event")
    json_option(glist)
    glist.set_defaults(func=cmd_game_list)
    show = game.add_parser("show", help="record, clocks and state")
    show.add_argument("id", help="the game id")
    json_option(show)
    show.add_argument("--now", metavar="ISO-8601",
                      help="the moment the game's state is shown at (default: now): the 24 "
                           "months after which an unfinished game goes to the TD are "
                           "counted to it")
    show.set_defaults(func=cmd_game_show)
    pgn = game.add_parser("pgn", help="the game in PGN, as the result report to the TD "
                         "writes it")
    pgn.add_argument("id", help="the game id")
    pgn.set_defaults(func=cmd_game_pgn)
    record = game.add_parser("record", help="the game's record in its own format (PGN for chess)")
    record.add_argument("id", help="the game id")
    record.add_argument("--format", choices=["pgn", "kif", "csa", "sgf"], default=None,
                        help="the record format (default: the game's own; chess PGN with "
                        "the standard headers)")
    record.set_defaults(func=cmd_game_record)

    export = game.add_parser("export", help="every mail of a game, raw, as an mbox for the TD; "
                             "reply tokens redacted")
    export.add_argument("id", help="the game id")
    export.add_argument("--out", required=True,
                        help="mbox file to write (new; created readable by you only)")
    export.set_defaults(func=cmd_game_export)


def _game_options(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The game's own start options given on the command line (go: size, handicap, komi)."""
    return tuple((name, str(value)) for name in ("size", "handicap", "komi", "superko", "free")
                 if (value := getattr(args, name, None)) is not None)


def _game(session: object, game_id: str) -> object:
    from relaybot.store.models import Game

    game = session.get(Game, game_id.strip().lower())  # type: ignore[attr-defined]
    if game is None:
        raise CliError(f"no game with id {game_id!r}")
    return game


# the kind of event ``game new --create-event`` makes, by game (else a group)
CREATED_EVENT_KINDS = {"shogi": "league", "go": "salon"}


def _event_for(session: Session, cfg: Config, args: argparse.Namespace,
               now: datetime) -> Event | None:
    """The event ``game new --event NAME`` names: an existing one; one made now with
    ``--create-event``; else a CliError in one line."""
    from sqlalchemy import select

    from relaybot.club.tournaments import DEFAULT_TIEBREAKS, KIND_TIEBREAKS
    from relaybot.games import rules_for
    from relaybot.store.models import Event

    if args.event is None:
        return None
    name = " ".join(args.event.split())
    if not name:
        raise CliError("--event: the event needs a name")
    event = session.scalar(select(Event).where(Event.name == name))
    if event is not None:
        return event
    if not args.create_event:
        raise CliError(f"no event named {name!r}: create it first (relaybot event new) "
                       f"or add --create-event")
    kind = CREATED_EVENT_KINDS.get(args.game, "group")
    try:
        own = rules_for(args.game).rule_set
    except ValueError as exc:
        raise CliError(f"--game: {exc}") from None
    event = Event(name=name, kind=kind, time_control=args.time_control or own.time_control,
                  conditionals=args.conditionals or own.conditionals,
                  start_date=args.start or now.astimezone(ZoneInfo(cfg.bot.timezone)).date(),
                  tiebreaks=KIND_TIEBREAKS.get(kind, DEFAULT_TIEBREAKS), td=None, final=0,
                  created_at=now)
    session.add(event)
    session.flush()
    return event


def _seat_players(session: Session, event: Event, game: Game) -> None:
    """The game's players take a seat in its event if they have none yet, so that the
    event's standings count the game."""
    from sqlalchemy import func, select

    from relaybot.store.models import EventPlayer

    seated = set(session.scalars(select(EventPlayer.member_id)
                                 .where(EventPlayer.event_id == event.id)))
    last = session.scalar(select(func.max(EventPlayer.seat))
                          .where(EventPlayer.event_id == event.id)) or 0
    for member_id in (game.side0_id, game.side1_id):
        if member_id not in seated:
            last += 1
            session.add(EventPlayer(event_id=event.id, member_id=member_id, seat=last))


def handicap_note(session: Session, game: Game, options: dict[str, Any]) -> str:
    """What ``--handicap auto`` chose and why, in one line: the stones and komi, the two
    members' salon points and who takes Black."""
    from relaybot.club.rating_book import current_ratings
    from relaybot.core.ratings import go_rank, handicap_between
    from relaybot.store.models import Member

    black, white = session.get(Member, game.side0_id), session.get(Member, game.side1_id)
    assert black is not None and white is not None
    points = current_ratings(session, (black.id, white.id), "go")
    _, terms = handicap_between(points[black.id], points[white.id])
    komi = options.get("komi")
    chosen = terms.describe("en")
    if komi is not None:  # --komi given: the stones are auto, the komi the operator's
        chosen = chosen.split(";")[0] + f"; komi {komi} (--komi)"

    def who(m: Member) -> str:
        return f"{m.email} {points[m.id]} ({go_rank(points[m.id])})"

    if terms.even:
        why = f"equal points, {who(black)} and {who(white)}: colours as given"
    else:
        why = (f"salon points {who(black)}, {who(white)}, difference {terms.diff}: "
               f"fewer points take Black")
        if black.email != options.get("black"):
            why += " (--white and --black swapped)"
    return f"handicap auto: {chosen}; {why}"


def _sides(args: argparse.Namespace) -> tuple[str, str, bool]:
    """(white, black, toss) from ``--white``/``--black``, or go's ``--players A,B``
    (seed 004 section 4: an even game's Black by toss; the operator's colours otherwise)."""
    if args.players is None:
        if not args.white or not args.black:
            raise CliError("--white and --black are both needed (go: or --players A,B)")
        return args.white, args.black, False
    if args.white or args.black:
        raise CliError("--players replaces --white and --black: give one or the other")
    if (args.game or "chess").strip().lower() != "go":
        raise CliError("--players is for go (colours by the salon's terms or a toss); "
                       "other games take --white and --black")
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if len(players) != 2:
        raise CliError(f"--players names two members, not {len(players)}")
    return players[1], players[0], True


def cmd_game_new(cfg: Config, args: argparse.Namespace) -> int:
    """Start a game: its id on the first line, its address on the second (INTERFACE.md),
    then, for ``--handicap auto``, the terms chosen and why."""
    from relaybot.app.service import start_mails
    from relaybot.club.members import find_member
    from relaybot.club.new_games import GameInput, create_game

    white, black, toss = _sides(args)
    store = open_store(cfg)
    now = now_of(args)
    with store.session() as session:
        event = _event_for(session, cfg, args, now)
        tutorial = club.check_tutorial(session, args)
        game = create_game(session, cfg, GameInput(
            white=white, black=black, event=event.name if event else None,
            time_control=args.time_control, start=args.start,
            conditionals=args.conditionals, notation=args.notation,
            overrun=args.overrun, kind=args.game, grace=args.grace,
            leave=False if args.no_leave else None, options=_game_options(args),
            toss=toss), now)
        if event is not None:
            _seat_players(session, event, game)
        club.record_tutorial(session, game, tutorial)
        start_mails(session, cfg, game, now)
        print(game.id)
        print(cfg.bot.game_address(game.id))
        if args.handicap == "auto" and args.game == "go":
            given = {"black": find_member(session, black).email,
                     **({"komi": f"{args.komi:g}"} if args.komi is not None else {})}
            print(handicap_note(session, game, given))
    return 0


def cmd_game_list(cfg: Config, args: argparse.Namespace) -> int:
    """Games, one a line: id, game, state or result, White - Black, event, and how far
    the game has gone as its players count moves."""
    from sqlalchemy import select

    from relaybot.mail.wording import progress_text
    from relaybot.store.models import Event, Game, Member

    store = open_store(cfg)
    with store.session() as session:
        query = select(Game).order_by(Game.created_at, Game.id)
        if args.active:
            query = query.where(Game.status == "active")
        if args.event is not None:
            event = " ".join(args.event.split())
            query = query.where(Game.event == event)
            if session.scalar(select(Event.id).where(Event.name == event)) is None and \
                    session.scalar(select(Game.id).where(Game.event == event)) is None:
                # a mistyped name is the operator's mistake, not an empty event
                raise CliError(f"no event named {event!r} (relaybot event list)")
        games = list(session.scalars(query))
        if args.json:
            from relaybot.cli.documents import game_list_document

            print_json(game_list_document(session, games))
            return 0
        from relaybot.cli.documents import result_word

        names = {m.id: m.name.plain() for m in session.scalars(select(Member))}
        for g in games:
            # the result in the TD's words, as --json gives it (shogi sente, not 1-0)
            print(f"{g.id}\t{g.kind}\t{result_word(g) or g.status}\t"
                  f"{names.get(g.side0_id, '?')} - {names.get(g.side1_id, '?')}\t"
                  f"{g.event or '-'}\t{progress_text(g.ply_count, g.kind)}")
    if not games:
        print("no games" + (" in that event" if args.event is not None else ""),
              file=sys.stderr)
    return 0


def cmd_game_show(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.deadlines import with_td_for_duration
    from relaybot.club.gamefile import GameFile
    from relaybot.core.game import board_in, waits_for_result
    from relaybot.mail.wording import count

    store = open_store(cfg)
    with store.session() as session:
        game = _game(session, args.id)
        gf = GameFile.load(session, game)  # type: ignore[arg-type]
        if args.json:
            from relaybot.cli.documents import game_document

            print_json(game_document(cfg, gf, now_of(args)))
            return 0
        g = gf.game
        position = gf.rules.load(g.position)
        from relaybot.cli.documents import result_word

        word = result_word(g)  # the TD's words, as --json: shogi sente, not the stored 1-0
        print(f"game {g.id}  {g.kind}  {g.status}{'  ' + word if word else ''}")
        sides = gf.rules.side_names("en")  # side 0 first: White in chess, Sente in shogi
        print(f"{sides[0]}: {member_name(gf.white)} <{gf.white.email}>")
        print(f"{sides[1]}: {member_name(gf.black)} <{gf.black.email}>")
        print(f"event: {g.event or '-'}  time control: {g.time_control}  start: {g.start_date}"
              f"  conditionals: {g.conditionals}")
        print(f"address: {cfg.bot.game_address(g.id)}  TD: {gf.td or cfg.bot.td}")
        print(f"rules: grace {count(g.grace, 'day')} after receipt, leave "
              f"{'allowed' if g.leave_allowed else 'not allowed: days keep counting'}, "
              f"overrun {g.overrun}")
        print("record: " + (gf.rules.format_record(gf.plies, "san") or "-"))
        since = with_td_for_duration(gf, now_of(args))
        if since is not None:  # J14: the game ended that day; no move is played since
            print(f"with the TD: unfinished 24 months after the start, for adjudication "
                  f"since {since}; nobody is to move")
        elif g.status == "active" and waits_for_result(gf.rules, position):
            # go after both passed: the players state the result, nobody moves
            print("to move: nobody; both players passed and state the result")
        elif g.status == "active":
            print("to move: " + gf.rules.side_names("en")[gf.rules.to_move(position)])
        else:
            print(f"ended: {g.end_date} ({g.termination})")
        for move in gf.moves:
            bound = "  (bound answer, played by the bot)" if move.auto else ""  # J16
            print(f"  ply {move.ply + 1:>3} {move.text:<8} sent {move.sent_at:%Y-%m-%d %H:%M} UTC"
                  f"{bound}")
        from relaybot.cli.documents import pending_proposals

        lines = pending_proposals(gf)
        if lines and g.proposals_by is not None:  # J16: what binds the proposer now
            print(f"proposals by {sides[g.proposals_by]} ({g.conditionals}, until the reply):")
            for line in lines:
                print(f"  {line}")
        print(board_in(gf.rules, position, "en", over=g.status == "finished"))
    return 0


def cmd_game_pgn(cfg: Config, args: argparse.Namespace) -> int:
    """J15: the game's record (PGN in the JCCA report form for chess), exactly as the
    report goes to the TD."""
    from relaybot.club.views import GameFile, game_record

    store = open_store(cfg)
    with store.session() as session:
        game = _game(session, args.id)
        gf = GameFile.load(session, game)  # type: ignore[arg-type]
        print(game_record(cfg, gf))
    return 0


def cmd_game_record(cfg: Config, args: argparse.Namespace) -> int:
    """The game's record file as programs read it (PGN with the standard headers for
    chess: TimeControl, Termination, EventDate, WhiteElo/BlackElo, Site from the config)."""
    from relaybot.club.views import GameFile, event_start, game_record

    store = open_store(cfg)
    with store.session() as session:
        game = _game(session, args.id)
        gf = GameFile.load(session, game)  # type: ignore[arg-type]
        try:
            text = game_record(cfg, gf, args.format or "", standard=True,
                               event_date=event_start(session, gf.game.event))
        except ValueError as exc:
            raise CliError(f"--format: {exc}") from None
        print(text)
    return 0


def cmd_game_export(cfg: Config, args: argparse.Namespace) -> int:
    """J19: every mail in and out of one game, raw, as an mbox file for the TD, with its
    reply tokens redacted (relaybot.mail.redact: none of them still acts)."""
    import mailbox

    from sqlalchemy import select

    from relaybot.mail.redact import redact_mail
    from relaybot.store.models import Inbound, MailGame, Outbox

    store = open_store(cfg)
    out = Path(args.out)
    try:
        # the players' mail, headers and addresses: readable by the operator alone
        os.close(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        raise CliError(f"{out} exists; choose a new file name") from None
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror}") from None
    with store.session() as session:
        game = _game(session, args.id)
        gid = game.id  # type: ignore[attr-defined]
        # its own mails, and those about it among others (sections, leave, TD: MailGame)
        linked_in = select(MailGame.inbound_id).where(MailGame.game_id == gid)
        linked_out = select(MailGame.outbox_id).where(MailGame.game_id == gid)
        inbound = session.execute(select(Inbound.received_at, Inbound.raw).where(
            (Inbound.game_id == gid) | Inbound.id.in_(linked_in))).all()
        outbound = session.execute(select(Outbox.created_at, Outbox.raw).where(
            (Outbox.game_id == gid) | Outbox.id.in_(linked_out))).all()
    box = mailbox.mbox(str(out), create=True)
    try:
        box.lock()
        for _when, raw in sorted([*inbound, *outbound], key=lambda row: row[0]):
            # the TD's copy: every reply token replaced by one that never verifies
            box.add(mailbox.mboxMessage(redact_mail(bytes(raw))))
        box.flush()
    finally:
        box.unlock()
        box.close()
    print(f"wrote {len(inbound) + len(outbound)} mails of game {gid} to {out}")
    return 0
