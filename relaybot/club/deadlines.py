"""What falls due for a game, and when to look again (J9, J11, J14; G10).

``schedule`` is the one place deadlines are derived: the sweep calls it for
games whose ``due_at`` has come, and the service calls it after every change
so ``due_at`` always holds the next moment worth looking at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from relaybot.club.gamefile import GameFile
from relaybot.core.clocks import (
    Books,
    adjudication_day,
    counted_days,
    escalation_after_reminder,
    local_day,
    pending,
    silence_deadlines,
)


@dataclass
class Schedule:
    """Kinds due now (reminder, escalation, bank_lost, duration) and when to look next."""

    due: list[str] = field(default_factory=list)
    next_at: datetime | None = None
    silent: int = 0
    ply: int = 0
    reminder_day: date | None = None
    escalation_day: date | None = None
    silent_days: int = 0  # counted days since the move was relayed (or the game started)


def _start_of(day: date, tz: str) -> datetime:
    return datetime.combine(day, time(0, 0), ZoneInfo(tz)).astimezone(UTC)


def schedule(gf: GameFile, books: Books, now: datetime,
             reminded_at: datetime | None = None) -> Schedule:
    """Deadlines of an active game as of ``now``; ``reminded_at``: when the reminder of the
    current silence went out (None: not yet, or not looked up: then a reminder due now is
    taken to go out now, which only delays the escalation)."""
    out = Schedule(silent=books.on_move, ply=gf.game.ply_count)
    if gf.game.status != "active":
        return out
    tz = gf.player(books.on_move).tz
    today = local_day(now, tz)
    paused = list(books.pauses[books.on_move])
    since: datetime | date = books.last_sent_at or gf.game.start_date
    reminder, escalation = silence_deadlines(since, tz, paused)
    out.silent_days = counted_days(local_day(since, tz) if isinstance(since, datetime)
                                   else since, today, paused)
    if reminder != date.max and today >= reminder:
        # J11 (seed 000 rule 12): the TD hears 10 days after the reminder itself, so the
        # two never leave in one sweep after downtime
        escalation = max(escalation, escalation_after_reminder(reminded_at or now, tz, paused))
    out.reminder_day, out.escalation_day = reminder, escalation
    future: list[datetime] = []
    for kind, day in (("reminder", reminder), ("escalation", escalation)):
        if day == date.max:
            continue  # an open pause (leave, question) stops the count
        if today >= day:
            out.due.append(kind)
        else:
            future.append(_start_of(day, tz))
    if books.control.kind == "bank" and gf.rules.rule_set.time_forfeit:
        # seed 004 section 7: go's days are a guide only, never a loss on time
        clock = pending(books, now)
        if clock.overrun:
            out.due.append("bank_lost")
        elif clock.overrun_day is not None and clock.overrun_day != date.max:
            future.append(_start_of(clock.overrun_day, tz))
    td_tz = gf.white.tz
    limit = adjudication_day(gf.game.start_date)
    if local_day(now, td_tz) >= limit:
        out.due.append("duration")
    else:
        future.append(_start_of(limit, td_tz))
    out.next_at = min(future) if future else None
    return out
