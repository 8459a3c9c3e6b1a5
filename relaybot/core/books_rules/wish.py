"""The 2-game match's wish about the opponent's rating (seed 000: 対戦相手のレイティングに
希望がある場合は〔≦1800 (1800以下の方)〕〔≧1500 (1500以上の方)〕 (言葉でもOK))."""

from __future__ import annotations

import re
import unicodedata

_AT_MOST = re.compile(r"^(?:≦|≤|<=|=<)\s*(\d{3,4})$|^(\d{3,4})\s*(?:以下|or (?:less|below)|"
                      r"and (?:less|below))$|^(?:at most|up to|max(?:imum)?)\s*(\d{3,4})$")
_AT_LEAST = re.compile(r"^(?:≧|≥|>=|=>)\s*(\d{3,4})$|^(\d{3,4})\s*(?:以上|or (?:more|above)|"
                       r"and (?:more|above))$|^(?:at least|min(?:imum)?)\s*(\d{3,4})$")


def parse_wish(text: str) -> tuple[int | None, int | None]:
    """The lowest and highest rating wished for, from ``≦1800``, ``≧1500``, ``1800以下``,
    ``1500以上``, ``at most 1800``, ``at least 1500``, or two of them joined by a comma;
    ValueError for anything else."""
    low: int | None = None
    high: int | None = None
    for part in re.split(r"[,、]", unicodedata.normalize("NFKC", text).strip().lower()):
        part = part.strip().strip("()（）〔〕[]").strip()
        if not part:
            continue
        if (m := _AT_MOST.match(part)) is not None:
            high = int(next(g for g in m.groups() if g))
        elif (m := _AT_LEAST.match(part)) is not None:
            low = int(next(g for g in m.groups() if g))
        else:
            raise ValueError(f"not a rating wish: {part!r} (e.g. ≦1800, ≧1500, 1800以下)")
    return low, high


def fits(rating: int, wish: tuple[int | None, int | None]) -> bool:
    """Whether an opponent's rating meets the wish."""
    low, high = wish
    return (low is None or rating >= low) and (high is None or rating <= high)
