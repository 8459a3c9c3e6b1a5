"""Promotion and relegation at a season's end (T3; seed 002 rules 4-6, 8). Pure.

Rule 4: 「上位が昇級、下位が降級する。ただし、指し分け以上の成績の場合は、降級しない」.
Rule 5: 「昇級、降級、いずれもクラス人数の1/3(小数点以下は四捨五入)とする(A級からの昇級を除く)」,
and when the sizes of the classes from A down differ twofold or more, the organiser may
round down or up instead. Rule 6: S is fixed at 8: 3 go down, A sends up as many as S
needs, a player of S who rests drops to A and the next of A moves up. Rule 8: a player
who rests mid-season 「降級人数に含まれるが、降級としないこととする」.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction

from relaybot.core.seasons.classes import S_SIZE, TOP

PROMOTED = "promoted"
STAYS = "stays"
RELEGATED = "relegated"
REST = "rest"
WITHDRAWN = "withdrawn"
OUTCOMES = (PROMOTED, STAYS, RELEGATED, REST, WITHDRAWN)

PLAYING = "playing"
ROUNDINGS = ("round", "floor", "ceil")
S_RELEGATED = 3  # rule 6: S級からの降級は、1/3の3名


@dataclass(frozen=True)
class Finisher:
    """One player of a class at the season's end, in the final standing order: ``points``
    (wins, 千日手・持将棋 as 0.5), ``games`` finished, ``state`` ``playing``, ``rest`` (a
    mid-season rest, rule 8) or ``withdrawn``."""

    player: str
    points: float
    games: int
    state: str = PLAYING


@dataclass(frozen=True)
class ClassResult:
    """A class's final standings: its letter and its players, best first."""

    letter: str
    rows: tuple[Finisher, ...]


def third(size: int, rounding: str = "round") -> int:
    """Rule 5: one third of a class, rounded half up (四捨五入), or down or up."""
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding is one of {', '.join(ROUNDINGS)}, not {rounding!r}")
    value = Fraction(size, 3)
    if rounding == "floor":
        return value.numerator // value.denominator
    if rounding == "ceil":
        return -(-value.numerator // value.denominator)
    return int(value + Fraction(1, 2))


def uneven(classes: Sequence[ClassResult]) -> bool:
    """Rule 5: the classes from A down differ twofold or more in size, so the organiser
    may round one third down or up."""
    sizes = [len(c.rows) for c in classes if c.letter != TOP]
    return bool(sizes) and max(sizes) >= 2 * min(sizes)


def half_or_better(row: Finisher) -> bool:
    """Rule 4: 指し分け以上: at least as many wins as losses (a draw a half)."""
    return row.points * 2 >= row.games


def outcomes(classes: Sequence[ClassResult], *, rounding: str = "round",
             resting: Collection[str] = ()) -> dict[str, str]:
    """Each player's outcome (promoted, stays, relegated, rest, withdrawn) from the final
    standings of every class, best class first (rules 4-6, 8).

    ``rounding`` applies only when :func:`uneven` (rule 5), else one third is rounded half
    up. ``resting``: players who sit the next season out; one of S's stayers among them
    makes room for one more of A (rule 6). The top class is S when its letter is "S".
    """
    if rounding != "round" and not uneven(classes):
        rounding = "round"
    out: dict[str, str] = {}
    for row in (r for c in classes for r in c.rows):
        if row.state == REST:
            out[row.player] = REST
        elif row.state == WITHDRAWN:
            out[row.player] = WITHDRAWN
    for i, cls in enumerate(classes):
        rows = cls.rows
        last = i == len(classes) - 1
        down = 0 if last else (S_RELEGATED if cls.letter == TOP else third(len(rows), rounding))
        # rule 8: a mid-season rest fills a place among the relegated, but stays
        for row in rows[len(rows) - down:] if down else ():
            if row.player in out:
                continue
            out[row.player] = STAYS if half_or_better(row) else RELEGATED
        if i == 0:
            continue
        eligible = [r for r in rows if r.player not in out]
        if i == 1 and classes[0].letter == TOP:
            # rule 6: one who would go up to S but rests keeps A; the next goes up
            eligible = [r for r in eligible if r.player not in resting]
            top = classes[0].rows
            kept = [r for r in top if out.get(r.player, STAYS) == STAYS
                    and r.player not in resting]
            up = max(0, S_SIZE - len(kept))
        else:
            up = third(len(rows), rounding)
        for row in eligible[:up]:
            out[row.player] = PROMOTED
    for row in (r for c in classes for r in c.rows):
        out.setdefault(row.player, STAYS)
    return out
