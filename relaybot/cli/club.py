"""``relaybot club ...`` and the books' options of other groups (issue 30, seed 000):
``member add/set --kind --family-of --born --paid-until``, ``member renew``, ``member
pawns``, ``member quit``, ``event new --fee``, ``game new --tutorial``; ``club report``,
``club settings``, ``club ladder``, ``club fees``, ``club paid``, ``club settle``,
``club tutorial-end``."""

from __future__ import annotations

import argparse
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from relaybot.cli.common import (
    CliError,
    Subparsers,
    member_name,
    now_of,
    now_option,
    open_store,
    parse_date,
)
from relaybot.config import Config

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from relaybot.store.models import Event, Game, Member


def _today(cfg: Config, now: datetime) -> date:
    from zoneinfo import ZoneInfo

    return now.astimezone(ZoneInfo(cfg.bot.timezone)).date()


# -- options other groups take -----------------------------------------------------------


def member_options(parser: argparse.ArgumentParser) -> None:
    """``member add/set``: the membership kind and its facts."""
    parser.add_argument("--kind", choices=["regular", "family", "junior"],
                        help="membership: regular (3,000 yen a year), family (1,500 yen, "
                             "living with a regular member) or junior (1,000 yen)")
    parser.add_argument("--family-of", metavar="ADDR",
                        help="a family member's regular member (their membership's expiry "
                             "is this member's)")
    if "--born" not in parser._option_string_actions:  # the go salon's option, if present
        parser.add_argument("--born", type=int, metavar="YYYY",
                            help="the year of birth (a junior is one until the 31 March "
                                 "after turning 18)")
    parser.add_argument("--paid-until", type=parse_date, metavar="YYYY-MM-DD",
                        help="the membership's last valid day (as the books say it)")


def apply_member_options(session: Session, member: Member, args: argparse.Namespace) -> str:
    """Write ``member add/set``'s membership options; a line to print, or ""."""
    from relaybot.club.memberships import set_membership, valid_until

    # the year of birth is the member's (Member.born, written by member add/set before
    # this): a junior's membership reads it there
    ms = set_membership(session, member, kind=args.kind, family_of=args.family_of,
                        paid_until=args.paid_until)
    if ms is None:
        return ""
    until = valid_until(session, ms)
    return f"membership: {ms.kind}, " + (f"valid until {until}" if until else "not paid yet")


def books_line(session: Session, member: Member) -> str:
    """``member show``'s line of the books: the membership, its expiry, the pawns."""
    from relaybot.club.memberships import membership_of, valid_until
    from relaybot.club.pawns import balance

    ms = membership_of(session, member)
    pawns = balance(session, member)
    if ms is None:
        return f"pawns: {pawns}" if pawns else ""
    until = valid_until(session, ms)
    state = (f"left the club on {ms.left_on}" if ms.left_on
             else f"valid until {until}" if until else "not paid yet")
    return f"membership: {ms.kind}, {state}; pawns: {pawns}"


def member_commands(member: Subparsers) -> None:
    """``member renew``, ``member pawns``, ``member quit``."""
    renew = member.add_parser("renew", help="a year's membership fee paid")
    renew.add_argument("email", help="the member's address")
    how = renew.add_mutually_exclusive_group()
    how.add_argument("--yen", type=int, metavar="N",
                     help="yen received (above the fee: the rest deposited as pawns, "
                          "1 pawn = 100 yen, fractions dropped); default: the fee")
    how.add_argument("--pawns", type=int, metavar="N", help="paid from the member's pawns")
    renew.add_argument("--on", type=parse_date, metavar="YYYY-MM-DD",
                       help="the day paid (default: today)")
    now_option(renew)
    renew.set_defaults(func=cmd_member_renew)
    pawns = member.add_parser("pawns", help="a member's pawn deposit: every movement and "
                              "the balance; --add or --pay moves pawns")
    pawns.add_argument("email", help="the member's address")
    move = pawns.add_mutually_exclusive_group()
    move.add_argument("--add", type=int, metavar="N", help="N pawns in (a deposit, a sale)")
    move.add_argument("--add-yen", type=int, metavar="YEN",
                      help="a deposit in yen, as pawns (1 pawn = 100 yen, fractions dropped)")
    move.add_argument("--pay", type=int, metavar="N", help="N pawns out (a fee, a purchase)")
    pawns.add_argument("--reason", default="", help="why (needed with --add, --add-yen, --pay)")
    now_option(pawns)
    pawns.set_defaults(func=cmd_member_pawns)
    quit_ = member.add_parser("quit", help="the member leaves the club: pawns forfeited")
    quit_.add_argument("email", help="the member's address")
    now_option(quit_)
    quit_.set_defaults(func=cmd_member_quit)


