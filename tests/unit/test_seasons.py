"""T3: the shogi net league's seasons (seed 002 rules 1-8, 12-15, 18), pure. Each test is
named after the seed's rule and quotes its line."""

from __future__ import annotations

from datetime import date

import pytest

from relaybot.core.events import LEAGUE_TIEBREAKS, GameResult, standings
from relaybot.core.seasons import (
    ETERNAL,
    MEIJIN,
    PROMOTED,
    RELEGATED,
    REST,
    STAYS,
    WITHDRAWN,
    ClassResult,
    Finisher,
    Newcomer,
    Returner,
    check_sizes,
    class_event_name,
    first_timer_class,
    letters,
    merge_small,
    next_classes,
    outcomes,
    season_dates,
    silent_loses,
    third,
    titles_of,
)


def cls(letter: str, size: int, prefix: str | None = None, *, games: int = 7,
        points: list[float] | None = None, states: dict[int, str] | None = None
        ) -> ClassResult:
    """A class of ``size`` players named ``<prefix><n>`` in final order; points fall by one
    a place from ``games`` unless given."""
    prefix = prefix or letter
    pts = points or [max(0.0, float(games - i)) for i in range(size)]
    states = states or {}
    return ClassResult(letter, tuple(
        Finisher(f"{prefix}{i + 1}", pts[i], games, states.get(i + 1, "playing"))
        for i in range(size)))


# -- rule 12: the calendar -------------------------------------------------------------

def test_t3_rule12_ten_days_to_prepare_then_games_to_the_end_of_month_six() -> None:
    """「最初の10日は、準備期間とし、対局は、1か月目の10日から6か月目の月末までとする」."""
    d = season_dates(date(2027, 1, 1))
    assert d.play == date(2027, 1, 10)
    assert d.end == date(2027, 6, 30)
    assert d.month_ends[0] == date(2027, 1, 31) and d.month_ends[1] == date(2027, 2, 28)
    july = season_dates(date(2027, 7, 1))
    assert july.play == date(2027, 7, 10) and july.end == date(2027, 12, 31)


def test_t3_rule12_a_season_starts_on_the_first_of_a_month() -> None:
    """「対局開始は、1月と7月とする」: January or July; the first of any month is accepted."""
    assert season_dates(date(2027, 4, 1)).end == date(2027, 9, 30)
    with pytest.raises(ValueError):
        season_dates(date(2027, 1, 10))


def test_t3_rule8_silent_ten_days_at_the_deadline_loses_alone() -> None:
    """「10日以上連絡が無く、そのまま対局終了期限を迎えた場合、持ち日数が切れていなくても、
    音信不通になったほうを切れ負け、相手を勝ちとする」; otherwise rule 12: 「それまでに終わら
    ない対局は、双方の負けとする」."""
    end = date(2027, 6, 30)
    assert silent_loses(date(2027, 6, 20), end)
    assert not silent_loses(date(2027, 6, 21), end)


# -- rules 1-3, 14: classes ------------------------------------------------------------

def test_t3_rule1_classes_are_s_then_a_b_c() -> None:
    """「最上位のクラスをS級とし、以下、A級・B級・C級・・・とする」, 「第N期*級順位戦」."""
    assert letters(4) == ["S", "A", "B", "C"]
    assert class_event_name("第2期", "S") == "第2期S級"
    assert class_event_name("Season 2", "A") == "Season 2 A"


def test_t3_rule2_eight_or_more_a_class_and_s_fixed_at_eight() -> None:
    """「1クラスの人数は8人以上とする」; rule 6 「定員は、8名の固定とする」."""
    assert check_sizes([("S", 8), ("A", 9)]) == []
    assert len(check_sizes([("S", 3)])) == 1
    assert len(check_sizes([("S", 8), ("A", 7)])) == 1


