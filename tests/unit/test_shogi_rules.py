"""Shogi on the seam (issue 16): reading moves as members write them, the ending rules
of seed 002 (rule 15: 千日手 and 持将棋 are draws, the 24-point 入玉 rule), BOD, KIF, CSA,
the TD's words, and a professional game replayed through the referee."""

from __future__ import annotations

import random
from datetime import date

import pytest
import shogi
import shogi.CSA
import shogi.KIF
from hypothesis import given, settings
from hypothesis import strategies as st

from relaybot.core.conditionals import Conditional
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.core.sections import split_sections
from relaybot.games import rules_for
from relaybot.games.base import MoveError, RecordInfo
from relaybot.games.shogi import notation
from relaybot.games.shogi.position import Position
from tests.shogi_styles import pro_game, written

RULES = rules_for("shogi")


def after(*plies: str) -> object:
    return RULES.replay(list(plies))


# --- reading moves (INTERFACE "Shogi moves") -------------------------------------------

@pytest.mark.parametrize("token", [
    "▲７六歩", "7六歩", "７６歩", "76歩", "☗７六歩", "７六歩(77)", "7g7f", "+7776FU", "7776FU",
    "▲７六歩(77)", "７六歩不成",
])
def test_first_move_in_every_notation(token: str) -> None:
    assert RULES.parse(RULES.start(), token) == "7g7f"


def test_same_square_with_and_without_the_space() -> None:
    pos = after("7g7f", "3c3d", "8h2b+")
    for token in ("△同　銀", "同銀", "同 銀", "△同銀(31)", "3a2b", "-3122GI"):
        assert RULES.parse(pos, token) == "3a2b", token


def test_drops_and_promotion() -> None:
    pos = after("7g7f", "3c3d", "8h2b+", "3a2b")
    assert RULES.parse(pos, "▲５五角打") == "B*5e"
    assert RULES.parse(pos, "５五角") == "B*5e"  # only a drop can get there: no 打 needed
    assert RULES.parse(pos, "B*5e") == "B*5e"
    assert RULES.parse(pos, "+0055KA") == "B*5e"
    start = after("7g7f", "3c3d")
    assert RULES.parse(start, "２二角成") == "8h2b+"
    assert RULES.parse(start, "２二角不成") == "8h2b"
    assert RULES.parse(start, "２二角生") == "8h2b"
    assert RULES.parse(start, "+8822UM") == "8h2b+"


def test_a_board_move_needs_no_mark_where_a_drop_was_possible() -> None:
    """INTERFACE: 打 marks the drop; the move without it is the board move."""
    pos = RULES.load("4k4/9/9/9/9/4S4/9/9/4K4 b S 1")
    assert RULES.parse(pos, "５五銀") == "5f5e"
    assert RULES.parse(pos, "５五銀打") == "S*5e"
    assert RULES.format_ply(pos, "S*5e", "ja") == "▲５五銀打"
    assert RULES.format_ply(pos, "5f5e", "ja") == "▲５五銀"


def test_promotion_left_unsaid_is_ambiguous_and_names_both() -> None:
    """Strict where the rules are: 成 or 不成 must be said when both are legal."""
    with pytest.raises(MoveError) as err:
        RULES.parse(after("7g7f", "3c3d"), "２二角")
    assert err.value.kind == "ambiguous"
    assert set(err.value.candidates) == {"２二角成", "２二角不成"}


def test_two_golds_need_a_relative_word_and_the_reply_names_the_candidates() -> None:
    # 先手 golds on 6i and 4i can both go to 5h
    pos = RULES.start()
    with pytest.raises(MoveError) as err:
        RULES.parse(pos, "▲58金")
    assert err.value.kind == "ambiguous" and err.value.token == "▲５八金"  # as players write
    assert set(err.value.candidates) == {"５八金右", "５八金左"}
    assert RULES.parse(pos, "５八金右") == "4i5h"
    assert RULES.parse(pos, "５八金左") == "6i5h"
    assert RULES.parse(pos, "５八金(69)") == "6i5h"
    assert RULES.parse(pos, "▲58金右") == "4i5h"