def event_options(parser: argparse.ArgumentParser) -> None:
    """``event new --fee``."""
    parser.add_argument("--fee", type=int, metavar="YEN",
                        help="the entry fee in yen (juniors half); paid from pawns where "
                             "the player has them")


def after_event(session: Session, event: Event, games: list[Game], args: argparse.Namespace,
                now: datetime) -> list[str]:
    """The books' part of ``event new``: the entry fee, a ladder challenge."""
    from relaybot.club.entry_fees import set_event_fee
    from relaybot.club.ladders import register_challenge

    lines = []
    if event.kind == "ladder" and games:
        register_challenge(session, event, games[0])
    if getattr(args, "fee", None) is not None:
        entries = set_event_fee(session, event, args.fee, now)
        unpaid = [f"{e.email} ({e.yen} yen)" for e in entries if e.paid is None]
        lines.append(f"entry fee {args.fee} yen; not paid yet: "
                     + (", ".join(unpaid) if unpaid else "nobody"))
    return lines


def game_options(parser: argparse.ArgumentParser) -> None:
    """``game new --tutorial [--tutor ADDR]``."""
    parser.add_argument("--tutorial", action="store_true",
                        help="a tutorial game (chess or shogi): unrated, in no standings, "
                             "ended by the tutor; one by email per member")
    parser.add_argument("--tutor", metavar="ADDR",
                        help="the tutor of a --tutorial game (default: --white)")


def check_tutorial(session: Session, args: argparse.Namespace) -> tuple[Member, Member] | None:
    """Before ``game new --tutorial`` makes the game: the tutor and the student, checked."""
    from relaybot.club.members import find_member
    from relaybot.club.tutorials import check_tutorial as check

    if not getattr(args, "tutorial", False):
        if getattr(args, "tutor", None):
            raise CliError("--tutor goes with --tutorial")
        return None
    if args.event is not None:
        raise CliError("a tutorial game is in no event")
    white, black = find_member(session, args.white), find_member(session, args.black)
    tutor = find_member(session, args.tutor) if args.tutor else white
    if tutor.id not in (white.id, black.id):
        raise CliError("--tutor is one of the two players")
    student = black if tutor.id == white.id else white
    check(session, args.game, tutor, student)
    return tutor, student


def record_tutorial(session: Session, game: Game, pair: tuple[Member, Member] | None) -> None:
    """After ``game new --tutorial`` made the game."""
    from relaybot.store.models import Tutorial

    if pair is not None:
        session.add(Tutorial(game_id=game.id, tutor_id=pair[0].id, student_id=pair[1].id))
        session.flush()


# -- member commands ------------------------------------------------------------------


def cmd_member_renew(cfg: Config, args: argparse.Namespace) -> int:
    """A year's fee paid: the new expiry, and pawns deposited from yen over the fee."""
    from relaybot.club.members import find_member
    from relaybot.club.memberships import renew

    now = now_of(args)
    with open_store(cfg).session() as session:
        member = find_member(session, args.email)
        _ms, line = renew(session, member, args.on or _today(cfg, now), now,
                          yen=args.yen, pawns=args.pawns)
        print(line)
    return 0


def cmd_member_pawns(cfg: Config, args: argparse.Namespace) -> int:
    """The member's pawn ledger (after --add / --pay), one movement a line."""
    from relaybot.club.book_settings import rules_of
    from relaybot.club.members import find_member
    from relaybot.club.pawns import add_pawns, balance, ledger, pay_pawns
    from relaybot.core.books_rules import yen_to_pawns

    now = now_of(args)
    with open_store(cfg).session() as session:
        member = find_member(session, args.email)
        if args.add is not None:
            add_pawns(session, member, args.add, args.reason, now)
        elif args.add_yen is not None:
            pawns = yen_to_pawns(args.add_yen, rules_of(session))
            add_pawns(session, member, pawns, args.reason, now, yen=args.add_yen)
        elif args.pay is not None:
            pay_pawns(session, member, args.pay, args.reason, now)
        print(f"{member_name(member)} <{member.email}>: pawns")
        for e in ledger(session, member):
            yen = f" ({e.yen} yen)" if e.yen else ""
            print(f"  {e.at.date()}\t{e.pawns:+d}{yen}\t{e.kind}\t{e.reason}")
        print(f"balance: {balance(session, member)} pawns")
    return 0