def test_t3_rule2_a_small_class_merges_with_the_smaller_neighbour() -> None:
    """「7名以下になった場合、上または下のクラスの人数が少ないほうと合併する。上と下のクラスの
    人数が同数の場合は、上のクラスと合併する」."""
    s, a, b, c = ["s"] * 8, ["a"] * 10, ["b"] * 5, ["c"] * 9
    assert [len(x) for x in merge_small([s, a, b, c])] == [8, 10, 14]
    assert [len(x) for x in merge_small([s, ["a"] * 9, b, c])] == [8, 14, 9]  # equal: upper
    merged = merge_small([s, ["a"] * 9, ["b"] * 5, ["c"] * 3])
    assert [len(x) for x in merged] == [8, 9, 8]  # C joins B first (B is smaller than none)
    assert merged[2] == ["b"] * 5 + ["c"] * 3  # the upper class's players first
    assert [len(x) for x in merge_small([s, ["a"] * 5])] == [8, 5]  # S takes no merge


def test_t3_rule7_first_timers_by_declared_strength() -> None:
    """「S級 (初参加は、参加できない)・A級 2000点以上(三段以上)・B級 1750〜1999(二段)・C級 1500〜
    1749(1級〜初段)・D級 1250〜1499(2級以下)」."""
    present = ["S", "A", "B", "C", "D"]
    assert first_timer_class(2100, present) == "A"
    assert first_timer_class(1800, present) == "B"
    assert first_timer_class(1500, present) == "C"
    assert first_timer_class(1300, present) == "D"
    assert first_timer_class(1300, ["S", "A", "B"]) == "B"  # the lowest class there is


# -- rules 15, 18: standings -----------------------------------------------------------

def test_t3_rule15_sennichite_and_jishogi_count_half_then_starting_order() -> None:
    """「千日手、持将棋は指し直さずに、0.5勝とする」; rule 18 「勝ち数が等しい場合は、開始時の
    順位の順とする」."""
    players = ["p1", "p2", "p3"]
    games = [GameResult("p1", "p2", "1/2-1/2"), GameResult("p2", "p3", "1-0"),
             GameResult("p3", "p1", "1-0")]
    rows = standings(players, games, LEAGUE_TIEBREAKS,
                     start_order={"p1": 1, "p2": 2, "p3": 3})
    assert [(r.player, r.points) for r in rows] == [("p2", 1.5), ("p3", 1.0), ("p1", 0.5)]
    games[1] = GameResult("p2", "p3", "0-1")
    rows = standings(players, games, LEAGUE_TIEBREAKS, start_order={"p1": 3, "p2": 1, "p3": 2})
    assert [r.player for r in rows] == ["p3", "p2", "p1"]  # 2, then 0.5 each: order 1 before 3


def test_t3_rule18_shared_starting_place_goes_to_solkoff_then_the_seeds_sb() -> None:
    """「同順位(初参加者等)の間で、勝ち数の同じ人がいる場合…2)ソルコフ方式 すべての対戦相手の
    勝数の合計の多い方 3)SB方式 負かした相手の勝星の合計の多い方」: only beaten opponents count,
    a drawn one not at all."""
    # five play all; n1 and n2 are first-timers sharing starting place 4, 2.5 each.
    # n1: beat x, drew y, z and n2; n2: drew n1, beat y and z, lost to x.
    # x beat y, z beat x, y beat z: x 2, y 1.5, z 1.5. Solkoff (all play all) ties at 7.5.
    # The seed's SB: n1 beat x (2), n2 beat y and z (3): n2 first. Chess's SB (a drawn
    # opponent by half) would put n1 first: 2 + 0.75 + 0.75 + 1.25 = 4.75 against 4.25.
    players = ["x", "y", "z", "n1", "n2"]
    games = [GameResult("n1", "x", "1-0"), GameResult("n1", "y", "1/2-1/2"),
             GameResult("z", "n1", "1/2-1/2"), GameResult("n2", "n1", "1/2-1/2"),
             GameResult("n2", "y", "1-0"), GameResult("z", "n2", "0-1"),
             GameResult("x", "n2", "1-0"), GameResult("x", "y", "1-0"),
             GameResult("z", "x", "1-0"), GameResult("y", "z", "1-0")]
    start = {"x": 1, "y": 2, "z": 3, "n1": 4, "n2": 4}
    rows = standings(players, games, LEAGUE_TIEBREAKS, start_order=start)
    by = {r.player: r for r in rows}
    assert by["n1"].points == by["n2"].points == 2.5
    assert by["n1"].solkoff == by["n2"].solkoff == 7.5
    assert by["n1"].sb > by["n2"].sb  # chess's count would have it the other way
    assert [r.player for r in rows][:2] == ["n2", "n1"]


