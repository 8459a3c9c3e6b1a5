"""The referee's values: the stored game it reads (``StoredGame``) and its decision on
one mail (``Verdict``, of a ``VerdictKind``), and what a wrong move costs (J5).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from relaybot.core.conditionals import Conditional, Rejected
from relaybot.core.game import Declared, MoveError, Outcome, RecordText
from relaybot.core.intent import Intent

PENALTY_DAYS = 5  # J5: an illegal, impossible, unreadable or ambiguous move (JCCA's RuleSet)

VerdictKind = Literal[
    "move",  # a new move applied (and maybe the game ended by the board)
    "resign",
    "draw_agreed",
    "draw_claimed",
    "draw_offer",  # an offer without a move
    "sync_error",  # J1: earlier moves differ from the record
    "bad_move",  # J5: illegal / ambiguous / unreadable
    "contradiction",  # J16: the predicted move played, a different bound answer written
    "not_your_turn",
    "too_many_moves",
    "no_move",
    "game_over",
    "status",
    "help",
    "aside",  # only a leave notice or a TD question: the service handles those
    "declared",  # a game's own keyword ended the game (shogi: 入玉宣言)
    "too_many_conditionals",  # over core.bounds.MAX_CONDITIONALS: nothing applied
    "too_long",  # a record far longer than the game: refused before it is read
    "no_draw_offers",  # a draw offered or accepted in a game without draw offers (go)
]


@dataclass(frozen=True)
class StoredGame:
    """What the referee needs of a stored game."""

    plies: tuple[str, ...]
    keys: tuple[frozenset[str], ...]
    position: str
    active: bool = True
    draw_offer_by: int | None = None


@dataclass(frozen=True)
class Verdict:
    """The referee's decision on one mail: a value, made once."""

    kind: VerdictKind
    new_plies: list[str] = field(default_factory=list)
    new_keys: list[frozenset[str]] = field(default_factory=list)
    new_texts: list[str] = field(default_factory=list)  # SAN of each new ply
    position: str | None = None  # the position after the new plies
    outcome: Outcome | None = None  # the game ends
    draw_offer_by: int | None = None
    draw_declined: bool = False
    penalty_days: int = 0
    error: MoveError | None = None
    diff_ply: int | None = None  # first differing ply (0-based) for a sync error
    diff_token: str | None = None
    auto: list[bool] = field(default_factory=list)  # per new ply: played by the bot (J16)
    nonstandard: list[tuple[str, str]] = field(default_factory=list)  # (written, standard) J3
    starts_at: int | None = None  # J1: the mail's record starts at this ply, not at move 1
    sender_to_move: bool = False  # the bot played a bound answer: the sender moves again
    declared: Declared | None = None  # a game keyword recorded without ending the game
    expected: str | None = None  # the bound answer a contradicting reply ignored
    other_token: str | None = None  # J1: the other move the mail names for diff_ply
    written_side: int | None = None  # J1: the side a wrong colour label names at diff_ply
    unread_line: str | None = None  # no move: a line with a move among words, as written
    # a move: a line that reads like a proposal but was not read as one (予想手: 4. c3,
    # 4. c3 なら 4... Nf6), as written: the reply says so, so nobody thinks it binds
    unread_proposal: str | None = None
    new_conditionals: list[Conditional] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    proposals_cleared: bool = False
    notes: list[str] = field(default_factory=list)
    intent: Intent = field(default_factory=Intent)
    record: RecordText = field(default_factory=RecordText)

    @property
    def applies(self) -> bool:
        """True when the game state changes."""
        return (bool(self.new_plies) or self.outcome is not None
                or self.kind == "draw_offer" or self.declared is not None)