def test_relative_words_up_back_sideways_straight() -> None:
    # 後手's view is turned: 右 for 後手 is the higher file
    pos = after("7g7f")
    assert RULES.parse(pos, "△５二金右") == "6a5b"
    assert RULES.parse(pos, "△５二金左") == "4a5b"
    gold = RULES.load("4k4/9/9/9/4G4/3G1G3/9/9/4K4 b - 1")
    # golds on 6f, 4f (beside 5f) and 5e (above it)
    assert RULES.parse(gold, "５六金引") == "5e5f"
    assert RULES.parse(gold, "５六金右") == "4f5f"
    assert RULES.parse(gold, "５六金左寄") == "6f5f"
    with pytest.raises(MoveError) as err:
        RULES.parse(gold, "５六金寄")
    assert set(err.value.candidates) == {"５六金右", "５六金左"}
    # 5e gold moves up to 5d (直); 4f and 6f golds cannot reach 5d
    assert RULES.parse(gold, "５四金直") == "5e5d"
    assert RULES.parse(gold, "５四金行") == "5e5d" == RULES.parse(gold, "５四金上")
    two = RULES.load("4k4/9/9/9/9/3S5/4S4/9/4K4 b - 1")
    # silvers on 6f and 5g: to 5f? silver 5g goes up (上) straight (直); 6f cannot go sideways
    assert RULES.parse(two, "５六銀") == "5g5f"


def test_illegal_moves_name_the_rule() -> None:
    """二歩, 打ち歩詰め, moving into check: refused like any illegal move (J5)."""
    nifu = RULES.load("4k4/9/9/9/9/9/4P4/9/4K4 b P 1")
    with pytest.raises(MoveError) as err:
        RULES.parse(nifu, "５五歩打")
    assert err.value.kind == "illegal" and "二歩" in err.value.detail
    # 打ち歩詰め: a pawn drop on 1b mates the king in the corner
    uchifu = RULES.load("8k/9/7G1/4B4/9/9/9/9/K8 b P 1")
    with pytest.raises(MoveError) as err:
        RULES.parse(uchifu, "１二歩打")
    assert "打ち歩詰め" in err.value.detail
    check = RULES.load("4r4/9/9/9/9/9/9/4G4/4K4 b - 1")  # the gold is pinned by the rook
    with pytest.raises(MoveError) as err:
        RULES.parse(check, "６八金")
    assert "王手" in err.value.detail
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "５五飛")
    assert err.value.kind == "illegal"
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "７六歩成")
    assert "成れません" in err.value.detail
    with pytest.raises(MoveError) as err:  # a pawn reaching the last rank must promote
        RULES.parse(RULES.load("4k4/P8/9/9/9/9/9/9/4K4 b - 1"), "９一歩不成")
    assert "成らなければ" in err.value.detail
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "hello")
    assert err.value.kind == "unreadable"
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "△３四歩")  # 後手's mark on 先手's move
    assert err.value.kind == "illegal"


def test_record_with_numbers_kif_lines_and_kif_times() -> None:
    rec = RULES.extract_record("よろしく\n\n15 ▲７七角\n\nでは")
    assert rec.tokens == ["▲77角"] and rec.first_ply == 14
    assert RULES.extract_record("第15手 ▲７七角。").tokens == ["▲77角"]
    rec = RULES.extract_record("15手目 ７七角")
    assert rec.first_ply == 14 and rec.tokens == ["77角"]
    rec = RULES.extract_record("   1 ７六歩(77)   ( 0:01/00:00:01)\n"
                               "   2 ３四歩(33)   ( 0:02/00:00:02)")
    assert rec.tokens == ["76歩(77)", "34歩(33)"] and rec.first_ply == 0
    rec = RULES.extract_record("   1 ７六歩(77)\n   2 ３四歩(33)+\n   3 ２二角成(88)+")
    assert rec.tokens == ["76歩(77)", "34歩(33)", "22角成(88)"]  # + marks a variation
    rec = RULES.extract_record("▲７六歩△３四歩▲２六歩△同　歩")
    assert rec.tokens == ["▲76歩", "△34歩", "▲26歩", "△同歩"]
    assert RULES.extract_record("> 15 ▲７七角").tokens == []
    # a whole record in USI or CSA (with CSA's time lines and ending) reads too
    assert RULES.extract_record("position startpos moves 7g7f 3c3d").tokens == ["7g7f", "3c3d"]
    csa = RULES.extract_record("V2.2\nN+a\nN-b\nPI\n+\n+7776FU\nT12\n-3334FU,T3\n%TORYO\n")
    assert csa.tokens == ["+7776FU", "-3334FU"] and csa.first_ply == 0


def _stored(*plies: str) -> StoredGame:
    pos = RULES.start()
    keys = []
    for ply in plies:
        keys.append(RULES.ply_keys(pos, ply))
        RULES.play(pos, ply)
    return StoredGame(plies=plies, keys=tuple(keys), position=RULES.save(pos))


