"""relaybot.games.chess.ChessRules behind the GameRules protocol (J1-J5, J15)."""

from __future__ import annotations

import chess
import pytest

from relaybot.games.base import GameRules, MoveError, Outcome
from relaybot.games.chess import RULES, ChessRules

SEED000_GAME = (
    "1. e4 c5 2. Nc3 d6 3. f4 Nf6 4. e5 dxe5 5. fxe5 Nd5 6. Bb5+ Nc6 7. Nf3 Bg4 "
    "8. d3 e6 9. Bxc6+ bxc6 10. Ne4 Be7 11. 0-0 0-0 12. Qe1 Nb4 13. Qe2 Bxf3 "
    "14. Rxf3 Qd4+ 15. Nf2 Qd5 16. a3 Na6 17. Rh3 f6 18. d4 Nc7 19. Qh5 Qxd4 "
    "20. Qxh7+ Kf7 21. Rg3 Nd5 22. Qg6+ 1-0"
)
SEED001_FEN = "rnbqk2r/pppp1ppp/5n2/4p3/1b2P3/2NP4/PPP2PPP/R1BQKBNR w KQkq - 1 4"


def test_is_a_game_rules() -> None:
    rules: GameRules = RULES
    assert rules.kind == "chess"
    assert isinstance(RULES, ChessRules)


def test_start_replay_play_to_move() -> None:
    board = RULES.start()
    assert RULES.to_move(board) == 0
    RULES.play(board, "e2e4")
    assert RULES.to_move(board) == 1
    assert RULES.replay(["e2e4"]).fen() == board.fen()
    with pytest.raises(ValueError):
        RULES.play(board, "e2e4")  # not legal any more
    with pytest.raises(ValueError):
        RULES.replay(["e2e5"])


def test_save_load_round_trip() -> None:
    board = RULES.replay(["e2e4", "c7c5", "g1f3"])
    assert RULES.load(RULES.save(board)).fen() == board.fen()


def test_parse_returns_uci_with_j2_forms() -> None:
    board = RULES.start()
    for token in ["Nf3", "Ng1-f3", "g1f3", "7163", "Ｎｆ３", "♘f3"]:
        assert RULES.parse(board, token) == "g1f3"
    assert RULES.parse(board, "Sf3", "de") == "g1f3"
    assert RULES.parse(board, "Cf3", "fr") == "g1f3"


def test_parse_j4_seed001() -> None:
    """J4: Ne2 is not ambiguous when Nc3 is pinned (seed 001)."""
    board = chess.Board(SEED001_FEN)
    assert RULES.parse(board, "Ne2") == "g1e2"
    assert RULES.parse(board, "Nge2") == "g1e2"


@pytest.mark.parametrize(
    ("fen", "token", "kind"),
    [
        (None, "e5", "illegal"),
        (None, "Hello", "unreadable"),
        ("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", "ambiguous"),
    ],
)
def test_parse_errors_j5(fen: str | None, token: str, kind: str) -> None:
    board = chess.Board(fen) if fen else RULES.start()
    with pytest.raises(MoveError) as info:
        RULES.parse(board, token)
    assert info.value.kind == kind


def test_token_key_and_ply_keys_agree() -> None:
    """J1: the fast comparison matches lenient writings of the recorded ply."""
    board = RULES.start()
    keys = RULES.ply_keys(board, "g1f3")
    for token in ["Nf3", "Nxf3+", "Ng1-f3", "g1f3", "7163", "Ｎｆ３"]:
        assert RULES.token_key(token) in keys
    assert RULES.token_key("Nc3") not in keys


def test_seed000_game_whole_flow() -> None:
    """J1: extract, parse and replay the seed-000 game to after 22. Qg6+."""
    rec = RULES.extract_record("Hello,\n\n" + SEED000_GAME + "\n\nBest regards")
    assert rec.result == "1-0"
    board = RULES.start()
    plies: list[str] = []
    for token in rec.tokens:
        ply = RULES.parse(board, token)
        assert RULES.token_key(token) in RULES.ply_keys(board, ply)
        RULES.play(board, ply)
        plies.append(ply)
    assert len(plies) == 43
    assert plies[-1] == "h7g6"
    assert RULES.to_move(board) == 1
    assert RULES.outcome(board) is None
    assert RULES.replay(plies).fen() == board.fen()
    san = RULES.format_record(plies, "san")
    assert san.startswith("1. e4 c5 2. Nc3 d6 3. f4 Nf6")
    assert san.endswith("21. Rg3 Nd5 22. Qg6+")
    assert "11. O-O O-O" in san
    numeric = RULES.format_record(plies, "numeric")
    assert numeric.startswith("1. 5254 3735 2. 2133 4746")
    assert "11. 5171 5878" in numeric
    assert RULES.format_record(plies, "san", "de").startswith("1. e4 c5 2. Sc3")


