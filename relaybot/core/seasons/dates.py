"""A season's calendar (T3; seed 002 rule 12 期間, rule 19 報告). Pure.

「順位戦の1期の期間は6か月とする。ただし、最初の10日は、準備期間とし、対局は、1か月目の10日
から6か月目の月末までとする」: a season starts on the first of a month (January or July,
「対局開始は、1月と7月とする」; the first of any month is accepted), its games' clocks
start on the 10th of that month, and it ends with the last day of its sixth month.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date

SEASON_MONTHS = 6
PLAY_DAY = 10  # the games start on the 10th of month 1 (10 days to prepare)
SILENT_DAYS = 10  # rule 8: 10日以上連絡が無く、そのまま対局終了期限を迎えた場合
USUAL_MONTHS = (1, 7)
MATE_NEAR_DAYS = 10
"""Rule 16 「対局期限が迫っていて」: a mating line sent in the last 10 days before a game's
deadline binds (the days rule 8 counts as silence: a reply may not come in time)."""


@dataclass(frozen=True)
class SeasonDates:
    """The days of one season: ``start`` (its first day), ``play`` (the games start),
    ``end`` (the last day games may be played), ``month_ends`` (the progress reports)."""

    start: date
    play: date
    end: date
    month_ends: tuple[date, ...]


def month_end(year: int, month: int) -> date:
    """The last day of ``month``."""
    return date(year, month, calendar.monthrange(year, month)[1])


def season_dates(start: date) -> SeasonDates:
    """The calendar of a season that starts on ``start`` (rule 12); ValueError unless
    ``start`` is the first of a month."""
    if start.day != 1:
        raise ValueError(f"a season starts on the first of a month, not {start.isoformat()}")
    ends = []
    for k in range(SEASON_MONTHS):
        index = start.year * 12 + start.month - 1 + k
        ends.append(month_end(index // 12, index % 12 + 1))
    return SeasonDates(start=start, play=start.replace(day=PLAY_DAY), end=ends[-1],
                       month_ends=tuple(ends))


def is_usual_start(start: date) -> bool:
    """True for a season starting in January or July, as rule 12 has them."""
    return start.day == 1 and start.month in USUAL_MONTHS


def silent_loses(last_heard: date, end: date) -> bool:
    """Rule 8: at the season's end the side to move who has not been heard from for 10
    days or more (``last_heard``: the day its opponent's move was relayed, or the day the
    game started) loses alone; otherwise both lose (rule 12)."""
    return (end - last_heard).days >= SILENT_DAYS


def near_deadline(day: date, deadline: date | None) -> bool:
    """Rule 16: ``day`` is within :data:`MATE_NEAR_DAYS` of the game's ``deadline`` (its
    last day; None: the game has none), so a mating line sent on it binds."""
    return deadline is not None and (deadline - day).days < MATE_NEAR_DAYS