def test_a_number_that_disagrees_with_the_game_is_a_sync_error() -> None:
    """INTERFACE "Shogi moves": the move with its number, or the whole record; a number or
    record that disagrees with the game is a sync error (J1)."""
    game = _stored("7g7f", "3c3d")
    assert decide(RULES, game, 0, "3 ▲２六歩").new_plies == ["2g2f"]
    ahead = decide(RULES, game, 0, "5 ▲２六歩")
    assert ahead.kind == "sync_error" and ahead.diff_ply == 2
    differs = decide(RULES, game, 0, "2 △８四歩 3 ▲２六歩")
    assert differs.kind == "sync_error" and differs.diff_ply == 1
    assert decide(RULES, game, 0, "2 △３四歩 3 ▲２六歩").new_plies == ["2g2f"]
    assert decide(RULES, game, 0, "▲７六歩 △同歩").kind == "sync_error"
    assert decide(RULES, game, 0, "2 △３四歩").kind == "no_move"  # nothing new


# --- the game's end (seed 002 rule 15) -----------------------------------------------

def test_checkmate_is_detected() -> None:
    pos = RULES.load("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")
    RULES.play(pos, RULES.parse(pos, "５二金打"))
    outcome = RULES.outcome(pos)
    assert outcome is not None and outcome.winner == 0 and outcome.termination == "checkmate"


def test_sennichite_is_a_draw_on_the_fourth_repetition() -> None:
    """Seed 002 rule 15: 千日手 counts 0.5 each, no replay."""
    cycle = ["5i5h", "5a5b", "5h5i", "5b5a"]
    pos = RULES.start()
    for ply in (cycle * 3)[:-1]:
        RULES.play(pos, ply)
        assert RULES.outcome(pos) is None
    RULES.play(pos, "5b5a")
    outcome = RULES.outcome(pos)
    assert outcome is not None and outcome.is_draw and outcome.termination == "sennichite"
    assert outcome.points(0) == outcome.points(1) == 0.5
    # the repetition survives saving between mails
    saved = RULES.load(RULES.save(pos))
    assert RULES.outcome(saved) == outcome


def test_perpetual_check_loses_for_the_checker() -> None:
    # 先手's rook gives check from 5b/4b... a king shuttling 5a-4a under the rook's checks
    pos = RULES.load("4k4/R8/9/9/9/9/9/9/4K4 b - 1")
    line = ["9b9a", "5a5b", "9a9b", "5b5a"]  # every 先手 move checks
    for ply in line * 3:
        RULES.play(pos, ply)
    outcome = RULES.outcome(pos)
    assert outcome is not None and outcome.winner == 1 and outcome.termination == "perpetual_check"


@pytest.mark.parametrize(("sfen", "winner", "draw"), [
    ("K8/9/9/9/9/9/9/9/8k b 2R2B4G4P 1", 0, False),  # 28 points against 0: 先手 wins
    ("K8/9/9/9/9/9/9/9/8k b 2R2B2P4s4n4l14p 1", None, False),  # 22: the declarer loses
    ("K8/9/9/9/9/9/9/9/8k b 2R2B4G4P4s4n4l14p 1", None, True),  # 28 and 26: 持将棋
])
def test_nyugyoku_declaration_counts_24_points(sfen: str, winner: int | None,
                                                draw: bool) -> None:
    """Seed 002 rule 15: 大駒 5, 小駒 1, the king not counted; under 24 loses."""
    outcome = RULES.declare(RULES.load(sfen), 0, "nyugyoku")
    if draw:
        assert outcome.is_draw and outcome.termination == "jishogi"
    elif winner is None:
        assert outcome.winner == 1
    else:
        assert outcome.winner == winner


def test_nyugyoku_needs_the_king_in_the_enemy_camp() -> None:
    with pytest.raises(MoveError):
        RULES.declare(RULES.start(), 0, "nyugyoku")


def test_declaration_by_mail_goes_through_the_referee() -> None:
    sfen = "K8/9/9/9/9/9/9/9/8k b 2R2B4G4P 1"
    game = StoredGame(plies=(), keys=(), position=sfen)
    verdict = decide(RULES, game, 0, "入玉宣言します。\n")
    assert verdict.kind == "declared" and verdict.outcome is not None
    assert verdict.outcome.winner == 0


# --- what a member reads ------------------------------------------------------------

def test_bod_from_each_side() -> None:
    pos = after("7g7f", "3c3d", "8h2b+", "3a2b")
    sente = RULES.board_text(pos, "ja", 0).splitlines()
    assert sente[0] == "後手の持駒：角"
    assert sente[1].split() == list("９８７６５４３２１")
    assert sente[3] == "|v香v桂v銀v金v玉v金 ・v桂v香|一"
    assert sente[-2] == "先手の持駒：角" and sente[-1] == "手数＝4　先手番"
    gote = RULES.board_text(pos, "en", 1).splitlines()
    assert gote[0] == "先手の持駒：角" and gote[1].split() == list("１２３４５６７８９")
    assert gote[3] == "| 香 桂 銀 金 玉 金 銀 桂 香|九"
    assert gote[-2] == "後手の持駒：角" and "Sente" in gote[-1]


