"""The facts a game's clocks are computed from, as values: the colours, when each ply
arrived (:class:`PlyTimes`), penalties (J5, J16) and pauses (J12 leave, J13 questions to
the TD), with the J12 rule that a player's own move ends their leave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from relaybot.core.clocks.days import local_day
from relaybot.core.leave import DayRange, end_leave_on_move

__all__ = [
    "BLACK",
    "PENALTY_DAYS",
    "WHITE",
    "Pause",
    "Penalty",
    "PlyTimes",
    "player_pauses",
    "question_pauses",
]

WHITE = 0
BLACK = 1

PENALTY_DAYS = 5  # J5 (rule 6) and J16 (rule 4): days added to the offender's time


@dataclass(frozen=True)
class PlyTimes:
    """One applied ply: who made it and when its mail reached our server (J6, UTC aware)."""

    colour: int
    sent_at: datetime


@dataclass(frozen=True)
class Penalty:
    """Days added to a player's time (J5 bad move, J16 conditional ignored: 5 days).

    It counts towards the first move of ``colour`` arriving at or after ``at``; one given
    after that player's last move counts in the total at once (``Side.pending_penalty_days``).
    """

    colour: int
    days: int
    reason: str
    at: datetime


@dataclass(frozen=True)
class Pause:
    """Inclusive local days on which one player's clock does not run.

    J12 leave: ``reason="leave"``, the dates as announced, in that player's zone. J13: a
    question to the TD pauses both clocks; build it with ``question_pauses``. ``last=None``
    means still open (a question not yet answered).
    """

    colour: int
    first: date
    last: date | None
    reason: str = "leave"

    @property
    def days(self) -> DayRange:
        """The pause as an inclusive range (open-ended: ``date.max``)."""
        return (self.first, self.last if self.last is not None else date.max)


def question_pauses(
    asked_at: datetime, answered_at: datetime | None, tz: tuple[str, str]
) -> tuple[Pause, Pause]:
    """J13 (rule 25): a question pauses the game for both players from the day it was sent
    to the day the answer arrived, each in their own zone; ``answered_at=None``: still open.
    """
    def one(colour: int) -> Pause:
        zone = tz[colour]
        last = local_day(answered_at, zone) if answered_at is not None else None
        return Pause(colour, local_day(asked_at, zone), last, "question")

    return one(WHITE), one(BLACK)


def player_pauses(
    moves: Sequence[PlyTimes], pauses: Sequence[Pause], tz: tuple[str, str]
) -> tuple[list[DayRange], list[DayRange]]:
    """Each colour's pause ranges, leaves cut short by that player's own moves (J12)."""
    out: tuple[list[DayRange], list[DayRange]] = ([], [])
    for pause in pauses:
        if pause.colour not in (WHITE, BLACK):
            raise ValueError(f"pause for unknown colour {pause.colour}")
        rng: DayRange | None = pause.days
        if pause.reason == "leave":
            for i in range(pause.colour, len(moves), 2):
                if rng is None:
                    break
                rng = end_leave_on_move(rng, local_day(moves[i].sent_at, tz[pause.colour]))
        if rng is not None:
            out[pause.colour].append(rng)
    return out
