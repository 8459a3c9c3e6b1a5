"""Go as a game plug-in (issue 17): the rules on their own, then games through ``decide``.

Boards 19, 13 and 9; legality (occupied points, suicide, simple ko, positional superko as
an option); captures; handicap stones on the standard points with White first; komi as
SGF's KM; moves as members write them (INTERFACE "Go moves"); the record and the board a
member reads (J18); the end by resignation or by two passes and agreed results (J15);
the SGF record (J15, J19). Pure and fast.
"""

from __future__ import annotations

from datetime import date

import pytest
from sgfmill import sgf

from relaybot.core.game import (
    Declared,
    MoveError,
    Outcome,
    RecordInfo,
    Termination,
    start_of,
    waits_for_td,
)
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.games.go import notation
from relaybot.games.go.board import GoPosition, handicap_points
from relaybot.games.go.rules import RULES, as_game_rules
from relaybot.games.registry import rules_for


def stored(moves: str = "", options: dict[str, str] | None = None) -> StoredGame:
    """A stored game after the given tokens, keys as the store keeps them."""
    board = RULES.setup(options or {})
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    for token in moves.split():
        ply = RULES.parse(board, token)
        keys.append(RULES.ply_keys(board, ply))
        RULES.play(board, ply)
        plies.append(ply)
    return StoredGame(plies=tuple(plies), keys=tuple(keys), position=RULES.save(board))


def applied(game: StoredGame, verdict: Verdict) -> StoredGame:
    """The stored game after a verdict, as the service saves it."""
    assert verdict.position is not None
    return StoredGame(plies=(*game.plies, *verdict.new_plies),
                      keys=(*game.keys, *verdict.new_keys), position=verdict.position)


def test_go_is_a_registered_game_implementing_the_protocol() -> None:
    assert rules_for("go") is RULES
    assert as_game_rules(RULES).kind == "go"
    assert RULES.record_format == "sgf" and RULES.record_policy == "numbered"
    assert RULES.side_names("en") == ("Black", "White")
    assert RULES.side_names("ja") == ("黒", "白")
    assert [RULES.side_of(w) for w in ("black", "黒", "White", "白", "sente")] == [
        0, 0, 1, 1, None]


@pytest.mark.parametrize("token", ["Q16", "q16", "Ｑ１６", "pd", "B[pd]", ";B[pd]"])
def test_moves_as_members_write_them_are_one_ply(token: str) -> None:
    board = RULES.start()
    assert RULES.parse(board, token) == "q16"
    assert RULES.token_key(token) in RULES.ply_keys(board, "q16")


@pytest.mark.parametrize("token", ["pass", "PASS", "パス", "tt"])
def test_pass_in_english_japanese_and_sgf(token: str) -> None:
    assert RULES.parse(RULES.start(), token) == "pass"


def test_columns_skip_i_and_points_off_the_board_are_unreadable() -> None:
    board = RULES.start()
    assert RULES.parse(board, "J10") == "j10"  # J is the ninth column
    for token in ("I5", "U3", "Q20"):
        with pytest.raises(MoveError) as err:
            RULES.parse(board, token)
        assert err.value.kind == "unreadable"
    small = RULES.setup({"size": "9"})
    with pytest.raises(MoveError):
        RULES.parse(small, "K5")  # a 9x9 board has columns A-J
    with pytest.raises(MoveError):
        RULES.parse(small, "pd")
    assert RULES.parse(small, "ee") == "e5"  # tengen of 9x9


def test_an_occupied_point_is_illegal() -> None:
    board = RULES.start()
    RULES.play(board, "q16")
    with pytest.raises(MoveError) as err:
        RULES.parse(board, "Q16")
    assert err.value.kind == "illegal" and "occupied" in err.value.detail


def test_suicide_is_illegal() -> None:
    # White A2, B1 around the corner A1: Black A1 would have no liberty
    board = RULES.setup({"size": "9"})
    for ply in ("e5", "a2", "e6", "b1"):
        RULES.play(board, ply)
    with pytest.raises(MoveError) as err:
        RULES.parse(board, "A1")
    assert "suicide" in err.value.detail


def _ko_position() -> GoPosition:
    """A ko on 9x9: Black C5 D6 D4, White E6 E4 F5; White D5, then Black E5 takes it."""
    board = RULES.setup({"size": "9"})
    for ply in ("c5", "e6", "d6", "e4", "d4", "f5", "a1", "d5", "e5"):
        RULES.play(board, ply)
    return board


