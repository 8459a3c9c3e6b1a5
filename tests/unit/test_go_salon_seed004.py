"""Seed 004 (the PAA go salon's rules), section by section: ranks through the win-rate
gates (section 2), provisional points (section 3), the estimation of one's own points
(section 2-2) and the names members read. Pure: no database."""

from __future__ import annotations

import pytest

from relaybot.core.events.salon import exempt, secretaries
from relaybot.core.ratings.go_salon import (
    TermsPlayed,
    estimate_points,
    implied_points,
    next_rank,
    rank_code,
    rank_name,
    win_rate,
)


def test_section2_rank_moves_up_only_with_a_win_rate_of_065() -> None:
    """R4, seed 004 section 2: 「Rank(段級位)の更新は持点(Rate)との対応に加えて、昇級は勝率
    0.65以上、降級は勝率0.35以下とする。」 120 (1k) wins: 121 reaches 1d with 1 win of 1;
    a loss back to 120 leaves the win rate at 0.5: still 1d."""
    rank = next_rank("1k", 121, wins=1, losses=0, draws=0)
    assert rank == "1d"
    assert next_rank(rank, 120, wins=1, losses=1, draws=0) == "1d"  # 0.5: stays
    # up needs 0.65: 121 with 0.6 stays 1k; with 0.65 (13 of 20) it moves
    assert next_rank("1k", 121, wins=3, losses=2, draws=0) == "1k"
    assert next_rank("1k", 121, wins=13, losses=7, draws=0) == "1d"
    # down needs 0.35 or less
    assert next_rank("1d", 120, wins=4, losses=6, draws=0) == "1d"  # 0.4
    assert next_rank("1d", 120, wins=7, losses=13, draws=0) == "1k"  # 0.35
    # points inside the rank's band change nothing
    assert next_rank("1d", 125, wins=0, losses=5, draws=0) == "1d"


def test_section2_a_jigo_is_half_a_win_in_the_rate() -> None:
    """R4, seed 004 section 2: 「持碁の時の新持点=対局前の持点のまま(対戦数にカウントされます)」:
    a jigo counts as a game; in the win rate it is half a win."""
    assert win_rate(1, 1, 2) == 0.5
    assert win_rate(0, 0, 0) is None


def test_section2_ranks_in_each_language() -> None:
    """R4: Ranks as members read them: 1級 / 初段 in Japanese, 1k / 1d in English."""
    assert [rank_code(p) for p in (120, 121, 40, 201)] == ["1k", "1d", "9k", "pro"]
    assert rank_name("1k", "ja") == "1級" and rank_name("1d", "ja") == "初段"
    assert rank_name("3d", "ja") == "三段" and rank_name("9k", "ja") == "9級以下"
    assert rank_name("1k", "en") == "1k" and rank_name("1d", "en") == "1d"


def test_section2_2_question1_played_at_black_without_komi_against_176() -> None:
    """R4, seed 004 2-2 設問1: 「自分(Bさん)は、持点176のAさんに、常先で打っている。Bさんの
    持点は?」 答え1: 176-5=171 または 176-6=170."""
    assert estimate_points(176, 1, 0) == (171, 170)


def test_section2_2_question2_seven_stones_against_176() -> None:
    """R4, seed 004 2-2 設問2: 「自分(Cさん)は、持点176のAさんに、7子置いて打っている。
    Cさんの持点は?」 答え2: 176-53=123 または 176-54=122."""
    assert estimate_points(176, 7, 0) == (123, 122)


def test_section2_2_question3_giving_four_stones_from_120() -> None:
    """R4, seed 004 2-2 設問3: 「今度紹介するDさんは、持点120の私が、4子置いて打っている。
    Dさんの持点は?」 答え3: 120+29=149 または 120+30=150."""
    assert estimate_points(120, 4, 0, takes_black=False) == (149, 150)


def test_section2_2_terms_with_komi_give_one_answer() -> None:
    """R4: The handicap table read backwards (section 4): 2 stones, Black gives 3.5 against
    125 is 115 (例1); 7 stones with White giving 16.5 against 175 is 105 (例5)."""
    assert estimate_points(125, 2, 3.5) == (115,)
    assert estimate_points(175, 7, -16.5) == (105,)
    with pytest.raises(ValueError):
        estimate_points(120, 8, 0)
    with pytest.raises(ValueError):
        estimate_points(120, 2, -9.5)  # beyond the table's remainders


