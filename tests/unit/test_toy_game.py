"""The game seam carries a game that is not chess (issue 11, item 7).

Tic-tac-toe (``tests/toygame.py``) is registered through the registry and fetched back
with ``rules_for("toy")``; the pure referee ``decide`` and the conditional moves
(``relaybot.core.conditionals``) then run it end to end: J1 (whole game, incremental
check, sync errors), J2 (lenient spelling), J5 (bad moves, 5 days), J15 (end of game:
board, resignation, draw agreement) and J16 (conditional moves). Pure and fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from relaybot.core.conditionals import (
    CONTRADICTION_PENALTY_DAYS,
    format_conditional,
    validate,
)
from relaybot.core.game import GameRules, MoveError, Outcome, RecordInfo, Termination
from relaybot.core.referee import PENALTY_DAYS, StoredGame, Verdict, decide
from relaybot.games.registry import kinds, register, rules_for, unregister
from tests.toygame import FULL_BOARD, RULES, THREE_IN_A_ROW, ToyBoard, ToyRules, as_game_rules


@pytest.fixture
def toy() -> Iterator[GameRules]:
    """The toy game, registered for one test and fetched back by its kind."""
    register(as_game_rules(RULES))
    try:
        yield rules_for("toy")
    finally:
        unregister("toy")


def stored(rules: GameRules, moves: str = "") -> StoredGame:
    """A stored game after the given moves, keys as the store keeps them."""
    board = rules.start()
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    for token in moves.split():
        ply = rules.parse(board, token)
        keys.append(rules.ply_keys(board, ply))
        rules.play(board, ply)
        plies.append(ply)
    return StoredGame(plies=tuple(plies), keys=tuple(keys), position=rules.save(board))


def applied(game: StoredGame, verdict: Verdict) -> StoredGame:
    """The stored game after a verdict, as the service would save it."""
    assert verdict.position is not None
    return StoredGame(plies=(*game.plies, *verdict.new_plies),
                      keys=(*game.keys, *verdict.new_keys), position=verdict.position,
                      draw_offer_by=verdict.draw_offer_by)


def result(rules: GameRules, verdict: Verdict) -> str | None:
    return rules.format_result(verdict.outcome) if verdict.outcome is not None else None


# --- the registry --------------------------------------------------------------------


def test_registry_hands_back_the_registered_toy_and_lists_it(toy: GameRules) -> None:
    assert toy is RULES
    assert toy.kind == "toy"
    assert "toy" in kinds()
    assert kinds()[0] == "chess"  # built-in games first


def test_unregister_forgets_the_toy() -> None:
    register(RULES)
    unregister("toy")
    assert "toy" not in kinds()
    with pytest.raises(ValueError, match="toy"):
        rules_for("toy")


def test_unknown_kind_is_a_value_error_naming_the_known_kinds(toy: GameRules) -> None:
    with pytest.raises(ValueError) as info:
        rules_for("xiangqi")
    message = str(info.value)
    assert "'xiangqi'" in message
    assert "chess" in message and "toy" in message


def test_the_toy_implements_every_member_of_the_protocol() -> None:
    members = {name for name in vars(GameRules)
               if not name.startswith("_")} | set(GameRules.__annotations__)
    missing = {name for name in members if not hasattr(ToyRules, name)}
    assert not missing
    assert {"parse", "write_record", "read_proposals", "kind"} <= members


# --- the toy on its own ----------------------------------------------------------------


def test_j2_the_toy_reads_a_square_in_any_spelling(toy: GameRules) -> None:
    board = toy.start()
    for token in ("b2", "B2", "Ｂ２", "b二", " ｂ2 "):
        assert toy.parse(board, token) == "b2"
        assert toy.token_key(token) in toy.ply_keys(board, "b2")
    assert toy.looks_like_move("Ｃ３") and not toy.looks_like_move("hello")


def test_positions_save_and_load_with_the_side_to_move(toy: GameRules) -> None:
    board = toy.replay(["b2", "a1", "c3"])
    saved = toy.save(board)
    assert saved == "O...X...X O"
    again = toy.load(saved)
    assert isinstance(again, ToyBoard) and again == board
    assert toy.to_move(saved) == toy.to_move(board) == 1
    assert toy.ply_index(board) == 3
    copy = toy.copy(board)
    toy.play(copy, "a2")
    assert toy.save(board) == saved  # the copy is independent
    with pytest.raises(ValueError):
        toy.load("XX....... O")  # X cannot have two marks to O's none with O to move
    with pytest.raises(ValueError):
        toy.play(board, "b2")


def test_results_round_trip_through_the_toys_own_strings(toy: GameRules) -> None:
    cases = {
        "X+": Outcome.win("three_in_a_row", 0),
        "O+": Outcome.win("three_in_a_row", 1),
        "draw": Outcome.draw("full_board"),
        "*": Outcome("withdrawal_void", void=True),
        "-": Outcome("forfeit", both_lose=True),
    }
    for text, outcome in cases.items():
        assert toy.format_result(outcome) == text
        assert toy.parse_result(text, outcome.termination) == outcome
    assert toy.parse_result("1-0", "adjudication") is None  # chess's strings mean nothing here


def test_sides_labels_and_board(toy: GameRules) -> None:
    assert toy.side_names("en") == ("X", "O")
    assert toy.side_names("ja") == ("先手", "後手")
    assert [toy.side_of(w) for w in ("x", "×", "先手", "O", "○", "後手", "white")] == [
        0, 0, 0, 1, 1, 1, None]
    assert toy.move_label(4, "b2") == "3. b2"
    assert toy.move_label(3, "a1") == "2... a1"
    assert toy.format_record(["b2", "a1", "c3"], "san") == "1. b2 a1 2. c3"
    assert toy.format_stored([("b2", "b2"), ("a1", "")], "san") == "1. b2 a1"
    assert toy.stored_move_text("c3", "c3", "san") == "c3"
    board = toy.replay(["b2", "a1"])
    assert toy.board_text(board, "en") == "3 . . .\n2 . X .\n1 O . .\n  a b c\nX to move"
    assert toy.board_text(toy.save(board), "ja").endswith("先手の番")


def test_j15_the_record_file_is_the_toys_own(toy: GameRules) -> None:
    info = RecordInfo(
        event="Toy cup", site="relaybot", start=date(2026, 1, 10), round="-",
        players=("Hayakawa, Satoru", "Horie, Takahiro"), ratings=(1200, None),
        result="X+", end=date(2026, 1, 14),
        moves=[("b2", "2026-01-10"), ("a1", "2026-01-11"), ("c1", "2026-01-12"),
               ("b1", "2026-01-13"), ("a3", "2026-01-14")],
    )
    text = toy.write_record(info)
    assert toy.record_format == "ttt"
    assert '[X "Hayakawa, Satoru"]' in text and '[ORating "-"]' in text
    assert '[Result "X+"]' in text and '[EndDate "2026-01-14"]' in text
    assert text.rstrip().endswith(
        "1. b2 {2026-01-10} a1 {2026-01-11} 2. c1 {2026-01-12} b1 {2026-01-13} "
        "3. a3 {2026-01-14} X+")


def test_the_record_is_found_from_move_1_among_prose(toy: GameRules) -> None:
    text = "Hello!\n> 1. b2 quoted\n1. b2 a1\n\n2. c3\nthanks, see you\n3. a3"
    record = toy.extract_record(text)
    assert record.tokens == ["b2", "a1", "c3"]
    assert (record.first_line, record.last_line) == (2, 4)
    assert toy.extract_record("1. b2 a1 2. c3 X+").result == "X+"
    assert toy.extract_record("1. b2 a1 2. c3\nX+").result == "X+"
    assert toy.extract_record("1. b2 X+ a1").result is None  # only a trailing result counts
    assert toy.extract_record("no moves here").tokens == []


# --- the referee with the toy ------------------------------------------------------------


def test_first_move_applied(toy: GameRules) -> None:
    v = decide(toy, stored(toy), 0, "Hello!\n\n1. b2\n\nRegards")
    assert v.kind == "move"
    assert v.new_plies == ["b2"] and v.new_texts == ["b2"]
    assert v.position == "....X.... O"
    assert v.outcome is None


def test_j1_j2_whole_record_in_other_spellings_is_checked_incrementally(toy: GameRules) -> None:
    """J1: the earlier moves are compared by key; only the new ply is parsed and played."""

    class Counting(ToyRules):
        def __init__(self) -> None:
            self.parsed: list[str] = []
            self.played: list[str] = []

        def parse(self, position: object, token: str, letters: str = "en") -> str:
            self.parsed.append(token)
            return super().parse(position, token, letters)

        def play(self, position: object, ply: str) -> None:
            self.played.append(ply)
            super().play(position, ply)

    game = stored(toy, "b2 a1 c1 a3")
    counting = Counting()
    v = decide(counting, game, 0, "1. Ｂ２ ａ１\n2. C1 a三\n3. a2")
    assert v.kind == "move"
    assert v.new_plies == ["a2"]
    assert "fullwidth" in v.notes  # J2: read, and the reply says so
    assert counting.parsed == ["a2"] and counting.played == ["a2"]


def test_j1_sync_error_names_the_first_differing_ply(toy: GameRules) -> None:
    game = stored(toy, "b2 a1 c1")
    v = decide(toy, game, 1, "1. b2 a2 2. c1 a3")
    assert v.kind == "sync_error"
    assert v.diff_ply == 1 and v.diff_token == "a2"
    assert toy.move_label(v.diff_ply, v.diff_token) == "1... a2"
    assert not v.new_plies and not v.applies


def test_j1_a_record_not_from_move_1_is_a_sync_error(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1 c1"), 1, "2... a3")
    assert v.kind == "sync_error"
    assert v.diff_ply == 0


def test_j5_occupied_square_is_a_bad_move_with_five_days(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1"), 0, "1. b2 a1 2. a1")
    assert v.kind == "bad_move"
    assert isinstance(v.error, MoveError) and v.error.kind == "illegal"
    assert "taken" in v.error.detail
    assert v.penalty_days == PENALTY_DAYS == 5
    assert not v.new_plies and not v.applies


def test_j5_a_square_off_the_board_is_unreadable(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1"), 0, "1. b2 a1 2. d4")
    assert v.kind == "bad_move"
    assert v.error is not None and v.error.kind == "unreadable"
    assert v.penalty_days == PENALTY_DAYS


def test_not_your_turn(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2"), 0, "1. b2 a1")
    assert v.kind == "not_your_turn"
    assert not v.applies


def test_j15_resignation_gives_the_opponent_the_win(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1 c1"), 1, "投了")
    assert v.kind == "resign"
    assert v.outcome == Outcome.loss(Termination.RESIGNATION, 1)
    assert v.outcome is not None and v.outcome.winner == 0
    assert result(toy, v) == "X+"


def test_j15_three_in_a_row_ends_the_game(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1 c1 b1"), 0, "1. b2 a1 2. c1 b1 3. a3")
    assert v.kind == "move" and v.new_plies == ["a3"]
    assert v.outcome == Outcome.win(THREE_IN_A_ROW, 0)
    assert result(toy, v) == "X+"
    over = applied(stored(toy, "b2 a1 c1 b1"), v)
    assert decide(toy, StoredGame(over.plies, over.keys, over.position, active=False), 1,
                  "1. b2 a1 2. c1 b1 3. a3 c3").kind == "game_over"


def test_j15_a_full_board_is_a_draw(toy: GameRules) -> None:
    game = stored(toy, "a3 b2 c3 b3 b1 c2 a2 a1")
    v = decide(toy, game, 0, "1. a3 b2 2. c3 b3 3. b1 c2 4. a2 a1 5. c1")
    assert v.kind == "move"
    assert v.outcome == Outcome.draw(FULL_BOARD)
    assert result(toy, v) == "draw"


def test_j15_draw_offer_then_acceptance(toy: GameRules) -> None:
    game = stored(toy, "b2 a1")
    offer = decide(toy, game, 0, "1. b2 a1 2. c3\ndraw?")
    assert offer.kind == "move" and offer.draw_offer_by == 0
    game = applied(game, offer)
    accept = decide(toy, game, 1, "1. b2 a1 2. c3\nドロー")
    assert accept.kind == "draw_agreed"
    assert accept.outcome == Outcome.draw(Termination.AGREEMENT)
    assert result(toy, accept) == "draw"


def test_j15_draw_offer_without_a_move_and_no_claim(toy: GameRules) -> None:
    v = decide(toy, stored(toy, "b2 a1"), 0, "draw?")
    assert v.kind == "draw_offer" and v.draw_offer_by == 0
    assert decide(toy, stored(toy, "b2 a1"), 0, "draw").kind == "draw_offer"  # nothing to claim


def test_j16_conditional_proposal_validated_then_bound_answer_played_by_the_bot(
    toy: GameRules,
) -> None:
    """J16: X proposes with 2. c1; O plays the predicted 2... a3; the bot plays 3. a2."""
    game = stored(toy, "b2 a1")
    move = decide(toy, game, 0, "1. b2 a1 2. c1\nif 2... a3 then 3. a2\nもし 2... c3 なら 3. a3")
    assert move.kind == "move" and move.new_plies == ["c1"]
    assert [c.plies for c in move.new_conditionals] == [("a3", "a2"), ("c3", "a3")]
    assert not move.rejected
    game = applied(game, move)
    assert format_conditional(toy, toy.load(game.position), move.new_conditionals[0]) == (
        "if 2... a3 then 3. a2")

    reply = decide(toy, game, 1, "1. b2 a1 2. c1 a3", conditionals=move.new_conditionals)
    assert reply.kind == "move"
    assert reply.new_plies == ["a3", "a2"]
    assert reply.auto == [False, True]  # the bound answer was played by the bot
    assert reply.sender_to_move  # O moves again
    assert "bound answer played by the bot" in reply.notes
    assert reply.proposals_cleared and reply.outcome is None
    assert reply.position == "O.XXX.O.. O"


def test_j16_the_bound_answer_may_win_the_game(toy: GameRules) -> None:
    game = stored(toy, "b2 a1")
    move = decide(toy, game, 0, "1. b2 a1 2. c1\nif 2... c3 then 3. a3")
    game = applied(game, move)
    reply = decide(toy, game, 1, "1. b2 a1 2. c1 c3", conditionals=move.new_conditionals)
    assert reply.new_plies == ["c3", "a3"] and reply.auto == [False, True]
    assert not reply.sender_to_move
    assert reply.outcome == Outcome.win(THREE_IN_A_ROW, 0)


def test_j16_contradicting_a_bound_answer_is_refused_with_five_days(toy: GameRules) -> None:
    game = stored(toy, "b2 a1")
    move = decide(toy, game, 0, "1. b2 a1 2. c1\nif 2... a3 then 3. a2")
    game = applied(game, move)
    reply = decide(toy, game, 1, "1. b2 a1 2. c1 a3 3. c3",
                   conditionals=move.new_conditionals)
    assert reply.kind == "contradiction"
    assert reply.penalty_days == CONTRADICTION_PENALTY_DAYS == 5
    assert reply.expected == "a2" and reply.diff_token == "c3"
    assert not reply.new_plies


def test_j16_an_unpredicted_reply_is_an_ordinary_move(toy: GameRules) -> None:
    game = stored(toy, "b2 a1")
    move = decide(toy, game, 0, "1. b2 a1 2. c1\nif 2... a3 then 3. a2")
    game = applied(game, move)
    reply = decide(toy, game, 1, "1. b2 a1 2. c1 c3", conditionals=move.new_conditionals)
    assert reply.kind == "move" and reply.new_plies == ["c3"] and reply.auto == [False]


def test_j16_an_illegal_proposal_is_rejected_and_the_move_stands(toy: GameRules) -> None:
    game = stored(toy, "b2 a1")
    move = decide(toy, game, 0, "1. b2 a1 2. c1\nif 2... b2 then 3. a3")
    assert move.kind == "move" and move.new_plies == ["c1"]
    assert not move.new_conditionals
    [rejected] = move.rejected
    assert rejected.reason == "illegal" and rejected.token == "b2"


def test_j16_validate_and_stale_numbers_with_the_toy(toy: GameRules) -> None:
    """validate (game-neutral) reads the toy's move numbers: a proposal copied from an
    earlier move that no longer fits is ``stale``."""
    board = toy.replay(["b2", "a1", "c1"])
    lines = toy.read_proposals("if 1... a1 then 2. c3", toy.extract_record(""))
    accepted, rejected = validate(toy, board, lines)
    assert not accepted
    assert rejected[0].reason == "stale"
    assert "1..." in rejected[0].detail and "2..." in rejected[0].detail


class NumberedToy(ToyRules):
    """The toy with the record policy of shogi and go: the new move with its number."""

    record_policy = "numbered"


def test_j1_numbered_policy_accepts_the_new_move_with_its_number(toy: GameRules) -> None:
    """J1 as shogi and go apply it (seed 002, INTERFACE "Shogi moves"): a mail may carry
    only the new move with its number; a chess-like game refuses the same mail."""
    game = stored(toy, "b2 a1 c1")
    numbered = as_game_rules(NumberedToy())
    v = decide(numbered, game, 1, "2... a3")
    assert v.kind == "move" and v.new_plies == ["a3"]
    assert decide(toy, game, 1, "2... a3").kind == "sync_error"  # policy "full"


def test_j1_numbered_policy_checks_the_moves_the_mail_does_carry(toy: GameRules) -> None:
    game = stored(toy, "b2 a1 c1")
    numbered = as_game_rules(NumberedToy())
    assert decide(numbered, game, 1, "2. c1 a3").new_plies == ["a3"]
    wrong = decide(numbered, game, 1, "2. c3 a3")
    assert (wrong.kind, wrong.diff_ply, wrong.diff_token) == ("sync_error", 2, "c3")
    # a number past the record: moves are missing in between
    ahead = decide(numbered, game, 1, "4... a3")
    assert (ahead.kind, ahead.diff_ply, ahead.diff_token) == ("sync_error", 3, None)


def test_j16_proposals_are_written_the_games_way(toy: GameRules) -> None:
    """format_conditional hands the writing to the game (numbers, words, notation)."""
    from relaybot.core.conditionals import Conditional

    board = toy.replay(["b2"])
    line = Conditional(plies=("a1", "c3"))
    assert format_conditional(toy, board, line) == "if 1... a1 then 2. c3"
    assert format_conditional(toy, board, line, lang="ja") == "もし 1... a1 なら 2. c3"


def test_a_games_own_keyword_is_read_and_decided_by_the_game(toy: GameRules) -> None:
    """Keywords of one game (shogi's 入玉宣言): read only with that game's words, decided by
    the game's ``declare`` (all or nothing here), refused where the game says so."""
    game = stored(toy, "b2 a1")
    won = decide(toy, game, 0, "Hello\n中央宣言。")  # X holds b2
    assert won.kind == "declared" and won.outcome == Outcome.win("declaration", 0)
    lost = decide(toy, stored(toy, "a1 b2"), 0, "declare centre")  # O holds b2
    assert lost.outcome == Outcome.loss("declaration", 0)
    assert decide(toy, game, 1, "declare centre").kind == "not_your_turn"
    from relaybot.games.chess import RULES as CHESS

    # chess does not know the word: it is prose there, and nothing happens
    chess_game = StoredGame(plies=(), keys=(), position=CHESS.save(CHESS.start()))
    assert decide(CHESS, chess_game, 0, "declare centre").kind == "no_move"


def test_j15_a_tds_result_word_is_read_by_the_game() -> None:
    """INTERFACE "TD commands" (adjudicate, result): RESULT is the game's own word, read
    by its parse_result, and a mistake lists the game's own words (its rule set), so any
    game plugs in; ``*`` (no result) is never a result a TD can give, nor both losing
    where the game's rules have no such result."""
    from relaybot.pipeline.td.results import read_result, result_words

    rules = as_game_rules(RULES)
    assert result_words(rules) == rules.rule_set.result_words
    assert read_result(rules, "-", "adjudication") is None  # the toy's both-lose
    outcome = read_result(rules, "O+", "adjudication")
    assert outcome is not None and outcome.winner == 1
    assert read_result(rules, "*", "adjudication") is None
    assert read_result(rules, "1-0", "adjudication") is None