def test_simple_ko_may_not_be_retaken_at_once() -> None:
    board = _ko_position()
    assert RULES.stone_at(board, "de") is None  # D5 (SGF "de" on 9x9) was just taken
    with pytest.raises(MoveError) as err:
        RULES.parse(board, "D5")
    assert err.value.kind == "illegal" and "ko" in err.value.detail
    # a ko threat elsewhere, answered, then the retake is legal
    RULES.play(board, "h8")
    RULES.play(board, "h2")
    assert RULES.parse(board, "D5") == "d5"


def test_captures_are_counted_for_the_side_that_took_them() -> None:
    board = _ko_position()
    assert board.captures == [1, 0]  # Black took the White stone on D5
    assert "Captures: Black 1, White 0" in RULES.board_text(board, "en")
    assert "アゲハマ: 黒 1, 白 0" in RULES.board_text(board, "ja")


def test_positional_superko_refuses_a_repeated_whole_board() -> None:
    board = RULES.setup({"size": "9", "superko": "1"})
    seen = board.copy()
    # a real repetition needs a long cycle (triple ko); the rule itself is this: a move
    # whose whole board is in the game's history is refused, so the history is given
    # the board that E5 makes
    RULES.play(seen, "e5")
    board.history.add(seen.digest())
    with pytest.raises(MoveError) as err:
        RULES.parse(board, "E5")
    assert "superko" in err.value.detail
    plain = RULES.setup({"size": "9"})
    plain.history.add(seen.digest())
    assert RULES.parse(plain, "E5") == "e5"  # without the option only simple ko applies
    RULES.play(board, "pass")
    saved = RULES.save(board)
    assert "hist=" in saved and RULES.load(saved).history == board.history


@pytest.mark.parametrize(("size", "stones", "points"), [
    (19, 2, {"pd", "dp"}), (19, 4, {"pd", "dp", "pp", "dd"}),
    (19, 9, {"pd", "dp", "pp", "dd", "dj", "pj", "jd", "jp", "jj"}),
    (13, 5, {"jd", "dj", "jj", "dd", "gg"}), (9, 3, {"gc", "cg", "gg"}),
])
def test_handicap_stones_on_the_standard_points(size: int, stones: int,
                                                points: set[str]) -> None:
    assert set(handicap_points(size, stones)) == points
    board = RULES.setup({"size": str(size), "handicap": str(stones)})
    assert all(RULES.stone_at(board, p) == 0 for p in points)
    assert RULES.to_move(board) == 1  # White moves first in a handicap game
    assert board.komi == 0.0


def test_even_game_black_first_with_the_salons_komi() -> None:
    board = RULES.start()
    assert RULES.to_move(board) == 0 and board.komi == 5.5 and board.size == 19
    assert RULES.setup({"komi": "-0.5"}).komi == -0.5
    with pytest.raises(ValueError):
        RULES.setup({"handicap": "10"})
    with pytest.raises(ValueError):
        RULES.setup({"size": "15"})
    with pytest.raises(ValueError):
        RULES.setup({"komi": "6.3"})


def test_save_and_load_keep_everything() -> None:
    board = _ko_position()
    again = RULES.load(RULES.save(board))
    assert RULES.save(again) == RULES.save(board)
    assert again.ko == board.ko and again.captures == board.captures and again.size == 9
    assert start_of(RULES, RULES.save(board)).ply == 0  # the game's start from any position
    with pytest.raises(ValueError):
        RULES.load("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")


def test_the_board_marks_the_last_move_and_says_whose_turn() -> None:
    board = RULES.start()
    RULES.play(board, "q16")
    text = RULES.board_text(board, "en")
    assert "16  . . . + . . . . . + . . . . .(X). . .  16" in text
    assert text.splitlines()[0].split() == list("ABCDEFGHJKLMNOPQRST")
    assert "White to move" in text and "Komi: 5.5" in text
    assert "白の番" in RULES.board_text(board, "ja")
    assert RULES.board_svg(board).startswith("<svg")


def test_the_record_is_numbered_move_by_move() -> None:
    assert RULES.format_record(["q16", "d4", "pass"], "coord") == "1 Q16  2 D4  3 pass"
    assert RULES.move_label(46, "Q16") == "47 Q16" and RULES.move_number(46) == "move 47"
    assert RULES.move_number(46, "ja") == "47手目"
    assert RULES.format_stored([("q16", "Q16"), ("d4", "D4")], "coord") == "1 Q16  2 D4"