def test_record_text_marks_and_origins_only_where_needed() -> None:
    plies = ["7g7f", "3c3d", "8h2b+", "3a2b", "B*5e", "6a5b"]
    text = RULES.format_record(plies, "ja")
    assert text == "1 ▲７六歩 △３四歩 ▲２二角成 △同　銀 ▲５五角 △５二金右"
    # read back by the bot: what it writes, it reads
    pos = RULES.start()
    for token in RULES.extract_record(text).tokens:
        RULES.play(pos, RULES.parse(pos, token))
    assert RULES.save(pos) == RULES.save(RULES.replay(plies))


def test_td_side_and_result_words() -> None:
    """INTERFACE "TD commands": SIDE sente/gote/先手/後手; RESULT in English and Japanese."""
    assert [RULES.side_of(w) for w in ("sente", "先手", "gote", "後手", "x")] == [0, 0, 1, 1, None]
    for word, winner in (("sente", 0), ("先手勝ち", 0), ("gote", 1), ("後手勝ち", 1)):
        outcome = RULES.parse_result(word, "adjudication")
        assert outcome is not None and outcome.winner == winner
    for word in ("draw", "引き分け"):
        outcome = RULES.parse_result(word, "adjudication")
        assert outcome is not None and outcome.is_draw
    for word in ("both-lose", "両者負け"):
        outcome = RULES.parse_result(word, "adjudication")
        assert outcome is not None and outcome.both_lose
    assert RULES.parse_result("1-0 please", "adjudication") is None


def test_black_is_sente_and_moves_first() -> None:
    assert RULES.colour_options == ("black", "white")
    assert RULES.to_move(RULES.save(RULES.start())) == 0
    assert RULES.side_names("ja") == ("先手", "後手")


# --- records ------------------------------------------------------------------------

def _info(plies: list[str], result: str, termination: str) -> RecordInfo:
    return RecordInfo(event="第1期順位戦", site="relay@club.example", start=date(2026, 1, 10),
                      round="-", players=("羽生善治", "藤井猛"), ratings=(None, None),
                      result=result, end=date(2026, 6, 1), termination=termination,
                      moves=[(p, "2026-01-10") for p in plies])


def test_csa_record_reads_back() -> None:
    _, moves = pro_game()
    text = RULES.write_record(_info(moves, "1-0", "resignation"), "csa")
    assert text.startswith("V2.2\nN+羽生善治\nN-藤井猛\n")
    assert "%TORYO" in text
    parsed = shogi.CSA.Parser.parse_str(text)[0]
    assert parsed["moves"] == moves and parsed["win"] == "b"
    with pytest.raises(ValueError):
        RULES.write_record(_info(moves, "1-0", "resignation"), "sgf")


def test_kif_endings() -> None:
    plies = ["5i5h", "5a5b", "5h5i", "5b5a"] * 3
    text = RULES.write_record(_info(plies, "1/2-1/2", "sennichite"))
    assert text.endswith("  13 千日手\nまで12手で千日手\n")
    assert shogi.KIF.Parser.parse_str(text)[0]["win"] == "-"


# --- conditional moves (J16) in shogi notation ----------------------------------------

def test_conditional_in_shogi_notation_is_bound() -> None:
    """``もし △同歩 なら ▲同角``: read, validated and followed by the neutral core."""
    plies = ("7g7f", "3c3d", "2g2f", "8c8d", "2f2e", "8d8e")
    game = StoredGame(plies=plies, keys=tuple(frozenset() for _ in plies),
                      position=RULES.save(RULES.replay(plies)))
    verdict = decide(RULES, game, 0, "7 ▲２四歩\nもし △同歩 なら ▲同飛\n", mode="binding")
    assert verdict.kind == "move" and verdict.new_plies == ["2e2d"]
    assert [c.plies for c in verdict.new_conditionals] == [("2c2d", "2h2d")]
    assert not verdict.rejected
    after_move = StoredGame(plies=(*plies, "2e2d"), keys=tuple(frozenset() for _ in range(7)),
                            position=verdict.position or "")
    reply = decide(RULES, after_move, 1, "8 △同歩\n", conditionals=verdict.new_conditionals,
                   mode="binding")
    assert reply.new_plies == ["2c2d", "2h2d"] and reply.auto == [False, True]
    assert RULES.format_proposal(RULES.load(verdict.position or ""),
                                 ["2c2d", "2h2d"], "ja", lang="ja") == \
        "もし 8 △同　歩 なら ▲同　飛"