def cmd_member_quit(cfg: Config, args: argparse.Namespace) -> int:
    """The member leaves the club; the pawns left are forfeited."""
    from relaybot.club.members import find_member
    from relaybot.club.memberships import quit_club

    now = now_of(args)
    with open_store(cfg).session() as session:
        member = find_member(session, args.email)
        lost = quit_club(session, member, _today(cfg, now), now)
        print(f"{member.email} left the club; {lost} pawns forfeited")
    return 0


# -- the club group --------------------------------------------------------------------


def register(sub: Subparsers) -> None:
    club = sub.add_parser("club", help="the club's books: report, settings, ladder, fees, "
                          "prizes").add_subparsers(dest="sub", required=True,
                                                   metavar="SUBCOMMAND")
    report = club.add_parser("report", help="the year's books: members, expiries, fees, "
                             "pawns, prizes, awards, games per event")
    report.add_argument("--year", type=int, metavar="YYYY",
                        help="the club year from April YYYY (default: this one)")
    report.add_argument("--format", choices=["text", "csv"], default="text",
                        help="text (default) or csv")
    report.add_argument("--lang", choices=["ja", "en"], default=None,
                        help="the report's language (default: [bot] language)")
    now_option(report)
    report.set_defaults(func=cmd_club_report)
    settings = club.add_parser("settings",
                               help="the books' figures (the JCCA handbook's unless set)")
    settings.add_argument("--set", action="append", metavar="NAME=VALUE",
                          help="change one figure, e.g. prize_pawns=6 (repeatable)")
    settings.set_defaults(func=cmd_club_settings)
    ladder = club.add_parser("ladder", help="the ladder of one game, top first")
    ladder.add_argument("--game", default="chess", help="chess (default), shogi or go")
    ladder.add_argument("--set", metavar="ADDR,ADDR,...",
                        help="write the whole ladder in this order, top first")
    ladder.add_argument("--add", action="append", metavar="ADDR",
                        help="put a member at the bottom (repeatable)")
    ladder.set_defaults(func=cmd_club_ladder)
    fees = club.add_parser("fees", help="an event's entry fees: who has paid, who has not")
    fees.add_argument("event", help="the event's name")
    fees.set_defaults(func=cmd_club_fees)
    paid = club.add_parser("paid", help="record an entry fee paid in yen")
    paid.add_argument("event", help="the event's name")
    paid.add_argument("email", help="the player's address")
    now_option(paid)
    paid.set_defaults(func=cmd_club_paid)
    settle = club.add_parser("settle", help="move the ladders, credit prizes and give the "
                             "award of ended years now (the digest does it weekly)")
    now_option(settle)
    settle.set_defaults(func=cmd_club_settle)
    opp = club.add_parser("opponents", help="members whose rating meets a 2-game match "
                          "applicant's wish, nearest first")
    opp.add_argument("email", help="the applicant's address")
    opp.add_argument("--wish", default="", help="the wish about the opponent's rating: "
                     "≦1800, ≧1500, 1800以下, at least 1500, or two joined by a comma")
    opp.add_argument("--game", default="chess", help="chess (default) or shogi")
    opp.set_defaults(func=cmd_club_opponents)
    tut = club.add_parser("tutorial-end", help="the tutor ends a tutorial game: the result "
                          "report goes out, nothing is rated")
    tut.add_argument("id", help="the tutorial's game id")
    now_option(tut)
    tut.set_defaults(func=cmd_club_tutorial_end)


def cmd_club_settings(cfg: Config, args: argparse.Namespace) -> int:
    """Every figure and its value, after the changes asked."""
    from dataclasses import asdict

    from relaybot.club.book_settings import rules_of, set_settings

    with open_store(cfg).session() as session:
        values = {}
        for item in args.set or ():
            name, sep, value = item.partition("=")
            if not sep:
                raise CliError(f"--set takes NAME=VALUE, not {item!r}")
            values[name.strip()] = value.strip()
        rules = set_settings(session, values) if values else rules_of(session)
        for name, value in asdict(rules).items():
            print(f"{name} = {value}")
    return 0


def cmd_club_ladder(cfg: Config, args: argparse.Namespace) -> int:
    """The ladder, one member a line with the place."""
    from relaybot.club.ladders import ladder_order, set_ladder
    from relaybot.club.members import find_member

    with open_store(cfg).session() as session:
        if args.set is not None:
            members = [find_member(session, a) for a in args.set.split(",") if a.strip()]
            if len({m.id for m in members}) != len(members):
                raise CliError("--set names a member twice")
            set_ladder(session, args.game, members)
        for address in args.add or ():
            order = ladder_order(session, args.game)
            member = find_member(session, address)
            if member.id not in {m.id for m in order}:
                set_ladder(session, args.game, [*order, member])
        order = ladder_order(session, args.game)
        print(f"ladder ({args.game}):" + ("" if order else " nobody yet"))
        for place, m in enumerate(order, start=1):
            print(f"  {place}. {member_name(m)} <{m.email}>")
    return 0