@pytest.mark.parametrize(("text", "winner", "margin", "written"), [
    ("B+3.5", 0, 3.5, "B+3.5"), ("w+r", 1, None, "W+R"), ("W+Resign", 1, None, "W+R"),
    ("jigo", None, 0.0, "jigo"), ("持碁", None, 0.0, "jigo"),
    ("黒3目半勝ち", 0, 3.5, "B+3.5"), ("白中押し勝ち", 1, None, "W+R"),
    ("白半目勝ち", 1, 0.5, "W+0.5"), ("黒12目勝ち", 0, 12.0, "B+12"), ("黒3目半", 0, 3.5, "B+3.5"),
])
def test_results_as_written_and_their_margins(text: str, winner: int | None,
                                              margin: float | None, written: str) -> None:
    outcome = RULES.parse_result(text, Termination.ADJUDICATION)
    assert outcome is not None
    assert (outcome.winner, outcome.margin) == (winner, margin)
    assert RULES.format_result(outcome) == written


def test_resignation_time_and_forfeit_results() -> None:
    assert RULES.format_result(Outcome.loss(Termination.RESIGNATION, 0)) == "W+R"
    assert RULES.format_result(Outcome.loss(Termination.RESIGNATION, 1)) == "B+R"
    assert RULES.format_result(Outcome.loss(Termination.TIME, 1)) == "B+T"
    assert RULES.format_result(Outcome.loss(Termination.FORFEIT, 0)) == "W+F"
    assert RULES.parse_result("B+35", "x") == Outcome("x", 0, margin=35.0)
    assert RULES.parse_result("1-0", "x") is None


@pytest.mark.parametrize("text", ["B+0", "W+0", "W+0.0", "黒0目勝ち"])
def test_r4_a_win_by_nothing_is_no_result(text: str) -> None:
    """A win by 0 points is no go result (the players' equal score is a jigo, 持碁): the
    TD's ``adjudicate ID W+0`` and a player's ``result B+0`` are refused, not stored as a
    win by nothing that would count in the salon's win rate."""
    assert RULES.parse_result(text, "x") is None


# --- games through decide -------------------------------------------------------------

def test_the_new_move_with_its_number_is_enough() -> None:
    game = stored("Q16 D4")
    verdict = decide(RULES, game, 0, "Hello!\n\n3 Q3\n\nregards")
    assert verdict.kind == "move" and verdict.new_plies == ["q3"]
    assert verdict.new_texts == ["Q3"]


def test_the_whole_record_in_mixed_styles_is_checked() -> None:
    game = stored("Q16 D4 Q3")
    text = "1 q16 2 dp\n3手目 pq　４ Ｄ１６\n"
    verdict = decide(RULES, game, 1, text)
    assert verdict.kind == "move" and verdict.new_plies == ["d16"], verdict
    assert "fullwidth" in verdict.notes


def test_a_colour_word_after_the_number_is_allowed() -> None:
    game = stored("Q16 D4")
    assert decide(RULES, game, 0, "3 黒 Q3").new_plies == ["q3"]
    assert decide(RULES, game, 0, "1 B Q16 2 W D4 3 B pq").new_plies == ["q3"]


def test_j1_a_record_that_disagrees_names_the_first_difference() -> None:
    game = stored("Q16 D4 Q3")
    verdict = decide(RULES, game, 1, "1 Q16\n2 D3\n3 Q3\n4 D16")
    assert verdict.kind == "sync_error" and verdict.diff_ply == 1
    assert verdict.diff_token == "D3"


def test_j1_a_wrong_number_is_a_sync_error() -> None:
    game = stored("Q16 D4 Q3")
    # the new move written as move 3 (taken already by Q3): the first difference is 3
    verdict = decide(RULES, game, 1, "3 D16")
    assert verdict.kind == "sync_error" and verdict.diff_ply == 2
    # a number past the game: the moves between are missing
    verdict = decide(RULES, game, 1, "6 D16")
    assert verdict.kind == "sync_error" and verdict.diff_ply == 3


def test_j21_an_illegal_move_says_why_and_costs_only_its_days() -> None:
    """The salon (seed 004) has no J5 penalty: the days until the correction are the
    sender's (J21), nothing more."""
    game = stored("Q16 D4")
    verdict = decide(RULES, game, 0, "3 D4")
    assert verdict.kind == "bad_move" and verdict.penalty_days == 0
    assert verdict.error is not None and "occupied" in verdict.error.detail


def test_white_moves_first_in_a_handicap_game() -> None:
    game = stored("", {"handicap": "2"})
    assert decide(RULES, game, 0, "1 R16").kind == "not_your_turn"
    verdict = decide(RULES, game, 1, "1 R16")
    assert verdict.kind == "move" and verdict.new_plies == ["r16"]


