"""``relaybot member add|list|show|set|import``: the club's members and their ratings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from relaybot.app.progress import progress_bar
from relaybot.cli import club
from relaybot.cli.common import (
    Subparsers,
    json_option,
    member_name,
    now_of,
    now_option,
    open_store,
    print_json,
)
from relaybot.config import Config

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from relaybot.club.members import MemberInput
    from relaybot.store.models import Member


class _RatingKinds:
    """The games a member may hold a rating in, as ``member add --help`` lists them: read
    from the ratings' book only when a help text is printed, so that building the parser
    does not load the club's ledgers (and SQLAlchemy with them)."""

    def __str__(self) -> str:
        from relaybot.club.rating_book import KINDS

        return "|".join(KINDS)


# English forms for the command's counts (relaybot.mail.plurals.count)
COUNTED = {"one": "counted game", "other": "counted games"}
RATED = {"one": "rated game", "other": "rated games"}
MEMBERS = {"one": "member", "other": "members"}


def register(sub: Subparsers) -> None:
    member = sub.add_parser("member", help="club members").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    add = member.add_parser("add", help="register one member")
    add.add_argument("--name", required=True,
                     help='the name in Latin letters, "Family, Given" (Hayakawa, Satoru)')
    add.add_argument("--email", required=True, help="the member's mail address")
    add.add_argument("--name-ja", metavar="NAME",
                     help="the name in Japanese script, e.g. 早川悟, which mail in Japanese "
                     "shows (optional)")
    _member_options(add)
    club.member_options(add)  # issue 30: the membership kind
    now_option(add)
    add.set_defaults(func=cmd_member_add)
    mlist = member.add_parser("list", help="every member: address, name, language, zone, "
                              "digest, ratings (tab-separated)")
    json_option(mlist)
    mlist.set_defaults(func=cmd_member_list)
    mshow = member.add_parser("show", help="a member's ratings and grade")
    mshow.add_argument("email", help="the member's address")
    json_option(mshow)
    mshow.set_defaults(func=cmd_member_show)
    mset = member.add_parser("set", help="change a member's settings or a rating")
    mset.add_argument("email", help="the member's address")
    mset.add_argument("--name", help='a new name, "Family, Given"')
    mset.add_argument("--name-ja", metavar="NAME",
                      help="the name in Japanese script, e.g. 早川悟, which mail in Japanese "
                      "shows (\"\" removes it)")
    _member_options(mset)
    club.member_options(mset)
    mset.add_argument("--digest", choices=["weekly", "off"], help="the weekly digest mail")
    mset.add_argument("--email", dest="new_email", metavar="NEW",
                      help="move the member's main address to NEW (games and ratings stay)")
    mset.add_argument("--add-address", action="append", metavar="OTHER",
                      help="another address the member writes from (repeatable)")
    mset.add_argument("--remove-address", action="append", metavar="OTHER",
                      help="forget one of the member's other addresses")
    mset.add_argument("--drop-title", action="append", metavar="TITLE",
                      help="remove a title entered by mistake (one of that title)")
    now_option(mset)
    mset.set_defaults(func=cmd_member_set)
    est = member.add_parser(
        "estimate", help="go: the salon points that the terms one plays at imply, against "
        "a member of known points (the salon's own way to estimate one's points)")
    est.add_argument("--against", required=True, metavar="POINTS|ADDR",
                     help="the opponent's go points, or a member's address (their points)")
    est.add_argument("--stones", type=int, required=True,
                     help="the stones: 1 for Black without stones (先番, also an even game "
                     "with 5.5 komi), 2 to 7")
    est.add_argument("--komi", type=float, default=0.0,
                     help="komi Black gives (negative: White gives), default 0")
    est.add_argument("--gives", action="store_true",
                     help="the member gives the stones (plays White against --against)")
    est.add_argument("--lang", choices=["ja", "en"], default="en",
                     help="the language of the ranks shown (default en)")
    est.set_defaults(func=cmd_member_estimate)
    imp = member.add_parser("import", help="add members from a CSV file (all or nothing)")
    imp.add_argument("file", help="CSV in UTF-8 or Shift_JIS (cp932); header "
                     "name,email (needed) and name_ja,lang,tz,rating,notation,game,"
                     "provisional,rank,titles, in English or Japanese "
                     "(名前,メール,名前（漢字）,言語,...)")
    now_option(imp)
    imp.set_defaults(func=cmd_member_import)
    club.member_commands(member)  # issue 30: renew, pawns, quit


