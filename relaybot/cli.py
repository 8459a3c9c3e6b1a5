"""The ``relaybot`` command line (INTERFACE.md). Every failure is one clear line.

Each command imports what it needs when it runs: ``relaybot --version`` or a typo must
not load SQLAlchemy, the mail stack and every game first. (No import cycle is behind
these imports: ``python ../shared/tools/import_cycles.py relaybot`` finds none.)
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path

from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session

from relaybot.admin import (
    AdminError,
    GameInput,
    MemberInput,
    add_member,
    create_game,
    parse_rating,
)
from relaybot.admin import import_members as import_members_csv
from relaybot.config import (
    Config,
    ConfigError,
    add_missing_keys,
    config_path,
    load_config,
    new_config_text,
    redact_url,
)
from relaybot.logs import configure as configure_logging
from relaybot.progress import progress_bar
from relaybot.rating_book import KINDS as RATING_KINDS
from relaybot.store.db import Store, migrate
from relaybot.store.models import Member

log = logging.getLogger("relaybot")


class CliError(Exception):
    """Shown as ``relaybot: <message>`` with exit status 2."""

    status = 2


class Unreachable(CliError):
    """A server (IMAP, SMTP, the database) could not be reached: exit status 3, so a cron
    job or a monitor can tell "try again later" from a mistake to fix."""

    status = 3


EXIT_OK, EXIT_ERROR, EXIT_UNREACHABLE = 0, 2, 3


def _now(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise CliError(
            f"--now: not an ISO-8601 time: {text!r} (e.g. 2026-11-22T09:00:00+09:00)"
        ) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def _open(cfg: Config) -> Store:
    store = Store.open(cfg.database.url)
    try:
        migrate(store.engine)
    except OperationalError as exc:
        raise Unreachable(f"database {redact_url(cfg.database.url)}: "
                          f"{str(exc.orig).strip().splitlines()[0]}") from None
    return store


def cmd_init(cfg: Config, args: argparse.Namespace) -> int:
    path = config_path()
    if not path.exists():
        # it holds the reply-token key: readable by the operator alone
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(new_config_text())
        print(f"wrote {path}")
    else:
        # an upgrade: add what a new config has and this one lacks (a random secret,
        # say), keep every other line (INTERFACE.md "Configuration")
        text, added = add_missing_keys(path.read_text(encoding="utf-8"), str(path))
        if added:
            tmp = path.with_name(path.name + ".new")
            tmp.unlink(missing_ok=True)
            # private from the first byte (it holds the secret), then the old file's mode
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(tmp, path.stat().st_mode & 0o777)
            os.replace(tmp, path)
            print(f"{path}: added {', '.join(added)}")
        else:
            print(f"{path} exists; left as it is")
        cfg = load_config(path)  # the keys just added count from now on
    store = _open(cfg)
    store.dispose()
    print(f"database ready: {redact_url(cfg.database.url)}")
    return 0


def _member_input(args: argparse.Namespace, name: str, email: str) -> MemberInput:
    """The options ``member add`` and ``member set`` share; ``--rating (1320)`` is
    provisional as R2 prints it, a bare number official unless ``--provisional``."""
    rating, bracketed = (parse_rating(args.rating) if args.rating is not None
                         else (None, False))
    return MemberInput(name=name, email=email, lang=args.lang, tz=args.tz, rating=rating,
                       notation=args.notation, provisional=args.provisional or bracketed,
                       game=args.game, rank=args.rank, titles=tuple(args.title or ()),
                       drop_titles=tuple(getattr(args, "drop_title", None) or ()))


def _ratings_line(session: Session, member: Member) -> str:
    from relaybot.core.ratings import titles_text
    from relaybot.rating_book import KINDS, display, ratings_of, titles_of

    rows = ratings_of(session, member.id)
    shown = [f"{kind} {display(rows[kind], kind)}" for kind in KINDS if kind in rows]
    titles = titles_text(titles_of(session, member.id))
    return ("ratings: " + (", ".join(shown) if shown else "none (unrated)")
            + (f"; titles: {titles}" if titles else ""))


def cmd_member_add(cfg: Config, args: argparse.Namespace) -> int:
    store = _open(cfg)
    with store.session() as session:
        member = add_member(session, cfg, _member_input(args, args.name, args.email),
                            datetime.now(UTC))
        print(f"member {member.id}: {member.name} <{member.email}>")
        print(_ratings_line(session, member))
    return 0


def cmd_member_import(cfg: Config, args: argparse.Namespace) -> int:
    store = _open(cfg)
    with store.session() as session, progress_bar("checking members") as advance:
        members = import_members_csv(session, cfg, Path(args.file), datetime.now(UTC),
                                     progress=advance)
    print(f"imported {len(members)} members")
    return 0


def cmd_member_list(cfg: Config, args: argparse.Namespace) -> int:
    """Every member, one a line: address, name, language, zone, digest, ratings."""
    from sqlalchemy import select

    from relaybot.rating_book import KINDS, display, ratings_of

    store = _open(cfg)
    with store.session() as session:
        members = list(session.scalars(select(Member).order_by(Member.name, Member.email)))
        for m in members:
            rows = ratings_of(session, m.id)
            shown = " ".join(f"{kind}:{display(rows[kind], kind)}"
                             for kind in KINDS if kind in rows) or "unrated"
            print(f"{m.email}\t{m.name}\t{m.lang}\t{m.tz}\tdigest {m.digest}\t{shown}")
    if not members:
        print("no members yet (relaybot member add / member import)", file=sys.stderr)
    return 0


def cmd_game_list(cfg: Config, args: argparse.Namespace) -> int:
    """Games, one a line: id, game, state or result, White - Black, event, plies."""
    from sqlalchemy import select

    from relaybot.store.models import Game

    store = _open(cfg)
    with store.session() as session:
        query = select(Game).order_by(Game.created_at, Game.id)
        if args.active:
            query = query.where(Game.status == "active")
        if args.event is not None:
            query = query.where(Game.event == " ".join(args.event.split()))
        games = list(session.scalars(query))
        names = dict(session.execute(select(Member.id, Member.name)).all())
        for g in games:
            print(f"{g.id}\t{g.kind}\t{g.result or g.status}\t"
                  f"{names.get(g.side0_id, '?')} - {names.get(g.side1_id, '?')}\t"
                  f"{g.event or '-'}\t{g.ply_count} plies")
    if not games:
        print("no games" + (" in that event" if args.event is not None else ""),
              file=sys.stderr)
    return 0


def cmd_game_new(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.service import start_mails

    store = _open(cfg)
    now = datetime.now(UTC)
    with store.session() as session:
        game = create_game(session, cfg, GameInput(
            white=args.white, black=args.black, event=args.event,
            time_control=args.time_control, start=args.start,
            conditionals=args.conditionals, notation=args.notation,
            overrun=args.overrun, kind=args.game, grace=args.grace,
            leave=False if args.no_leave else None, options=_game_options(args)), now)
        start_mails(session, cfg, game, now)
        print(game.id)
        print(cfg.bot.game_address(game.id))
    return 0


def _game_options(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The game's own start options given on the command line (go: size, handicap, komi)."""
    return tuple((name, str(value)) for name in ("size", "handicap", "komi", "superko")
                 if (value := getattr(args, name, None)) is not None)


