"""T3 and T4: the shogi league's pairings (seed 002 rule 14) and the go salon league's
order (seed 004 section 5). Pure."""

from __future__ import annotations

from collections import Counter

import pytest

from relaybot.core.events import (
    SALON_TIEBREAKS,
    GameResult,
    crosstable_text,
    round_robin,
    shogi_league,
    standings,
)

NAMES = [f"P{i}" for i in range(1, 13)]


@pytest.mark.parametrize("n", [2, 5, 8])
def test_t3_eight_or_fewer_play_all_once(n: int) -> None:
    games = shogi_league(NAMES[:n], "第1期C級")
    pairs = {frozenset(g) for g in games}
    assert len(games) == len(pairs) == n * (n - 1) // 2
    sente = Counter(s for s, _ in games)
    assert max(sente.values()) - min(sente.get(p, 0) for p in NAMES[:n]) <= 1


@pytest.mark.parametrize("n", [9, 10, 12])
def test_t3_nine_or_more_play_eight_games_each_four_as_sente(n: int) -> None:
    players = NAMES[:n]
    games = shogi_league(players, "第1期B級")
    assert len({frozenset(g) for g in games}) == len(games) == n * 4  # no pair twice
    assert Counter(s for s, _ in games) == Counter({p: 4 for p in players})
    assert Counter(g for _, g in games) == Counter({p: 4 for p in players})


def test_t3_the_draw_is_repeatable_and_depends_on_its_seed() -> None:
    assert shogi_league(NAMES, "第1期B級") == shogi_league(NAMES, "第1期B級")
    assert shogi_league(NAMES, "第1期B級") != shogi_league(NAMES, "第2期B級")


def test_t4_the_salon_league_is_a_round_robin() -> None:
    assert len(round_robin(NAMES[:6])) == 15


def _salon(results: list[GameResult], ratings: dict[str, int]) -> list[tuple[str, int]]:
    rows = standings(sorted(ratings), results, SALON_TIEBREAKS, ratings=ratings,
                     primary="rate")
    return [(r.player, r.rank) for r in rows]


def test_t4_win_rate_ranks_first_not_the_score() -> None:
    """A: 2 wins of 2 and E: 1 of 1 (100%) rank above B: 2 of 3 (67%), though E has
    the lower score."""
    results = [GameResult("A", "C", "1-0", 2.5), GameResult("A", "D", "1-0", 0.5),
               GameResult("B", "C", "1-0", 1.5), GameResult("B", "D", "1-0", 1.5),
               GameResult("B", "E", "0-1", 0.5)]
    order = _salon(results, {"A": 100, "B": 100, "C": 100, "D": 100, "E": 100})
    assert order[:3] == [("A", 1), ("E", 2), ("B", 3)]  # A and E: A's larger margins


def test_t4_margins_decide_next_resignation_and_big_wins_count_20() -> None:
    """Equal win rates: the margins won minus lost decide; a win by resignation counts
    20, and so does a 35.5-point win (seed 004: 中押し勝ちおよび20目以上の差は20目)."""
    results = [GameResult("A", "X", "1-0", None),  # resignation: +20
               GameResult("A", "Y", "0-1", 5.5),  # -5.5 -> 14.5
               GameResult("B", "X", "1-0", 35.5),  # capped: +20
               GameResult("B", "Y", "0-1", 0.5)]  # -0.5 -> 19.5
    rows = standings(["A", "B", "X", "Y"], results, SALON_TIEBREAKS,
                     ratings={"A": 90, "B": 90, "X": 90, "Y": 90}, primary="rate",
                     rating_game="go")  # the go salon's points (持点)
    by = {r.player: r for r in rows}
    assert by["A"].margin == 14.5 and by["B"].margin == 19.5
    assert by["B"].rank < by["A"].rank
    text = crosstable_text(rows, "ja")
    assert "勝率" in text and "目数差" in text and "持点" in text


def test_t4_two_tied_go_by_their_game_three_by_points() -> None:
    """(3) two players tied on rate and margin: the one who won their game; (4) three or
    more tied: the higher points (持ち点)."""
    pair = [GameResult("A", "B", "0-1", 1.5), GameResult("A", "C", "1-0", 1.5),
            GameResult("B", "C", "0-1", 1.5)]  # A 1/2, B 1/2, C 1/2, margins 0 each
    rows = standings(["A", "B", "C"], pair, SALON_TIEBREAKS,
                     ratings={"A": 150, "B": 120, "C": 130}, primary="rate")
    assert [r.player for r in rows] == ["A", "C", "B"]  # three tied: by points
    two = [GameResult("A", "B", "0-1", 1.5), GameResult("A", "C", "1-0", 1.5),
           GameResult("B", "C", "1-0", 1.5)]  # B 2/2; A 1/2 and C 0/2
    rows = standings(["A", "B", "C"], two, SALON_TIEBREAKS,
                     ratings={"A": 150, "B": 120, "C": 130}, primary="rate")
    assert [r.player for r in rows] == ["B", "A", "C"]
    duo = [GameResult("A", "B", "0-1", 1.5), GameResult("A", "C", "1-0", 1.5),
           GameResult("B", "D", "0-1", 1.5)]  # D 1/1; A and B 1/2, margins 0; C 0/1
    rows = standings(["A", "B", "C", "D"], duo, SALON_TIEBREAKS,
                     ratings={"A": 150, "B": 120, "C": 130, "D": 100}, primary="rate")
    assert [r.player for r in rows] == ["D", "B", "A", "C"]  # B beat A, whatever points