def _member_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``member add`` and ``member set`` (INTERFACE.md)."""
    parser.add_argument("--lang", choices=["ja", "en"],
                        help="the language of the member's mail (default: [bot] language)")
    parser.add_argument("--tz", metavar="ZONE",
                        help="IANA time zone, e.g. Asia/Tokyo (default: [bot] timezone); "
                             "days are counted in it")
    parser.add_argument("--notation", help="san (default), numeric, or san:de / san:fr / san:es")
    parser.add_argument("--rating", metavar="N",
                        help="rating in --game (official; (N) in parentheses: provisional)")
    parser.add_argument("--provisional", action="store_true",
                        help="the --rating is provisional (recomputed from the member's results "
                             "after 12 games)")
    # checked by admin, not argparse choices: a mistake is then one line, not a usage;
    # argparse fills %(kinds)s from the option's own attributes when it prints the help
    game = parser.add_argument("--game", help="the game the rating is for: %(kinds)s "
                               "(default chess)")
    setattr(game, "kinds", _RatingKinds())  # noqa: B010 (argparse.Action declares no kinds)
    parser.add_argument("--rank", help="go: the salon's starting points from a declared rank, "
                        "e.g. 4k, 1d (provisional until the chair sets official points)")
    parser.add_argument("--born", type=int, metavar="YYYY",
                        help="the year of birth: a junior member is one until the 31 March "
                        "after turning 18; the go salon's secretaries skip members of 70 "
                        "or more")
    parser.add_argument("--serves", action=argparse.BooleanOptionalAction, default=None,
                        help="go salon: a member of 70 or more who asks to serve as a "
                        "secretary (--no-serves: exempt again)")
    parser.add_argument("--title", action="append", metavar="TITLE",
                        help="a title won, for grade points: japan_champion (each time "
                        "won), IM, SIM, GM; repeat the option for several")


def _member_input(args: argparse.Namespace, name: str, email: str) -> MemberInput:
    """The options ``member add`` and ``member set`` share; ``--rating (1320)`` is
    provisional as R2 prints it, a bare number official unless ``--provisional``."""
    from relaybot.club.members import MemberInput, parse_rating

    rating, bracketed = (parse_rating(args.rating) if args.rating is not None
                         else (None, False))
    return MemberInput(name=name, email=email, lang=args.lang, tz=args.tz, rating=rating,
                       notation=args.notation, provisional=args.provisional or bracketed,
                       game=args.game, rank=args.rank, titles=tuple(args.title or ()),
                       drop_titles=tuple(getattr(args, "drop_title", None) or ()),
                       born=args.born, serves=args.serves, name_ja=args.name_ja)


def _ratings_line(session: Session, member: Member) -> str:
    from relaybot.club.grade_book import titles_of
    from relaybot.club.rating_book import KINDS, display, ratings_of
    from relaybot.core.ratings import titles_text

    rows = ratings_of(session, member.id)
    shown = [f"{kind} {display(rows[kind], kind)}" for kind in KINDS if kind in rows]
    titles = titles_text(titles_of(session, member.id))
    return ("ratings: " + (", ".join(shown) if shown else "none (unrated)")
            + (f"; titles: {titles}" if titles else ""))


def cmd_member_add(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.members import add_member

    store = open_store(cfg)
    with store.session() as session:
        member = add_member(session, cfg, _member_input(args, args.name, args.email),
                            now_of(args))
        books = club.apply_member_options(session, member, args)
        print(f"member {member.id}: {member_name(member)} <{member.email}>")
        print(_ratings_line(session, member))
        if books:
            print(books)
    return 0


def cmd_member_list(cfg: Config, args: argparse.Namespace) -> int:
    """Every member, one a line: address, name, language, zone, digest, ratings."""
    from sqlalchemy import select

    from relaybot.club.rating_book import KINDS, display, ratings_of
    from relaybot.store.models import Member

    store = open_store(cfg)
    with store.session() as session:
        members = list(session.scalars(select(Member).order_by(Member.name, Member.email)))
        if args.json:
            from relaybot.cli.documents import member_list_document

            print_json(member_list_document(session, members))
            return 0
        for m in members:
            rows = ratings_of(session, m.id)
            shown = " ".join(f"{kind}:{display(rows[kind], kind)}"
                             for kind in KINDS if kind in rows) or "unrated"
            print(f"{m.email}\t{member_name(m)}\t{m.lang}\t{m.tz}\tdigest {m.digest}\t{shown}")
    if not members:
        print("no members yet (relaybot member add / member import)", file=sys.stderr)
    return 0


def notation_text(member: Member) -> str:
    """The member's notation as ``--notation`` takes it: ``san``, ``numeric``, ``san:de``."""
    letters = member.letters or "en"
    return member.notation + (f":{letters}" if letters != "en" else "")


def played_kinds(session: Session, member: Member) -> set[str]:
    """The games the member has played or is playing (every state)."""
    from sqlalchemy import select

    from relaybot.store.models import Game

    return set(session.scalars(select(Game.kind).distinct().where(
        (Game.side0_id == member.id) | (Game.side1_id == member.id))))


