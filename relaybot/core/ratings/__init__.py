"""Ratings and grades (R1-R4): JCCA quick table, provisional Rb, grades, Go salon.

Pure: stdlib only, no I/O. See :mod:`.jcca`, :mod:`.grades` and :mod:`.go_salon`.
"""

from relaybot.core.ratings.go_salon import (
    GoPoints,
    Handicap,
    go_points,
    go_rank,
    handicap_between,
    handicap_for,
    rank_points,
)
from relaybot.core.ratings.grades import (
    CATEGORIES,
    GRADES,
    Category,
    Grade,
    category_for,
    game_points,
    grade_for,
    grade_info,
    grade_points,
    introduction_bonus,
    section_points,
    title_points,
)
from relaybot.core.ratings.jcca import (
    OFFICIAL_AFTER,
    PROVISIONAL_AFTER,
    QUICK_TABLE,
    START_RATING,
    QuickRow,
    RatingState,
    apply_result,
    display_rating,
    provisional_rating,
    quick_row,
    rating_change,
)

__all__ = [
    "CATEGORIES",
    "GRADES",
    "OFFICIAL_AFTER",
    "PROVISIONAL_AFTER",
    "QUICK_TABLE",
    "START_RATING",
    "Category",
    "GoPoints",
    "Grade",
    "Handicap",
    "QuickRow",
    "RatingState",
    "apply_result",
    "category_for",
    "display_rating",
    "game_points",
    "go_points",
    "go_rank",
    "grade_for",
    "grade_info",
    "grade_points",
    "handicap_between",
    "handicap_for",
    "introduction_bonus",
    "provisional_rating",
    "quick_row",
    "rank_points",
    "rating_change",
    "section_points",
    "title_points",
]