def test_format_ply() -> None:
    board = RULES.start()
    assert RULES.format_ply(board, "g1f3", "san") == "Nf3"
    assert RULES.format_ply(board, "g1f3", "numeric") == "7163"
    assert RULES.format_ply(board, "g1f3", "san", "fr") == "Cf3"


def test_outcome_checkmate() -> None:
    board = RULES.replay(["f2f3", "e7e5", "g2g4", "d8h4"])
    outcome = RULES.outcome(board)
    assert outcome == Outcome.win("checkmate", 1)
    assert outcome is not None and RULES.format_result(outcome) == "0-1"
    assert (outcome.points(0), outcome.points(1)) == (0.0, 1.0)


def test_outcome_stalemate_and_insufficient_material() -> None:
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert RULES.outcome(stalemate) == Outcome.draw("stalemate")
    bare = chess.Board("8/8/8/4k3/8/8/8/4K3 w - - 0 1")
    drawn = RULES.outcome(bare)
    assert drawn == Outcome.draw("insufficient_material")
    assert drawn is not None and RULES.format_result(drawn) == "1/2-1/2"
    assert drawn.points(0) == drawn.points(1) == 0.5


def test_claimable_draws_are_not_outcomes() -> None:
    """J15: threefold and fifty moves are claims, not board outcomes."""
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2
    board = RULES.replay(shuffle)
    assert RULES.outcome(board) is None
    assert RULES.claimable_draw(board) == "threefold"
    fifty = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 100 80")
    assert RULES.outcome(fifty) is None
    assert RULES.claimable_draw(fifty) == "fifty_moves"
    assert RULES.claimable_draw(RULES.start()) is None


def test_board_text() -> None:
    text = RULES.board_text(RULES.start(), "en")
    lines = text.splitlines()
    assert lines[0] == "8 r n b q k b n r"
    assert lines[7] == "1 R N B Q K B N R"
    assert lines[4] == "4 . . . . . . . ."
    assert lines[8] == "  a b c d e f g h"
    assert lines[9] == "White to move"
    board = RULES.replay(["e2e4"])
    ja = RULES.board_text(board, "ja").splitlines()
    assert ja[4] == "4 . . . . P . . ."
    assert ja[-1] == "黒番"
    assert RULES.board_text(RULES.start(), "ja").splitlines()[-1] == "白番"
    assert RULES.board_text(board, "en").splitlines()[-1] == "Black to move"


def test_extract_record_delegates() -> None:
    rec = RULES.extract_record("Hi\n1. e4 e5\nBye")
    assert rec.tokens == ["e4", "e5"]
    assert (rec.first_line, rec.last_line) == (1, 1)


def test_board_text_and_side_to_move_read_the_saved_fen_as_the_board_itself() -> None:
    """J18: the diagram in a mail comes from the stored FEN without building a board; it
    must be exactly the board's own diagram, in both languages, for either side to move."""
    import chess

    board = RULES.start()
    for uci in ("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3"):
        board.push(chess.Move.from_uci(uci))
        saved = RULES.save(board)
        for lang in ("en", "ja"):
            assert RULES.board_text(saved, lang) == RULES.board_text(board, lang)
        assert RULES.to_move(saved) == RULES.to_move(board)
    assert RULES.to_move(RULES.save(board)) == 1
    assert RULES.board_text(RULES.save(board), "ja").endswith("黒番")


def test_results_as_values_read_back_as_chess_writes_them() -> None:
    """J15: the TD's results (adjudicate) and the stored ones are Outcome values."""
    assert RULES.parse_result("1-0", "adjudication") == Outcome.win("adjudication", 0)
    assert RULES.parse_result("0-1", "adjudication") == Outcome.loss("adjudication", 0)
    assert RULES.parse_result("½-½", "adjudication") == Outcome.draw("adjudication")
    assert RULES.parse_result("2-0", "adjudication") is None
    void = RULES.parse_result("*", "withdrawal_void")
    assert void is not None and void.void and RULES.format_result(void) == "*"
    for text in ("1-0", "0-1", "1/2-1/2"):
        outcome = RULES.parse_result(text, "adjudication")
        assert outcome is not None and RULES.format_result(outcome) == text


def test_sides_and_move_numbers_are_the_games() -> None:
    assert RULES.side_names("ja") == ("白", "黒")
    assert [RULES.side_of(w) for w in ("white", "Black", "黒", "red")] == [0, 1, 1, None]
    assert RULES.move_label(22, "Nf3") == "12. Nf3"
    assert RULES.move_label(23, "Nf6") == "12... Nf6"


def test_board_svg_from_either_side() -> None:
    """The board as an image, seen from the reader's seat (issue 11: the game renders)."""
    board = RULES.replay(["e2e4"])
    white, black = RULES.board_svg(board, 0), RULES.board_svg(RULES.save(board), 1)
    assert white.startswith("<svg") and black.startswith("<svg")
    assert white != black  # the orientation differs