def test_t3_rule18_median_then_direct_encounter_then_entry_order() -> None:
    """「4)ミディアム方式 負かした相手の勝星が最高と最低の2人を除いた相手の勝星の合計の多い方
    5)DH方式 同率者が対戦している場合は勝者の方 6)対戦表の上の者 参加表明順」."""
    players = ["a", "b", "n1", "n2"]
    start = {"a": 1, "b": 2, "n1": 3, "n2": 3}
    games = [GameResult("n2", "n1", "1-0"), GameResult("n1", "a", "1-0"),
             GameResult("a", "n2", "1-0"), GameResult("b", "a", "1/2-1/2")]
    rows = [r.player for r in standings(players, games, LEAGUE_TIEBREAKS, start_order=start)]
    # n1 and n2: 1 win each; Solkoff n1 = n2 + a = 1 + 1.5, n2 = n1 + a: equal; SB: n1 beat
    # a (1.5), n2 beat n1 (1): n1 first before the direct game is looked at
    assert rows.index("n1") < rows.index("n2")
    untouched = [GameResult("n2", "n1", "1-0")]
    rows = [r.player for r in standings(players, untouched, LEAGUE_TIEBREAKS, start_order=start)]
    assert rows.index("n2") < rows.index("n1")  # DH: the winner of their game
    rows = [r.player for r in standings(players, [], LEAGUE_TIEBREAKS, start_order=start)]
    assert rows == ["a", "b", "n1", "n2"]  # nothing else: the order of entry


# -- rules 4-6, 8: promotion and relegation ----------------------------------------------

def test_t3_rule5_one_third_rounded_half_up_or_as_the_organiser_chooses() -> None:
    """「昇級、降級、いずれもクラス人数の1/3(小数点以下は四捨五入)」; 「A級以下のクラスの人数の
    最大と最小が2倍以上の場合…1/3(小数点以下は切り捨て)、または、1/3(小数点以下は切り上げ)」."""
    assert [third(n) for n in (8, 9, 10, 11, 12)] == [3, 3, 3, 4, 4]
    assert third(10, "floor") == 3 and third(10, "ceil") == 4 and third(8, "floor") == 2
    even = [cls("S", 8), cls("A", 10), cls("B", 10)]
    out = outcomes(even, rounding="floor")  # the classes are alike: rounding stays 四捨五入
    assert sum(1 for p, o in out.items() if p.startswith("B") and o == PROMOTED) == 3
    uneven = [cls("S", 8), cls("A", 8), cls("B", 16)]
    out = outcomes(uneven, rounding="floor")
    assert sum(1 for p, o in out.items() if p.startswith("B") and o == PROMOTED) == 5


def test_t3_rule4_fifty_percent_or_better_is_not_relegated() -> None:
    """「上位が昇級、下位が降級する。ただし、指し分け以上の成績の場合は、降級しないものとする」."""
    a = cls("A", 9, games=8, points=[8, 7, 6, 5, 5, 4, 4, 3.5, 1])
    out = outcomes([cls("S", 8), a, cls("B", 9)])
    assert [out[f"A{i}"] for i in (7, 8, 9)] == [STAYS, RELEGATED, RELEGATED]  # 4 of 8 stays
    assert out["A1"] == PROMOTED and out["B1"] == PROMOTED and out["B3"] == PROMOTED


