"""A game's day books (J6-J14, J18) from the store, through the pure clock model."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

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
from relaybot.store.models import GameEvent, Leave, Question
from relaybot.views import GameFile


def control_of(text: str) -> TimeControl:
    """The game's time control; an unreadable stored value falls back to 10/30 (JCCA)."""
    try:
        return TimeControl.parse(text)
    except ValueError:
        return TimeControl.parse("10/30")


def game_pauses(session: Session, gf: GameFile) -> list[Pause]:
    """Leaves of both players (J12) and open or answered questions (J13) as pauses."""
    pauses: list[Pause] = []
    if gf.game.leave_allowed:
        colour_of = {gf.white.id: 0, gf.black.id: 1}
        leaves = session.scalars(select(Leave).where(
            Leave.member_id.in_(list(colour_of)), Leave.status == "active")).all()
        pauses.extend(Pause(colour_of[lv.member_id], lv.first, lv.last, "leave")
                      for lv in leaves)
    zones = (gf.white.tz, gf.black.tz)
    for q in session.scalars(select(Question).where(Question.game_id == gf.game.id)):
        pauses.extend(question_pauses(q.asked_at, q.answered_at, zones))
    return pauses


def game_penalties(session: Session, gf: GameFile) -> list[Penalty]:
    """The game's penalties (J5, J16) from its ledger."""
    return [
        Penalty(e.colour if e.colour is not None else 0, e.days, str(e.detail.get("rule", "")),
                e.at)
        for e in session.scalars(select(GameEvent).where(
            GameEvent.game_id == gf.game.id, GameEvent.kind == "penalty"))
    ]


def compute(gf: GameFile, penalties: list[Penalty], pauses: list[Pause]) -> Books:
    """The books from what is already loaded (no database access)."""
    game = gf.game
    moves = [PlyTimes(m.ply % 2, m.sent_at) for m in gf.moves]
    return compute_books(control_of(game.time_control), game.start_date, moves, penalties,
                         pauses, (gf.white.tz, gf.black.tz), game.grace)


def books_for(session: Session, gf: GameFile) -> Books:
    """Both sides' days for this game as of its last applied move."""
    return compute(gf, game_penalties(session, gf), game_pauses(session, gf))


def _day(d: date) -> str:
    return d.isoformat() if d not in (date.min, date.max) else "-"


def clock_context(books: Books, reader_colour: int | None, now: datetime) -> dict[str, Any]:
    """J18 figures for a mail: dates of the last move and both sides' days."""
    ctx: dict[str, Any] = {"clock_ok": True}
    for name, side in (("white", books.white), ("black", books.black)):
        ctx[f"{name}_total"] = side.total
        ctx[f"{name}_left"] = side.left
        ctx[f"{name}_control"] = side.control_move or ""
        ctx[f"{name}_moves"] = side.moves
    last_rows = [side.ledger[-1] for side in books.sides if side.ledger]
    last = max(last_rows, key=lambda r: r.ply) if last_rows else None
    ctx["last_relayed_day"] = _day(last.relayed_day) if last else "-"
    ctx["last_receipt_day"] = _day(last.receipt_day) if last else "-"
    ctx["last_reply_day"] = _day(last.reply_day) if last else "-"
    ctx["last_days"] = last.days if last else 0
    ctx["last_ply"] = last.ply if last else -1
    ctx["last_label"] = (
        (f"{last.move}." if last.ply % 2 == 0 else f"{last.move}...") if last else ""
    )
    p = pending(books, now)
    ctx["pending_days"] = p.days
    ctx["pending_left"] = p.left
    ctx["pending_colour"] = p.colour
    return ctx


def ledgers(gf: GameFile) -> list[dict[str, object]]:
    """Both sides' day ledgers as rows for TD mail (J9, J11)."""
    assert gf.books is not None
    out = []
    for colour, side in enumerate(gf.books.sides):
        out.append({"name": gf.player(colour).name, "colour": ("White", "Black")[colour],
                    "total": side.total, "left": side.left, "rows": [
                        {"move": r.move, "relayed": r.relayed_day.isoformat(),
                         "reply": r.reply_day.isoformat(), "days": r.days,
                         "penalty": r.penalty_days, "total": r.total} for r in side.ledger]})
    return out
