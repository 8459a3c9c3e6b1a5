"""JCCA ratings: the quick table (R1), provisional ratings (R2) and their display.

Pure: stdlib only, no I/O.

Seed 000 ("JPCAレーティング速算表") gives the rating change as a table with *two*
difference columns: one for the higher-rated player (上位者) and one for the
lower-rated player (下位者). The bands are offset by one row: a difference of 13 is
row 2 for the higher player (12 ~ 23) but row 3 for the lower player (13 ~ 24). Each
player reads the row for the difference in their own column, so the two changes of
one game need not cancel (the lower-rated side always gets the kinder rounding).
Both sides read the difference between the ratings at the game's *start*; the change
is then applied to the rating each has at the game's *end* (R1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

__all__ = [
    "OFFICIAL_AFTER",
    "PROVISIONAL_AFTER",
    "QUICK_TABLE",
    "START_RATING",
    "QuickRow",
    "RatingState",
    "apply_result",
    "display_rating",
    "provisional_rating",
    "quick_row",
    "rating_change",
]

START_RATING = 1200
"""R1: a new player without another federation's rating starts at 1200 (provisional)."""

PROVISIONAL_AFTER = 12
"""R2: after this many games the provisional rating is recomputed as Rb."""

OFFICIAL_AFTER = 20
"""R2: from this many games the rating is official (shown without parentheses)."""


@dataclass(frozen=True)
class QuickRow:
    """One row of the JCCA quick table (R1, seed 000).

    ``higher_lo``/``higher_hi``: the band of the rating difference in the higher-rated
    player's column; ``lower_lo``/``lower_hi`` the band in the lower-rated player's
    column (``None`` as upper end: "以上", and no limit). ``higher_wins``: the higher
    gains, the lower loses this (上位勝ち: 上位+ 下位-). ``lower_wins``: the higher
    loses, the lower gains (下位勝ち: 上位- 下位+). ``draw``: the higher loses, the
    lower gains (ドロー: 上位- 下位+).
    """

    higher_lo: int
    higher_hi: int | None
    lower_lo: int
    lower_hi: int | None
    higher_wins: int
    lower_wins: int
    draw: int


def _row(
    higher: tuple[int, int | None], lower: tuple[int, int | None], hw: int, lw: int, d: int
) -> QuickRow:
    return QuickRow(higher[0], higher[1], lower[0], lower[1], hw, lw, d)


# R1: the whole "JPCAレーティング速算表" of seed 000, every band, as printed.
QUICK_TABLE: tuple[QuickRow, ...] = (
    _row((0, 11), (0, 0), 30, 30, 0),
    _row((12, 23), (1, 12), 29, 31, 1),
    _row((24, 35), (13, 24), 28, 32, 2),
    _row((36, 47), (25, 36), 27, 33, 3),
    _row((48, 59), (37, 48), 26, 34, 4),
    _row((60, 71), (49, 60), 25, 35, 5),
    _row((72, 83), (61, 72), 24, 36, 6),
    _row((84, 95), (73, 84), 23, 37, 7),
    _row((96, 107), (85, 96), 22, 38, 8),
    _row((108, 120), (97, 108), 21, 39, 9),
    _row((121, 133), (109, 121), 20, 40, 10),
    _row((134, 146), (122, 134), 19, 41, 11),
    _row((147, 159), (135, 147), 18, 42, 12),
    _row((160, 173), (148, 160), 17, 43, 13),
    _row((174, 187), (161, 174), 16, 44, 14),
    _row((188, 201), (175, 188), 15, 45, 15),
    _row((202, 216), (189, 202), 14, 46, 16),
    _row((217, 233), (203, 217), 13, 47, 17),
    _row((234, 250), (218, 234), 12, 48, 18),
    _row((251, 268), (235, 251), 11, 49, 19),
    _row((269, 287), (252, 269), 10, 50, 20),
    _row((288, 306), (270, 288), 9, 51, 21),
    _row((307, 328), (289, 307), 8, 52, 22),
    _row((329, 352), (308, 329), 7, 53, 23),
    _row((353, 379), (330, 353), 6, 54, 24),
    _row((380, 409), (354, 380), 5, 55, 25),
    _row((410, 449), (381, 410), 4, 56, 26),
    _row((450, 499), (411, 450), 3, 57, 27),
    _row((500, 559), (451, 500), 2, 58, 28),
    _row((560, 679), (501, 560), 1, 59, 29),
    _row((680, None), (561, None), 0, 60, 30),
)

_RESULTS = ("1-0", "0-1", "1/2-1/2")


def _in_band(diff: int, lo: int, hi: int | None) -> bool:
    return lo <= diff and (hi is None or diff <= hi)


def quick_row(diff: int, side: str) -> QuickRow:
    """The quick-table row for a rating difference, read in ``side``'s column (R1).

    ``side`` is ``"higher"`` (上位者) or ``"lower"`` (下位者); ``diff`` >= 0.
    """
    if diff < 0:
        raise ValueError(f"rating difference must be >= 0, got {diff}")
    if side == "higher":
        for row in QUICK_TABLE:
            if _in_band(diff, row.higher_lo, row.higher_hi):
                return row
    elif side == "lower":
        for row in QUICK_TABLE:
            if _in_band(diff, row.lower_lo, row.lower_hi):
                return row
    else:
        raise ValueError(f"side must be 'higher' or 'lower', got {side!r}")
    raise AssertionError(f"quick table has a gap at {diff}")  # pragma: no cover