def _game(session: object, game_id: str) -> object:
    from relaybot.store.models import Game

    game = session.get(Game, game_id.strip().lower())  # type: ignore[attr-defined]
    if game is None:
        raise CliError(f"no game with id {game_id!r}")
    return game


def _rule_set_options(parser: argparse.ArgumentParser) -> None:
    """The per-game rules a league may change: the grace days and leave."""
    parser.add_argument("--grace", type=int, default=None,
                        help="J7: days of grace after receipt (default: the game's rules, "
                             "1 JCCA, 2 the shogi league)")
    parser.add_argument("--no-leave", action="store_true",
                        help="J12: no leave in this game (the shogi league: seed 002 rule 10)")


def cmd_game_show(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.gamefile import GameFile

    store = _open(cfg)
    with store.session() as session:
        game = _game(session, args.id)
        gf = GameFile.load(session, game)  # type: ignore[arg-type]
        g = gf.game
        position = gf.rules.load(g.position)
        print(f"game {g.id}  {g.kind}  {g.status}{'  ' + g.result if g.result else ''}")
        sides = gf.rules.side_names("en")  # side 0 first: White in chess, Sente in shogi
        print(f"{sides[0]}: {gf.white.name} <{gf.white.email}>")
        print(f"{sides[1]}: {gf.black.name} <{gf.black.email}>")
        print(f"event: {g.event or '-'}  time control: {g.time_control}  start: {g.start_date}"
              f"  conditionals: {g.conditionals}")
        print(f"address: {cfg.bot.game_address(g.id)}  TD: {gf.td or cfg.bot.td}")
        print(f"rules: grace {g.grace} day(s) after receipt (J7), leave "
              f"{'allowed' if g.leave_allowed else 'not allowed: days keep counting'} (J12), "
              f"overrun {g.overrun} (J9)")
        print("record: " + (gf.rules.format_record(gf.plies, "san") or "-"))
        if g.status == "active":
            print("to move: " + gf.rules.side_names("en")[gf.rules.to_move(position)])
        else:
            print(f"ended: {g.end_date} ({g.termination})")
        for move in gf.moves:
            print(f"  ply {move.ply + 1:>3} {move.text:<8} sent {move.sent_at:%Y-%m-%d %H:%M} UTC")
        print(gf.rules.board_text(position, "en"))
    return 0


def cmd_game_pgn(cfg: Config, args: argparse.Namespace) -> int:
    """J15: the game's record (PGN in the JCCA report form for chess), exactly as the
    report goes to the TD."""
    from relaybot.views import GameFile, game_record

    store = _open(cfg)
    with store.session() as session:
        game = _game(session, args.id)
        gf = GameFile.load(session, game)  # type: ignore[arg-type]
        print(game_record(cfg, gf))
    return 0


def cmd_game_record(cfg: Config, args: argparse.Namespace) -> int:
    """The game's record file as programs read it (PGN with the standard headers for
    chess: TimeControl, Termination, EventDate, WhiteElo/BlackElo, Site from the config)."""
    from relaybot.views import GameFile, event_start, game_record

    store = _open(cfg)
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
    """J19: every mail in and out of one game, raw, as an mbox file for the TD."""
    import mailbox

    from sqlalchemy import select

    from relaybot.store.models import Inbound, MailGame, Outbox

    store = _open(cfg)
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
            box.add(mailbox.mboxMessage(raw))
        box.flush()
    finally:
        box.unlock()
        box.close()
    print(f"wrote {len(inbound) + len(outbound)} mails of game {gid} to {out}")
    return 0


def cmd_run(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.mail.imap import ImapError
    from relaybot.runner import Service, run_once
    from relaybot.store.locks import InstanceLock, LockHeld

    now = _now(args.now)
    if now is not None and not args.once:
        raise CliError("--now only goes with --once")
    cfg.bot.token_keys()  # no secret: refuse before any mail goes out (issue 12)
    configure_logging(cfg.log.level, cfg.log.format)
    store = _open(cfg)
    lock = InstanceLock(store)
    try:
        lock.acquire()
    except LockHeld as exc:
        raise CliError(str(exc)) from None
    try:
        if args.once:
            try:
                report = run_once(store, cfg, now)
            except ImapError as exc:
                raise Unreachable(f"IMAP {cfg.imap.host}:{cfg.imap.port}: {exc}") from None
            p, s = report.poll, report.send
            print(f"mail: {p.processed} processed, {p.quarantined} quarantined, "
                  f"{p.failed} failed; scheduled: {report.scheduled}; "
                  f"sent: {s.sent}, retrying: {s.retried}, bounced: {s.bounced}")
            if s.unreachable:
                # the cycle ran, but nothing could go out: the operator must know (exit 3)
                raise Unreachable(f"SMTP {cfg.smtp.host}:{cfg.smtp.port}: {s.error}; "
                                  f"{s.retried} mails stay queued")
            return 0
        log.info("serving %s as %s (database %s)", cfg.bot.address, lock.holder,
                 redact_url(cfg.database.url))
        Service(store, cfg, Path(args.alive_file) if args.alive_file else None).run(lock)
        return 0
    finally:
        lock.release()


def cmd_digest_send(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.digest import send_digests
    from relaybot.outbox import send_pending

    store = _open(cfg)
    now = _now(args.now) or datetime.now(UTC)
    with progress_bar("writing digests") as advance:
        queued = send_digests(store, cfg, now, progress=advance)
    with progress_bar("sending") as advance:
        counts = send_pending(store, cfg, now, progress=advance)
    print(f"digests queued: {queued}; sent: {counts.sent}, retrying: {counts.retried}")
    return 0


def cmd_event_new(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.events import EventInput, create_event
    from relaybot.service import start_mails

    store = _open(cfg)
    now = datetime.now(UTC)
    with store.session() as session:
        games = create_event(session, cfg, EventInput(
            name=args.name, kind=args.kind,
            players=[p.strip() for p in args.players.split(",") if p.strip()],
            time_control=args.time_control, start=args.start, conditionals=args.conditionals,
            tiebreaks=args.tiebreaks, overrun=args.overrun, game=args.game,
            grace=args.grace, leave=False if args.no_leave else None, td=args.td,
            final=args.final), now)
        with progress_bar("start mails") as advance:
            for done, game in enumerate(games, start=1):
                start_mails(session, cfg, game, now)
                advance(done, len(games))
        print(f"event {' '.join(args.name.split())}: {len(games)} games started")
        for game in games:
            print(f"{game.id} {cfg.bot.game_address(game.id)}")
    return 0


def cmd_event_show(cfg: Config, args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from relaybot.events import event_text, find_event
    from relaybot.store.models import Game, Member

    store = _open(cfg)
    with store.session() as session:
        event = find_event(session, args.name)
        kind = f"{event.kind}, final" if event.final else event.kind  # T1
        print(f"{event.name}  ({kind}, {event.time_control}, from {event.start_date})")
        print(event_text(session, event, args.lang))
        names = dict(session.execute(select(Member.id, Member.name)).all())
        for g in session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)):
            print(f"  {g.id}  {names[g.side0_id]} - {names[g.side1_id]}  "
                  f"{g.result or g.status}  {g.ply_count} plies")
    return 0


def cmd_event_final(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.core.events import LAST_FINAL_50, SOLE_FIRST
    from relaybot.events import final_entry_for, find_event

    store = _open(cfg)
    with store.session() as session:
        found = final_entry_for(session, find_event(session, args.name))
    if found.unfinished:
        print(f"final entry (T1): nobody yet ({found.unfinished} games still being played)")
        return 0
    why = {SOLE_FIRST: "sole first", LAST_FINAL_50: "50% or more in the last final"}
    shown = [f"{player} ({why.get(reason, 'tied first with 70% or more')}"
             + (f": {final})" if reason == LAST_FINAL_50 else ")")
             for player, reason, final in found.entries]
    print("final entry (T1): " + (", ".join(shown) if shown else "nobody"))
    return 0


def cmd_announce(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.store.models import Announcement

    text = " ".join(args.text).strip()
    if not text:
        raise CliError("the announcement is empty")
    store = _open(cfg)
    with store.session() as session:
        session.add(Announcement(text=text, created_at=datetime.now(UTC)))
    print("announcement saved for the next weekly digest")
    return 0


def cmd_member_show(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.admin import find_member
    from relaybot.core.ratings import titles_text
    from relaybot.rating_book import KINDS, display, grade_of, ratings_of, titles_of

    store = _open(cfg)
    with store.session() as session:
        m = find_member(session, args.email)
        points, grade = grade_of(session, m)
        titles = titles_text(titles_of(session, m.id))
        print(f"{m.name} <{m.email}>  lang {m.lang}  tz {m.tz}  notation {m.notation}"
              f"  digest {m.digest}")
        rows = ratings_of(session, m.id)
        # chess is always shown, as before: unrated, it reads (1200) after 0 games (R1);
        # other kinds only once the member has a rating in them
        for kind in KINDS:
            row = rows.get(kind)
            if row is None and kind != "chess":
                continue
            games = row.rated_games if row is not None else 0
            if kind == "go":  # R4: salon points and the rank they reach
                print(f"go: points {display(row, kind)} after {games} games")
                continue
            line = f"{kind}: rating {display(row, kind)} after {games} rated games"
            if kind == "chess":  # R3: JCCA grades are chess grades, titles part of them
                line += f"; grade points {points} ({grade})"
                if titles:
                    line += f"; titles {titles}"
            print(line)
    return 0


def cmd_member_set(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.admin import (
        add_address,
        change_email,
        find_member,
        member_addresses,
        remove_address,
        update_member,
    )

    store = _open(cfg)
    now = datetime.now(UTC)
    with store.session() as session:
        m = find_member(session, args.email)
        update_member(session, cfg, m, _member_input(args, args.name or "", m.email))
        if args.digest:
            m.digest = args.digest
        if args.new_email:
            change_email(session, m, args.new_email)
        for address in args.add_address or ():
            add_address(session, m, address, now)
        for address in args.remove_address or ():
            remove_address(session, m, address)
        others = member_addresses(session, m)
        print(f"{m.name} <{m.email}>: digest {m.digest}, lang {m.lang}, tz {m.tz}")
        if others:
            print("also writes from: " + ", ".join(others))
        print(_ratings_line(session, m))
    return 0


def cmd_td(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.outbox import send_pending
    from relaybot.pipeline.td import NAMES_TEXT, Context, find_commands

    store = _open(cfg)
    now = datetime.now(UTC)
    line = " ".join(args.words)
    found = find_commands(line)
    if not found:
        raise CliError(f"not a TD command: {line!r} ({NAMES_TEXT})")
    with store.session() as session:
        outcome = found[0].command.run(Context(session, cfg, now), found[0].args, "")
    if not outcome.ok:
        raise CliError(outcome.message)
    print(outcome.message)
    send_pending(store, cfg, now)
    return 0


def cmd_web(cfg: Config, args: argparse.Namespace) -> int:
    """The read-only web pages (issue 15) until interrupted."""
    from relaybot.web import serve

    serve(cfg, _open(cfg), args.host, args.port)
    return 0


def cmd_demo(cfg: Config, args: argparse.Namespace) -> int:
    from relaybot.demo import run_demo

    return run_demo(game=getattr(args, "game", "chess"))


def _member_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``member add`` and ``member set`` (INTERFACE.md)."""
    parser.add_argument("--lang", choices=["ja", "en"],
                        help="the language of the member's mail (default: [bot] language)")
    parser.add_argument("--tz", metavar="ZONE",
                        help="IANA time zone, e.g. Asia/Tokyo (default: [bot] timezone); "
                             "days are counted in it (J6)")
    parser.add_argument("--notation", help="san (default), numeric, or san:de / san:fr / san:es")
    parser.add_argument("--rating", metavar="N",
                        help="rating in --game (official; (N) in parentheses: provisional)")
    parser.add_argument("--provisional", action="store_true",
                        help="the --rating is provisional (R2: replaced by Rb after 12 games)")
    # checked by admin, not argparse choices: a mistake is then one line, not a usage
    parser.add_argument("--game", help=f"the game the rating is for: {'|'.join(RATING_KINDS)}"
                        " (default chess)")
    parser.add_argument("--rank", help="go: salon points from a rank, e.g. 4k, 1d (R4)")
    parser.add_argument("--title", action="append", metavar="TITLE",
                        help="a title won, for grade points (R3): japan_champion (each time "
                        "won), IM, SIM, GM; repeat the option for several")


def _version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("relaybot")
    except PackageNotFoundError:
        import relaybot

        return str(getattr(relaybot, "__version__", "unknown"))


def build_parser() -> argparse.ArgumentParser:
    """The ``relaybot`` argument parser: every command and option, each with its help."""
    parser = argparse.ArgumentParser(prog="relaybot", description=(
        "Correspondence games (chess, shogi, go) by e-mail: checks every move mail and "
        "relays it. Settings: relaybot.toml (or RELAYBOT_CONFIG) and RELAYBOT_<SECTION>_<KEY>."))
    parser.add_argument("--version", action="version", version=f"relaybot {_version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("init", help="write relaybot.toml if missing (or add the keys it lacks); "
                   "create/upgrade the database").set_defaults(func=cmd_init)

    member = sub.add_parser("member", help="club members").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    add = member.add_parser("add", help="register one member")
    add.add_argument("--name", required=True, help='the name, "Family, Given"')
    add.add_argument("--email", required=True, help="the member's mail address")
    _member_options(add)
    add.set_defaults(func=cmd_member_add)
    mlist = member.add_parser("list", help="every member: address, name, language, zone, "
                              "digest, ratings (tab-separated)")
    mlist.set_defaults(func=cmd_member_list)
    mshow = member.add_parser("show", help="a member's ratings and grade")
    mshow.add_argument("email", help="the member's address")
    mshow.set_defaults(func=cmd_member_show)
    mset = member.add_parser("set", help="change a member's settings or a rating")
    mset.add_argument("email", help="the member's address")
    mset.add_argument("--name", help='a new name, "Family, Given"')
    _member_options(mset)
    mset.add_argument("--digest", choices=["weekly", "off"], help="the weekly digest mail")
    mset.add_argument("--email", dest="new_email", metavar="NEW",
                      help="move the member's main address to NEW (games and ratings stay)")
    mset.add_argument("--add-address", action="append", metavar="OTHER",
                      help="another address the member writes from (repeatable)")
    mset.add_argument("--remove-address", action="append", metavar="OTHER",
                      help="forget one of the member's other addresses")
    mset.add_argument("--drop-title", action="append", metavar="TITLE",
                      help="remove a title entered by mistake (one of that title)")
    mset.set_defaults(func=cmd_member_set)
    imp = member.add_parser("import", help="add members from a CSV file (all or nothing)")
    imp.add_argument("file", help="CSV in UTF-8 or Shift_JIS (cp932); header "
                     "name,email,lang,tz,rating,notation (+ game,provisional,rank)")
    imp.set_defaults(func=cmd_member_import)

    game = sub.add_parser("game", help="games").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    new = game.add_parser("new", help="start a game; prints its id and address")
    new.add_argument("--white", required=True, metavar="ADDR",
                     help="the member playing White (the first colour of the game)")
    new.add_argument("--black", required=True, metavar="ADDR",
                     help="the member playing Black (the second colour of the game)")
    new.add_argument("--event", metavar="NAME", help="the event the game belongs to")
    new.add_argument("--game", default="chess",
                     help="the game: chess, shogi (--black is 先手 and moves first) or go "
                     "(Black moves first; White in a handicap game)")
    new.add_argument("--size", type=int, choices=[19, 13, 9], help="go: the board size")
    new.add_argument("--handicap", help="go: N stones (2-9), or auto from the members' go "
                     "points (R4)")
    new.add_argument("--komi", type=float, help="go: komi added to White (negative: White "
                     "gives Black)")
    new.add_argument("--superko", action="store_const", const="1", default=None,
                     help="go: positional superko (no whole-board position may repeat)")
    _rule_set_options(new)
    new.add_argument("--time-control", default=None,
                     help="10/30, 10/50, bank:20, ... (default: the game's rules)")
    new.add_argument("--start", type=_date, metavar="YYYY-MM-DD",
                     help="the day the clocks start (default today)")
    new.add_argument("--conditionals", default=None, choices=["binding", "optional", "off"],
                     help="J16 (default: the game's rules; optional in shogi)")
    new.add_argument("--notation", choices=["san", "numeric"],
                     help="notation of the game's mail (default: each member's own)")
    new.add_argument("--overrun", default="report", choices=["report", "forfeit"],
                     help="J9: report an overrun to the TD (default) or forfeit at once")
    new.set_defaults(func=cmd_game_new)
    glist = game.add_parser("list", help="games: id, game, state or result, players, event "
                            "(tab-separated)")
    glist.add_argument("--active", action="store_true", help="only games still being played")
    glist.add_argument("--event", metavar="NAME", help="only the games of this event")
    glist.set_defaults(func=cmd_game_list)
    show = game.add_parser("show", help="record, clocks and state")
    show.add_argument("id", help="the game id")
    show.set_defaults(func=cmd_game_show)
    pgn = game.add_parser("pgn", help="the game in PGN (J15 form)")
    pgn.add_argument("id", help="the game id")
    pgn.set_defaults(func=cmd_game_pgn)
    record = game.add_parser("record", help="the game's record in its own format (PGN for chess)")
    record.add_argument("id", help="the game id")
    record.add_argument("--format", choices=["pgn", "kif", "csa", "sgf"], default=None,
                        help="the record format (default: the game's own; chess PGN with "
                        "the standard headers)")
    record.set_defaults(func=cmd_game_record)

    export = game.add_parser("export", help="every mail of a game, raw, as an mbox (J19)")
    export.add_argument("id", help="the game id")
    export.add_argument("--out", required=True,
                        help="mbox file to write (new; created readable by you only)")
    export.set_defaults(func=cmd_game_export)

    run = sub.add_parser("run", help="the service (IMAP, outbox, scheduler); exit 3 when "
                         "a server cannot be reached (--once)")
    run.add_argument("--once", action="store_true", help="one full cycle, then exit")
    run.add_argument("--now", metavar="ISO-8601",
                     help="the clock for the whole cycle (with --once)")
    run.add_argument("--alive-file", metavar="PATH",
                     help="touch PATH every 30 s while the service holds its lock and the "
                          "database answers (for a container health check)")
    run.set_defaults(func=cmd_run)

    digest = sub.add_parser("digest", help="weekly digests").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    send = digest.add_parser("send", help="queue and send this week's digests now")
    send.add_argument("--now", metavar="ISO-8601", help="the clock (default: now)")
    send.set_defaults(func=cmd_digest_send)

    event = sub.add_parser("event", help="events").add_subparsers(
        dest="sub", required=True, metavar="SUBCOMMAND")
    enew = event.add_parser("new", help="create an event and start all its games by mail")
    enew.add_argument("name", help="the event's name")
    enew.add_argument("--kind", required=True, choices=["group", "match", "ladder", "section"],
                      help="group (all-play-all), match, ladder or section")
    enew.add_argument("--players", required=True, help="addresses, comma separated")
    enew.add_argument("--time-control", default=None,
                      help="10/30, 10/50, bank:20, ... (default: the game's rules)")
    enew.add_argument("--start", type=_date, metavar="YYYY-MM-DD",
                      help="the day the clocks start (default today)")
    enew.add_argument("--conditionals", default=None,
                      choices=["binding", "optional", "off"], help="default: the game's rules")
    enew.add_argument("--tiebreaks", default="sb,solkoff,median,direct",
                      help="tie-breaks in order, comma separated (default sb,solkoff,median,"
                           "direct)")
    enew.add_argument("--overrun", default="report", choices=["report", "forfeit"],
                      help="J9: report an overrun to the TD (default) or forfeit at once")
    enew.add_argument("--game", default="chess", help="the game every pairing plays")
    enew.add_argument("--td", metavar="ADDR",
                      help="the event's tournament director (default: [bot] td)")
    enew.add_argument("--final", action="store_true",
                      help="a JCCA final (T1): its results decide the next final's entry")
    _rule_set_options(enew)
    enew.set_defaults(func=cmd_event_new)
    eshow = event.add_parser("show", help="standings, crosstable and games")
    eshow.add_argument("name", help="the event's name")
    eshow.add_argument("--lang", default="en", choices=["ja", "en"],
                       help="language of the table (default en)")
    eshow.set_defaults(func=cmd_event_show)
    efinal = event.add_parser("final", help="who qualifies for the final (T1)")
    efinal.add_argument("name", help="the event's name")
    efinal.set_defaults(func=cmd_event_final)

    announce = sub.add_parser("announce", help="a TD announcement for the weekly digest")
    announce.add_argument("text", nargs="+", help="the announcement")
    announce.set_defaults(func=cmd_announce)

    td = sub.add_parser("td", help="TD commands: forfeit, adjudicate, approve leave, ...")
    td.add_argument("words", nargs="+", help="the command, as in a TD mail: forfeit ID white")
    td.set_defaults(func=cmd_td)

    demo = sub.add_parser("demo", help="a self-contained tour: two players play by mail")
    demo.add_argument("--game", default="chess", choices=["chess", "shogi", "go"],
                      help="the game the tour plays (default chess)")
    demo.set_defaults(func=cmd_demo)

    web = sub.add_parser("web", help="read-only pages: events, standings, games, players")
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    web.add_argument("--port", type=int, default=8080, help="the port to listen on")
    web.set_defaults(func=cmd_web)
    return parser


def _quiet_stdout() -> None:
    """After a closed pipe (``relaybot game pgn ID | head -1``): send what is left of
    stdout to /dev/null, so flushing it at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
def _undecodable(argv: Sequence[str]) -> str | None:
    """The first argument holding bytes that were not UTF-8 (Python keeps them as lone
    surrogates, which no database can store: issue 12 item 11), or None."""
    return next((a for a in argv if any("\ud800" <= ch <= "\udfff" for ch in a)), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``relaybot`` console script."""
    bad = _undecodable(sys.argv[1:] if argv is None else argv)
    if bad is not None:
        shown = bad.encode("utf-8", "backslashreplace").decode("ascii", "replace")
        print(f"relaybot: not valid UTF-8 text: {shown}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg = load_config() if args.command != "demo" else None
        if cfg is not None and args.command != "run":
            # warnings and errors in the operator's chosen form; run sets its own level
            configure_logging("warning", cfg.log.format)
        status = int(args.func(cfg, args))
        sys.stdout.flush()  # a closed pipe shows here, not as a traceback at exit
        return status
    except BrokenPipeError:
        _quiet_stdout()  # the reader has what it wanted: no traceback, no message
        return 0
    except CliError as exc:
        print(f"relaybot: {exc}", file=sys.stderr)
        return exc.status
    except (ConfigError, AdminError) as exc:
        print(f"relaybot: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except SQLAlchemyError as exc:
        print(f"relaybot: database error: {exc.__class__.__name__}: "
              f"{redact_url(str(exc).splitlines()[0])}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
