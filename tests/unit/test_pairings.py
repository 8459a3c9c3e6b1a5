"""Pairings (T1, T2): JCCA groups, matches, ladder; ICCF sections on Berger tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from relaybot.core.events import berger_rounds, iccf_section, jcca_group, ladder, match

# FIDE Handbook C.05 Annex 1, Berger tables, as printed ("white-black", round by round).
FIDE_4 = """\
1-4, 2-3
4-3, 1-2
2-4, 3-1"""
FIDE_8 = """\
1-8, 2-7, 3-6, 4-5
8-5, 6-4, 7-3, 1-2
2-8, 3-1, 4-7, 5-6
8-6, 7-5, 1-4, 2-3
3-8, 4-2, 5-1, 6-7
8-7, 1-6, 2-5, 3-4
4-8, 5-3, 6-2, 7-1"""
FIDE_12 = """\
1-12, 2-11, 3-10, 4-9, 5-8, 6-7
12-7, 8-6, 9-5, 10-4, 11-3, 1-2
2-12, 3-1, 4-11, 5-10, 6-9, 7-8
12-8, 9-7, 10-6, 11-5, 1-4, 2-3
3-12, 4-2, 5-1, 6-11, 7-10, 8-9
12-9, 10-8, 11-7, 1-6, 2-5, 3-4
4-12, 5-3, 6-2, 7-1, 8-11, 9-10
12-10, 11-9, 1-8, 2-7, 3-6, 4-5
5-12, 6-4, 7-3, 8-2, 9-1, 10-11
12-11, 1-10, 2-9, 3-8, 4-7, 5-6
6-12, 7-5, 8-4, 9-3, 10-2, 11-1"""


def parse(table: str) -> list[list[tuple[int, int]]]:
    rounds = []
    for line in table.splitlines():
        games = []
        for game in line.split(", "):
            white, black = game.split("-")
            games.append((int(white), int(black)))
        rounds.append(games)
    return rounds


@pytest.mark.parametrize(("n", "table"), [(4, FIDE_4), (8, FIDE_8), (12, FIDE_12)])
def test_berger_tables_are_fide(n: int, table: str) -> None:
    assert berger_rounds(n) == parse(table)


@pytest.mark.parametrize(("n", "table"), [(3, FIDE_4), (7, FIDE_8), (11, FIDE_12)])
def test_odd_sizes_drop_the_byes(n: int, table: str) -> None:
    expected = [[g for g in games if n + 1 not in g] for games in parse(table)]
    assert berger_rounds(n) == expected


def check_round_robin(
    games: Sequence[tuple[str, str]], players: Sequence[str], times: int, whites: int
) -> None:
    """Every pair meets ``times`` times; every player has ``whites`` Whites and Blacks."""
    meetings = Counter(frozenset(g) for g in games)
    assert all(len(pair) == 2 for pair in meetings)
    assert set(meetings) == {
        frozenset((a, b)) for i, a in enumerate(players) for b in players[i + 1 :]
    }
    assert set(meetings.values()) == {times}
    white = Counter(w for w, _ in games)
    black = Counter(b for _, b in games)
    for p in players:
        assert (white[p], black[p]) == (whites, whites), p


def test_jcca_group() -> None:
    """T1: 4 players, each pair twice (once with each colour), 6 games each."""
    players = ["Sato", "Suzuki", "Takahashi", "Tanaka"]
    games = jcca_group(players)
    assert len(games) == 12
    check_round_robin(games, players, times=2, whites=3)
    assert Counter(games) == Counter({g: 1 for g in games})  # colours swapped, not repeated
    for w, b in games:
        assert (b, w) in games


@pytest.mark.parametrize(("size", "each"), [(7, 3), (11, 5)])
def test_iccf_sections(size: int, each: int) -> None:
    """T2: 7 players, 6 games, 3 White 3 Black; 11 players, 10 games, 5 and 5."""
    players = [f"P{i}" for i in range(1, size + 1)]
    games = iccf_section(players)
    assert len(games) == size * (size - 1) // 2
    check_round_robin(games, players, times=1, whites=each)
    # Berger colours: player 1 has White against 2 in round 2 (FIDE: 1-2)
    assert ("P1", "P2") in games


def test_match_and_ladder() -> None:
    assert match("Sato", "Suzuki") == [("Sato", "Suzuki"), ("Suzuki", "Sato")]
    assert ladder("Sato", "Suzuki") == [("Sato", "Suzuki")]
    assert ladder("Sato", "Suzuki", challenger_white=False) == [("Suzuki", "Sato")]


@pytest.mark.parametrize("size", [0, 3, 5, 8])
def test_wrong_group_size(size: int) -> None:
    with pytest.raises(ValueError, match="exactly 4 players, got"):
        jcca_group([f"P{i}" for i in range(size)])


@pytest.mark.parametrize("size", [0, 6, 8, 10, 12])
def test_wrong_section_size(size: int) -> None:
    with pytest.raises(ValueError, match="7 or 11 players"):
        iccf_section([f"P{i}" for i in range(size)])


def test_bad_names() -> None:
    with pytest.raises(ValueError, match="listed twice"):
        jcca_group(["A", "B", "C", "A"])
    with pytest.raises(ValueError, match="empty"):
        match("A", " ")
    with pytest.raises(ValueError, match="listed twice"):
        ladder("A", "A")
    with pytest.raises(ValueError):
        berger_rounds(1)