def test_section3_points_the_results_imply() -> None:
    """R4, seed 004 section 3: the TD is told the points the results imply: the terms played
    (section 2-2) moved by the results as the salon counts them."""
    games = [TermsPlayed(176, 1, 0.0, True), TermsPlayed(160, 1, 5.5, True)]
    # (170.5 + 160) / 2 = 165.25, 2 wins: 167
    assert implied_points(games, wins=2, losses=0) == 167
    assert implied_points([], wins=1, losses=0) is None


def test_section6_secretaries_are_the_winner_and_the_booby() -> None:
    """T4, seed 004 section 6: 「公式戦の幹事は2名とし、前回のリーグ戦の優勝者とブービーの者が
    これにあたる。」"""
    assert secretaries(["A", "B", "C", "D", "E", "F"], set()) == ("A", "E")


def test_section6_over_70_are_excused_unless_they_serve() -> None:
    """T4, seed 004 section 6: 「ただし、70歳以上の者はとくに本人が希望する場合を除き免除される。
    優勝者がこれに該当するときは2位のもの、ブービー者の時はその上位の者が代わりを務める、
    以下これに準ずる。」"""
    order = ["A", "B", "C", "D", "E", "F"]
    assert secretaries(order, {"A"}) == ("B", "E")
    assert secretaries(order, {"E"}) == ("A", "D")
    # the replacement moves up from the booby, never down to the last place
    assert secretaries(order, {"A", "B", "E", "D"}) == ("C",)
    assert exempt(1950, 2026, serves=False) and not exempt(1950, 2026, serves=True)
    assert not exempt(1957, 2026, serves=False) and not exempt(None, 2026, serves=False)


def test_go_words_for_results_in_each_language() -> None:
    """R4: What members read about go is in go's words: 黒5目半勝ち, 白中押し勝ち, 持碁, 勝負なし
    in Japanese; B+5.5, W+R in English (seed 004 section 2: 持碁, 勝負なし)."""
    from relaybot.core.game import result_in
    from relaybot.games.go.rules import RULES

    ja = [result_in(RULES, r, "ja") for r in ("B+5.5", "W+R", "jigo", "Void", "W+0.5", "B+12")]
    assert ja == ["黒5目半勝ち", "白中押し勝ち", "持碁", "勝負なし", "白半目勝ち", "黒12目勝ち"]
    en = [result_in(RULES, r, "en") for r in ("B+5.5", "W+R", "jigo")]
    assert en == ["B+5.5", "W+R", "jigo"]
    for word in ja[:3] + ja[4:]:  # the Japanese words read back as the same result
        outcome = RULES.parse_result(word, "counted")
        assert outcome is not None and RULES.result_text_words(RULES.format_result(outcome),
                                                          "ja") == word


def test_section2_a_free_games_terms_name_the_salon_points() -> None:
    """R4, seed 004 section 2: 「カウント外の自由対局:対局前の持点のまま」: the terms line of a
    free game says the points stay, by the name the salon's other mails and pages give
    them: salon points in English, 持点 in Japanese."""
    from relaybot.games.go.board import GoPosition
    from relaybot.games.go.record import terms_text

    free = GoPosition(komi=5.5, free=True)
    assert terms_text(free, "en") == "Komi: 5.5  Free game (the salon points do not change)"
    assert terms_text(free, "ja") == "コミ: 5.5  自由対局（持点は変わりません）"


def test_r4_komi_from_white_is_said_as_such() -> None:
    """R4 (seed 004 4: 白からコミ): when the points leave White giving komi (SGF's negative
    KM), the terms say who gives it rather than a bare minus sign."""
    from relaybot.core.ratings import handicap_between
    from relaybot.games.go.board import GoPosition
    from relaybot.games.go.record import terms_text

    _, cond = handicap_between(85, 70)  # 15 points apart: 2 stones, White gives 1.5
    assert (cond.stones, cond.komi) == (2, -1.5)
    reverse = GoPosition(komi=cond.komi, handicap=cond.stones)
    assert terms_text(reverse, "en") == "Komi: White gives 1.5  Handicap: 2 stones"
    assert terms_text(reverse, "ja") == "コミ: 白から1.5目  置き石: 2子"
    assert terms_text(GoPosition(komi=0.5, handicap=2), "en").startswith("Komi: 0.5  ")