def test_several_shogi_games_in_one_mail() -> None:
    """J17: ``A 15 ▲７七角`` (a label, then a move numbered without a dot) starts game A's
    section; prose such as ``A 2 days late`` does not."""
    text = "A 15 ▲７七角\nB 8 △同歩\nA 2 days late, sorry"
    sections = split_sections(text, {"A": "g1", "B": "g2"}, RULES.looks_like_move)
    assert [(s.game_id, s.text) for s in sections] == [
        ("g1", "15 ▲７七角"), ("g2", "8 △同歩\nA 2 days late, sorry")]


def test_several_proposals_on_one_line() -> None:
    text = "もし △同歩 なら ▲同飛。もし △３三角 なら ▲２三歩成"
    lines = RULES.read_proposals(text, RULES.extract_record(""))
    assert [p.tokens for p in lines] == [("△同歩", "▲同飛"), ("△33角", "▲23歩成")]


@pytest.mark.parametrize(("text", "token"), [
    ("もし △同歩 なら ▲同飛車", "▲同飛車"),  # not "no answer": the answer is named
    ("もし △2四同歩 なら ▲2四同飛", "△24同歩"),  # not dropped in silence
    ("もし △同歩 なら ▲同飛 △２三ふ ▲２八飛", "△23ふ"),  # not read as a shorter line
])
def test_j16_a_proposal_move_that_does_not_read_refuses_the_line_naming_it(
        text: str, token: str) -> None:
    """A word of a もし line meant as a move that does not read is kept in the line, so
    that the proposer is told which move to write again, and the line never binds read
    without it; words around the moves (とします, お願いします) are still no moves."""
    plies = ("7g7f", "3c3d", "2g2f", "4c4d", "2f2e", "4a3b")
    stored = StoredGame(plies=plies, keys=tuple(frozenset() for _ in plies),
                        position=RULES.save(RULES.replay(plies)))
    verdict = decide(RULES, stored, 0, f"7 ▲２四歩\n{text}")
    assert verdict.kind == "move" and verdict.new_conditionals == []
    assert [(r.reason, r.token) for r in verdict.rejected] == [("unreadable", token)]
    ok = decide(RULES, stored, 0, "7 ▲２四歩\nもし△同歩なら▲同飛とします。お願いします")
    assert [c.plies for c in ok.new_conditionals] == [("2c2d", "2h2d")] and not ok.rejected


def test_conditional_lines_are_not_read_as_the_record() -> None:
    assert RULES.extract_record("もし △同歩 なら ▲同角").tokens == []
    assert RULES.proposal_lines("x\nもし △同歩 なら ▲同角") == {1}
    assert Conditional(plies=("a", "b")).plies == ("a", "b")


# --- a professional game, by the referee ------------------------------------------------

def test_professional_game_replayed_through_the_referee() -> None:
    """Habu - Fujii 2006 (tests/data): every move a different style, J1 numbered."""
    _, moves = pro_game()
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    position = RULES.save(RULES.start())
    for index, ply in enumerate(moves):
        pos = RULES.load(position)
        text = "よろしくお願いします。\n\n" + written(pos, ply, index, index + 1) + "\n"
        if index % 7 == 6:  # now and then the whole record from move 1
            text = RULES.format_record([*plies, ply], "ja") + "\n"
        verdict: Verdict = decide(RULES, StoredGame(tuple(plies), tuple(keys), position),
                                  index % 2, text)
        assert verdict.kind == "move", (index, text, verdict.error)
        assert verdict.new_plies == [ply], (index, text)
        plies += verdict.new_plies
        keys += verdict.new_keys
        position = verdict.position or ""
    resign = decide(RULES, StoredGame(tuple(plies), tuple(keys), position), 1, "投了\n")
    assert resign.outcome is not None and resign.outcome.winner == 0
    kif = RULES.write_record(_info(plies, "1-0", "resignation"))
    parsed = shogi.KIF.Parser.parse_str(kif)[0]
    assert parsed["moves"] == moves
    assert parsed["win"] == "b" and parsed["names"] == ["羽生善治", "藤井猛"]
    assert "まで181手で先手の勝ち" in kif and " 182 投了" in kif


# --- never a crash: whatever a member writes is a move, a MoveError or no record ------

