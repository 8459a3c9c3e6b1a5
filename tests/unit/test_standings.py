"""Standings, tie-breaks and crosstables (T5, T3) and the JCCA final entry (T1)."""

from __future__ import annotations

import unicodedata

import pytest

from relaybot.core.events import (
    LAST_FINAL_50,
    SOLE_FIRST,
    TIED_FIRST_70,
    GameResult,
    StandingRow,
    crosstable_data,
    crosstable_text,
    final_entries,
    final_entry,
    jcca_group,
    standings,
)

# A five-player round robin, worked by hand.
#
#        A  B  C  D  E   pts
#   A    x  1  ½  1  0   2.5
#   B    0  x  1  ½  1   2.5
#   C    ½  0  x  1  ½   2
#   D    0  ½  0  x  1   1.5
#   E    1  0  ½  0  x   1.5
#
# Sonneborn-Berger (beaten opponents' points in full, drawn ones by half):
#   A: B 2.5 + D 1.5 + ½·C 2 = 5        B: C 2 + E 1.5 + ½·D 1.5 = 4.25
#   C: D 1.5 + ½·A 2.5 + ½·E 1.5 = 3.5  D: E 1.5 + ½·B 2.5 = 2.75
#   E: A 2.5 + ½·C 2 = 3.5
# Solkoff (all opponents' points):
#   A: 2.5+2+1.5+1.5 = 7.5   B: 2.5+2+1.5+1.5 = 7.5   C: 2.5+2.5+1.5+1.5 = 8
#   D: 2.5+2.5+2+1.5 = 8.5   E: 2.5+2.5+2+1.5 = 8.5
# Median, seed 002 (the SB terms without the highest and lowest):
#   A: {2.5, 1, 1.5} -> 1.5   B: {2, 0.75, 1.5} -> 1.5   C: {1.25, 1.5, 0.75} -> 1.25
#   D: {1.25, 1.5} -> 0 (two terms)   E: {2.5, 1} -> 0
# Median Buchholz (Solkoff without the highest and lowest opponent):
#   A: 7.5-2.5-1.5 = 3.5   B: 3.5   C: 8-2.5-1.5 = 4   D: 8.5-2.5-1.5 = 4.5   E: 4.5
# Ranking with ("sb", "solkoff", "median", "direct"): A (SB 5) before B (4.25); C;
# E (SB 3.5) before D (2.75).
PLAYERS = ["A", "B", "C", "D", "E"]
GAMES = [
    GameResult("A", "B", "1-0"),
    GameResult("A", "C", "1/2-1/2"),
    GameResult("D", "A", "0-1"),
    GameResult("A", "E", "0-1"),
    GameResult("B", "C", "1-0"),
    GameResult("B", "D", "1/2-1/2"),
    GameResult("E", "B", "0-1"),
    GameResult("C", "D", "1-0"),
    GameResult("C", "E", "1/2-1/2"),
    GameResult("D", "E", "1-0"),
]


def summary(rows: list[StandingRow]) -> list[tuple[object, ...]]:
    return [
        (r.rank, r.player, r.points, r.sb, r.solkoff, r.median, r.median_buchholz) for r in rows
    ]


def test_hand_computed_crosstable() -> None:
    rows = standings(PLAYERS, GAMES)
    assert summary(rows) == [
        (1, "A", 2.5, 5.0, 7.5, 1.5, 3.5),
        (2, "B", 2.5, 4.25, 7.5, 1.5, 3.5),
        (3, "C", 2.0, 3.5, 8.0, 1.25, 4.0),
        (4, "E", 1.5, 3.5, 8.5, 0.0, 4.5),
        (5, "D", 1.5, 2.75, 8.5, 0.0, 4.5),
    ]
    a = rows[0]
    assert (a.games, a.wins, a.draws, a.losses) == (4, 2, 1, 1)
    assert a.results == {"B": (1.0,), "C": (0.5,), "D": (1.0,), "E": (0.0,)}
    assert not any(r.shared for r in rows)


def test_tiebreak_order_matters() -> None:
    # Direct encounter alone: A beat B, D beat E.
    rows = standings(PLAYERS, GAMES, ("direct",))
    assert [(r.rank, r.player, r.direct) for r in rows] == [
        (1, "A", 1.0),
        (2, "B", 0.0),
        (3, "C", None),
        (4, "D", 1.0),
        (5, "E", 0.0),
    ]
    # Solkoff first ties A/B and D/E again; SB then separates them.
    rows = standings(PLAYERS, GAMES, ("solkoff", "sb"))
    assert [r.player for r in rows] == ["A", "B", "C", "E", "D"]


