"""JCCA grades (段級位, R3): grade points and the grade they reach.

Pure: stdlib only, no I/O. Seed 000 "J C C A段級位認定規定" with its tables 1
(段級位認定点数表) and 2 (段級位点数表).

Grade points = introduction bonus (once) + title points + tournament points:

* introduction bonus ``rating^3 / 10,000,000``, given once, at the introduction of
  grades or when the official rating is granted (導入時および本レイティング認定時);
* title points: Japan champion 2000 each time, ICCF IM, SIM, GM 4000 each;
* tournament points: per game, by the category of the section's average rating
  (table 2) and the result (win, draw, loss: a loss still earns points).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "CATEGORIES",
    "GRADES",
    "TITLE_POINTS",
    "Category",
    "Grade",
    "category_for",
    "game_points",
    "grade_for",
    "grade_info",
    "grade_points",
    "introduction_bonus",
    "section_points",
    "title_name",
    "title_points",
    "titles_text",
]


@dataclass(frozen=True)
class Grade:
    """One line of table 1: the grade, the points that reach it, and an English gloss."""

    ja: str
    en: str
    points: int
    next_points: int | None  # the next grade's threshold; None for the top grade

    @property
    def label(self) -> str:
        """The Japanese name with the English gloss, e.g. ``"初段 (1st dan)"``."""
        return f"{self.ja} ({self.en})"


# R3: table 1 (付表1: 段級位認定点数表) of seed 000. "次の位まで" is the difference to the
# next line, kept here as the next line's threshold.
_TABLE_1: tuple[tuple[str, str, int], ...] = (
    ("入門", "beginner", 0),
    ("8級", "8th kyu", 20),
    ("7級", "7th kyu", 50),
    ("6級", "6th kyu", 100),
    ("5級", "5th kyu", 200),
    ("4級", "4th kyu", 300),
    ("3級", "3rd kyu", 400),
    ("2級", "2nd kyu", 600),
    ("1級", "1st kyu", 1000),
    ("初段", "1st dan", 1600),
    ("二段", "2nd dan", 2400),
    ("三段", "3rd dan", 4000),
    ("四段", "4th dan", 6400),
    ("五段", "5th dan", 9600),
    ("六段", "6th dan", 12800),
    ("七段", "7th dan", 17600),
)

GRADES: tuple[Grade, ...] = tuple(
    Grade(ja, en, pts, _TABLE_1[i + 1][2] if i + 1 < len(_TABLE_1) else None)
    for i, (ja, en, pts) in enumerate(_TABLE_1)
)


@dataclass(frozen=True)
class Category:
    """One line of table 2: a category, its lowest average rating, points per result."""

    number: int
    min_average: int  # "平均Rateは全て以上を表します": the average is at least this
    win: int
    draw: int
    loss: int


# R3: table 2 (付表2: 段級位点数表) of seed 000: category 1 from 0, then every 50 from 850.
CATEGORIES: tuple[Category, ...] = (
    Category(1, 0, 4, 2, 1),
    Category(2, 850, 8, 4, 2),
    Category(3, 900, 12, 6, 3),
    Category(4, 950, 16, 8, 4),
    Category(5, 1000, 20, 10, 5),
    Category(6, 1050, 24, 12, 6),
    Category(7, 1100, 28, 14, 7),
    Category(8, 1150, 32, 16, 8),
    Category(9, 1200, 36, 18, 9),
    Category(10, 1250, 40, 20, 10),
    Category(11, 1300, 44, 22, 11),
    Category(12, 1350, 48, 24, 12),
    Category(13, 1400, 52, 26, 13),
    Category(14, 1450, 56, 28, 14),
    Category(15, 1500, 60, 30, 15),
    Category(16, 1550, 64, 32, 16),
    Category(17, 1600, 68, 34, 17),
    Category(18, 1650, 72, 36, 18),
    Category(19, 1700, 76, 38, 19),
    Category(20, 1750, 80, 40, 20),
    Category(21, 1800, 84, 42, 21),
    Category(22, 1850, 88, 44, 22),
    Category(23, 1900, 92, 46, 23),
    Category(24, 1950, 96, 48, 24),
    Category(25, 2000, 100, 50, 25),
)

TITLE_POINTS: dict[str, int] = {
    "japan_champion": 2000,  # R3: 日本チャンピオン, per title won
    "IM": 4000,  # R3: ICCF-IM
    "SIM": 4000,  # R3: ICCF-SIM
    "GM": 4000,  # R3: ICCF-GM
}


def introduction_bonus(rating: int) -> int:
    """The once-only bonus ``rating^3 / 10,000,000`` (R3).

    The seed gives no rounding; grades are reached when the points *reach* a
    threshold, so the fraction is dropped (floor): 1600 -> 409.6 -> 409.
    """
    if rating < 0:
        raise ValueError(f"rating must be >= 0, got {rating}")
    return rating**3 // 10_000_000


# How operators may write a title (lower case, NFKC not needed: plain ASCII or Japanese).
_TITLE_WORDS: dict[str, str] = {
    "japan_champion": "japan_champion", "japan-champion": "japan_champion",
    "champion": "japan_champion", "日本チャンピオン": "japan_champion",
    "im": "IM", "iccf-im": "IM", "sim": "SIM", "iccf-sim": "SIM", "gm": "GM",
    "iccf-gm": "GM",
}
_TITLE_LABELS = {"japan_champion": ("日本チャンピオン", "Japan champion"),
                 "IM": ("ICCF-IM", "ICCF-IM"), "SIM": ("ICCF-SIM", "ICCF-SIM"),
                 "GM": ("ICCF-GM", "ICCF-GM")}


def title_name(word: str) -> str:
    """A title as an operator writes it (``IM``, ``iccf-gm``, ``japan_champion``,
    ``日本チャンピオン``) -> its key in :data:`TITLE_POINTS` (R3); ValueError if none."""
    key = _TITLE_WORDS.get(word.strip().lower())
    if key is None:
        raise ValueError(f"unknown title {word.strip()!r}; known: japan_champion "
                         f"(日本チャンピオン), IM, SIM, GM")
    return key


def titles_text(titles: Iterable[str], lang: str = "en") -> str:
    """Titles for people: ``Japan champion x2, ICCF-IM`` (``日本チャンピオン×2``)."""
    counts: dict[str, int] = {}
    for title in titles:
        counts[title] = counts.get(title, 0) + 1
    index = 0 if lang == "ja" else 1
    parts = []
    for title, n in counts.items():
        label = _TITLE_LABELS.get(title, (title, title))[index]
        parts.append(label if n == 1 else (f"{label}×{n}" if lang == "ja" else f"{label} x{n}"))
    return ", ".join(parts)


def title_points(titles: Iterable[str]) -> int:
    """Points for titles (R3): ``"japan_champion"`` 2000 each time; IM, SIM, GM 4000.

    List a title once per time it was won (Japan champion can repeat).
    """
    total = 0
    for title in titles:
        if title not in TITLE_POINTS:
            known = ", ".join(TITLE_POINTS)
            raise ValueError(f"unknown title {title!r}; known: {known}")
        total += TITLE_POINTS[title]
    return total


def category_for(ratings: Sequence[int]) -> Category:
    """The table-2 category of a section from its participants' ratings (R3).

    The average is compared exactly (no rounding): a category applies when the
    average is at least its threshold.
    """
    if not ratings:
        raise ValueError("a section's category needs at least one rating")
    total, count = sum(ratings), len(ratings)
    chosen = CATEGORIES[0]
    for category in CATEGORIES:
        if total >= category.min_average * count:
            chosen = category
    return chosen


def game_points(category: Category, score: float) -> int:
    """Tournament points for one game (R3): ``score`` 1 win, 0.5 draw, 0 loss."""
    if score == 1:
        return category.win
    if score == 0.5:
        return category.draw
    if score == 0:
        return category.loss
    raise ValueError(f"score must be 1, 0.5 or 0, got {score}")


def section_points(section_ratings: Sequence[int], scores: Iterable[float]) -> int:
    """A player's tournament points from one section (R3).

    ``section_ratings``: every participant's rating (for the average); ``scores``: the
    player's game scores there (1, 0.5, 0).
    """
    category = category_for(section_ratings)
    return sum(game_points(category, s) for s in scores)


def grade_points(
    intro_rating: int | None = None,
    titles: Iterable[str] = (),
    tournament: int = 0,
) -> int:
    """Total grade points (R3): bonus for ``intro_rating`` + titles + ``tournament``.

    ``intro_rating`` is the rating at the introduction or at the official rating
    (None if the bonus is not yet due); ``tournament`` the sum of tournament points.
    """
    bonus = 0 if intro_rating is None else introduction_bonus(intro_rating)
    return bonus + title_points(titles) + tournament


def grade_info(points: int) -> Grade:
    """The highest grade of table 1 that ``points`` reach (R3)."""
    if points < 0:
        raise ValueError(f"grade points must be >= 0, got {points}")
    reached = GRADES[0]
    for grade in GRADES:
        if points >= grade.points:
            reached = grade
    return reached


def grade_for(points: int) -> str:
    """The grade reached, Japanese name and English gloss: ``"初段 (1st dan)"`` (R3)."""
    return grade_info(points).label