def test_j15_resignation_is_w_plus_r() -> None:
    verdict = decide(RULES, stored("Q16 D4"), 0, "投了")
    assert verdict.outcome is not None and RULES.format_result(verdict.outcome) == "W+R"


def _counting(options: dict[str, str] | None = None) -> StoredGame:
    return stored("Q16 D4 pass パス", options)


def test_after_two_passes_no_more_moves() -> None:
    verdict = decide(RULES, _counting(), 0, "5 Q3")
    assert verdict.kind == "bad_move" and verdict.error is not None
    assert "result" in verdict.error.detail


def test_after_two_passes_a_mail_asks_for_the_result_not_a_move() -> None:
    """The mails' "reply with your new move" is left out once both passed (no move is
    legal then); one pass is not enough."""
    assert RULES.states_result(_counting().position)
    assert not RULES.states_result(stored("Q16 D4 pass").position)
    assert "to state the result" not in RULES.final_board_text(_counting().position, "en")


def test_a_result_before_two_passes_is_refused() -> None:
    verdict = decide(RULES, stored("Q16 D4"), 0, "result B+3.5")
    assert verdict.kind == "bad_move" and verdict.outcome is None


def test_j15_agreed_results_end_the_game_with_the_margin() -> None:
    game = _counting()
    first = decide(RULES, game, 0, "result B+3.5")
    assert first.kind == "declared" and first.outcome is None
    assert isinstance(first.declared, Declared) and first.declared.stated == ("B+3.5", "")
    assert not first.declared.to_td and first.applies
    game = StoredGame(plies=game.plies, keys=game.keys, position=first.declared.position)
    assert RULES.to_move(game.position) == 1  # White states next
    second = decide(RULES, game, 1, "結果 黒3目半勝ち")
    assert second.outcome is not None and second.outcome.margin == 3.5
    assert RULES.format_result(second.outcome) == "B+3.5"


def test_either_player_may_state_the_result_first() -> None:
    """After two passes it is White's turn, but Black may state first; the statements
    agree whichever comes first, and a player who has stated waits for the other."""
    game = _counting()
    mover = RULES.to_move(game.position)
    first = decide(RULES, game, 1 - mover, "result W+2.5")
    assert first.kind == "declared" and first.declared is not None
    game = StoredGame(plies=game.plies, keys=game.keys, position=first.declared.position)
    assert RULES.to_move(game.position) == mover  # the mover still owes a statement
    again = decide(RULES, game, 1 - mover, "result W+3.5")
    assert again.kind == "not_your_turn"
    second = decide(RULES, game, mover, "結果 白2目半勝ち")
    assert second.outcome is not None and RULES.format_result(second.outcome) == "W+2.5"


def test_a_result_out_of_turn_before_the_passes_is_not_your_turn() -> None:
    game = stored("Q16 D4 pass")
    assert decide(RULES, game, 0, "result B+3.5").kind == "not_your_turn"


def test_j15_different_results_go_to_the_td() -> None:
    game = _counting()
    first = decide(RULES, game, 0, "result B+3.5")
    assert first.declared is not None
    game = StoredGame(plies=game.plies, keys=game.keys, position=first.declared.position)
    second = decide(RULES, game, 1, "result W+0.5")
    assert second.outcome is None and second.declared is not None
    assert second.declared.to_td and second.declared.stated == ("B+3.5", "W+0.5")
    # J11: from then on the game waits for the TD alone, not for a player's statement
    assert waits_for_td(RULES, second.declared.position)
    assert not waits_for_td(RULES, first.declared.position)  # one statement: White owes
    assert not waits_for_td(RULES, _counting().position)


def test_the_stated_results_are_read_back_from_the_position() -> None:
    """What each side stated after both passed stays in the position, Black's first, so
    a page can say who still owes a statement or that the TD decides; no statement
    before the passes, and a game without the hook states none."""
    from relaybot.core.game import stated_results

    game = _counting()
    assert stated_results(RULES, game.position) == ("", "")
    first = decide(RULES, game, 1, "result W+0.5")
    assert first.declared is not None
    assert stated_results(RULES, first.declared.position) == ("", "W+0.5")
    assert stated_results(object(), game.position) == ("", "")  # type: ignore[arg-type]


def test_an_unreadable_result_is_a_polite_error() -> None:
    verdict = decide(RULES, _counting(), 0, "result black wins")
    assert verdict.kind == "bad_move" and verdict.error is not None
    assert "B+3.5" in verdict.error.detail