def test_t3_rule6_s_loses_three_and_a_fills_it_to_eight() -> None:
    """「S級からの降級は、1/3の3名」「A級からの昇級は、S級が定員の8名となる人数とする(通常3名)」."""
    out = outcomes([cls("S", 8), cls("A", 12), cls("B", 9)])
    assert [p for p in sorted(out) if out[p] == RELEGATED and p[0] == "S"] == ["S6", "S7", "S8"]
    assert [p for p in sorted(out) if out[p] == PROMOTED and p[0] == "A"] == ["A1", "A2", "A3"]
    # S6 scores 4 of 7: not relegated (rule 4), so A sends up only two
    s = cls("S", 8, points=[6, 5, 5, 4.5, 4, 4, 2, 0])
    out = outcomes([s, cls("A", 12), cls("B", 9)])
    assert out["S6"] == STAYS and [out[f"A{i}"] for i in (1, 2, 3)] == [PROMOTED, PROMOTED, STAYS]


def test_t3_rule6_a_rest_in_s_drops_to_a_and_the_next_of_a_moves_up() -> None:
    """「S級での休場は、Aへ降級することとする」「S級残留者・S級昇級者に休場があった場合、A級の準ずる
    順位のものをS級に昇級することとし、S級の人数を常に8名とする」."""
    classes = [cls("S", 8), cls("A", 10), cls("B", 9)]
    out = outcomes(classes, resting={"S1", "A2"})
    assert [out[f"A{i}"] for i in (1, 2, 3, 4, 5)] == [PROMOTED, STAYS, PROMOTED, PROMOTED,
                                                        PROMOTED]
    nxt = next_classes(classes, out, resting={"S1", "A2"})
    s_next = dict(nxt.classes)["S"]
    assert len(s_next) == 8 and {"A1", "A3", "A4", "A5"} <= {p.player for p in s_next}
    assert dict(nxt.resting) == {"S1": "A", "A2": "A"}


def test_t3_rule8_a_mid_season_rest_counts_among_the_relegated_yet_stays() -> None:
    """「途中休場した人は、全対局不戦敗の扱いとなり、降級人数に含まれるが、降級としないこととする
    (実質、降級者が一人減る)」."""
    a = cls("A", 9, games=8, points=[8, 7, 6, 5, 3, 3, 2, 1, 0], states={9: REST})
    out = outcomes([cls("S", 8), a, cls("B", 9)])
    assert [out[f"A{i}"] for i in (7, 8, 9)] == [RELEGATED, RELEGATED, REST]
    nxt = dict(next_classes([cls("S", 8), a, cls("B", 9)], out).classes)
    assert "A9" in {p.player for p in nxt["A"]}


def test_t3_rule8_a_withdrawal_after_the_start_leaves_the_league() -> None:
    """「対戦開始後の棄権は、不戦敗とし、成績が悪ければ降級となる」: the withdrawn player's place
    is among the relegated; he is not in the next season."""
    a = cls("A", 9, games=8, states={9: WITHDRAWN})
    classes = [cls("S", 8), a, cls("B", 9)]
    out = outcomes(classes)
    assert out["A9"] == WITHDRAWN and out["A8"] == RELEGATED and out["A7"] == RELEGATED
    nxt = next_classes(classes, out)
    assert all(p.player != "A9" for _, c in nxt.classes for p in c)


# -- rules 7, 8: the next season's order -------------------------------------------------

def test_t3_rule8_each_class_in_the_seeds_order() -> None:
    """「各クラスの順位 ・降級 ・残留 ・昇級 ・1期休場の復帰 ・初参加 ・2期以上休場の復帰」;
    1期休場明けは「休場前の順位によって」, 2期以上は「前回参加が新しい順、同期の場合はその
    順位によって」."""
    classes = [cls("S", 8), cls("A", 9), cls("B", 9)]
    out = outcomes(classes)
    back = [Returner("r2", "A", 1, 5, 4), Returner("r1", "A", 1, 5, 2),
            Returner("l1", "A", 3, 2, 1), Returner("l2", "A", 2, 3, 6)]
    new = [Newcomer("n1", "A"), Newcomer("n2", "A")]
    nxt = next_classes(classes, out, returners=back, newcomers=new)
    a = dict(nxt.classes)["A"]
    assert [p.player for p in a] == [
        "S6", "S7", "S8",            # relegated from S
        "A4", "A5", "A6",            # staying, in their order
        "B1", "B2", "B3",            # promoted from B
        "r1", "r2",                  # back after one season, by their order before
        "n1", "n2",                  # first-timers
        "l2", "l1",                  # back after two or more: the latest first
    ]
    assert [p.start_order for p in a][10:14] == [11, 12, 12, 14]  # first-timers share