def test_shared_ranks_when_everything_ties() -> None:
    rows = standings(PLAYERS, GAMES, ("median_buchholz",))
    assert [(r.rank, r.player, r.shared) for r in rows] == [
        (1, "A", True),
        (1, "B", True),
        (3, "C", False),
        (4, "D", True),
        (4, "E", True),
    ]
    rows = standings(PLAYERS, GAMES, ())
    assert [r.rank for r in rows] == [1, 1, 3, 4, 4]


def test_crosstable_text_en() -> None:
    text = crosstable_text(standings(PLAYERS, GAMES), "en")
    assert text == (
        "No Player 1 2 3 4 5 Pts   SB Solkoff Median Rank\n"
        "-- ------ - - - - - --- ---- ------- ------ ----\n"
        " 1 A      x 1 ½ 0 1 2.5    5     7.5    1.5    1\n"
        " 2 B      0 x 1 1 ½ 2.5 4.25     7.5    1.5    2\n"
        " 3 C      ½ 0 x ½ 1   2  3.5       8   1.25    3\n"
        " 4 E      1 0 ½ x 0 1.5  3.5     8.5      0    4\n"
        " 5 D      0 ½ 0 1 x 1.5 2.75     8.5      0    5\n"
    )
    shared = crosstable_text(standings(PLAYERS, GAMES, ("median_buchholz",)), "en")
    assert " 1 A      x 1 ½ 1 0 2.5   3.5   1=\n" in shared
    assert "MedBH" in shared


def display_width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WFA" else 1 for c in line)


def test_crosstable_text_ja_aligned() -> None:
    players = ["佐藤", "鈴木", "Takahashi", "田中"]
    games = [GameResult(w, b, "1-0") for w, b in jcca_group(players)[:11]]
    games.append(GameResult(*jcca_group(players)[11], "*"))
    text = crosstable_text(standings(players, games), "ja")
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["番号", "氏名"]
    assert "得点" in lines[0] and "順位" in lines[0] and "ソルコフ" in lines[0]
    assert "○" in text and "●" in text and "・" in text  # win, loss, not finished
    widths = {display_width(line) for line in lines if not line.endswith(" ")}
    # every line ends with the right-aligned rank column: same display width
    assert len(widths) == 1, text
    with pytest.raises(ValueError):
        crosstable_text([], "fr")


def test_crosstable_data() -> None:
    data = crosstable_data(standings(PLAYERS, GAMES))
    assert [d["player"] for d in data] == ["A", "B", "C", "E", "D"]
    first = data[0]
    assert first["points"] == 2.5 and first["sb"] == 5.0 and first["percent"] == 62.5
    assert first["results"] == [
        {"opponent": "B", "no": 2, "scores": [1.0]},
        {"opponent": "C", "no": 3, "scores": [0.5]},
        {"opponent": "D", "no": 5, "scores": [1.0]},
        {"opponent": "E", "no": 4, "scores": [0.0]},
    ]


def test_t3_rows_carry_the_leagues_sb_and_median_over_opponents_beaten() -> None:
    """Seed 002 rule 18 SB方式 and ミディアム方式 as the league words them: the points of
    the opponents beaten (a drawn one counts nothing), and that without the highest and
    the lowest; every row carries them for the tables that show the tie-breaks."""
    rows = {r.player: r for r in standings(PLAYERS, GAMES)}
    # A beat B (2.5) and D (1.5); B beat C (2) and E (1.5); C beat D; D beat E; E beat A
    assert {p: r.sb_beaten for p, r in rows.items()} == {
        "A": 4.0, "B": 3.5, "C": 1.5, "D": 1.5, "E": 2.5}
    assert {r.median_beaten for r in rows.values()} == {0.0}  # two beaten or fewer
    # Q beats R (3 points), S (2) and T (1), loses to U: without the highest and lowest, 2
    five = ["Q", "R", "S", "T", "U"]
    games = [GameResult("Q", o, "1-0") for o in five[1:4]] + [
        GameResult("U", "Q", "1-0"), GameResult("R", "S", "1-0"), GameResult("R", "T", "1-0"),
        GameResult("R", "U", "1-0"), GameResult("S", "T", "1-0"), GameResult("S", "U", "1-0"),
        GameResult("T", "U", "1-0")]
    q = next(r for r in standings(five, games) if r.player == "Q")
    assert q.sb_beaten == 3 + 2 + 1 and q.median_beaten == 2
    first = crosstable_data(standings(PLAYERS, GAMES))[0]
    assert first["sb_beaten"] == 4.0 and first["median_beaten"] == 0.0


