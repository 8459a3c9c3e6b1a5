"""Time controls (J8), written as text in the game's settings.

* ``10/30``, ``10/50``: cumulative; at a player's 10th, 20th, 30th... move the total must
  be ``<= 30, 60, 90...`` days; unused days carry over. Checked only at control moves (J9).
* ``bank:20`` (shogi league, seed 002 rule 9): 20 days in all, no refill. The seed says
  "当初の持ち日数を20日とし、0日になったら負けとする": the player loses when the bank
  *reaches* 0, i.e. when the total is ``>= 20`` (not only when it goes past 20). The bank
  loses by itself, with no claim (J9), also while the player is still thinking (see
  ``pending``).
* ``fischer:30+1:45`` (ICCF server style): a reserve of 30 days, +1 day after each move
  made, the reserve never above 45 (``fischer:30+1`` has no cap). A move that costs more
  than the reserve (reserve below 0) loses.
* ``,max:14`` after any of them: no single move may use more than 14 days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["ControlKind", "TimeControl"]

ControlKind = Literal["moves", "bank", "fischer"]

_MOVES_RE = re.compile(r"(\d+)/(\d+)")
_BANK_RE = re.compile(r"bank:(\d+)")
_FISCHER_RE = re.compile(r"fischer:(\d+)\+(\d+)(?::(\d+))?")
_MAX_RE = re.compile(r"max:(\d+)")

_EXAMPLES = "10/30, 10/50, bank:20, fischer:30+1:45, optionally followed by ,max:14"

# How a control is written: as the settings hold it (str()), and as readers of each
# language read it (describe(); 10/30 the same everywhere, as clubs write it).
_FORMS: dict[str, dict[str, str]] = {
    "settings": {"moves": "{moves}/{days}", "bank": "bank:{days}",
                 "fischer": "fischer:{days}+{inc}", "cap": ":{cap}", "max": ",max:{max}"},
    "en": {"moves": "{moves}/{days}", "bank": "{days} days in all (lost at 0)",
           "fischer": "{days} days, {inc} more after each move", "cap": ", at most {cap}",
           "max": "; at most {max} days on one move"},
    "ja": {"moves": "{moves}/{days}", "bank": "通算{days}日（0日で負け）",
           "fischer": "{days}日、1手ごとに{inc}日加算", "cap": "、上限{cap}日",
           "max": "、1手あたり最大{max}日"},
}


@dataclass(frozen=True)
class TimeControl:
    """A game's day clock (J8). Build it with ``TimeControl.parse``; ``str()`` gives it back.

    ``kind`` is ``"moves"`` (``moves``/``days``: N moves in D days, cumulative),
    ``"bank"`` (``days`` in all) or ``"fischer"`` (``days`` to start, ``increment`` per
    move, reserve at most ``cap`` if set). ``max_per_move`` is the optional per-move limit.
    """

    kind: ControlKind
    days: int
    moves: int = 0
    increment: int = 0
    cap: int | None = None
    max_per_move: int | None = None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read ``10/30``, ``bank:20``, ``fischer:30+1:45``, each with optional ``,max:N``.

        Case and spaces do not matter. Raises ``ValueError`` with a message that can go
        to the TD as it is.
        """
        raw = text
        norm = re.sub(r"\s+", "", text).lower()
        head, sep, tail = norm.partition(",")
        max_per_move: int | None = None
        if sep:
            mm = _MAX_RE.fullmatch(tail)
            if mm is None:
                raise ValueError(
                    f"time control {raw!r}: {tail!r} not understood after the comma "
                    f"(only max:N, e.g. 10/30,max:14)"
                )
            max_per_move = int(mm.group(1))
            if max_per_move <= 0:
                raise ValueError(f"time control {raw!r}: the per-move maximum must be > 0")
        if m := _MOVES_RE.fullmatch(head):
            moves, days = int(m.group(1)), int(m.group(2))
            if moves <= 0 or days <= 0:
                raise ValueError(f"time control {raw!r}: moves and days must both be > 0")
            return cls("moves", days, moves=moves, max_per_move=max_per_move)
        if m := _BANK_RE.fullmatch(head):
            days = int(m.group(1))
            if days <= 0:
                raise ValueError(f"time control {raw!r}: the bank must hold more than 0 days")
            return cls("bank", days, max_per_move=max_per_move)
        if m := _FISCHER_RE.fullmatch(head):
            base, inc = int(m.group(1)), int(m.group(2))
            cap = int(m.group(3)) if m.group(3) is not None else None
            if base <= 0:
                raise ValueError(f"time control {raw!r}: the starting reserve must be > 0")
            if cap is not None and cap < base:
                raise ValueError(
                    f"time control {raw!r}: the cap ({cap}) is below the starting reserve "
                    f"({base})"
                )
            return cls("fischer", base, increment=inc, cap=cap, max_per_move=max_per_move)
        raise ValueError(f"time control {raw!r} not understood (expected {_EXAMPLES})")

    def __str__(self) -> str:
        return self._written("settings")

    def describe(self, lang: str) -> str:
        """The time control as a reader of ``lang`` reads it: ``10/30`` as clubs write it,
        the others in words (``20 days in all (lost at 0)``, ``通算20日（0日で負け）``),
        never the settings' own ``bank:20``."""
        return self._written("ja" if lang == "ja" else "en")

    def _written(self, form: str) -> str:
        """The control in one of :data:`_FORMS` (the settings' text, or a language)."""
        words = _FORMS[form]
        text = words[self.kind].format(moves=self.moves, days=self.days, inc=self.increment)
        if self.kind == "fischer" and self.cap is not None:
            text += words["cap"].format(cap=self.cap)
        if self.max_per_move is not None:
            text += words["max"].format(max=self.max_per_move)
        return text

    def control_move(self, moves_made: int) -> int | None:
        """J8: the next control move after ``moves_made`` moves (``k*N > moves_made``).

        ``None`` for bank and Fischer clocks, which have no control moves.
        """
        if self.kind != "moves":
            return None
        return (moves_made // self.moves + 1) * self.moves

    def limit_at(self, control_move: int) -> int:
        """J8: the most days a player may have used at ``control_move`` (``10/30``: 30*k)."""
        if self.kind != "moves":
            raise ValueError(f"{self} has no control moves")
        return (control_move // self.moves) * self.days
