"""The one protocol every game (chess now; shogi, go later) implements.

The mail path, the referee and the store only ever talk to a game through this
protocol, so adding shogi (python-shogi) or go (sgfmill) means adding a module
here and nothing else. Plies are stored as short canonical strings (UCI for
chess); positions are opaque objects owned by the game module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

MoveErrorKind = Literal["illegal", "ambiguous", "unreadable"]


class MoveError(ValueError):
    """A player's move text that cannot be applied (J5).

    ``kind`` is ``illegal`` (no such legal move), ``ambiguous`` (two pieces of
    the same kind can legally reach the square, J4) or ``unreadable``.
    """

    def __init__(self, kind: MoveErrorKind, token: str, detail: str = "") -> None:
        super().__init__(f"{kind} move: {token!r}" + (f" ({detail})" if detail else ""))
        self.kind: MoveErrorKind = kind
        self.token = token
        self.detail = detail


@dataclass(frozen=True)
class Outcome:
    """How a game ended by the board: result string and a reason word."""

    result: str  # "1-0", "0-1", "1/2-1/2"
    reason: str  # checkmate, stalemate, insufficient_material, ...


@dataclass
class RecordText:
    """The move record found in a mail body.

    ``tokens`` are the move texts in order (move numbers and results removed);
    ``result`` is a trailing result marker if the player wrote one;
    ``variations`` are parenthesised lines written after a move, as raw token
    lists keyed by the index of the token they follow (for conditional moves).
    ``fullwidth`` is True when NFKC normalisation changed the text (J2).
    """

    tokens: list[str] = field(default_factory=list)
    result: str | None = None
    variations: dict[int, list[list[str]]] = field(default_factory=dict)
    fullwidth: bool = False
    first_line: int = -1
    last_line: int = -1


class GameRules(Protocol):
    """What the referee needs from a game."""

    kind: str

    def start(self) -> Any:
        """A new initial position."""

    def replay(self, plies: Sequence[str]) -> Any:
        """The position after the stored canonical plies."""

    def save(self, position: Any) -> str:
        """The position as text for the store (FEN for chess)."""

    def load(self, saved: str) -> Any:
        """A position back from ``save``'s text (no move history)."""

    def extract_record(self, text: str) -> RecordText:
        """Find the move record (from move 1) in a mail body."""

    def token_key(self, token: str) -> str:
        """A player's token reduced to a comparison key (no position needed)."""

    def ply_keys(self, position: Any, ply: str) -> frozenset[str]:
        """All keys a correctly written token for ``ply`` may reduce to."""

    def parse(self, position: Any, token: str, letters: str = "en") -> str:
        """The canonical ply a player's token means here; raises MoveError."""

    def play(self, position: Any, ply: str) -> None:
        """Apply a canonical ply to ``position`` in place."""

    def to_move(self, position: Any) -> int:
        """0 when the first player (White) is to move, else 1 (also of ``save``'s text)."""

    def outcome(self, position: Any) -> Outcome | None:
        """The result if the board itself ends the game."""

    def claimable_draw(self, position: Any) -> str | None:
        """A draw the side to move may claim now (threefold, fifty moves)."""

    def format_record(self, plies: Sequence[str], notation: str, letters: str = "en") -> str:
        """The whole game as text in a player's notation."""

    def format_ply(self, position: Any, ply: str, notation: str, letters: str = "en") -> str:
        """One ply in a player's notation, from ``position`` (before the ply)."""

    def board_text(self, position: Any, lang: str) -> str:
        """A plain-text board diagram (of a position or of ``save``'s text)."""