def test_double_round_robin_counts_every_game() -> None:
    """A JCCA group: Solkoff and SB take one term per game (each opponent twice)."""
    players = ["P", "Q", "R", "S"]
    outcome = {  # (white, black) -> result
        ("P", "S"): "1-0",
        ("Q", "R"): "1/2-1/2",
        ("S", "R"): "0-1",
        ("P", "Q"): "1-0",
        ("Q", "S"): "1-0",
        ("R", "P"): "1/2-1/2",
    }
    results = []
    for w, b in jcca_group(players):
        if (w, b) in outcome:
            results.append(GameResult(w, b, outcome[(w, b)]))
        else:  # the return game: the same result from the other side
            flipped = {"1-0": "0-1", "0-1": "1-0"}.get(outcome[(b, w)], "1/2-1/2")
            results.append(GameResult(w, b, flipped))
    rows = {r.player: r for r in standings(players, results)}
    # P: 1+1+½ twice = 5; Q: 0+½+1 twice = 3; R: ½+1+½ twice = 4; S: 0 -> 0
    assert {p: r.points for p, r in rows.items()} == {"P": 5, "Q": 3, "R": 4, "S": 0}
    # P's Solkoff: (Q 3 + R 4 + S 0) * 2 = 14; SB: (Q 3 + S 0 + ½·R 4) * 2 = 10
    assert (rows["P"].solkoff, rows["P"].sb) == (14, 10)
    assert rows["P"].results["Q"] == (1.0, 1.0)
    assert [r.player for r in standings(players, results)] == ["P", "R", "Q", "S"]


def test_shogi_league_order() -> None:
    """T3: wins, then the starting order; new players (no start order) by tie-breaks."""
    players = ["old1", "old2", "new1", "new2"]
    games = [
        GameResult("old1", "old2", "0-1"),
        GameResult("old1", "new1", "1-0"),
        GameResult("old1", "new2", "0-1"),
        GameResult("old2", "new1", "0-1"),
        GameResult("old2", "new2", "1-0"),
        GameResult("new1", "new2", "1-0"),
    ]
    # points: old1 1, old2 2, new1 2, new2 1
    tiebreaks = ("start", "solkoff", "sb", "median", "direct", "entry")
    rows = standings(players, games, tiebreaks, start_order={"old1": 1, "old2": 2})
    assert [(r.rank, r.player) for r in rows] == [
        (1, "old2"),  # 2 wins, start order 2
        (2, "new1"),  # 2 wins, no start order
        (3, "old1"),  # 1 win, start order 1
        (4, "new2"),
    ]
    with pytest.raises(ValueError, match="start_order"):
        standings(players, games, ("start",))
    # entry order breaks every remaining tie
    rows = standings(players, [], ("entry",))
    assert [(r.rank, r.player) for r in rows] == [
        (1, "old1"),
        (2, "old2"),
        (3, "new1"),
        (4, "new2"),
    ]


def test_unfinished_games_and_double_losses() -> None:
    rows = standings(["A", "B"], [GameResult("A", "B", "*"), GameResult("B", "A", "0-0")])
    assert [(r.points, r.games, r.losses) for r in rows] == [(0, 1, 1), (0, 1, 1)]
    assert rows[0].results == {"B": (None, 0.0)}


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="not a player"):
        standings(["A"], [GameResult("A", "Z", "1-0")])
    with pytest.raises(ValueError, match="unknown result"):
        standings(["A", "B"], [GameResult("A", "B", "2-0")])
    with pytest.raises(ValueError, match="themself"):
        standings(["A", "B"], [GameResult("A", "A", "1-0")])
    with pytest.raises(ValueError, match="twice"):
        standings(["A", "A"], [])
    with pytest.raises(ValueError, match="unknown tie-break"):
        standings(["A"], [], ("elo",))


def group_rows(points: dict[str, float]) -> list[StandingRow]:
    """Rows of a finished 6-game group with the given points (only points matter)."""
    order = sorted(points, key=lambda p: -points[p])
    return [
        StandingRow(
            rank=i + 1,
            player=p,
            points=points[p],
            games=6,
            wins=0,
            draws=0,
            losses=0,
            sb=0,
            solkoff=0,
            median=0,
            median_buchholz=0,
        )
        for i, p in enumerate(order)
    ]


def test_final_entry() -> None:
    """T1: sole first; tied first with >= 70%; >= 50% in the last final."""
    # sole first, even below 70%
    assert final_entry(group_rows({"A": 4, "B": 3.5, "C": 3.5, "D": 1})) == ["A"]
    # tied first at 4.5/6 = 75%: both
    assert final_entry(group_rows({"A": 4.5, "B": 4.5, "C": 2, "D": 1})) == ["A", "B"]
    # tied first at 4/6 = 66.7%: neither
    assert final_entry(group_rows({"A": 4, "B": 4, "C": 3, "D": 1})) == []
    # ... unless one scored >= 50% in the last final; so can anyone else
    rows = group_rows({"A": 4, "B": 4, "C": 3, "D": 1})
    assert final_entry(rows, {"B": 50.0, "D": 62.5, "C": 49.9}) == ["B", "D"]