def cmd_member_show(cfg: Config, args: argparse.Namespace) -> int:
    """A member's settings, then one line per game the member plays (has a rating in or
    a game of): the rating and games, for chess the grade and titles, for go the salon
    points and rank."""
    from relaybot.club.grade_book import grade_of, titles_of
    from relaybot.club.members import find_member
    from relaybot.club.rating_book import KINDS, display, ratings_json, ratings_of
    from relaybot.club.season_book import member_league_titles
    from relaybot.core.ratings import titles_text
    from relaybot.mail.plurals import count

    store = open_store(cfg)
    with store.session() as session:
        m = find_member(session, args.email)
        if args.json:
            from relaybot.cli.documents import member_document

            print_json(member_document(session, m))
            return 0
        points, grade = grade_of(session, m)
        titles = titles_text(titles_of(session, m.id))
        # seed 004 section 6: the year of birth and a wish to serve, which the salon's
        # choice of secretaries reads
        born = (f"  born {m.born}" if m.born else "") + ("  serves" if m.serves else "")
        print(f"{member_name(m)} <{m.email}>  lang {m.lang}  tz {m.tz}  notation {notation_text(m)}"
              f"  digest {m.digest}{born}")
        rows = ratings_of(session, m.id)
        plays = played_kinds(session, m) | set(rows)
        if titles or points:
            plays.add("chess")  # grade points and titles are chess's (R3)
        if not plays:
            print("ratings: none yet (no rating and no game)")
        # one line for each game the member plays: a rating in it, or a game of it
        for kind in KINDS:
            row = rows.get(kind)
            if kind not in plays:
                continue
            games = row.rated_games if row is not None else 0
            go = ratings_json(session, m).get("go") if kind == "go" else None
            if go is not None:  # seed 004: points, rank, the count and the win rate
                rate = "-" if go["win_rate"] is None else f"{go['win_rate']:.3f}"
                print(f"go: points {display(row, kind)}"
                      f" ({'official' if go['official'] else 'provisional'})"
                      f" after {count(games, COUNTED)} ({count(go['wins'], 'win')}"
                      f" {count(go['losses'], 'loss')} {go['draws']} jigo, win rate {rate};"
                      f" {count(go['games'], 'game')} in all)")
                continue
            line = f"{kind}: rating {display(row, kind)} after {count(games, RATED)}"
            if kind == "chess":  # R3: JCCA grades are chess grades, titles part of them
                line += f"; grade points {points} ({grade})"
                if titles:
                    line += f"; titles {titles}"
            print(line)
        league = member_league_titles(session, m.id)  # T3, seed 002 rule 13
        if league:
            print(f"shogi league titles: {', '.join(league)}")
        books = club.books_line(session, m)  # issue 30
        if books:
            print(books)
    return 0


def cmd_member_set(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.members import (
        add_address,
        change_email,
        find_member,
        member_addresses,
        remove_address,
        update_member,
    )

    store = open_store(cfg)
    now = now_of(args)
    with store.session() as session:
        m = find_member(session, args.email)
        update_member(session, cfg, m, _member_input(args, args.name or "", m.email), now)
        if args.digest:
            m.digest = args.digest
        if args.new_email:
            change_email(session, m, args.new_email)
        for address in args.add_address or ():
            add_address(session, m, address, now)
        for address in args.remove_address or ():
            remove_address(session, m, address)
        books = club.apply_member_options(session, m, args)
        others = member_addresses(session, m)
        print(f"{member_name(m)} <{m.email}>: digest {m.digest}, lang {m.lang}, tz {m.tz}")
        if others:
            print("also writes from: " + ", ".join(others))
        print(_ratings_line(session, m))
        if books:
            print(books)
    return 0


def cmd_member_import(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.members import import_members as import_members_csv

    store = open_store(cfg)
    with store.session() as session, progress_bar("checking members") as advance:
        members = import_members_csv(session, cfg, Path(args.file), now_of(args),
                                     progress=advance)
    from relaybot.mail.plurals import count

    print(f"imported {count(len(members), MEMBERS)}")
    return 0


def cmd_member_estimate(cfg: Config, args: argparse.Namespace) -> int:
    """Seed 004 section 2-2: the points the terms imply (two answers for a komi of 0)."""
    from relaybot.cli.common import CliError
    from relaybot.core.ratings import estimate_points, rank_code, rank_name

    against = args.against.strip()
    if against.lstrip("-").isdigit():
        known = int(against)
    else:
        from relaybot.club.members import find_member
        from relaybot.club.rating_book import rating_row

        store = open_store(cfg)
        with store.session() as session:
            row = rating_row(session, find_member(session, against).id, "go")
            if row is None:
                raise CliError(f"--against: {against} has no go points")
            known = row.rating
    try:
        answers = estimate_points(known, args.stones, args.komi, takes_black=not args.gives)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    joiner = " または " if args.lang == "ja" else " or "
    print(joiner.join(f"{p} ({rank_name(rank_code(p), args.lang)})" for p in answers))
    return 0
