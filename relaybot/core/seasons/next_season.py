"""The classes of the next season and each one's starting order (T3; seed 002 rules 2,
6-8). Pure.

Rule 8 「各クラスの順位」: in each class, in this order: those relegated from above (降級),
those staying (残留), those promoted from below (昇級), those back after one season's rest
(1期休場の復帰), first-timers (初参加), those back after two or more (2期以上休場の復帰).
Within each band the order of the season before; one-season returners by their order
before the rest (「休場前の順位によって」), the longer ones the most recent first (「前回参加
が新しい順、同期の場合はその順位によって」). First-timers share one starting place: rule 18
separates them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from relaybot.core.seasons.classes import TOP, letters, merge_small
from relaybot.core.seasons.promotion import (
    PROMOTED,
    RELEGATED,
    REST,
    STAYS,
    WITHDRAWN,
    ClassResult,
)

BANDS = ("relegated", "stays", "promoted", "returning", "new", "returning_long")
"""Rule 8's order of the bands within a class."""


@dataclass(frozen=True)
class Returner:
    """A player back from a rest: ``letter`` the class kept (S's rests keep A, rule 6),
    ``seasons`` rested in a row, ``last_played`` the number of the season last played
    (higher is more recent), ``order`` the starting order there."""

    player: str
    letter: str
    seasons: int
    last_played: int
    order: int


@dataclass(frozen=True)
class Newcomer:
    """A first-timer and the class found for them (rule 7)."""

    player: str
    letter: str


@dataclass(frozen=True)
class Placed:
    """A player's place in a class of the next season: the band (:data:`BANDS`) and the
    starting order (順位; first-timers share theirs)."""

    player: str
    band: str
    start_order: int


@dataclass(frozen=True)
class NextSeason:
    """The next season's classes (letter, players in starting order), best first, and
    the players sitting it out with the class they keep."""

    classes: tuple[tuple[str, tuple[Placed, ...]], ...]
    resting: tuple[tuple[str, str], ...]


def kept_class(letter: str, present: Sequence[str]) -> str:
    """Rule 6: a rest from S keeps A; rule 8: otherwise the class is kept (the lowest
    there is when that class is gone)."""
    if letter == TOP and len(present) > 1:
        return present[1]
    return letter if letter in present else present[-1]


def next_classes(
    classes: Sequence[ClassResult],
    outcome: Mapping[str, str],
    *,
    resting: Collection[str] = (),
    returners: Sequence[Returner] = (),
    newcomers: Sequence[Newcomer] = (),
) -> NextSeason:
    """Build the next season from the final standings (``classes``, best first), each
    player's ``outcome`` (:func:`relaybot.core.seasons.promotion.outcomes`), the players
    sitting it out (``resting``), those back from a rest and the first-timers
    (rules 2, 6-8)."""
    present = [c.letter for c in classes]
    if not present:
        raise ValueError("no classes to go on from")
    bands: list[dict[str, list[str]]] = [{b: [] for b in BANDS} for _ in present]
    kept: list[tuple[str, str]] = []
    for i, cls in enumerate(classes):
        for row in cls.rows:
            what = outcome.get(row.player, STAYS)
            if what == WITHDRAWN:
                continue
            if what == PROMOTED:
                to, band = max(0, i - 1), "promoted"
            elif what == RELEGATED:
                to, band = min(len(present) - 1, i + 1), "relegated"
            elif what == REST and cls.letter == TOP and len(present) > 1:
                to, band = 1, "relegated"  # rule 6: S級での休場は、Aへ降級
            else:
                to, band = i, "stays"
            if row.player in resting:
                kept.append((row.player, kept_class(present[to], present)))
                continue
            bands[to][band].append(row.player)
    once = sorted((r for r in returners if r.seasons <= 1 and r.player not in resting),
                  key=lambda r: r.order)
    longer = sorted((r for r in returners if r.seasons > 1 and r.player not in resting),
                    key=lambda r: (-r.last_played, r.order))
    for r in once:
        bands[present.index(kept_class(r.letter, present))]["returning"].append(r.player)
    for r in longer:
        bands[present.index(kept_class(r.letter, present))]["returning_long"].append(r.player)
    for n in newcomers:
        if n.letter == TOP:
            raise ValueError(f"{n.player}: class S takes no first-timer")
        where = n.letter if n.letter in present else present[-1]
        bands[present.index(where)]["new"].append(n.player)
    for r in returners:
        if r.player in resting:
            kept.append((r.player, kept_class(r.letter, present)))
    lists = [[(p, b) for b in BANDS for p in band[b]] for band in bands]
    merged = merge_small(lists, fixed_top=present[0] == TOP)
    names = letters(len(merged)) if present[0] == TOP else present[: len(merged)]
    built = []
    for letter, entries in zip(names, merged, strict=True):
        built.append((letter, tuple(_numbered(entries))))
    return NextSeason(classes=tuple(built), resting=tuple(kept))


def _numbered(entries: Sequence[tuple[str, str]]) -> list[Placed]:
    """Starting orders 1, 2, ...; consecutive first-timers share one (rule 18's
    同順位(初参加者等))."""
    out: list[Placed] = []
    for position, (player, band) in enumerate(entries, start=1):
        shared = out and band == "new" and out[-1].band == "new"
        order = out[-1].start_order if shared else position
        out.append(Placed(player, band, order))
    return out