def cmd_club_fees(cfg: Config, args: argparse.Namespace) -> int:
    """Each player's entry fee and how it was paid."""
    from relaybot.club.entry_fees import entry_lines
    from relaybot.club.tournaments import find_event

    with open_store(cfg).session() as session:
        event = find_event(session, args.event)
        lines = entry_lines(session, event)
        if not lines:
            print(f"{event.name}: no entry fee")
        for e in lines:
            print(f"{e.email}\t{e.yen} yen\t{('paid (' + e.paid + ')') if e.paid else 'NOT PAID'}")
    return 0


def cmd_club_paid(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.entry_fees import record_entry_paid
    from relaybot.club.members import find_member
    from relaybot.club.tournaments import find_event

    with open_store(cfg).session() as session:
        print(record_entry_paid(session, find_event(session, args.event),
                                find_member(session, args.email), now_of(args)))
    return 0


def cmd_club_settle(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.club.settlement import settle

    now = now_of(args)
    with open_store(cfg).session() as session:
        done = settle(session, now, _today(cfg, now))
        for line in done:
            print(line)
        if not done:
            print("nothing to settle")
    return 0


def cmd_club_opponents(cfg: Config, args: argparse.Namespace) -> int:
    """Members meeting the wish, one a line with the rating, nearest to the applicant's
    own rating first; lapsed and departed members left out."""
    from sqlalchemy import select

    from relaybot.club.members import find_member
    from relaybot.club.memberships import membership_states
    from relaybot.club.rating_book import ratings_of
    from relaybot.core.books_rules import fits, parse_wish
    from relaybot.store.models import Member

    try:
        wish = parse_wish(args.wish)
    except ValueError as exc:
        raise CliError(f"--wish: {exc}") from None
    with open_store(cfg).session() as session:
        me = find_member(session, args.email)
        members = list(session.scalars(select(Member).where(Member.id != me.id)))
        gone = {mid for mid, notice in membership_states(
            session, [m.id for m in members], _today(cfg, now_of(args))).items()
            if notice.state == "lapsed"}

        def rating(member: Member) -> int:
            row = ratings_of(session, member.id).get(args.game)
            return row.rating if row is not None else 1200  # seed 000: 他の方は一律1200

        mine = rating(me)
        found = sorted((abs(rating(m) - mine), rating(m), m.email, member_name(m))
                       for m in members
                       if m.id not in gone and fits(rating(m), wish))
        for _distance, value, email, name in found:
            print(f"{email}\t{name}\t{value}")
        if not found:
            print("nobody meets the wish")
    return 0


def cmd_club_tutorial_end(cfg: Config, args: argparse.Namespace) -> int:
    """End a tutorial game (ゲーム進行に関する疑問点がなくなったとチューターが判断したところ
    でゲームは中断され、最後にゲームの結果報告を経験して終了します)."""
    from relaybot.club.tutorials import is_tutorial
    from relaybot.core.game import Outcome, Termination
    from relaybot.pipeline.lifecycle import end_game, load_game
    from relaybot.store.models import Game

    now = now_of(args)
    with open_store(cfg).session() as session:
        game = session.get(Game, args.id.strip().lower())
        if game is None or not is_tutorial(session, game.id):
            raise CliError(f"no tutorial game with id {args.id!r}")
        if game.status != "active":
            raise CliError(f"the tutorial {game.id} has ended already")
        gf = load_game(session, game, now)
        end_game(session, cfg, gf, Outcome(Termination.ADJUDICATION), _today(cfg, now), now)
        print(f"tutorial {game.id} ended; the result report went to both players")
    return 0


def cmd_club_report(cfg: Config, args: argparse.Namespace) -> int:
    """The club's year in the TD's language, as text or CSV."""
    from relaybot.club.year_report import report_rows, report_text

    now = now_of(args)
    with open_store(cfg).session() as session:
        lang = args.lang or cfg.bot.language
        rows: list[tuple[Any, ...]] = report_rows(session, args.year, _today(cfg, now), now)
        if args.format == "csv":
            import csv
            import sys

            writer = csv.writer(sys.stdout)
            for row in rows:
                writer.writerow(row)
        else:
            print(report_text(rows, lang))
    return 0
