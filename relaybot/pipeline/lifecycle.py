"""A game's life in the store: loading it with its books, starting it, scheduling its
next look (G10), reporting an overrun (J9) and ending it (J15).

Shared by the mail path, the TD's commands and the sweep, so none of them calls back
into another. Mail goes out as effects (:mod:`relaybot.pipeline.effects`).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.daybooks import books_for, compute, game_ledger, ledgers, td_side
from relaybot.club.deadlines import schedule
from relaybot.club.gamefile import GameFile
from relaybot.club.rating_book import (
    UNRATED_TERMINATIONS,
    display,
    go_points_notice,
    rate_game,
    rating_row,
    rerate_game,
)
from relaybot.club.tournaments import (
    award_champion,
    event_players,
    event_standings,
    salon_secretaries,
    score_line,
)
from relaybot.club.views import event_start, game_context, game_record, record_file
from relaybot.config import Config
from relaybot.core.clocks import Overrun
from relaybot.core.events import standings_lines
from relaybot.core.game import Outcome, Termination, own_move_number
from relaybot.core.text import display_name
from relaybot.mail.inbound import InboundMail
from relaybot.mail.wording import ending_text, result_text
from relaybot.pipeline.effects import Mail, emit, emit_all, to_member, to_td
from relaybot.store.models import Event, Game, GameEvent, Move

TD_DECIDES = frozenset({Termination.FORFEIT, Termination.ADJUDICATION,
                        Termination.WITHDRAWAL_LOST, Termination.WITHDRAWAL_VOID})
"""Endings the TD decides (J11, J14, J20): the players read that the TD decided the result,
not that it was reported to the TD."""


def load_game(session: Session, game: Game, now: datetime,
              moves: list[Move] | None = None) -> GameFile:
    """A game with players, moves and its day books as of ``now`` (J18); ``moves``:
    already loaded (``club.gamefile.preload``)."""
    gf = GameFile.load(session, game, moves)
    gf.penalties, gf.pauses = game_ledger(session, gf)
    gf.books = compute(gf, gf.penalties, gf.pauses)
    gf.now = now
    return gf


def refresh_due(session: Session, gf: GameFile, now: datetime) -> None:
    """Store when the sweep must next look at this game (G10)."""
    books = gf.books if gf.books is not None else books_for(session, gf)
    plan = schedule(gf, books, now)
    # something already due (a game started long ago: J14) is the sweep's at once
    gf.game.due_at = now if plan.due else plan.next_at


def record_event(
    session: Session, game: Game, at: datetime, kind: str, colour: int | None,
    ply: int | None, *, days: int = 0, detail: dict[str, object] | None = None,
) -> None:
    """One line of the game's ledger (penalties, offers, results: J5, J15)."""
    session.add(GameEvent(game_id=game.id, at=at, kind=kind, colour=colour, ply=ply,
                          days=days, detail=detail or {}))


def thread_of(game: Game, mail: InboundMail | None) -> tuple[str | None, tuple[str, ...]]:
    """(In-Reply-To, References) for a mail about ``game``: a reply to ``mail``, else a
    follow-up to the game's last relayed mail."""
    if mail is not None:
        return mail.message_id, (*mail.references, mail.message_id)
    last = game.last_out_message_id
    return last, (last,) if last else ()


def player_mail(
    cfg: Config, gf: GameFile, colour: int, kind: str, extra: dict[str, object] | None = None,
    *, template: str = "", in_reply_to: str | None = None, references: tuple[str, ...] = (),
    dedupe_key: str | None = None, auto_submitted: str = "auto-generated",
    defer: bool = False, threads_game: bool = False,
) -> Mail:
    """A mail about the game to the player of ``colour``, from the game's address, with
    everything a player's mail shows (J18) plus ``extra``."""
    reader = gf.player(colour)
    return Mail(kind=kind, template=template, audience="player", to=to_member(reader),
                lang=reader.lang, context={**game_context(cfg, gf, reader), **(extra or {})},
                game_id=gf.game.id, via_game=True, in_reply_to=in_reply_to,
                references=references, dedupe_key=dedupe_key, auto_submitted=auto_submitted,
                defer=defer, threads_game=threads_game)


def start_mails(session: Session, cfg: Config, game: Game, now: datetime) -> None:
    """Queue the start mail to both players of a new game."""
    gf = load_game(session, game, now)
    # seed 004 section 4: an even go game's toss for Black, said in the start mail
    toss = session.scalar(select(GameEvent.detail).where(
        GameEvent.game_id == game.id, GameEvent.kind == "toss").limit(1))
    for colour in (0, 1):
        emit(session, cfg, player_mail(
            cfg, gf, colour, "start", {"colour": colour, "toss": toss or {}},
            dedupe_key=f"start:{game.id}:{colour}", threads_game=colour == 0), now)
    refresh_due(session, gf, now)


