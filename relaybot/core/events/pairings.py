"""Pairings for JCCA and ICCF events, the shogi league and the go salon (T1-T4). Pure:
stdlib only, no I/O.

Every function returns games as ``(white, black)`` tuples. Correspondence events
start all games at once, so the order only groups games by Berger round.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = [
    "ICCF_SECTION_SIZES",
    "JCCA_GROUP_SIZE",
    "berger_rounds",
    "iccf_section",
    "jcca_group",
    "ladder",
    "match",
    "round_robin",
    "shogi_league",
]

SHOGI_LEAGUE_GAMES = 8
"""T3 (seed 002 rule 14): 8 players or fewer play all; 9 or more play 8 games each."""

JCCA_GROUP_SIZE = 4
"""T1: JCCA preliminary groups are of 4 players (予選Tは4人1組)."""

ICCF_SECTION_SIZES = (7, 11)
"""T2: ICCF open/H classes have 7 players, M class 11 (single round robin)."""


def _check_names(players: Sequence[str], what: str) -> None:
    for name in players:
        if not name or not name.strip():
            raise ValueError(f"{what}: empty player name")
    seen: set[str] = set()
    for name in players:
        if name in seen:
            raise ValueError(f"{what}: player {name!r} is listed twice")
        seen.add(name)


def _mod(value: int, m: int) -> int:
    """``value`` reduced into 1..m (Berger numbering of the rotating players)."""
    return (value - 1) % m + 1


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """Berger tables (FIDE) for ``n`` players numbered 1..n, as (white, black) pairs.

    For even ``n``: n-1 rounds. In round r two players i, j < n meet when
    ``i + j = r + 1 (mod n-1)``; the player i with ``2i = r + 1 (mod n-1)`` meets n.
    Colours: against n, players 1..n/2 have White; otherwise, with ``i + j`` odd the
    lower number has White, with ``i + j`` even the higher one. For odd ``n`` the table
    of n+1 is used and the games against the phantom player n+1 (the byes) dropped,
    which leaves every player (n-1)/2 Whites and (n-1)/2 Blacks.
    """
    if n < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {n}")
    size = n if n % 2 == 0 else n + 1
    m = size - 1
    rounds: list[list[tuple[int, int]]] = []
    for r in range(1, size):
        target = _mod(r + 1, m)
        games: list[tuple[int, int]] = []
        top = next(i for i in range(1, size) if _mod(2 * i, m) == target)
        if size <= n:  # the last player is real (even n)
            games.append((top, size) if top <= size // 2 else (size, top))
        for k in range(1, size // 2):  # boards 2.. in the order the FIDE tables print
            i = _mod(top + k, m)
            j = _mod(target - i, m)
            low, high = min(i, j), max(i, j)
            games.append((low, high) if (i + j) % 2 else (high, low))
        rounds.append(games)
    return rounds


def _named(players: Sequence[str], rounds: list[list[tuple[int, int]]]) -> list[tuple[str, str]]:
    return [(players[w - 1], players[b - 1]) for games in rounds for w, b in games]


def jcca_group(players: Sequence[str]) -> list[tuple[str, str]]:
    """A JCCA preliminary group (T1): 4 players, each pair twice with colours swapped.

    12 games in all, 6 per player (3 White, 3 Black), all started at once: the
    Berger rounds of 4, then the same rounds with colours reversed.
    """
    if len(players) != JCCA_GROUP_SIZE:
        raise ValueError(
            f"a JCCA preliminary group needs exactly {JCCA_GROUP_SIZE} players, got {len(players)}"
        )
    _check_names(players, "JCCA group")
    first = _named(players, berger_rounds(JCCA_GROUP_SIZE))
    return first + [(b, w) for w, b in first]


def match(a: str, b: str) -> list[tuple[str, str]]:
    """A JCCA 2-game match (T1): one game with each colour, ``a`` White first."""
    _check_names((a, b), "2-game match")
    return [(a, b), (b, a)]


def ladder(challenger: str, higher: str, *, challenger_white: bool = True) -> list[tuple[str, str]]:
    """A JCCA ladder challenge (T1): one game against a named higher player.

    The seed does not say who has White; by default the challenger does.
    """
    _check_names((challenger, higher), "ladder challenge")
    return [(challenger, higher) if challenger_white else (higher, challenger)]


def iccf_section(players: Sequence[str]) -> list[tuple[str, str]]:
    """An ICCF section (T2): single round robin of 7 or 11 with Berger-table colours.

    7 players: 6 games each, 3 White and 3 Black; 11 players: 10 games, 5 and 5.
    Players are numbered by their order in ``players`` (the start list).
    """
    if len(players) not in ICCF_SECTION_SIZES:
        raise ValueError(
            f"an ICCF section needs 7 or 11 players (7: open/H class, 11: M class), "
            f"got {len(players)}"
        )
    _check_names(players, "ICCF section")
    return _named(players, berger_rounds(len(players)))


def round_robin(players: Sequence[str]) -> list[tuple[str, str]]:
    """Everyone plays everyone once, Berger-table colours (the go salon's league, T4:
    who takes Black is then set by the players' points, R4)."""
    _check_names(players, "round robin")
    return _named(players, berger_rounds(len(players)))


def shogi_league(players: Sequence[str], draw: str) -> list[tuple[str, str]]:
    """A shogi league class (T3, seed 002 rule 14) as (先手, 後手) pairs.

    Up to 8 players: all play all once, 先手 shared as evenly as the Berger table
    shares White. 9 or more: 8 games each against opponents drawn at random
    (乱数によって対局相手を決め、8局): the players in an order shuffled by ``draw``
    (a seed, such as the event's name, so the draw can be checked and repeated), each
    meeting the four after it as 先手 and the four before it as 後手, so everyone has
    4 先手 and 4 後手 and no pair meets twice.
    """
    _check_names(players, "shogi league")
    if len(players) <= SHOGI_LEAGUE_GAMES:
        return round_robin(players)
    order = list(players)
    random.Random(draw).shuffle(order)
    n, half = len(order), SHOGI_LEAGUE_GAMES // 2
    return [(order[i], order[(i + k) % n]) for k in range(1, half + 1) for i in range(n)]