def test_t3_rule8_one_seasons_rest_keeps_the_class() -> None:
    """「休場が1期の場合、休場明けの順位は、初参加者より上位、継続参加昇級者より下位とする」;
    「休場が2期以上の場合、降級しないこととし、休場明けの順位を初参加者より下位とする」."""
    classes = [cls("S", 8), cls("A", 9), cls("B", 9)]
    nxt = next_classes(classes, outcomes(classes),
                       returners=[Returner("r", "B", 1, 1, 3), Returner("q", "B", 4, 0, 1)])
    b = [p.player for p in dict(nxt.classes)["B"]]
    assert b[-2:] == ["r", "q"]


def test_t3_rule7_first_timers_join_at_the_foot_of_their_class() -> None:
    """「初参加者は、棋力を自己申告し、以下のように、棋力にふさわしいリーグの下位に追加する」."""
    classes = [cls("S", 8), cls("A", 9), cls("B", 9)]
    nxt = next_classes(classes, outcomes(classes), newcomers=[Newcomer("n", "B")])
    assert dict(nxt.classes)["B"][-1].player == "n"
    with pytest.raises(ValueError):
        next_classes(classes, outcomes(classes), newcomers=[Newcomer("n", "S")])


def test_t3_rule2_the_next_season_merges_a_small_class() -> None:
    """「7名以下になった場合、上または下のクラスの人数が少ないほうと合併する」: C of 9 loses three
    to B and two rest: 6 left, it joins B."""
    classes = [cls("S", 8), cls("A", 9), cls("B", 9), cls("C", 8)]
    out = outcomes(classes)
    nxt = next_classes(classes, out, resting={"C7", "C8"})
    assert [letter for letter, _ in nxt.classes] == ["S", "A", "B"]
    # B: A7-A9, B4-B6, C1-C3 (9); C: B7-B9, C4-C6 (6), merged below B's own
    b = [p.player for p in dict(nxt.classes)["B"]]
    assert b == ["A7", "A8", "A9", "B4", "B5", "B6", "C1", "C2", "C3",
                 "B7", "B8", "B9", "C4", "C5", "C6"]


# -- rule 13: titles ---------------------------------------------------------------------

def test_t3_rule13_meijin_and_eternal_meijin_after_the_fifth() -> None:
    """「S級の優勝者に名人の称号を与える。通算5期名人を獲得すると、永世名人の称号を与える」."""
    assert titles_of(1, True) == [MEIJIN]
    assert titles_of(4, True) == [MEIJIN]
    assert titles_of(5, True) == [MEIJIN, ETERNAL]
    assert titles_of(5, False) == [ETERNAL]
    assert titles_of(0, False) == []


def test_rule19_the_final_mail_names_the_class_played_next_season() -> None:
    """Rule 19 (the season's end mail) with rules 4-6: one up when promoted, one down when
    relegated, S's mid-season rest to A (「S級での休場は、Aへ降級」), else the same."""
    from relaybot.app.season_reports import next_class

    present = ["S", "A", "B"]
    assert next_class("A", "promoted", present) == "S"
    assert next_class("A", "relegated", present) == "B"
    assert next_class("S", "rest", present) == "A"
    assert next_class("A", "rest", present) == "A"
    assert next_class("B", "stays", present) == "B"
    assert next_class("S", "promoted", present) == "S"
