"""The go salon league's secretaries (seed 004 section 6).

Pure: stdlib only, no I/O.

「公式戦の幹事は2名とし、前回のリーグ戦の優勝者とブービーの者がこれにあたる。ただし、70歳
以上の者はとくに本人が希望する場合を除き免除される。優勝者がこれに該当するときは2位のもの、
ブービー者の時はその上位の者が代わりを務める、以下これに準ずる。」
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["EXEMPT_AGE", "exempt", "secretaries"]

EXEMPT_AGE = 70
"""Seed 004 section 6: members of 70 or more are exempt unless they wish to serve."""


def exempt(born: int | None, year: int, serves: bool) -> bool:
    """Whether a member is exempt from serving in ``year``: 70 or more that year (by the
    year of birth), unless the member asked to serve; unknown age is not exempt."""
    return born is not None and year - born >= EXEMPT_AGE and not serves


def secretaries(order: Sequence[str], excused: Collection[str]) -> tuple[str, ...]:
    """The next league's two secretaries from a finished league's final ``order`` (first
    to last): the winner and the booby (the second to last); an ``excused`` winner is
    replaced by the next below, an excused booby by the next above, and so on. Fewer
    than two when the league is too small or too many are excused."""
    chosen: list[str] = []
    winner = next((p for p in order if p not in excused), None)
    if winner is not None:
        chosen.append(winner)
    below = list(order[:-1])  # the booby is second to last; the last never serves first
    booby = next((p for p in reversed(below) if p not in excused and p not in chosen), None)
    if booby is not None:
        chosen.append(booby)
    return tuple(chosen)
