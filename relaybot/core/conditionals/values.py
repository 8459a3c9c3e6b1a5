"""The values of conditional proposals (J16): accepted lines, refusals, a reply's steps.

Game-neutral: plies are the game's canonical strings. See :mod:`.tree` for checking
and following them, and each game's package for reading them from mail text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from relaybot.core.game import MoveError, ProposalLine
from relaybot.core.reasons import Reason, say

CONTRADICTION_PENALTY_DAYS = 5  # J16 (JCCA rule 4): a reply that does not honour a bound answer
MAX_LINE_PLIES = 40  # a proposal longer than this is refused (too_long)

Mode = Literal["binding", "optional", "off"]
RejectReason = Literal[
    "illegal",  # J5 kinds, from MoveError
    "ambiguous",
    "unreadable",
    "wrong_start",  # written for a later move, and not legal now
    "stale",  # written for a move already played, and not legal now (copied old text)
    "no_answer",  # a predicted move with no answer
    "conflict",  # a different answer to a predicted move already answered
    "too_long",
]
FollowKind = Literal["no_move", "move", "contradiction", "bad_move", "too_many_moves"]



@dataclass(frozen=True)
class Conditional:
    """An accepted proposal line (J16): canonical plies from the position after
    the proposer's move; even indices are the opponent's predicted moves, odd
    indices the proposer's bound answers. Store ``plies``; rebuild with
    ``Conditional(plies=tuple(stored))``.
    """

    plies: tuple[str, ...]
    sans: tuple[str, ...] = ()
    line: ProposalLine | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejected:
    """A proposal line refused by :func:`validate`; the proposer's move still stands (J16).

    ``reason`` is a code (see :data:`RejectReason`), ``why`` the refusal as a value the
    reply says in its reader's language (:mod:`relaybot.core.reasons`), ``token`` the
    offending token ("" for the whole line) and ``ply_index`` its index in
    ``line.tokens`` (-1 for the line).
    """

    line: ProposalLine
    reason: RejectReason
    why: Reason
    token: str = ""
    ply_index: int = -1

    @property
    def detail(self) -> str:
        """The refusal in English (logs, tests)."""
        return say(self.why, "en")


@dataclass(frozen=True)
class FollowStep:
    """One ply to apply, in order (J16).

    ``by_proposer`` marks a bound answer (the proposer's move: 0 days charged);
    ``written`` is False when the bot plays it itself because the opponent
    stopped right after the predicted move; ``token_index`` indexes the
    opponent's tokens (-1 when not written).
    """

    ply: str
    san: str
    by_proposer: bool
    written: bool
    token_index: int


@dataclass
class FollowResult:
    """What the opponent's reply does with the proposals (J16).

    ``kind``: ``no_move`` (no new token), ``move`` (apply ``steps``),
    ``contradiction`` (the predicted move was played but a different answer
    was written for the proposer: nothing applied; ``penalty_days`` 5 in
    binding mode, J16), ``bad_move`` (a token is illegal, ambiguous or
    unreadable: nothing applied, J5 is the referee's), ``too_many_moves``
    (tokens left after the opponent's own new move: nothing applied).

    ``triggered``: the opponent played a predicted move. ``sender_to_move``:
    the reply ended inside a line, after a bound answer, so it is the
    opponent's move again. ``end_index``: the opponent's tokens used
    (``tokens[:end_index]``). ``expected``/``token_index`` name the bound
    answer and the token for a contradiction or bad move. ``position`` is the saved
    position after ``steps``.
    """

    kind: FollowKind
    steps: list[FollowStep] = field(default_factory=list)
    triggered: bool = False
    sender_to_move: bool = False
    end_index: int = 0
    penalty_days: int = 0
    error: MoveError | None = None
    token_index: int | None = None
    expected: str | None = None
    position: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def plies(self) -> list[str]:
        """The UCI plies to apply, in order."""
        return [step.ply for step in self.steps]

    @property
    def bound_answers(self) -> list[str]:
        """The proposer's plies among :attr:`plies` (J16: 0 days to the proposer)."""
        return [step.ply for step in self.steps if step.by_proposer]

    @property
    def applies(self) -> bool:
        """True when the game changes."""
        return self.kind == "move" and bool(self.steps)

