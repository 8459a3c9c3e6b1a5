"""Counting days (J6, J7, J11, J14): the local day of a moment, the days a reply used
with pauses taken off, the silence reminder and escalation days, the adjudication day.

The counting rule in one sentence is in the :mod:`relaybot.core.clocks` docstring.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from relaybot.core.leave import DayRange

__all__ = [
    "DURATION_MONTHS",
    "SILENCE_ESCALATION_DAYS",
    "SILENCE_REMINDER_DAYS",
    "adjudication_day",
    "counted_days",
    "days_used",
    "days_used_from_start",
    "duration_reached",
    "escalation_after_reminder",
    "local_day",
    "nth_counted_day",
    "paused_days",
    "receipt_day",
    "silence_deadlines",
]

SILENCE_REMINDER_DAYS = 10  # J11 (rule 12): resend the last mail after 10 days
SILENCE_ESCALATION_DAYS = 20  # J11: 10 more days, then report to the TD
DURATION_MONTHS = 24  # J14 (rule 19): unfinished after 24 months goes to the TD

_ONE_DAY = timedelta(days=1)


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {tz!r}") from exc


def local_day(moment: datetime, tz: str) -> date:
    """J6: the calendar day ``moment`` falls on in zone ``tz`` (the day changes at midnight).

    ``moment`` must be aware (our timestamps are INTERNALDATE, UTC); raises ``ValueError``
    for a naive one, never guesses.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: give an aware one (UTC)")
    return moment.astimezone(_zone(tz)).date()


def _day(moment: datetime | date, tz: str) -> date:
    """A local day from an aware datetime, or a date taken as it is (a start date)."""
    if isinstance(moment, datetime):
        return local_day(moment, tz)
    return moment


def receipt_day(sent_at: datetime | date, tz: str) -> date:
    """J6: a move sent on day D counts as received on D + 1 (in the receiver's zone ``tz``)."""
    return _day(sent_at, tz) + _ONE_DAY


def _merged(paused: Iterable[DayRange]) -> list[DayRange]:
    """Pauses sorted and merged (overlapping or touching ranges become one)."""
    out: list[DayRange] = []
    for first, last in sorted(p for p in paused if p[1] >= p[0]):
        if out and (out[-1][1] == date.max or first <= out[-1][1] + _ONE_DAY):
            out[-1] = (out[-1][0], max(last, out[-1][1]))
        else:
            out.append((first, last))
    return out


def paused_days(after: date, until: date, paused: Iterable[DayRange]) -> int:
    """How many days of the window ``(after, until]`` lie inside the pauses (J12, J13)."""
    total = 0
    for first, last in _merged(paused):
        lo = max(first, after + _ONE_DAY)
        hi = min(last, until)
        if hi >= lo:
            total += (hi - lo).days + 1
    return total


def counted_days(after: date, until: date, paused: Iterable[DayRange] = ()) -> int:
    """Days in ``(after, until]`` that are not paused; 0 when ``until <= after``."""
    if until <= after:
        return 0
    return (until - after).days - paused_days(after, until, paused)


def nth_counted_day(after: date, n: int, paused: Iterable[DayRange] = ()) -> date:
    """The day on which the ``n``-th counted (unpaused) day after ``after`` falls.

    ``n <= 0`` gives ``after``. Pauses push the day back; if an open-ended pause
    (``last == date.max``) is reached first the answer is ``date.max`` ("never").
    """
    day = after
    left = n
    for first, last in _merged(paused):
        if left <= 0:
            break
        if last <= day:
            continue
        start = max(first, day + _ONE_DAY)
        free = (start - day).days - 1  # counted days before this pause
        if free >= left:
            break
        left -= free
        if last == date.max:
            return date.max
        day = last
    return day + timedelta(days=max(0, left))


def days_used(
    relayed_at: datetime | date,
    replied_at: datetime | date,
    tz: str,
    grace: int = 1,
    paused: Sequence[DayRange] = (),
) -> int:
    """J7: days a reply used: ``max(0, R - (F + grace))`` minus paused days.

    ``F`` is the local day of ``relayed_at`` and ``R`` of ``replied_at``, both in the
    replying player's zone ``tz`` (J6). A ``date`` is taken as the day itself (White's
    first move counts from the game's start date, J7). ``grace`` is 1 for JCCA/ICCF
    email, 2 for the shogi league ("翌々日までに返信したものは消費0日"). ``paused`` are
    inclusive day ranges (J12 leave, J13 question) in the same zone; only paused days in
    the counted window ``(F + grace, R]`` are taken off.
    """
    if grace < 0:
        raise ValueError("grace must be >= 0")
    first = _day(relayed_at, tz)
    reply = _day(replied_at, tz)
    return counted_days(first + timedelta(days=grace), reply, paused)


def days_used_from_start(
    start: date,
    replied_at: datetime | date,
    tz: str,
    grace: int = 1,
    paused: Sequence[DayRange] = (),
) -> int:
    """J7: White's first move counts from the game's start date (the reference date)."""
    return days_used(start, replied_at, tz, grace, paused)


def silence_deadlines(
    relayed_at: datetime | date, tz: str, paused: Sequence[DayRange] = ()
) -> tuple[date, date]:
    """J11: (reminder day, TD escalation day) for a move relayed at ``relayed_at``.

    The reminder is due 10 days after the relay day, the escalation 10 days later; days
    inside pauses (the silent player's leave, J12: no reminders during leave; a J13
    question) do not count and push both back. Days are in the silent player's zone
    ``tz``. An open-ended pause (``(d, date.max)``) gives ``date.max`` (never).
    """
    relayed = _day(relayed_at, tz)
    return (
        nth_counted_day(relayed, SILENCE_REMINDER_DAYS, paused),
        nth_counted_day(relayed, SILENCE_ESCALATION_DAYS, paused),
    )


def escalation_after_reminder(
    reminded_at: datetime | date, tz: str, paused: Sequence[DayRange] = ()
) -> date:
    """J11 (seed 000 rule 12): the earliest TD escalation day for a reminder that went out
    at ``reminded_at``: the TD hears 10 counted days after the reminder itself, so one sent
    late (the bot was stopped on its day) still leaves the silent player 10 days to answer
    it. Days are in the silent player's zone ``tz``; pauses push it back."""
    return nth_counted_day(_day(reminded_at, tz),
                           SILENCE_ESCALATION_DAYS - SILENCE_REMINDER_DAYS, paused)


def adjudication_day(start: date, months: int = DURATION_MONTHS) -> date:
    """J14 (rule 19): the day a game started on ``start`` is due for TD adjudication.

    ``months`` after the start (24 for JCCA; 6 for a shogi season's games, counted from the
    season's start). A day missing in the target month becomes its last day.
    """
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    day = start.day
    while True:
        try:
            return date(year, month, day)
        except ValueError:
            day -= 1


def duration_reached(start: date, now: datetime, tz: str, months: int = DURATION_MONTHS) -> bool:
    """J14 (rule 19): whether a game started on ``start`` has reached its adjudication day
    (:func:`adjudication_day`) at ``now``, a day in the zone ``tz`` (the sweep counts it in
    side 0's): from that day on an unfinished game is with the TD for adjudication."""
    return local_day(now, tz) >= adjudication_day(start, months)
