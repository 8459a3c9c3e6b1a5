"""A game's day books (J6-J14, J18) from the store, through the pure clock model."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import BindParameter, Date, bindparam, cast, literal, null, select, union_all
from sqlalchemy.orm import Session

from relaybot.club.gamefile import GameFile
from relaybot.core.clocks import (
    Books,
    Pause,
    Penalty,
    PlyTimes,
    TimeControl,
    compute_books,
    pending,
    question_pauses,
)
from relaybot.core.game import GameRules, own_move_number, progress_of
from relaybot.core.text import display_name
from relaybot.store.models import GameEvent, Leave, Question, UtcDateTime


def control_of(text: str) -> TimeControl:
    """The game's time control; an unreadable stored value falls back to 10/30 (JCCA)."""
    try:
        return TimeControl.parse(text)
    except ValueError:
        return TimeControl.parse("10/30")


def _ledger_statements() -> tuple[Any, Any]:
    """The ledger query without and with the leaves part, built once: a statement object
    is reused with new parameters, so it is neither rebuilt nor re-keyed for every mail."""
    game_id: BindParameter[str] = bindparam("game_id")
    members: BindParameter[int] = bindparam("members", expanding=True)
    penalties = (
        # the first part's column types read every row of the union
        select(literal("p").label("src"), GameEvent.colour.label("who"),
               GameEvent.at.label("t1"), cast(null(), UtcDateTime()).label("t2"),
               cast(null(), Date()).label("d1"), cast(null(), Date()).label("d2"),
               GameEvent.days.label("days"), GameEvent.detail.label("detail"))
        .where(GameEvent.game_id == game_id, GameEvent.kind == "penalty"))
    questions = (
        select(literal("q"), Question.colour, Question.asked_at, Question.answered_at, null(),
               null(), literal(0), null())
        .where(Question.game_id == game_id))
    leaves = (
        select(literal("l"), Leave.member_id, null(), null(), Leave.first, Leave.last,
               literal(0), null())
        .where(Leave.member_id.in_(members), Leave.status == "active"))
    return union_all(penalties, questions), union_all(penalties, questions, leaves)


_LEDGER, _LEDGER_WITH_LEAVES = _ledger_statements()


def game_ledger(session: Session, gf: GameFile) -> tuple[list[Penalty], list[Pause]]:
    """The game's penalties (J5, J16) and pauses: both players' leaves (J12) and its
    open or answered questions (J13), read in one query (every mail needs all three)."""
    game = gf.game
    colour_of = {gf.white.id: 0, gf.black.id: 1}
    rows = (session.execute(_LEDGER_WITH_LEAVES, {"game_id": game.id,
                                                  "members": list(colour_of)})
            if game.leave_allowed else session.execute(_LEDGER, {"game_id": game.id}))
    penalties: list[Penalty] = []
    pauses: list[Pause] = []
    zones = (gf.white.tz, gf.black.tz)
    # T3, seed 002 rule 10 「一時的な中断は認められず、持ち日数を消費する」: in a league a
    # question to the TD stops no clock (it still reaches the TD, and the answer the player)
    league = gf.event.kind == "league"
    for src, who, t1, t2, d1, d2, days, detail in rows:
        if src == "p":
            penalties.append(Penalty(who if who is not None else 0, days,
                                     str((detail or {}).get("rule", "")), t1))
        elif src == "q":
            if not league:
                pauses.extend(question_pauses(t1, t2, zones))
        else:
            pauses.append(Pause(colour_of[who], d1, d2, "leave"))
    # the order the separate queries gave: leaves before questions
    pauses.sort(key=lambda p: p.reason != "leave")
    return penalties, pauses


def compute(gf: GameFile, penalties: list[Penalty], pauses: list[Pause]) -> Books:
    """The books from what is already loaded (no database access)."""
    game = gf.game
    first = gf.first_mover  # White in a handicap go game
    moves = [PlyTimes((m.ply + first) % 2, m.sent_at) for m in gf.moves]
    return compute_books(control_of(game.time_control), game.start_date, moves, penalties,
                         pauses, (gf.white.tz, gf.black.tz), game.grace, first)