def test_the_sgf_record_has_the_headers_and_komi_as_sgf_defines_it() -> None:
    board = RULES.setup({"size": "13", "handicap": "3", "komi": "-0.5"})
    plies = []
    for token in ("G7", "C3", "pass"):
        plies.append(RULES.parse(board, token))
        RULES.play(board, plies[-1])
    info = RecordInfo(event="Salon", site="PAA", start=date(2026, 3, 2), round="-",
                      players=("Kuro, Taro", "Shiro, Hanako"), ratings=(93, 115),
                      result="W+R", end=None, moves=[(p, "2026-03-02") for p in plies],
                      position=RULES.save(board))
    game = sgf.Sgf_game.from_string(RULES.write_record(info))
    root = game.get_root()
    # family first without a comma (issue 26): SGF readers show the name as it is
    assert root.get("PB") == "Kuro Taro" and root.get("PW") == "Shiro Hanako"
    assert root.get("BR") == "3k" and root.get("WR") == "1k"
    assert root.get("HA") == 3 and game.get_komi() == -0.5 and root.get("RE") == "W+R"
    assert root.get("DT") == "2026-03-02" and game.get_size() == 13
    assert len(root.get("AB")) == 3
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert moves == [("w", (6, 6)), ("b", (2, 2)), ("w", None)]


def test_a_game_keyword_with_words_after_it_reaches_declare() -> None:
    """``result B+3.5`` is the game keyword ``result`` with its words (read_intent)."""
    from relaybot.core.intent import read_intent

    intent = read_intent("Thanks!\nresult B+3.5\n", RULES.keywords)
    assert intent.declared == "result b+3.5" and intent.keyword_lines == {1}
    assert read_intent("結果 黒3目半勝ち", RULES.keywords).declared == "result 黒3目半勝ち"
    assert read_intent("result B+3.5", {}).declared is None  # chess has no such keyword


def test_j1_a_move_without_its_number_is_answered_with_the_number_to_write() -> None:
    """INTERFACE: the new move with its number; a bare ``D4`` line is not played: it is
    a sync error (nothing applied) whose reply shows the numbered line to send, as in
    shogi (it was "no move found", which sent the player looking for what was wrong).
    Only a coordinate alone on its line counts: two such lines, or SGF letters alone
    (English words), stay no record."""
    verdict = decide(RULES, stored("Q16"), 1, "D4\n\nthanks")
    assert verdict.kind == "sync_error" and verdict.new_plies == []
    assert "unnumbered" in verdict.notes and verdict.diff_ply == 1
    assert RULES.move_label(verdict.diff_ply, verdict.diff_token or "") == "2 D4"
    assert decide(RULES, stored("Q16"), 1, "D4\nD16").kind == "no_move"
    assert decide(RULES, stored("Q16"), 1, "ok\n\nthanks").kind == "no_move"
    first = decide(RULES, stored(), 0, "Hello\n\nQ16\n\nTaro")  # move 1 needs no number
    assert first.kind == "move" and first.new_plies == ["q16"]


def test_j16_a_go_proposal_point_that_does_not_read_refuses_the_line_naming_it() -> None:
    """``if 4 D16 then 5 R14x``: the answer is named as unreadable (the move stands), not
    dropped so that the line reads as a predicted move with "no answer"; words around
    the moves (とします, please) are still no moves."""
    verdict = decide(RULES, stored("Q16 D4"), 0, "3 Q3\nif 4 D16 then 5 R14x\n")
    assert verdict.kind == "move" and verdict.new_plies == ["q3"]
    assert verdict.new_conditionals == []
    assert [(r.reason, r.token) for r in verdict.rejected] == [("unreadable", "R14x")]
    fine = decide(RULES, stored("Q16 D4"), 0, "3 Q3\nもし 4 D16 なら 5 R14 とします please\n")
    assert [c.plies for c in fine.new_conditionals] == [("d16", "r14")] and not fine.rejected


def test_j16_conditional_moves_in_go() -> None:
    """``if 4 D16 then 5 R14`` with a move: checked from the position it assumes."""
    verdict = decide(RULES, stored("Q16 D4"), 0, "3 Q3\nif 4 D16 then 5 R14\n")
    assert verdict.kind == "move" and verdict.new_plies == ["q3"]
    assert [c.plies for c in verdict.new_conditionals] == [("d16", "r14")]
    game = applied(stored("Q16 D4"), verdict)
    text = RULES.format_proposal(RULES.load(game.position), ["d16", "r14"], "coord", lang="ja")
    assert text == "もし 4 D16 なら 5 R14"


