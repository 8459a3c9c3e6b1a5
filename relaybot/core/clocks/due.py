"""The player on move now (J9 bank, J10, J11 sweep, J18 status): the days this move has
used so far and the first day on which the clock is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from relaybot.core.clocks.books import Books
from relaybot.core.clocks.days import counted_days, local_day, nth_counted_day

__all__ = ["PendingClock", "pending"]

_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class PendingClock:
    """The clock of the player on move, as if they replied today.

    ``days`` are the days this move has used so far (J7, replying today); ``total`` and
    ``left`` count them (``left`` as in ``Side``). ``move_left`` is what the per-move
    maximum still allows. ``overrun_day`` is the first local day on which a reply (or no
    reply) means a lost clock: past the next control's limit (even if the moves still to
    come before the control cost nothing), the bank at 0, the Fischer reserve below 0, or
    the per-move maximum passed; ``None`` when no such day can come (an open pause).
    ``overrun`` is true when that day has come (for a bank clock: lost, J9).
    """

    colour: int
    move: int
    relayed_day: date
    receipt_day: date
    today: date
    days: int
    total: int
    control_move: int | None
    limit: int
    left: int
    move_left: int | None
    overrun_day: date | None
    overrun: bool


def pending(books: Books, now: datetime) -> PendingClock:
    """The clock of ``books.on_move`` at ``now`` (aware), with the books' own settings.

    The move is relayed at the arrival of the last ply (the start date before White's
    first move), counted in the mover's zone with the books' grace and that player's
    pauses (J6, J7, J12, J13).
    """
    colour = books.on_move
    side = books.sides[colour]
    control = books.control
    zone = books.tz[colour]
    paused = books.pauses[colour]
    if books.last_sent_at is None:
        relayed = books.start
    else:
        relayed = max(books.start, local_day(books.last_sent_at, zone))
    counted_from = relayed + timedelta(days=books.grace)
    today = local_day(now, zone)
    days = counted_days(counted_from, today, paused)
    total = side.total + days

    # Counted days this move may take before the clock is lost.
    needs: list[int] = []
    move_left: int | None = None
    if control.max_per_move is not None:
        move_left = control.max_per_move - days
        needs.append(control.max_per_move + 1)
    if control.kind == "bank":
        needs.append(side.left)  # seed 002 rule 9: lost when the bank reaches 0
    else:
        needs.append(side.left + 1)  # J8 past the control's limit; Fischer reserve below 0
    left = side.left - days
    need = min(needs)
    if need <= 0:
        overrun_day: date | None = relayed + _ONE_DAY
    else:
        found = nth_counted_day(counted_from, need, paused)
        overrun_day = None if found == date.max else found
    return PendingClock(
        colour=colour, move=side.moves + 1, relayed_day=relayed,
        receipt_day=relayed + _ONE_DAY, today=today, days=days, total=total,
        control_move=side.control_move, limit=side.limit, left=left, move_left=move_left,
        overrun_day=overrun_day,
        overrun=overrun_day is not None and today >= overrun_day,
    )