def books_for(session: Session, gf: GameFile) -> Books:
    """Both sides' days for this game as of its last applied move."""
    return compute(gf, *game_ledger(session, gf))


def _day(d: date) -> str:
    return d.isoformat() if d not in (date.min, date.max) else "-"


def control_number(books: Books, colour: int, rules: GameRules) -> int | None:
    """J8: the move by which ``colour`` may have used at most its control's days,
    numbered as the game's players number moves (a control counts each side's own
    moves: ``10/30`` is chess's move 10 but Black's move 19 in shogi); None where the
    clock has no control moves (bank, Fischer)."""
    side = books.sides[colour]
    if side.control_move is None:
        return None
    # who made ply 0: the side to move now, less the plies made (White in handicap go)
    first = (books.on_move - sum(s.moves for s in books.sides)) % 2
    return own_move_number(rules, side.control_move, colour == first)


def clock_context(books: Books, reader_colour: int | None, now: datetime,
                  rules: GameRules, lang: str = "en") -> dict[str, Any]:
    """J18 figures for a mail: dates of the last move and both sides' days, moves
    numbered as the game numbers them (chess ``3...``, shogi 15手目) in ``lang``."""
    ctx: dict[str, Any] = {"clock_ok": True}
    for name, colour, side in (("white", 0, books.white), ("black", 1, books.black)):
        ctx[f"{name}_total"] = side.total
        ctx[f"{name}_left"] = side.left
        ctx[f"{name}_control"] = control_number(books, colour, rules) or ""
        ctx[f"{name}_moves"] = side.moves
    last_rows = [(side.ledger[-1], side.colour) for side in books.sides if side.ledger]
    last, last_colour = max(last_rows, key=lambda r: r[0].ply) if last_rows else (None, 0)
    # J6: the last move's days are its mover's calendar days, in the mover's zone
    ctx["last_zone"] = books.tz[last_colour] if last else ""
    ctx["last_relayed_day"] = _day(last.relayed_day) if last else "-"
    ctx["last_receipt_day"] = _day(last.receipt_day) if last else "-"
    ctx["last_reply_day"] = _day(last.reply_day) if last else "-"
    ctx["last_days"] = last.days if last else 0
    ctx["last_ply"] = last.ply if last else -1
    ctx["last_label"] = rules.move_number(last.ply, lang) if last else ""
    p = pending(books, now)
    ctx["pending_days"] = p.days
    ctx["pending_left"] = p.left
    ctx["pending_colour"] = p.colour
    return ctx


def ledgers(gf: GameFile, lang: str = "en") -> list[dict[str, object]]:
    """Both sides' day ledgers as rows for TD mail (J9, J11), sides and names in ``lang``."""
    assert gf.books is not None
    out = []
    for colour, side in enumerate(gf.books.sides):
        out.append({"name": display_name(gf.player(colour).name, lang),
                    "colour": gf.rules.side_names(lang)[colour],
                    "total": side.total, "left": side.left, "rows": [
                        # the move as the game numbers it (shogi: ply + 1), not the
                        # player's own count
                        {"move": progress_of(gf.rules, r.ply + 1).move,
                         "relayed": r.relayed_day.isoformat(),
                         "reply": r.reply_day.isoformat(), "days": r.days,
                         "penalty": r.penalty_days, "total": r.total} for r in side.ledger]})
    return out


def td_side(gf: GameFile, colour: int, lang: str) -> str:
    """A side as the TD's command line names it: the game's own side word (``white``,
    ``sente``, go's ``black``) in English, its side name in Japanese (白, 先手, ...), which
    the TD commands also read."""
    if lang == "ja":
        return gf.rules.side_names("ja")[colour]
    # the game's own word for the side (white, sente, black), which its side_of reads
    # back as this side: chess's white/black would name the other player in go and shogi
    word = gf.rules.side_names("en")[colour].lower()
    return word if gf.rules.side_of(word) == colour else gf.rules.colour_options[colour]