def overrun_report(cfg: Config, gf: GameFile, overrun: Overrun, *,
                   automatic: bool = False) -> Mail:
    """The TD's overrun report with both sides' day ledgers and the command to confirm."""
    return Mail(
        kind="td_overrun", template="overrun", audience="td", to=to_td(cfg, gf.td),
        lang=cfg.bot.language, game_id=gf.game.id,
        context={"game_id": gf.game.id, "white": gf.white.name, "black": gf.black.name,
                 "player": gf.player(overrun.colour).name,
                 "colour": td_side(gf, overrun.colour, cfg.bot.language),
                 # the offender's own move count, numbered as the game numbers moves
                 "move": own_move_number(gf.rules, overrun.move,
                                         overrun.colour == gf.first_mover),
                 "total": overrun.total, "limit": overrun.limit, "kind": overrun.kind,
                 "ledgers": ledgers(gf, cfg.bot.language), "time_control": gf.game.time_control,
                 "automatic": automatic},
        dedupe_key=f"overrun:{gf.game.id}:{overrun.colour}:{overrun.move}")


def report_overrun(session: Session, cfg: Config, gf: GameFile, overrun: Overrun,
                   now: datetime, *, automatic: bool = False) -> None:
    """Queue the TD's overrun report (J9)."""
    emit(session, cfg, overrun_report(cfg, gf, overrun, automatic=automatic), now)


def end_game(
    session: Session, cfg: Config, gf: GameFile, outcome: Outcome, end_day: date,
    now: datetime, *, words: str = "", words_from: int | None = None,
    thread: InboundMail | None = None,
) -> None:
    """Game over, its mails queued at once (see :func:`game_over`)."""
    emit_all(session, cfg, game_over(session, cfg, gf, outcome, end_day, now, words=words,
                                     words_from=words_from, thread=thread), now)


def game_over(
    session: Session, cfg: Config, gf: GameFile, outcome: Outcome, end_day: date,
    now: datetime, *, words: str = "", words_from: int | None = None,
    thread: InboundMail | None = None, bound: dict[int, str] | None = None,
    bound_by: int | None = None,
) -> list[Mail]:
    """Game over: the result stored and rated (R1); returns the final mail to both players
    with the record and the J15 report to the TD. Nothing for a game that already ended.

    ``bound``: J16, the bound answer the bot played that ended the game (a mate), as each
    reader (by colour) writes it; ``bound_by`` the proposer, for whom the bot played it."""
    game = gf.game
    if game.status != "active":
        return []
    result, termination = gf.rules.format_result(outcome), outcome.termination
    game.status = "finished"
    game.result = result
    game.termination = termination
    game.end_date = end_day
    game.draw_offer_by = None
    game.due_at = None
    record_event(session, game, now, "result", None, game.ply_count,
                 detail={"result": result, "termination": termination})
    session.flush()
    rate_game(session, game, now)  # R1: applied at the end, once
    award_champion(session, game.event)  # T1/R3: a final's winner is Japan champion
    record = game_record(cfg, gf)
    # J15: the winner (the first side on a draw) reports to the TD with their score in the
    # event; each player reads their own score (never the winner's, issue 26), in the
    # game's words and the reader's language
    reporter = outcome.winner if outcome.winner is not None else 0

    def report(lang: str, colour: int | None = None) -> str:
        if colour is None:
            name = display_name(gf.player(reporter).name, lang)
            score = score_line(session, game, reporter, name, lang)
        else:
            score = score_line(session, game, colour, "", lang, own=True)
        return f"{record}\n{score}" if score else record

    in_reply_to, refs = thread_of(game, thread)
    attached = record_file(cfg, gf, event_start(session, game.event))  # issue 15
    mails = [player_mail(cfg, gf, colour, "game_end",
                         {"words": words if colour != words_from else "",
                          "pgn": report(gf.player(colour).lang, colour),
                          # J15: the club's calendar day, its zone named when not the
                          # reader's (the mail's other dates are in the reader's zone)
                          "end_date": end_day.isoformat(), "end_zone": cfg.bot.timezone,
                          "record_file": attached,
                          "by_td": termination in TD_DECIDES,
                          "bound_answer": (bound or {}).get(colour, ""),
                          "bound_mine": bound_by == colour},
                         in_reply_to=in_reply_to, references=refs,
                         dedupe_key=f"end:{game.id}:{colour}")
             for colour in (0, 1)]
    mails.append(Mail(
        kind="td_result", template="result", audience="td", to=to_td(cfg, gf.td),
        lang=cfg.bot.language, game_id=game.id, dedupe_key=f"td_result:{game.id}",
        context={"game_id": game.id, "white": gf.white.name, "black": gf.black.name,
                 "result": result, "termination": termination, "event": game.event or "",
                 "result_text": result_text(game.kind, result, termination, cfg.bot.language),
                 "ending": ending_text(game.kind, termination, cfg.bot.language),
                 "end_date": end_day.isoformat(), "pgn": report(cfg.bot.language),
                 # go: a correction works out the salon's points again, not a rating
                 "game_kind": game.kind}))
    mails += go_points_notices(session, cfg, game)
    mails += salon_end_mails(session, cfg, game)
    return mails


