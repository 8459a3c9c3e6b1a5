"""Leave (J12, JCCA rules 16-17): checking a request and ending a leave by a move.

Pure: dates in, decisions out. A leave is an inclusive range of calendar days in the
player's own zone. Rule 16: any number of leaves, at most 30 days per calendar year
(1 January - 31 December) in all, announced in advance to the TD and every opponent;
30 more with the TD's approval (illness, work, study, chess travel). Rule 17: leave
without notice is not leave (days keep running), and a move received from a player on
leave ends that leave at once. The shogi league allows no pause at all (seed 002 rule
10), so an event can switch leave off (``allowed=False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

DayRange = tuple[date, date]
"""An inclusive range of calendar days; ``(d, date.max)`` is open-ended."""

YEARLY_ALLOWANCE = 30  # J12 (rule 16): days of leave per calendar year
EXTRA_WITH_APPROVAL = 30  # J12: at most this many more with the TD's approval

_ONE_DAY = timedelta(days=1)

# Stable reason codes for the mail templates.
OK = "ok"
NOT_ALLOWED = "not_allowed"  # the event allows no leave (shogi league)
ORDER = "order"  # the last day is before the first
STARTED = "started"  # announced after it started: leave without notice is not leave
OVERLAP = "overlap"  # overlaps a leave already taken or announced
OVER_ALLOWANCE = "over_allowance"  # more than the days left in a calendar year


@dataclass(frozen=True)
class LeaveDecision:
    """The answer to a leave request (J12).

    ``days``: the days requested (inclusive). ``year``: the calendar year the figures are
    for (the first year over the allowance when refused for that, else the year the leave
    starts). ``used_this_year`` and ``left_this_year`` are that year's figures *before*
    this request (allowance plus approved extra, minus days already taken or announced).
    """

    ok: bool
    reason_code: str
    days: int
    year: int
    used_this_year: int
    left_this_year: int


def leave_days(leave: DayRange) -> int:
    """The number of days in an inclusive range (0 if it is back to front)."""
    first, last = leave
    return max(0, (last - first).days + 1)


def days_in_year(leaves: Sequence[DayRange], year: int) -> int:
    """Days of leave falling in calendar ``year`` (each day counted once, J12)."""
    lo, hi = date(year, 1, 1), date(year, 12, 31)
    days: set[date] = set()
    for first, last in leaves:
        day = max(first, lo)
        end = min(last, hi)
        while day <= end:
            days.add(day)
            day += _ONE_DAY
    return len(days)


def check_leave(
    existing: Sequence[DayRange],
    requested: DayRange,
    today: date,
    approved_extra_days: int = 0,
    yearly_allowance: int = YEARLY_ALLOWANCE,
    allowed: bool = True,
) -> LeaveDecision:
    """J12: may a player take leave ``requested``, having ``existing`` leaves (any game)?

    Refused (``reason_code``): ``not_allowed`` when the event has no leave, ``order`` when
    the last day is before the first, ``started`` when the first day is before ``today``
    (the day the announcement reached us, in the player's zone: leave without notice is
    not leave; starting today is fine), ``overlap`` when it overlaps an existing leave,
    ``over_allowance`` when in some calendar year the days would pass ``yearly_allowance``
    plus ``approved_extra_days`` (a leave over New Year counts in each year separately).
    """
    first, last = requested
    year = first.year
    quota = yearly_allowance + approved_extra_days

    def decide(ok: bool, code: str, in_year: int) -> LeaveDecision:
        used = days_in_year(existing, in_year)
        return LeaveDecision(ok, code, leave_days(requested), in_year, used, quota - used)

    if not allowed:
        return decide(False, NOT_ALLOWED, year)
    if last < first:
        return decide(False, ORDER, year)
    if first < today:
        return decide(False, STARTED, year)
    if any(a <= last and first <= b for a, b in existing):
        return decide(False, OVERLAP, year)
    for y in range(first.year, last.year + 1):
        if days_in_year([*existing, requested], y) > quota:
            return decide(False, OVER_ALLOWANCE, y)
    return decide(True, OK, year)


def end_leave_on_move(leave: DayRange, move_day: date) -> DayRange | None:
    """J12 (rule 17): a move received from a player on leave ends the leave at once.

    Returns the leave as it stands after a move sent on the player's local day
    ``move_day``: cut to end the day before the move; unchanged if the move came before
    the leave started (it is not yet on) or after it ended; ``None`` when nothing of it is
    left (the move came on its first day).
    """
    first, last = leave
    if move_day < first or move_day > last:
        return leave
    if move_day == first:
        return None
    return (first, move_day - _ONE_DAY)