def test_a_whole_game_pasted_as_sgf_is_the_record_from_move_1() -> None:
    """The main line (first variation at each branch) of a pasted SGF; quoted ones are
    not read."""
    text = ("Here is our game:\n(;GM[1]FF[4]SZ[19]PB[a]PW[b]\n;B[pd];W[dp]\n"
            ";B[pq](;W[dd];B[qk])(;W[cc]))\n\nthanks\n> (;B[aa])")
    record = RULES.extract_record(text)
    assert record.tokens == ["B[pd]", "W[dp]", "B[pq]", "W[dd]", "B[qk]"]
    assert (record.first_ply, record.first_line, record.last_line) == (0, 1, 3)
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, text)
    assert verdict.kind == "move" and verdict.new_plies == ["r9"]
    assert RULES.extract_record("> (;B[pd])").tokens == []


def test_go_shows_no_position_string() -> None:
    """Issue 15: go has no standard position string (the SGF record is attached); the
    saved text is the bot's own and is never shown to a reader."""
    assert RULES.position_text(RULES.save(RULES.start())) == ""


def test_a_9x9_text_board_marks_the_five_star_points_the_picture_shows() -> None:
    text = RULES.board_text(RULES.setup({"size": "9"}), "en")
    assert sum(line.count("+") for line in text.splitlines()[:11]) == 5


@pytest.mark.parametrize("text", ["3 Q3\ndraw?", "ドロー?", "draw", "3 Q3\nドロー"])
def test_go_has_no_draw_offers_and_nothing_of_such_a_mail_is_applied(text: str) -> None:
    """A game of go ends by resignation or by both passing and stating the result (a jigo
    too): a draw offered or accepted is refused whole, its move not relayed with an
    offer the opponent could never accept; chess still takes the offer with the move."""
    verdict = decide(RULES, stored("Q16 D4"), 0, text)
    assert verdict.kind == "no_draw_offers" and not verdict.applies
    assert verdict.new_plies == [] and verdict.draw_offer_by is None
    assert rules_for("chess").rule_set.draw_offers and not RULES.rule_set.draw_offers


def test_pass_alone_on_a_line_is_a_keyword_move() -> None:
    """INTERFACE: go's ``pass`` / ``パス`` is a keyword alone on a line: the next move
    with no number. Only alone, unquoted and once; a numbered pass stays a record."""
    from relaybot.games.go.notation import extract

    bare = extract("Hello\n\nパス\n\nThanks")
    assert (bare.tokens, bare.next_move, bare.first_line) == (["パス"], True, 2)
    assert extract("PASS.").tokens == ["PASS"] and extract("ＰＡＳＳ").next_move
    assert extract("> pass").tokens == []  # quoted
    assert extract("pass\npass").tokens == []  # twice: no one move
    assert extract("I will pass on that").tokens == []  # prose
    numbered = extract("47 pass")
    assert (numbered.tokens, numbered.first_ply, numbered.next_move) == (["pass"], 46, False)


def test_a_result_margin_is_whole_points_or_a_half() -> None:
    """A stated or adjudicated go result counts whole points and komi's half: B+3.7 is
    no result (and so refused), B+3.5 and W+12 are."""
    from relaybot.games.go.notation import read_result

    assert read_result("B+3.7") is None and read_result("W+0.25") is None
    assert read_result("B+3.5") is not None and read_result("W+12") is not None


@pytest.mark.parametrize(("text", "how", "written", "ja"), [
    ("W+F", Termination.FORFEIT, "W+F", "白不戦勝"),
    ("白不戦勝", Termination.FORFEIT, "W+F", "白不戦勝"),
    ("B+T", Termination.TIME, "B+T", "黒時間切れ勝ち"),
    ("B+R", Termination.ADJUDICATION, "B+R", "黒中押し勝ち"),
    ("W+2.5", Termination.ADJUDICATION, "W+2.5", "白2目半勝ち"),
])
def test_j14_an_adjudicated_result_keeps_how_it_was_won(
        text: str, how: Termination, written: str, ja: str) -> None:
    """A TD's ``adjudicate ID W+F`` is a win by forfeit in the record (SGF ``RE[W+F]``),
    not a resignation nobody made; the Japanese words written for it read back."""
    outcome = RULES.parse_result(text, Termination.ADJUDICATION)
    assert outcome is not None and outcome.termination == how
    assert RULES.format_result(outcome) == written
    assert RULES.result_text_words(written, "ja") == ja


