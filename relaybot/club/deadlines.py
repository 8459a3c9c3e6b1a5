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
    duration_reached,
    escalation_after_reminder,
    local_day,
    pending,
    silence_deadlines,
)
from relaybot.core.game import GameRules, waits_for_result, waits_for_td
from relaybot.store.models import Game


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
    stating: bool = False  # go after both passed: the silence is a result not stated
    key: str = ""  # names this silence in the reminder's and escalation's dedupe keys


def silence_key(ply: int, stated_at: datetime | None = None) -> str:
    """What names one silence: the ply it follows, and in a game waiting for its result
    the last statement it follows (each statement starts a new silence, of the other
    player)."""
    return f"{ply}" if stated_at is None else f"{ply}:{stated_at.astimezone(UTC):%Y%m%dT%H%M%S}"


def _start_of(day: date, tz: str) -> datetime:
    return datetime.combine(day, time(0, 0), ZoneInfo(tz)).astimezone(UTC)


def schedule(gf: GameFile, books: Books, now: datetime,
             reminded_at: datetime | None = None,
             stated_at: datetime | None = None) -> Schedule:
    """Deadlines of an active game as of ``now``; ``reminded_at``: when the reminder of the
    current silence went out (None: not yet, or not looked up: then a reminder due now is
    taken to go out now, which only delays the escalation).

    J11 in a game that waits for its result (go after both passed): the silent player is
    the one the position waits for (after one side stated the result, the other), and
    the silence runs from the last ply or ``stated_at``, the last statement, if later."""
    stating = waits_for_result(gf.rules, gf.game.position)
    silent = gf.rules.to_move(gf.game.position) if stating else books.on_move
    stated_at = stated_at if stating else None
    out = Schedule(silent=silent, ply=gf.game.ply_count, stating=stating,
                   key=silence_key(gf.game.ply_count, stated_at))
    if gf.game.status != "active":
        return out
    tz = gf.player(silent).tz
    today = local_day(now, tz)
    with_td = with_td_for_duration(gf, now)  # J14
    if waits_for_td(gf.rules, gf.game.position):
        # J11: go's two results differ and went to the TD; neither player may state
        # again, so nobody is silent: no reminder, no escalation (J14's duration stays)
        return _duration(gf, with_td, out, [])
    if with_td is not None:
        # J14: the game ended 24 months after its start and is the TD's: nobody is silent
        # any more, and no day runs out (a reminder would ask for a move not played)
        return _duration(gf, with_td, out, [])
    paused = list(books.pauses[silent])
    since: datetime | date = books.last_sent_at or gf.game.start_date
    if stated_at is not None and (not isinstance(since, datetime) or stated_at > since):
        since = stated_at
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
    return _duration(gf, with_td, out, future)


def with_td_for_duration(gf: GameFile, now: datetime) -> date | None:
    """J14: the day an active game went to the TD for adjudication, unfinished 24 months
    after its start (counted in side 0's zone, as the sweep counts it); None before that
    day or for a game no longer played. What the sweep sends the TD and what the pages,
    the calendar and the digest say of the game's deadlines both follow this.

    Every active game of a rule set with the limit has it (the go salon's has none); a
    shogi league game never reaches it, since its season ends it after six months
    (``app.season_end``)."""
    return game_with_td_since(gf.game, gf.rules, gf.white.tz, now)


def game_with_td_since(game: Game, rules: GameRules, side0_tz: str,
                       now: datetime) -> date | None:
    """:func:`with_td_for_duration` for a game read without its file (the digest's
    rows): its rules and the zone of its side 0."""
    if game.status != "active" or not rules.rule_set.duration_limit or \
            not duration_reached(game.start_date, now, side0_tz):
        return None
    return adjudication_day(game.start_date)


def _duration(gf: GameFile, since: date | None, out: Schedule,
              future: list[datetime]) -> Schedule:
    """J14: the game's duration limit added to ``out`` (due when ``since``, the day it
    went to the TD, is set; else the next wake-up among ``future``), and ``out.next_at``
    set."""
    if since is not None:
        out.due.append("duration")
    elif gf.rules.rule_set.duration_limit:
        future.append(_start_of(adjudication_day(gf.game.start_date), gf.white.tz))
    out.next_at = min(future) if future else None
    return out