_ALPHABET = ("▲△☗☖同　 ０１２３４５６７８９0123456789一二三四五六七八九"
             "歩香桂銀金角飛玉王と杏圭全馬龍竜成不生打右左上引寄直行入()+-*"
             "abcdefghiPLNSGBRFUKYKEGIKIKAHIOUTONYNKNGUMRY手目第もしなら;。\n")
_SHAPES = st.one_of(
    st.from_regex(r"[▲△]?(?:[0-9１-９][0-9一-九]|同　?)(?:歩|香|桂|銀|金|角|飛|玉|と|成銀|馬|龍)"
                  r"[右左上引寄直行入]{0,2}(?:打|成|不成|生)?(?:\([0-9]{2}\))?", fullmatch=True),
    st.from_regex(r"[+-]?[0-9]{4}(?:FU|KY|KE|GI|KI|KA|HI|OU|TO|NY|NK|NG|UM|RY|XX)",
                  fullmatch=True),
    st.from_regex(r"[0-9][a-j][0-9][a-j]\+?|[A-Z]\*[0-9][a-j]", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(alphabet=_ALPHABET, max_size=40), _SHAPES))
def test_any_text_reads_without_crashing(text: str) -> None:
    """A mail is never quarantined because of how a move is written."""
    positions = [RULES.start(), after("7g7f", "3c3d", "8h2b+"),
                 RULES.load("4k4/9/9/9/9/4S4/9/9/4K4 b S 1")]
    record = RULES.extract_record(text)
    RULES.read_proposals(text, record)
    RULES.strip_proposals(text)
    for token in [*record.tokens, *text.split(), text]:
        RULES.token_key(token)
        RULES.looks_like_move(token)
        for pos in positions:
            try:
                ply = RULES.parse(pos, token)
            except MoveError:
                continue
            assert RULES.is_legal(pos, ply)


def test_every_form_the_bot_writes_reads_back_in_random_games() -> None:
    """What the bot writes (▲/△ with the origin where ambiguous, KIF, CSA, USI) reads
    back as the same move, and every form reduces to one of the ply's J1 keys."""
    rng = random.Random(16)
    for _ in range(8):
        pos = as_position(RULES.start())
        for _ in range(120):
            legal = sorted(m.usi() for m in pos.board.legal_moves)
            if not legal or RULES.outcome(pos) is not None:
                break
            ply = rng.choice(legal)
            forms = [RULES.format_ply(pos, ply, "ja"), notation.kif_move(pos, ply),
                     notation.csa_move(pos, ply), ply]
            keys = RULES.ply_keys(pos, ply)
            for form in forms:
                assert RULES.parse(pos, form) == ply, (form, ply, RULES.save(pos))
                assert RULES.token_key(form) in keys, (form, keys)
            RULES.play(pos, ply)


def as_position(position: object) -> Position:
    assert isinstance(position, Position)
    return position


def test_j1_a_move_without_its_number_is_answered_with_the_number_to_write() -> None:
    """INTERFACE "Shogi moves": the move with its number; a lone move without one is a
    sync error (nothing applied) whose reply shows the numbered line to send."""
    game = _stored("7g7f", "3c3d")
    verdict = decide(RULES, game, 0, "▲２六歩")
    assert verdict.kind == "sync_error" and verdict.new_plies == []
    assert "unnumbered" in verdict.notes and verdict.diff_ply == 2
    assert RULES.move_label(verdict.diff_ply, verdict.diff_token or "") == "3 ▲26歩"
    whole = decide(RULES, game, 0, "1 ▲７六歩 2 △３四歩 3 ▲２六歩")
    assert whole.new_plies == ["2g2f"]  # the whole record still works


def test_the_position_string_is_the_sfen_alone() -> None:
    """Issue 15: the SFEN a reader pastes into a program, not the saved keys with it."""
    saved = RULES.save(RULES.replay(["7g7f", "3c3d"]))
    assert "|" in saved
    assert RULES.position_text(saved) == (
        "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")