def test_final_entry_70_percent_boundary() -> None:
    ten = [StandingRow(1, p, 7.0, 10, 7, 0, 3, 0, 0, 0, 0, shared=True) for p in ("A", "B")] + [
        StandingRow(3, "C", 6.5, 10, 6, 1, 3, 0, 0, 0, 0)
    ]
    assert final_entry(ten) == ["A", "B"]  # exactly 70%
    assert final_entry([]) == []


def test_t1_final_entries_give_the_reason_and_a_spent_first_place_does_not_count() -> None:
    """T1, seed 000: 「1位権利者は1度決勝トーナメントに参加すると、複数回1位となっても権利消滅」:
    a first place whose right was used by entering a final since does not count; the
    same player may still enter with 50% in the last final."""
    rows = group_rows({"A": 5, "B": 3, "C": 2.5, "D": 1.5})
    assert final_entries(rows, {"C": 50.0}) == [("A", SOLE_FIRST), ("C", LAST_FINAL_50)]
    assert final_entries(rows, {"C": 50.0}, frozenset({"A"})) == [("C", LAST_FINAL_50)]
    assert final_entries(rows, {"A": 60.0}, frozenset({"A"})) == [("A", LAST_FINAL_50)]
    tied = group_rows({"A": 4.5, "B": 4.5, "C": 2, "D": 1})
    assert final_entries(tied) == [("A", TIED_FIRST_70), ("B", TIED_FIRST_70)]


def test_standings_lines_read_in_any_font() -> None:
    """Issue 26 item 7: the digest's standings as lines, not columns a proportional font
    breaks: rank, points, each game by the opponent's name, the tie-breaks."""
    from relaybot.core.events import GameResult, standings, standings_lines

    rows = standings(["A", "B", "C"], [GameResult("A", "B", "1-0"),
                                       GameResult("C", "A", "1/2-1/2"),
                                       GameResult("B", "C", "1-0")])
    ja = standings_lines(rows, "ja").splitlines()
    assert ja[0].startswith("1位 A 1.5点: ○B △C")
    en = standings_lines(rows, "en").splitlines()
    assert en[0].startswith("1. A, 1.5 points: beat B, drew with C")
    assert en[1].startswith("2. B, 1 point: lost to A, beat C")
    assert all("  " not in line for line in ja + en)


def test_go_standings_call_the_rating_the_salon_points() -> None:
    """Seed 004: in go the ``rating`` tie-break reads the salon's points (持点): the
    standings call the number so in both languages, in lines and in the table; in
    another game it is a rating."""
    from relaybot.core.events import GameResult, standings, standings_lines

    results = [GameResult("A", "B", "1-0"), GameResult("B", "C", "1/2-1/2")]
    ratings = {"A": 108, "B": 116, "C": 100}
    go = standings(["A", "B", "C"], results, ("margin", "rating"), ratings=ratings,
                   primary="rate", rating_game="go")
    assert "Salon points 108" in standings_lines(go, "en")
    assert "持点 108" in standings_lines(go, "ja")
    assert "Salon points" in crosstable_text(go, "en").splitlines()[0]
    assert "持点" in crosstable_text(go, "ja").splitlines()[0]
    chess = standings(["A", "B", "C"], results, ("rating",), ratings=ratings,
                      rating_game="chess")
    assert "Rating 108" in standings_lines(chess, "en")
    assert "レーティング 108" in standings_lines(chess, "ja")


def test_a_go_salon_line_says_wins_and_losses_not_points_beside_the_salon_points() -> None:
    """T4 ranks a salon league by win rate: each line says the player's wins, losses and
    jigo (持碁) before the games, never "2 points" beside the salon points; a jigo is
    "jigo with", not a chess draw. A league ranked by score keeps its points."""
    from relaybot.core.events import GameResult, standings, standings_lines

    results = [GameResult("A", "B", "1-0"), GameResult("A", "C", "1-0"),
               GameResult("B", "C", "1/2-1/2")]
    ratings = {"A": 108, "B": 116, "C": 100}
    go = standings(["A", "B", "C"], results, ("margin", "rating"), ratings=ratings,
                   primary="rate", rating_game="go")
    en, ja = standings_lines(go, "en").splitlines(), standings_lines(go, "ja").splitlines()
    assert en[0].startswith("1. A, 2 wins, 0 losses: beat B, beat C (win rate 100%")
    assert en[1].startswith("2. B, 0 wins, 1 loss, 1 jigo: lost to A, jigo with C")
    assert ja[0].startswith("1位 A 2勝0敗: ○B ○C（勝率 100%")
    assert ja[1].startswith("2位 B 0勝1敗1持碁: ●A △C")
    assert not any("point" in line.split(":")[0] for line in en)
    assert not any("点:" in line for line in ja)
