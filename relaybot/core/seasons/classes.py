"""A season's classes (T3; seed 002 rules 1-3, 7, 14). Pure.

Rule 1: 「最上位のクラスをS級とし、以下、A級・B級・C級・・・とする」; classes are named
``第N期S級`` and so on. Rule 2: 「1クラスの人数は8人以上とする。7名以下になった場合、上または
下のクラスの人数が少ないほうと合併する。上と下のクラスの人数が同数の場合は、上のクラスと合併
する」. Rule 7: first-timers place themselves by declared strength.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

TOP = "S"
MIN_CLASS = 8  # rule 2: 8人以上
S_SIZE = 8  # rule 6: 定員は、8名の固定

# Rule 7 (seasons 30-33): the class a first-timer joins by declared points; S takes none.
FIRST_TIMER_TABLE: tuple[tuple[str, int], ...] = (
    ("A", 2000), ("B", 1750), ("C", 1500), ("D", 0))


def letters(count: int) -> list[str]:
    """The names of ``count`` classes, best first: S, A, B, C, ... (rule 1)."""
    below = [c for c in string.ascii_uppercase if c != TOP]
    if count > len(below) + 1:
        raise ValueError(f"at most {len(below) + 1} classes")
    return [TOP, *below[: max(0, count - 1)]]


def class_event_name(season: str, letter: str) -> str:
    """The event of one class: ``第2期`` and ``S`` give ``第2期S級``; a season named in
    another way gets `` S`` after its name."""
    if re.search(r"期$", season):
        return f"{season}{letter}級"
    return f"{season} {letter}"


def check_sizes(sizes: Sequence[tuple[str, int]]) -> list[str]:
    """What is wrong with classes of these sizes (best first), as sentences: rule 2 wants 8
    or more in each, rule 6 exactly 8 in S. Empty when all is well."""
    wrong = []
    for letter, size in sizes:
        if letter == TOP and size != S_SIZE:
            wrong.append(f"class {letter} has {size} players; it has exactly {S_SIZE}")
        elif size < MIN_CLASS:
            wrong.append(f"class {letter} has {size} players; a class has {MIN_CLASS} or more")
    return wrong


def merge_small(classes: Sequence[list[T]], fixed_top: bool = True) -> list[list[T]]:
    """Rule 2: a class of 7 or fewer joins the smaller of its neighbours (the upper one on
    equal sizes); the merged class keeps the upper class's players first. The top class
    (S, fixed at 8 by rule 6) takes part in no merge when ``fixed_top``. Repeated from the
    top until no class below S is small, or one class is left below S."""
    out = [list(c) for c in classes if c]
    first = 1 if fixed_top else 0
    while True:
        small = next((i for i in range(first, len(out)) if len(out[i]) < MIN_CLASS), None)
        if small is None or len(out) - first <= 1:
            return out
        upper = len(out[small - 1]) if small - 1 >= first else None
        lower = len(out[small + 1]) if small + 1 < len(out) else None
        if lower is None or (upper is not None and upper <= lower):
            out[small - 1:small + 1] = [out[small - 1] + out[small]]
        else:
            out[small:small + 2] = [out[small] + out[small + 1]]


def first_timer_class(points: int, present: Sequence[str],
                      table: Sequence[tuple[str, int]] = FIRST_TIMER_TABLE) -> str:
    """Rule 7: the class of a first-timer who declares ``points`` (「初参加者は、棋力を自己申告
    し…棋力にふさわしいリーグの下位に追加する」; S takes no first-timer). ``present``: the
    classes of the season, best first; a class the table names but the season lacks gives
    the lowest class there is."""
    below = [c for c in present if c != TOP]
    if not below:
        raise ValueError("the season has no class below S for a first-timer")
    for letter, least in table:
        if points >= least:
            return letter if letter in below else below[-1]
    return below[-1]