def salon_end_mails(session: Session, cfg: Config, game: Game) -> list[Mail]:
    """Seed 004 sections 5, 6: when a salon league's last game ends, every player gets
    the final standings and the next league's two secretaries."""
    event = session.scalar(select(Event).where(Event.name == game.event)) if game.event \
        else None
    if event is None or event.kind != "salon":
        return []
    chosen = salon_secretaries(session, event)
    if chosen is None:
        return []
    return [Mail(kind="salon_end", template="salon_end", audience="member",
                 to=to_member(member), lang=member.lang,
                 dedupe_key=f"salon_end:{event.id}:{member.id}",
                 context={"reader": member.name, "event": event.name,
                          # lines, not columns: a mail client's font is proportional
                          "table": standings_lines(event_standings(session, event),
                                                   member.lang).rstrip("\n"),
                          "secretaries": [m.name for m in chosen],
                          "serving": member.id in {m.id for m in chosen}})
            for member in event_players(session, event)]


def go_points_notices(session: Session, cfg: Config, game: Game) -> list[Mail]:
    """Seed 004 section 3: the club's TD told, once, that a member on provisional go
    points has reached 10 counted games (the chair sets the official points)."""
    if game.kind != "go":
        return []
    mails = []
    for member_id in (game.side0_id, game.side1_id):
        notice = go_points_notice(session, member_id)
        if notice is not None:
            mails.append(Mail(
                kind="td_go_points", template="go_points", audience="td", to=to_td(cfg),
                lang=cfg.bot.language, dedupe_key=f"td_go_points:{member_id}",
                context=notice))
    return mails


def correct_result(session: Session, cfg: Config, gf: GameFile, outcome: Outcome,
                   now: datetime) -> tuple[str, str]:
    """A TD's correction of a finished game's result (INTERFACE "TD commands": ``result
    ID RESULT``): the result stored, both players re-rated with their later games
    replayed in order (R1, R2; grades follow, R3), standings and the digest read it from
    here (T5, D1), and both players told with the corrected record. Returns (old, new).
    """
    game = gf.game
    old, new = game.result or "", gf.rules.format_result(outcome)
    old_termination = game.termination or ""
    game.result = new
    # a voided or suspended game given a result is now the TD's decision
    game.termination = (Termination.ADJUDICATION if outcome.termination in UNRATED_TERMINATIONS
                        else outcome.termination)
    session.flush()
    players = (game.side0_id, game.side1_id)

    def shown(lang: str = "en") -> dict[int, str]:  # (1320) while provisional; "" unrated
        rows = {m: rating_row(session, m, game.kind) for m in players}
        return {m: display(row, game.kind, lang) if row is not None else ""
                for m, row in rows.items()}

    before, before_ja = shown(), shown("ja")
    rerate_game(session, game, now)
    after, after_ja = shown(), shown("ja")
    award_champion(session, game.event)
    record_event(session, game, now, "result_corrected", None, game.ply_count,
                 detail={"old": old, "new": new,  # D1: the re-ratings the digest names
                         "ratings": {str(m): [before[m], after[m]] for m in players
                                     if before[m] != after[m]}})
    record = game_record(cfg, gf)
    # J15: each player reads the corrected record with their own score in the event (not
    # the winner's, issue 26), in the game's words and the reader's language
    for colour in (0, 1):
        member = gf.player(colour)
        score = score_line(session, game, colour, "", member.lang, own=True)
        emit(session, cfg, player_mail(
            cfg, gf, colour, "result_corrected",
            {"old": old, "new": new, "pgn": f"{record}\n{score}" if score else record,
             "old_text": result_text(game.kind, old, old_termination, member.lang),
             "new_text": result_text(game.kind, new, game.termination or "", member.lang),
             "kind": game.kind,
             # go: the rank in the reader's words (初段, 1d)
             "rating_before": (before_ja if member.lang == "ja" else before)[member.id],
             "rating_shown": (after_ja if member.lang == "ja" else after)[member.id]},
            dedupe_key=f"result_corrected:{game.id}:{colour}:{now.isoformat()}"), now)
    return old, new