def rating_change(white_rating: int, black_rating: int, result: str) -> tuple[int, int]:
    """The (White, Black) rating changes for one game, from the quick table (R1).

    ``white_rating``/``black_rating`` are the ratings at the game's start; ``result``
    is ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``. The higher-rated player reads the
    difference in the 上位者 column, the lower-rated one in the 下位者 column. With
    equal ratings both read row 1 (30 for a win, 0 for a draw).
    """
    if result not in _RESULTS:
        raise ValueError(f"result must be one of {', '.join(_RESULTS)}, got {result!r}")
    diff = abs(white_rating - black_rating)
    high = quick_row(diff, "higher")
    low = quick_row(diff, "lower")
    if result == "1/2-1/2":
        higher_delta, lower_delta = -high.draw, low.draw
    else:
        white_won = result == "1-0"
        higher_is_white = white_rating >= black_rating
        if white_won == higher_is_white:  # the higher-rated player won
            higher_delta, lower_delta = high.higher_wins, -low.higher_wins
        else:
            higher_delta, lower_delta = -high.lower_wins, low.lower_wins
    if white_rating >= black_rating:
        return higher_delta, lower_delta
    return lower_delta, higher_delta


def _round_half_up(value: Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


def provisional_rating(opponent_ratings: Sequence[int], wins: int, losses: int) -> int:
    """Rb, the provisional rating recomputed after 12 games (R2, seed 000).

    ``Rb = mean(opponents' ratings) + 360 * (W - L) / (W + L)``. The mean is over
    every game (drawn games too: "対戦者12名"); draws count in neither W nor L, as the
    seed's formula has only 勝 and 負. If every game was drawn (W + L = 0) the second
    term is 0. The seed gives no rounding; ratings are whole numbers, so the exact
    value is rounded to the nearest integer, halves up.
    """
    if not opponent_ratings:
        raise ValueError("provisional rating needs at least one opponent rating")
    if wins < 0 or losses < 0:
        raise ValueError(f"wins and losses must be >= 0, got {wins} and {losses}")
    if wins + losses > len(opponent_ratings):
        raise ValueError(
            f"{wins} wins + {losses} losses exceed the {len(opponent_ratings)} games given"
        )
    value = Fraction(sum(opponent_ratings), len(opponent_ratings))
    if wins + losses:
        value += Fraction(360 * (wins - losses), wins + losses)
    return _round_half_up(value)


def display_rating(rating: int, games: int) -> str:
    """``"(1320)"`` before 20 games, ``"1320"`` from 20 (R2)."""
    if games < OFFICIAL_AFTER:
        return f"({rating})"
    return str(rating)


@dataclass(frozen=True)
class RatingState:
    """A player's JCCA rating between games (R1, R2).

    ``provisional`` is True until 20 rated games (a TD-set starting value from another
    federation is provisional too). ``opponents``, ``wins`` and ``losses`` record the
    first 12 games of a provisional player, for Rb; they stop growing after that.
    """

    rating: int = START_RATING
    games: int = 0
    provisional: bool = True
    opponents: tuple[int, ...] = ()
    wins: int = 0
    losses: int = 0
    # go (seed 004): the jigo among the counted games, and the rank reached ("" while
    # none is kept: the rank the points give)
    draws: int = 0
    rank: str = ""

    @property
    def display(self) -> str:
        """The rating as published: in parentheses while provisional (R2)."""
        return f"({self.rating})" if self.provisional else str(self.rating)


def _advance(state: RatingState, delta: int, opponent_start: int, score: Fraction) -> RatingState:
    games = state.games + 1
    new = replace(state, rating=state.rating + delta, games=games)
    if not state.provisional:
        return new
    if state.games < PROVISIONAL_AFTER:
        new = replace(
            new,
            opponents=(*state.opponents, opponent_start),
            wins=state.wins + (score == 1),
            losses=state.losses + (score == 0),
        )
        if games == PROVISIONAL_AFTER:  # R2: replace Ra by Rb after the 12th game
            new = replace(new, rating=provisional_rating(new.opponents, new.wins, new.losses))
    if games >= OFFICIAL_AFTER:  # R2: official from the 20th game
        new = replace(new, provisional=False)
    return new


def apply_result(
    white: RatingState,
    black: RatingState,
    white_start: int,
    black_start: int,
    result: str,
) -> tuple[RatingState, RatingState]:
    """Both players' states after one finished, rated game (R1, R2).

    ``white``/``black`` are the states now (at the game's end); ``white_start``/
    ``black_start`` the ratings at the game's start, which choose the quick-table row.
    The change is added to the current rating; a provisional player's 12th game
    replaces the rating by Rb (computed from the start ratings of the first 12
    opponents), and the 20th makes it official.
    """
    dw, db = rating_change(white_start, black_start, result)
    white_score = {"1-0": Fraction(1), "0-1": Fraction(0)}.get(result, Fraction(1, 2))
    return (
        _advance(white, dw, black_start, white_score),
        _advance(black, db, white_start, 1 - white_score),
    )