def test_an_unreadable_point_is_answered_with_examples_on_the_games_board() -> None:
    """A 9x9 player who writes something that is no point is shown G7 and gc, points of
    their board, not 19x19's Q16 and pd."""
    with pytest.raises(MoveError) as small:
        RULES.parse(RULES.setup({"size": "9"}), "hello")
    assert "G7 (columns A-J without I)" in str(small.value) and "(gc)" in str(small.value)
    with pytest.raises(MoveError) as full:
        RULES.parse(RULES.start(), "hello")
    assert "Q16 (columns A-T without I)" in str(full.value)


# --- notation as players write it (the notation audit) -------------------------------

@pytest.mark.parametrize("text", ["5 ●R14", "5 黒R14", "5 R14。", "第5手 R14", "5手目 黒 R14",
                                  "黒5 R14"])
def test_a_glued_colour_a_full_stop_and_dai_n_te_are_the_move(text: str) -> None:
    """Japanese go mails write the colour against the point (●R14, 黒R14), end with 。,
    number the move 第5手 or name it as commentary does (黒5): each is the move, where
    the mail found no move before."""
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, text)
    assert verdict.kind == "move" and verdict.new_plies == ["r14"]


def test_j21_a_point_in_the_column_i_is_refused_with_the_reason() -> None:
    """J21: ``47 I5`` is plainly meant as a point; the reply says the columns skip I,
    where it said no move was found."""
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, "5 I5")
    assert verdict.kind == "bad_move" and verdict.error is not None
    assert verdict.error.why is not None and verdict.error.why.code == "go_no_vertex"
    assert "skip I" in verdict.error.detail


@pytest.mark.parametrize("text", ["Result: B+3.5", "result: B+3.5", "結果：黒3目半勝ち",
                                  "結果: 黒3目半勝ち", "結果 黒三目半勝ち"])
def test_j15_a_result_after_a_colon_or_in_kanji_numerals(text: str) -> None:
    """J15: ``Result: B+3.5`` (a form's label) and ``黒三目半勝ち`` (kanji numerals, as
    Japanese results are often written) state B+3.5; they were not read at all."""
    verdict = decide(RULES, _counting(), 0, text)
    assert verdict.kind == "declared" and isinstance(verdict.declared, Declared)
    assert verdict.declared.stated == ("B+3.5", "")


@pytest.mark.parametrize(("text", "stated"), [
    ("B+3½", "B+3.5"), ("W+½", "W+0.5"), ("B+11½", "B+11.5"), ("B+1½", "B+1.5"),
    ("Ｂ＋３½", "B+3.5"), ("B+3 ½", "B+3.5"), ("黒3½目勝ち", "B+3.5"), ("白½目勝ち", "W+0.5"),
    ("黒３½目勝ち", "B+3.5"), ("黒3.5目勝ち", "B+3.5")])
def test_a_half_written_as_a_fraction_reads_as_point_five(text: str, stated: str) -> None:
    """``B+3½`` and ``W+½`` (and their full-width and Japanese forms) state B+3.5 and
    W+0.5, as ``B+3.5`` and ``黒3目半勝ち`` do; they were not read at all. As a keyword's
    words (NFKC: ``3½`` is ``31⁄2``) and as the TD's RESULT words alike."""
    form = notation.read_result(text)
    assert form is not None
    assert RULES.format_result(Outcome("counted", form.winner, margin=form.margin)) == stated
    word = "結果" if "目" in text else "result"
    verdict = decide(RULES, _counting(), 0, f"{word} {text}")
    assert verdict.kind == "declared" and isinstance(verdict.declared, Declared)
    assert verdict.declared.stated == (stated, "")
    outcome = RULES.parse_result(text, "adjudication")
    assert outcome is not None and RULES.format_result(outcome) == stated


@pytest.mark.parametrize("text", ["B+31/2", "B+½½", "黒3.5目半勝ち", "½", "B+3⅓"])
def test_a_half_that_is_no_clear_margin_is_no_result(text: str) -> None:
    """``31/2`` could be 31 halves or 3½; ``3.5目半`` names two halves: neither is read."""
    assert notation.read_result(text) is None


@pytest.mark.parametrize(("text", "margin"), [("白十目半勝ち", 10.5), ("白十二目勝ち", 12.0),
                                              ("黒二十五目半勝ち", 25.5), ("黒二十目勝ち", 20.0)])