def test_ambiguous_moves_are_offered_and_written_in_players_words() -> None:
    """Issue 26 item 3: candidates as 右 左 上 引 寄 直 (KI2), not origin squares; the
    record keeps the player's own valid words; the origin form is still read."""
    from relaybot.core.game import MoveError, written_text
    from relaybot.games.shogi import RULES as SHOGI

    pos = SHOGI.load("4k4/9/9/9/9/9/9/9/3GG3K b - 1")  # golds on ６九 and ５九
    with pytest.raises(MoveError) as caught:
        SHOGI.parse(pos, "５八金")
    assert caught.value.candidates == ("５八金左", "５八金直")
    straight = SHOGI.parse(pos, "５八金直")
    assert SHOGI.parse(pos, "58金(59)") == straight == "5i5h"
    assert SHOGI.format_ply(pos, straight, "ja") == "▲５八金直"
    assert written_text(SHOGI, pos, straight, "５八金右", "ja") == "▲５八金右"  # theirs
    assert written_text(SHOGI, pos, straight, "58金(59)", "ja") == "▲５八金直"
    assert SHOGI.format_ply(pos, SHOGI.parse(pos, "５八金左"), "ja") == "▲５八金左"
    silvers = SHOGI.load("4k4/9/9/9/9/9/9/3S1S3/8K b - 1")  # ６八 and ４八 to ５七
    with pytest.raises(MoveError) as caught:
        SHOGI.parse(silvers, "５七銀")
    assert caught.value.candidates == ("５七銀右", "５七銀左")
    # 左上 reads as the standard says: of the pieces that move up, the left one
    three = SHOGI.load("4k4/9/9/9/9/9/9/3G5/3G1G2K b - 1")  # golds ６八, ６九, ４九 to ５八
    assert SHOGI.format_ply(three, SHOGI.parse(three, "５八金寄"), "ja") == "▲５八金寄"
    assert SHOGI.parse(three, "５八金左上") == "6i5h"
    assert SHOGI.format_ply(three, "6i5h", "ja") == "▲５八金左上"


# --- notation as players write it (the notation audit) -------------------------------

def test_kanji_files_and_the_open_triangle_read_as_usual() -> None:
    """Older books and vertical text write the file in kanji too (▲七六歩) and some mark
    gote ▽: both name the same moves, in a record and through the referee."""
    assert RULES.parse(RULES.start(), "▲七六歩") == "7g7f"
    assert RULES.parse(after("7g7f"), "▽三四歩") == "3c3d"
    assert RULES.parse(after("7g7f"), "▽３四歩") == "3c3d"
    with pytest.raises(MoveError) as err:  # ▽ is gote's mark: refused on sente's move
        RULES.parse(RULES.start(), "▽七六歩")
    assert err.value.why is not None and err.value.why.code == "shogi_turn"
    rec = RULES.extract_record("▲七六歩▽三四歩▲二二角成▽同　銀")
    assert rec.tokens == ["▲76歩", "△34歩", "▲22角成", "△同銀"]
    verdict = decide(RULES, _stored("7g7f", "3c3d", "8h2b+"), 1,
                     "1 ▲七六歩\n2 ▽三四歩\n3 ▲二二角成\n4 ▽同　銀")
    assert verdict.kind == "move" and verdict.new_plies == ["3a2b"]


def test_the_kana_a_casual_hand_adds_to_nari_and_uchi() -> None:
    """``２二角成り``, ``２二角不成り``, ``５五角打ち``: 成り and 打ち as a casual hand writes
    them name the same moves; prose such as 成り行き is no move."""
    pos = after("7g7f", "3c3d")
    assert RULES.parse(pos, "２二角成り") == "8h2b+"
    assert RULES.parse(pos, "２二角不成り") == "8h2b"
    assert RULES.extract_record("3 ▲２二角成り").tokens == ["▲22角成"]
    dropped = after("7g7f", "3c3d", "8h2b+", "3a2b")
    assert RULES.parse(dropped, "５五角打ち") == "B*5e"
    assert RULES.extract_record("成り行きに任せます").tokens == []


def test_kanji_numerals_in_prose_are_no_move() -> None:
    """Only two numerals followed by a piece are a square: a greeting with kanji numbers
    is no record."""
    assert RULES.extract_record("一二三四五六七八九段の皆さま").tokens == []
    assert RULES.extract_record("七六で歩を突きます").tokens == []


def test_j5_a_piece_on_the_board_that_cannot_get_there_is_not_said_not_in_hand() -> None:
    """J5: the reply says what was wrong. △同金 where no gold of gote reaches ２二 (and
    none is in hand) was answered "that piece is not in hand", about a drop the player
    never wrote; it names the square and the piece now."""
    pos = after("7g7f", "3c3d", "8h2b+")
    with pytest.raises(MoveError) as err:
        RULES.parse(pos, "△同金")
    assert err.value.why is not None and err.value.why.code == "shogi_none_reach"
    assert err.value.detail == "no 金 of yours can move to ２二"
    # a piece held in hand may still be what was meant: its drop's rule is named (二歩)
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.load("4k4/9/9/9/9/9/4P4/9/4K4 b P 1"), "５五歩")
    assert "二歩" in err.value.detail
    with pytest.raises(MoveError) as err:  # 打 written, nothing in hand: not in hand
        RULES.parse(RULES.start(), "５五角打")
    assert err.value.why is not None and err.value.why.code == "shogi_not_in_hand"