def test_kanji_margins_read_as_numbers(text: str, margin: float) -> None:
    stated = notation.read_result(text)
    assert stated is not None and stated.margin == margin


@pytest.mark.parametrize("text", ["黒十十目勝ち", "黒一二目勝ち", "黒百目勝ち"])
def test_kanji_that_are_no_number_are_no_result(text: str) -> None:
    assert notation.read_result(text) is None


def test_j1_two_different_moves_for_the_new_move_are_not_played() -> None:
    """J1: ``5 R14``, a greeting, ``5 R10``: the mail names two moves for move 5; the
    first was played and the second ignored. Nothing is applied now; the same move twice
    is still the move."""
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, "5 R14\nよろしく\n5 R10")
    assert verdict.kind == "sync_error" and "two_moves" in verdict.notes
    assert (verdict.diff_token, verdict.other_token) == ("R14", "R10")
    assert not verdict.new_plies
    same = decide(RULES, stored("Q16 D4 Q3 D16"), 0, "5 R14\nよろしく\n5 qf")
    assert same.kind == "move" and same.new_plies == ["r14"]


def test_j1_a_new_move_above_a_whole_record_that_ends_otherwise_is_not_played() -> None:
    """J1: ``5 R14`` above the whole record ending ``5 R10`` (the record from move 1 is
    another record, not more moves of the first): two moves for move 5, nothing applied."""
    from relaybot.core.reading import read_mail

    assert notation.extract("1 Q16 2 D4\n\n1 Q16 2 D4").tokens == ["Q16", "D4"]
    text = "5 R14\n\n1 Q16 2 D4 3 Q3 4 D16 5 R10"
    (part,) = read_mail(text, named=["g"], rules_of={"g": RULES}).parts
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, part.text, intent=part.intent)
    assert verdict.kind == "sync_error" and "two_moves" in verdict.notes


def test_sgf_comments_and_properties_never_add_moves_or_branches() -> None:
    """A pasted SGF from a program carries comments: a move or a bracket inside
    ``C[...]`` (escaped ``\\]`` too) is text, not a move or a variation. The comment's
    ``(`` had made the reader skip the main line's own branch (the second variation was
    read), and its ``;W[aa]`` was read as a move."""
    game = stored("Q16 D4 Q3 D16")
    for pasted in (
            "(;GM[1]FF[4]SZ[19]C[a (long) game];B[pd];W[dp];B[pq];W[dd](;B[qf])(;B[qk]))",
            "(;GM[1]FF[4]SZ[19]PB[Yamada]\n;B[pd]C[Opening (my favourite) ;W[aa] here]\n"
            ";W[dp];B[pq];W[dd];B[qf])",
            "(;GM[1]FF[4]SZ[19]C[me vs you\\] ;B[aa]];B[pd];W[dp];B[pq];W[dd];B[qf])"):
        verdict = decide(RULES, game, 0, pasted)
        assert verdict.kind == "move" and verdict.new_plies == ["r14"], pasted
    passes = notation.extract("(;SZ[19];B[pd];W[];B[tt])")
    assert passes.tokens == ["B[pd]", "W[]", "B[tt]"]


@pytest.mark.parametrize("word", ["ok", "go", "so"])
def test_a_word_of_two_letters_after_the_move_is_no_sgf_point(word: str) -> None:
    """``5 R14 ok``: two bare letters are an SGF point only right after a move number
    (``5 pd``); after a move they are a word, and the line is no record. It was read as a
    second move ("more than one new move"); the reply now quotes the line instead."""
    verdict = decide(RULES, stored("Q16 D4 Q3 D16"), 0, f"5 R14 {word}")
    assert verdict.kind == "no_move" and verdict.unread_line == f"5 R14 {word}"
    assert notation.extract("1 pd 2 B dd 3.pq").tokens == ["pd", "dd", "pq"]


@pytest.mark.parametrize(("komi", "why"), [
    ("1000", "more than a 19x19 board's 361 points"),  # 6.5 typed without its point
    ("-400", "more than a 19x19 board's 361 points"),
    ("inf", "a number of points"),
    ("nan", "a number of points"),
    ("6.25", "a whole or half point"),
])
def test_a_komi_no_game_could_use_is_refused(komi: str, why: str) -> None:
    with pytest.raises(ValueError) as err:
        RULES.setup({"komi": komi})
    assert why in str(err.value)
    assert RULES.setup({"komi": "-7.5"}).komi == -7.5  # reverse komi stays possible
    with pytest.raises(ValueError):
        RULES.setup({"size": "9", "komi": "82"})