def test_j5_relative_words_that_fit_no_move_name_the_moves_there() -> None:
    """J5: ▲５八金引 when both golds go up: the reply names the moves there are, not a
    rule about drops."""
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "５八金引")
    assert err.value.why is not None and err.value.why.code == "shogi_relative_none"
    assert "５八金右、５八金左" in err.value.detail
    with pytest.raises(MoveError) as err:  # gote's silver goes up to ２二: 引 is wrong
        RULES.parse(after("7g7f", "3c3d", "8h2b+"), "△同銀引")
    assert "同　銀" in err.value.detail


def test_j5_a_kif_origin_that_names_no_such_move_says_why() -> None:
    """J5: ７八金(49) names the gold on ４九, which cannot reach ７八; (55) names an empty
    square; (69) with 銀 names a gold."""
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "７八金(49)")
    assert err.value.why is not None and err.value.why.code == "shogi_cannot_move"
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "７八金(55)")
    assert err.value.why is not None and err.value.why.code == "shogi_no_own_piece"
    with pytest.raises(MoveError) as err:
        RULES.parse(RULES.start(), "７八銀(69)")
    assert err.value.why is not None and err.value.why.code == "shogi_none_reach"
    assert RULES.parse(RULES.start(), "７八金(69)") == "6i7h"


def test_j1_two_different_moves_for_the_new_move_are_not_played() -> None:
    """J1: ``3 ▲２六歩``, a greeting, ``3 ▲６六歩``: two moves for move 3; nothing is
    applied and the reply names both."""
    verdict = decide(RULES, _stored("7g7f", "3c3d"), 0, "3 ▲２六歩\nよろしく\n3 ▲６六歩")
    assert verdict.kind == "sync_error" and "two_moves" in verdict.notes
    assert (verdict.diff_token, verdict.other_token) == ("▲２六歩", "▲６六歩")
    same = decide(RULES, _stored("7g7f", "3c3d"), 0, "3 ▲２六歩\nよろしく\n3 2g2f")
    assert same.kind == "move" and same.new_plies == ["2g2f"]


def test_j1_a_record_from_move_1_again_is_another_record() -> None:
    """J1: ``3 ▲２六歩`` above the whole record ending ``3 ▲６六歩``: two moves for
    move 3, nothing applied; the same record twice reads once."""
    from relaybot.core.reading import read_mail

    rec = RULES.extract_record("1 ▲７六歩 2 △３四歩\n\n1 ▲７六歩 2 △３四歩")
    assert rec.tokens == ["▲76歩", "△34歩"]
    text = "3 ▲２六歩\n\n1 ▲７六歩 2 △３四歩 3 ▲６六歩"
    (part,) = read_mail(text, named=["g"], rules_of={"g": RULES}).parts
    verdict = decide(RULES, _stored("7g7f", "3c3d"), 0, part.text, intent=part.intent)
    assert verdict.kind == "sync_error" and "two_moves" in verdict.notes


def test_a_pasted_kif_with_variations_is_its_main_line() -> None:
    """A KIF file from a program, header and 変化 (a variation of the new move) included,
    is its main line: the variation is analysis, neither the record nor a second move."""
    kif = ("# ---- Kifu for Windows V7 棋譜ファイル ----\n開始日時：2026/11/20\n"
           "手合割：平手\n先手：山田\n後手：鈴木\n手数----指手---------消費時間--\n"
           "   1 ７六歩(77)   ( 0:00/00:00:00)\n   2 ３四歩(33)   ( 0:00/00:00:00)\n"
           "*よろしく\n   3 ２二角成(88) ( 0:00/00:00:00)\n   4 同　銀(31)   ( 0:00/00:00:00)\n"
           "まで4手で中断\n\n変化：4手\n   4 同　飛(82)   ( 0:00/00:00:00)\n")
    verdict = decide(RULES, _stored("7g7f", "3c3d", "8h2b+"), 1, kif)
    assert verdict.kind == "move" and verdict.new_plies == ["3a2b"]
    assert RULES.extract_record("変化：4手\n   4 同　飛(82)").tokens == []


def test_j1_a_lone_move_that_is_also_the_first_move_asks_for_its_number() -> None:
    """J1: a lone ``▲７六歩`` (no number) after two moves matched the game's first move,
    and the reply said "at move 2 your mail has ''"; it is answered as any move without
    its number: the numbered line to send."""
    verdict = decide(RULES, _stored("7g7f", "3c3d"), 0, "▲７六歩")
    assert verdict.kind == "sync_error" and "unnumbered" in verdict.notes
    assert verdict.diff_ply == 2 and verdict.diff_token == "▲76歩"
