"""relaybot.games.chess.notation: reading player move text (J2, J3, J4) and records (J1)."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relaybot.games.base import MoveError, RecordText
from relaybot.games.chess.notation import (
    ParsedMove,
    extract_record,
    format_move,
    format_record,
    normalise_text,
    numeric_move,
    parse_move,
    parse_move_ex,
    ply_keys,
    token_key,
)

SEED001_FEN = "rnbqk2r/pppp1ppp/5n2/4p3/1b2P3/2NP4/PPP2PPP/R1BQKBNR w KQkq - 1 4"
CASTLE_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
CASTLE_FEN_BLACK = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"
EP_FEN = "rnbqkbnr/pp2pppp/8/2pP4/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 3"
PROMO_FEN = "3k4/4P3/8/8/8/8/8/4K3 w - - 0 1"
BLACK_PROMO_FEN = "4k3/8/8/8/8/8/3p4/5K2 b - - 0 1"

SEED000_GAME = (
    "1. e4 c5 2. Nc3 d6 3. f4 Nf6 4. e5 dxe5 5. fxe5 Nd5 6. Bb5+ Nc6 7. Nf3 Bg4 "
    "8. d3 e6 9. Bxc6+ bxc6 10. Ne4 Be7 11. 0-0 0-0 12. Qe1 Nb4 13. Qe2 Bxf3 "
    "14. Rxf3 Qd4+ 15. Nf2 Qd5 16. a3 Na6 17. Rh3 f6 18. d4 Nc7 19. Qh5 Qxd4 "
    "20. Qxh7+ Kf7 21. Rg3 Nd5 22. Qg6+ 1-0"
)


def uci(fen: str | None, token: str, letters: str = "en") -> str:
    board = chess.Board(fen) if fen else chess.Board()
    return parse_move(board, token, letters).uci()


def error(fen: str | None, token: str, letters: str = "en") -> MoveError:
    board = chess.Board(fen) if fen else chess.Board()
    with pytest.raises(MoveError) as info:
        parse_move(board, token, letters)
    return info.value


# --- J2 leniency ------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    ["Nf3", "Nxf3", "Nf3+", "Nf3#", "Nxf3+", "Ng1-f3", "Ng1xf3", "Ng1f3", "Ngf3", "N1f3",
     "g1f3", "g1-f3", "7163", "Ｎｆ３", "♘f3", "♞f3", "Nf3!", "Nf3?", "Nf3!?", "Nf3?!", "Nf3!!",
     " Nf3 ", "Nf3,"],
)  # fmt: skip
def test_j2_knight_forms(token: str) -> None:
    """J2: every lenient writing of Ng1-f3 reads as g1f3."""
    assert uci(None, token) == "g1f3"


@pytest.mark.parametrize("token", ["e4", "Pe4", "Pe2-e4", "e2-e4", "e2e4", "5254", "ｅ４", "♙e4"])
def test_j2_pawn_forms(token: str) -> None:
    """J2: a P prefix, long algebraic and UCI pawn moves."""
    assert uci(None, token) == "e2e4"


@pytest.mark.parametrize("token", ["0-0", "O-O", "o-o", "0-0+", "O-O#", "００", "０－０", "Ke1g1",
                                   "Ke1-g1", "e1g1", "5171"])  # fmt: skip
def test_j2_j3_castling_kingside_white(token: str) -> None:
    """J2 castling with zeros or letters, J3 numeric 5171."""
    assert uci(CASTLE_FEN, token) == "e1g1"


@pytest.mark.parametrize("token", ["0-0-0", "O-O-O", "o-o-o", "０－０－０", "Ke1-c1", "5131"])
def test_j2_j3_castling_queenside_white(token: str) -> None:
    assert uci(CASTLE_FEN, token) == "e1c1"


@pytest.mark.parametrize(("token", "expected"), [("5878", "e8g8"), ("5838", "e8c8"),
                                                 ("O-O", "e8g8"), ("0-0-0", "e8c8")])  # fmt: skip
def test_j3_castling_black(token: str, expected: str) -> None:
    """J3: Black castles 5878 / 5838."""
    assert uci(CASTLE_FEN_BLACK, token) == expected


@pytest.mark.parametrize(
    "token",
    ["e8=Q", "e8Q", "e8(Q)", "e8/Q", "e8=Q+", "e8q", "e7e8q", "e7-e8=Q", "Pe7-e8=Q", "e8=♕",
     "57581", "e8＝Ｑ"],
)  # fmt: skip
def test_j2_j3_promotion_to_queen(token: str) -> None:
    """J2 promotion spellings and J3 57581 = e8=Q."""
    assert uci(PROMO_FEN, token) == "e7e8q"


@pytest.mark.parametrize(
    ("token", "expected"),
    [("e8=N", "e7e8n"), ("57584", "e7e8n"), ("57582", "e7e8r"), ("57583", "e7e8b")],
)
def test_j3_underpromotion_digits(token: str, expected: str) -> None:
    """J3: fifth digit 1=Q 2=R 3=B 4=N."""
    assert uci(PROMO_FEN, token) == expected


def test_j3_black_promotion_numeric() -> None:
    """J3: Black promotes d2-d1 = 4241x."""
    assert uci(BLACK_PROMO_FEN, "42411") == "d2d1q"
    assert uci(BLACK_PROMO_FEN, "d1=Q") == "d2d1q"


@pytest.mark.parametrize("token", ["4536", "dxc6", "dxc6 e.p.", "dxc6e.p.", "dxc6ep", "dc6",
                                   "d5c6", "d5xc6", "Pxc6", "dxc6+"])  # fmt: skip
def test_j2_j3_en_passant(token: str) -> None:
    """J2: e.p. optional; J3: 4536 = dxc6 e.p."""
    assert uci(EP_FEN, token) == "d5c6"


def test_j2_wrong_capture_and_check_marks() -> None:
    """J2: a wrong x or + is not an error."""
    assert uci(None, "Nxc3+") == "b1c3"
    assert uci(EP_FEN, "Qd3#") == "d1d3"


# --- J2 localised letters and figurines ------------------------------------


@pytest.mark.parametrize(
    ("letters", "token", "expected"),
    [
        ("de", "Sf3", "g1f3"),
        ("fr", "Cf3", "g1f3"),
        ("es", "Cf3", "g1f3"),
        ("de", "Sg1-f3", "g1f3"),
        ("en", "Nf3", "g1f3"),
    ],
)
def test_j2_localised_knight(letters: str, token: str, expected: str) -> None:
    assert uci(None, token, letters) == expected


def test_j2_localised_letters_every_piece() -> None:
    """J2: de KDTLS, fr RDTFC, es RDTAC; D is the queen, R the king in fr/es."""
    fen = "4k3/8/8/8/8/8/8/R2QKB2 w - - 0 1"
    assert uci(fen, "Dd4", "de") == "d1d4"
    assert uci(fen, "Ta4", "de") == "a1a4"
    assert uci(fen, "Lc4", "de") == "f1c4"
    assert uci(fen, "Ke2", "de") == "e1e2"
    assert uci(fen, "Dd4", "fr") == "d1d4"
    assert uci(fen, "Ta4", "fr") == "a1a4"
    assert uci(fen, "Fc4", "fr") == "f1c4"
    assert uci(fen, "Re2", "fr") == "e1e2"
    assert uci(fen, "Ac4", "es") == "f1c4"
    assert uci(fen, "Re2", "es") == "e1e2"
    assert uci(fen, "Rb1", "en") == "a1b1"  # R is the rook in English


def test_j2_localised_promotion_and_castling() -> None:
    assert uci(PROMO_FEN, "e8=D", "de") == "e7e8q"
    assert uci(PROMO_FEN, "e8S", "de") == "e7e8n"
    assert uci(PROMO_FEN, "e8=C", "fr") == "e7e8n"
    assert uci(CASTLE_FEN, "0-0", "fr") == "e1g1"
    assert uci(CASTLE_FEN, "Re1g1", "fr") == "e1g1"


def test_j2_files_never_read_as_pieces() -> None:
    """J2: lower-case b/d/c/f are files whatever the letters (b4 is a pawn, D the queen)."""
    assert uci(None, "b4") == "b2b4"
    assert uci(None, "d4", "de") == "d2d4"
    assert uci(None, "c4", "fr") == "c2c4"
    assert uci(None, "f4", "fr") == "f2f4"
    assert uci(None, "a4", "es") == "a2a4"
    bishop_or_pawn = "4k3/8/8/8/8/1p6/2P5/2B1K3 w - - 0 1"
    assert uci(bishop_or_pawn, "cxb3") == "c2b3"
    assert uci(bishop_or_pawn, "Bb2") == "c1b2"
    assert error(bishop_or_pawn, "bxb3").kind == "illegal"  # no pawn on the b-file


def test_j2_wrong_letter_set_is_unreadable_with_hint() -> None:
    """J2: with de letters N is no piece; the detail says which letters apply."""
    err = error(None, "Nf3", "de")
    assert err.kind == "unreadable"
    assert "KDTLS" in err.detail
    err = error(None, "Sf3", "en")
    assert err.kind == "unreadable"
    assert "de" in err.detail


def test_unknown_letters_fall_back_to_english() -> None:
    assert uci(None, "Nf3", "xx") == "g1f3"


# --- J4 ambiguity ------------------------------------------------------------


@pytest.mark.parametrize("token", ["Ne2", "Nge2", "Ng1e2", "Ng1-e2", "N1e2", "Nxe2", "7152"])
def test_j4_seed001_pinned_knight_not_ambiguous(token: str) -> None:
    """J4 (seed 001): Nc3 is pinned by Bb4, so Ne2 is not ambiguous; Nge2 is also fine."""
    assert uci(SEED001_FEN, token) == "g1e2"


def test_j4_seed001_pinned_knight_cannot_move() -> None:
    err = error(SEED001_FEN, "Nce2")
    assert err.kind == "illegal"
    assert "Ng1-e2" in err.detail


def test_j4_two_knights_ambiguous() -> None:
    fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"
    err = error(fen, "Nd2")
    assert err.kind == "ambiguous"
    assert "Nbd2" in err.detail and "Nfd2" in err.detail
    assert uci(fen, "Nbd2") == "b1d2"
    assert uci(fen, "Nfd2") == "f3d2"
    assert uci(fen, "N3d2") == "f3d2"
    assert uci(fen, "Nb1-d2") == "b1d2"


def test_j4_two_rooks_ambiguous_file_and_rank() -> None:
    fen = "R6k/8/8/8/8/8/8/R5K1 w - - 0 1"
    err = error(fen, "Ra4")
    assert err.kind == "ambiguous"
    assert "R1a4" in err.detail and "R8a4" in err.detail
    assert uci(fen, "R1a4") == "a1a4"
    assert uci(fen, "R8a4") == "a8a4"
    err = error(fen, "Raa4")  # the file alone cannot tell them apart
    assert err.kind == "ambiguous"


def test_j4_ambiguous_localised() -> None:
    fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1"
    assert error(fen, "Sd2", "de").kind == "ambiguous"
    assert uci(fen, "Sbd2", "de") == "b1d2"


# --- J3 numeric --------------------------------------------------------------


def test_j3_seed_examples() -> None:
    assert uci(None, "7163") == "g1f3"
    assert uci(CASTLE_FEN, "5171") == "e1g1"
    assert uci(CASTLE_FEN, "5131") == "e1c1"
    assert uci(CASTLE_FEN_BLACK, "5878") == "e8g8"
    assert uci(CASTLE_FEN_BLACK, "5838") == "e8c8"
    assert uci(EP_FEN, "4536") == "d5c6"
    assert uci(PROMO_FEN, "57581") == "e7e8q"


@pytest.mark.parametrize("token", ["5758(1)", "5751", "5758/1", "5758=1"])
def test_j3_nonstandard_promotion_accepted_and_flagged(token: str) -> None:
    """J3: 5758(1) and 5751 are non-standard: accepted when unambiguous, and said so."""
    parsed = parse_move_ex(chess.Board(PROMO_FEN), token)
    assert parsed.move.uci() == "e7e8q"
    assert parsed.nonstandard
    assert "57581" in parsed.note


def test_j3_nonstandard_knight_promotion() -> None:
    assert uci(PROMO_FEN, "5754") == "e7e8n"


def test_j3_standard_forms_not_flagged() -> None:
    assert parse_move_ex(chess.Board(PROMO_FEN), "57581") == ParsedMove(
        chess.Move.from_uci("e7e8q")
    )
    assert not parse_move_ex(chess.Board(), "7163").nonstandard


def test_j3_numeric_errors() -> None:
    assert error(PROMO_FEN, "5758").kind == "illegal"  # promotion digit missing
    assert "fifth digit" in error(PROMO_FEN, "5758").detail
    assert error(None, "7164").kind == "illegal"
    assert error(None, "5755").kind == "illegal"
    assert error(None, "0000").kind == "unreadable"
    assert error(None, "9163").kind == "unreadable"
    assert error(None, "52541").kind == "illegal"
    assert error(None, "57571").kind == "illegal"


def test_j3_numeric_wrong_side() -> None:
    err = error(None, "5755")
    assert "not yours" in err.detail


# --- error kinds -------------------------------------------------------------


@pytest.mark.parametrize("token", ["Hello", "", "   ", "xyz", "--", "Z0", "e9", "i4", "Nf9",
                                   "?!", "1.", "1-0", "draw", "投了"])  # fmt: skip
def test_j5_unreadable(token: str) -> None:
    assert error(None, token).kind == "unreadable"


@pytest.mark.parametrize("token", ["e5", "Ke2", "Qh5", "Nf4", "Bb5", "O-O", "0-0-0", "e2e5",
                                   "g1g3", "Bg1f3", "exd5", "xd5"])  # fmt: skip
def test_j5_illegal(token: str) -> None:
    assert error(None, token).kind == "illegal"


def test_illegal_details_are_helpful() -> None:
    assert "own piece" in error(None, "Ke2").detail
    assert "knight" in error(None, "Bg1f3").detail
    assert "castling" in error(None, "O-O").detail
    assert "upper case" in error(None, "nf3").detail
    pinned = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1"
    assert "check" in error(pinned, "Bd3").detail
    assert error(PROMO_FEN, "e8").kind == "illegal"


def test_parse_move_ex_fullwidth_note() -> None:
    """J2: full-width input is read, and the note says so for the reply."""
    parsed = parse_move_ex(chess.Board(), "Ｎｆ３")
    assert parsed.move.uci() == "g1f3"
    assert "full-width" in parsed.note
    assert not parsed.nonstandard


# --- normalise_text ----------------------------------------------------------


def test_normalise_text_fullwidth() -> None:
    """J2: NFKC and the bool that the reply must mention."""
    assert normalise_text("１．Ｎｆ３　Ｎｆ６ ０－０") == ("1.Nf3 Nf6 0-0", True)
    assert normalise_text("1. Nf3 Nf6") == ("1. Nf3 Nf6", False)


def test_normalise_text_dashes_quotes_figurines() -> None:
    text, fw = normalise_text("0\u20130 e2\u2014e4 \u2018hi\u2019 \u201cok\u201d ♞f6 1… ½-½")
    assert text == "0-0 e2-e4 'hi' \"ok\" ♘f6 1... 1/2-1/2"
    assert fw is False


# --- token_key / ply_keys ----------------------------------------------------


@pytest.mark.parametrize(
    ("token", "key"),
    [
        ("Nxf3+", "Nf3"),
        ("Ng1-f3", "Ng1f3"),
        ("Ｎｆ３", "Nf3"),
        ("０－０", "O-O"),
        ("o-o-o", "O-O-O"),
        ("e8=Q", "e8Q"),
        ("e8(Q)", "e8Q"),
        ("e8/Q", "e8Q"),
        ("e7e8q", "e7e8Q"),
        ("Pe2-e4", "e2e4"),
        ("Pe4", "e4"),
        ("exd6 e.p.", "ed6"),
        ("Qg6+!?", "Qg6"),
        ("7163", "7163"),
        ("5758(1)", "57581"),
        ("♞f6", "Nf6"),
        ("xd5", "xd5"),
    ],
)
def test_token_key(token: str, key: str) -> None:
    """J1/J2: the board-free comparison key."""
    assert token_key(token) == key


def test_ply_keys_seed001() -> None:
    """J4: Ne2, Nge2 and Ng1e2 are all correct writings in the seed-001 position."""
    board = chess.Board(SEED001_FEN)
    keys = ply_keys(board, chess.Move.from_uci("g1e2"))
    for written in ["Ne2", "Nge2", "N1e2", "Ng1-e2", "Ng1xe2", "g1e2", "7152"]:
        assert token_key(written) in keys
    assert token_key("Nce2") not in keys


def test_ply_keys_ambiguous_excludes_bare() -> None:
    """J4: when two knights can go there, the bare Nd2 is not a correct writing."""
    board = chess.Board("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1")
    keys = ply_keys(board, chess.Move.from_uci("b1d2"))
    assert "Nd2" not in keys
    assert {"Nbd2", "Nb1d2", "b1d2", "2142"} <= keys


def test_ply_keys_special_moves() -> None:
    castle = ply_keys(chess.Board(CASTLE_FEN), chess.Move.from_uci("e1g1"))
    assert {"O-O", "Ke1g1", "e1g1", "5171", "Kg1"} <= castle  # Kg1: castling as a king move
    ep = ply_keys(chess.Board(EP_FEN), chess.Move.from_uci("d5c6"))
    assert {"dc6", "d5c6", "4536"} <= ep
    promo = ply_keys(chess.Board(PROMO_FEN), chess.Move.from_uci("e7e8q"))
    assert {"e8Q", "e7e8Q", "57581"} <= promo
    for written in ["e8=Q", "e8Q", "e8(Q)", "e8/Q", "Pe7-e8=Q", "e7e8q", "e8=Q+"]:
        assert token_key(written) in promo


def _reference_ply_keys(board: chess.Board, move: chess.Move) -> frozenset[str]:
    """ply_keys written out the long way: SAN, LAN, UCI, numeric and every sufficient
    disambiguation found among all legal moves (what the fast version must equal)."""
    writings = [board.san(move), board.lan(move), move.uci(), numeric_move(move)]
    piece_type = board.piece_type_at(move.from_square)
    src, dst = chess.square_name(move.from_square), chess.square_name(move.to_square)
    promo = "=" + chess.piece_symbol(move.promotion).upper() if move.promotion else ""
    if piece_type == chess.PAWN:
        writings.append(f"{src}{dst}{promo}")
        writings.append(f"{src[0]}x{dst}{promo}" if board.is_capture(move) else f"{dst}{promo}")
    elif piece_type is not None:
        letter = chess.piece_symbol(piece_type).upper()
        same = [mv for mv in board.legal_moves
                if mv.to_square == move.to_square
                and board.piece_type_at(mv.from_square) == piece_type]
        for file_part, rank_part in (("", ""), (src[0], ""), ("", src[1]), (src[0], src[1])):
            fits = [mv for mv in same
                    if (not file_part or chess.square_name(mv.from_square)[0] == file_part)
                    and (not rank_part or chess.square_name(mv.from_square)[1] == rank_part)]
            if len(fits) == 1:
                writings.append(f"{letter}{file_part}{rank_part}{dst}")
        writings.append(f"{letter}{src}-{dst}")
    return frozenset(token_key(w) for w in writings)


@pytest.mark.parametrize(
    "fen",
    [chess.STARTING_FEN, CASTLE_FEN, CASTLE_FEN_BLACK, EP_FEN, PROMO_FEN, BLACK_PROMO_FEN,
     "r3k2r/pPpppppp/8/3pP3/8/8/PPPPPPpP/R3K2R w KQkq d6 0 1",  # capture-promotions both ways
     "k7/8/8/3Q1Q2/8/3Q1Q2/8/K7 w - - 0 1",  # four queens on one square: every disambiguation
     "k7/8/8/3N1N2/8/3N1N2/8/K7 w - - 0 1",
     "4k3/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1"],  # a pinned knight is no rival (J4)
)  # fmt: skip
def test_ply_keys_equal_the_long_way_in_special_positions(fen: str) -> None:
    """J1/J4: the keys come from the mover's pieces only and skip LAN, yet are the same
    set as SAN + LAN + UCI + numeric + every disambiguation over all legal moves."""
    board = chess.Board(fen)
    for move in board.legal_moves:
        assert ply_keys(board, move) == _reference_ply_keys(board, move), (fen, move.uci())


def test_ply_keys_equal_the_long_way_in_random_games() -> None:
    """Every legal move along seeded random games (castling, e.p., promotions come up)."""
    import random

    rng = random.Random(11)
    for _ in range(4):
        board = chess.Board()
        for _ in range(rng.randint(30, 120)):
            legal = list(board.legal_moves)
            if not legal:
                break
            for move in legal:
                assert ply_keys(board, move) == _reference_ply_keys(board, move), (
                    board.fen(), move.uci())
            board.push(rng.choice(legal))


@st.composite
def random_games(draw: st.DrawFn) -> list[chess.Move]:
    board = chess.Board()
    moves: list[chess.Move] = []
    length = draw(st.integers(min_value=1, max_value=60))
    for _ in range(length):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        move = legal[draw(st.integers(min_value=0, max_value=len(legal) - 1))]
        moves.append(move)
        board.push(move)
    return moves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_games())
def test_token_key_in_ply_keys_random_games(moves: list[chess.Move]) -> None:
    """J1/J3: SAN, UCI, numeric and LAN of every move reduce to one of its ply keys,
    and parse back to the move (J2), also in localised letters."""
    board = chess.Board()
    for move in moves:
        keys = ply_keys(board, move)
        writings = [board.san(move), move.uci(), numeric_move(move), board.lan(move)]
        for written in writings:
            assert token_key(written) in keys, (board.fen(), written, keys)
            assert parse_move(board, written) == move
        for letters in ("de", "fr", "es"):
            local = format_move(board, move, "san", letters)
            assert parse_move(board, local, letters) == move
        board.push(move)


# --- format_move / format_record ---------------------------------------------


def test_format_move() -> None:
    board = chess.Board()
    nf3 = chess.Move.from_uci("g1f3")
    assert format_move(board, nf3, "san") == "Nf3"
    assert format_move(board, nf3, "numeric") == "7163"
    assert format_move(board, nf3, "san", "de") == "Sf3"
    assert format_move(board, nf3, "san", "fr") == "Cf3"
    assert format_move(board, nf3, "lan") == "Ng1-f3"
    assert format_move(board, nf3, "uci") == "g1f3"
    assert format_move(chess.Board(PROMO_FEN), chess.Move.from_uci("e7e8q"), "san", "de") == (
        "e8=D+"
    )
    queen = chess.Move.from_uci("e7e8q")
    assert format_move(chess.Board(PROMO_FEN), queen, "numeric") == "57581"
    assert format_move(chess.Board(CASTLE_FEN), chess.Move.from_uci("e1g1"), "san", "fr") == "O-O"
    king = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert format_move(king, chess.Move.from_uci("e1e2"), "san", "fr") == "Re2"
    assert format_move(king, chess.Move.from_uci("a1a2"), "san", "fr") == "Ta2"
    with pytest.raises(ValueError):
        format_move(board, nf3, "descriptive")


def test_format_record() -> None:
    moves = [chess.Move.from_uci(u) for u in ["e2e4", "e7e5", "g1f3", "b8c6"]]
    assert format_record(moves, "san") == "1. e4 e5 2. Nf3 Nc6"
    assert format_record(moves, "numeric") == "1. 5254 5755 2. 7163 2836"
    assert format_record(moves, "san", "de") == "1. e4 e5 2. Sf3 Sc6"
    assert format_record([], "san") == ""
    black_first = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert format_record([chess.Move.from_uci("e7e5")], "san", start=black_first) == "1... e5"


# --- extract_record ----------------------------------------------------------


def test_extract_record_mail_with_greeting_and_signature() -> None:
    body = (
        "Dear Mr Tanaka,\n"
        "\n"
        "Thank you for your move.\n"
        "\n"
        "1. e4 c5 2. Nc3 d6 3. f4 Nf6\n"
        "4. e5 dxe5\n"
        "\n"
        "5. fxe5\n"
        "\n"
        "Best regards,\n"
        "Taro\n"
    )
    rec = extract_record(body)
    assert rec.tokens == ["e4", "c5", "Nc3", "d6", "f4", "Nf6", "e5", "dxe5", "fxe5"]
    assert (rec.first_line, rec.last_line) == (4, 7)
    assert rec.result is None
    assert not rec.fullwidth


def test_extract_record_keyword_and_conditional_lines_not_swallowed() -> None:
    """J16: conditional lines and keyword lines are not part of the record."""
    body = (
        "1. e4 e5 2. Nf3 Nc6 3. Bb5\n"
        "if 3... Bc5 then 4. c3\n"
        "もし 3... Bc5 なら 4. c3\n"
        "draw?\n"
        "resign\n"
        "投了\n"
        "ドロー\n"
        "leave 2026-01-01 2026-01-10\n"
        "休戦 2026-01-01 2026-01-10\n"
        "td: question\n"
        "status\n"
        "help\n"
    )
    rec = extract_record(body)
    assert rec.tokens == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    assert (rec.first_line, rec.last_line) == (0, 0)
    for line in body.splitlines()[1:]:
        assert extract_record(line).tokens == []


def test_extract_record_keyword_then_blank_then_record() -> None:
    body = "status\n\n1. d4\n\nThanks"
    rec = extract_record(body)
    assert rec.tokens == ["d4"]
    assert (rec.first_line, rec.last_line) == (2, 2)


def test_extract_record_result_and_variation() -> None:
    body = "1. e4 c5 2. Nf3 (2. c3 d5) (2. d4) d6 {Najdorf?} 3. d4\n1-0\n"
    rec = extract_record(body)
    assert rec.tokens == ["e4", "c5", "Nf3", "d6", "d4"]
    assert rec.variations == {2: [["c3", "d5"], ["d4"]]}
    assert rec.result == "1-0"
    assert rec.last_line == 1


def test_extract_record_lines_repeated_in_the_next_mail() -> None:
    """Each mail repeats the record; lines read for one mail (and cached) give the next
    mail the same, independent result, whatever the first caller did with its own."""
    first = "Hi\n\n1. e4 c5 2. Nf3 (2. c3 d5) d6\n3. d4 cxd4\n\nBye"
    second = "Hello again\n1. e4 c5 2. Nf3 (2. c3 d5) d6\n3. d4 cxd4 4. Nxd4 1-0"
    rec = extract_record(first)
    assert rec.tokens == ["e4", "c5", "Nf3", "d6", "d4", "cxd4"]
    rec.tokens.append("junk")
    rec.variations[2][0].append("junk")
    again = extract_record(second)
    assert again.tokens == ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4"]
    assert again.variations == {2: [["c3", "d5"]]}
    assert again.result == "1-0"
    assert (again.first_line, again.last_line) == (1, 2)
    assert extract_record(first) == RecordText(
        tokens=["e4", "c5", "Nf3", "d6", "d4", "cxd4"], variations={2: [["c3", "d5"]]},
        first_line=2, last_line=3)


def test_extract_record_result_kept_only_when_trailing_across_lines() -> None:
    assert extract_record("1. e4 1-0 e5\n2. Nf3").result is None
    assert extract_record("1. e4 e5\n1-0").result == "1-0"
    assert extract_record("1. e4 e5 1-0\n2. Nf3 (2. d4) 0-1").result == "0-1"
    # ASCII lines around a full-width one
    mixed = extract_record("1. e4 e5\n２． Ｎｆ３ Ｎｃ６\n3. Bb5")
    assert mixed.tokens == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    assert mixed.fullwidth


def test_extract_record_conditional_variation_in_black_move() -> None:
    rec = extract_record("1. e4 e5 2. Nf3 (2... Nc6 3. Bb5) *")
    assert rec.variations == {2: [["Nc6", "Bb5"]]}
    assert rec.result == "*"


def test_extract_record_glued_numbers_and_forms() -> None:
    rec = extract_record("1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.0-0 Be7 6.Re1 b5 7.Bb3 d6")
    assert rec.tokens[8] == "0-0"
    assert len(rec.tokens) == 14
    rec = extract_record("1...e5 2. Nf3")
    assert rec.tokens == ["e5", "Nf3"]
    rec = extract_record("1… e5")
    assert rec.tokens == ["e5"]


def test_extract_record_numeric_and_promotion_parens() -> None:
    """J3: numeric records; e8(Q) and 5758(1) are moves, not variations."""
    rec = extract_record("1. 5254 5755 2. 7163 2836")
    assert rec.tokens == ["5254", "5755", "7163", "2836"]
    rec = extract_record("40. e8(Q) 5758(1)")
    assert rec.tokens == ["e8(Q)", "5758(1)"]
    assert rec.variations == {}


def test_extract_record_fullwidth() -> None:
    """J2: full-width records are read and flagged; a full-width greeting alone is not."""
    body = "こんにちは！\n\n１．ｅ４　ｅ５　２．Ｎｆ３\nよろしくお願いします"
    rec = extract_record(body)
    assert rec.tokens == ["e4", "e5", "Nf3"]
    assert rec.fullwidth
    rec = extract_record("こんにちは！\n1. e4 e5")
    assert not rec.fullwidth


def test_extract_record_figurines_and_annotations() -> None:
    rec = extract_record("1. e4 e5 2. ♘f3!? ♞c6 3. ♗b5 e.p. ½-½")
    assert rec.tokens == ["e4", "e5", "♘f3!?", "♘c6", "♗b5"]
    assert rec.result == "1/2-1/2"


def test_extract_record_prose_is_not_a_record() -> None:
    for body in ["Hello", "e4 is my move!", "Thanks", "Hello\ne4 is my move!\nThanks",
                 "2026/01/05", "Tel 090-1234-5678", "", "\n\n", "> 1. e4 e5"]:  # fmt: skip
        rec = extract_record(body)
        assert rec == RecordText(), body


def test_extract_record_single_move_line() -> None:
    rec = extract_record("Hi,\na4\nBye")
    assert rec.tokens == ["a4"]
    assert (rec.first_line, rec.last_line) == (1, 1)


def test_extract_record_first_block_only() -> None:
    body = "1. e4 e5\n\nBest,\nT\n\n1. d4 d5"
    rec = extract_record(body)
    assert rec.tokens == ["e4", "e5"]
    assert rec.last_line == 0


def test_extract_record_seed000_game_replays() -> None:
    """J1 (seed 000 game): the whole game parses and replays to after 22. Qg6+."""
    rec = extract_record("Dear friend,\n\n" + SEED000_GAME + "\n\nRegards")
    assert rec.result == "1-0"
    assert len(rec.tokens) == 43
    board = chess.Board()
    for token in rec.tokens:
        board.push(parse_move(board, token))
    assert board.peek().uci() == "h7g6"
    assert board.is_check()
    assert board.piece_at(chess.G6) == chess.Piece(chess.QUEEN, chess.WHITE)
    assert board.king(chess.BLACK) == chess.F7
    assert board.fullmove_number == 22 and board.turn == chess.BLACK
    assert format_record(board.move_stack, "san").startswith("1. e4 c5 2. Nc3 d6")
    replay = chess.Board()
    for token, key_move in zip(rec.tokens, board.move_stack, strict=True):
        assert token_key(token) in ply_keys(replay, key_move)
        replay.push(key_move)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_extract_record_never_raises_on_text(text: str) -> None:
    rec = extract_record(text)
    assert isinstance(rec, RecordText)
    assert (rec.first_line == -1) == (rec.tokens == [])


_FRAGMENTS = st.sampled_from(
    ["1.", "1...", "e4", "Nf3", "(", ")", "{", "}", "1-0", "½-½", "*", "O-O", "e8(Q)", "5758(1)",
     "\n", " ", "Hello", "x", "+", "!?", "投了", "１．", "ｅ４", "♞", "e.p.", "(2. c3)", "…"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=30))
def test_extract_record_never_raises_on_fragments(parts: list[str]) -> None:
    rec = extract_record(" ".join(parts))
    assert isinstance(rec, RecordText)
    for token in rec.tokens:
        assert token.strip() == token and token


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_token_key_and_parse_never_crash(token: str) -> None:
    """Any text either parses to a legal move or raises MoveError (J5)."""
    assert isinstance(token_key(token), str)
    board = chess.Board()
    try:
        move = parse_move(board, token)
    except MoveError as err:
        assert err.kind in ("illegal", "ambiguous", "unreadable")
    else:
        assert move in board.legal_moves


@pytest.mark.parametrize("notation,letters", [("san", "en"), ("san", "de"), ("san", "fr"),
                                              ("numeric", "en")])
def test_format_stored_agrees_with_a_replayed_record(notation: str, letters: str) -> None:
    """J3: the record written from stored (UCI, SAN) pairs equals the replayed one."""
    import random

    from relaybot.games.chess.notation import format_record, format_stored

    rng = random.Random(7)
    for _ in range(20):
        board = chess.Board()
        stored = []
        for _ in range(rng.randint(1, 80)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            stored.append((move.uci(), board.san(move)))
            board.push(move)
        expected = format_record(board.move_stack, notation, letters)
        assert format_stored(stored, notation, letters) == expected


# --- notation as players write it (the notation audit) -------------------------------


def test_j2_move_numbers_without_dots_as_english_books_print_them() -> None:
    """J2 (wrong move numbers are no error when the moves are readable): ``1 e4 e5 2 Nf3``,
    the numbering of many English books, reads as ``1. e4 e5 2. Nf3``, on one line or
    several; a fragment ``4 c3`` starts at move 4, as ``4. c3`` does."""
    rec = extract_record("Hello\n\n1 e4 e5 2 Nf3 Nc6\n3 Bc4 Bc5 4 c3\n\nTaro")
    assert rec.tokens == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3"]
    assert rec.first_ply == 0 and (rec.first_line, rec.last_line) == (2, 3)
    assert extract_record("4 c3").first_ply == extract_record("4. c3").first_ply == 6


def test_j2_move_numbers_closed_by_a_parenthesis_read_as_dotted_ones() -> None:
    """J2: ``1) e4 e5 2) Nf3``, a move number written as a numbered list writes it, reads
    as ``1. e4 e5 2. Nf3``: the same moves, the same start, glued, full-width or on
    several lines; a fragment ``3) Bb5`` starts at move 3. A promotion ``e8(Q)`` and
    ``5758(1)`` stay as written, and prose after ``1)`` is still no move line."""
    dotted = extract_record("Hello\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5\n\nTaro")
    for text in ("Hello\n\n1) e4 e5 2) Nf3 Nc6\n3) Bb5\n\nTaro",
                 "Hello\n\n1)e4 e5 2)Nf3 Nc6\n3)Bb5\n\nTaro"):
        rec = extract_record(text)
        assert (rec.tokens, rec.first_ply, rec.first_line, rec.last_line) == (
            dotted.tokens, dotted.first_ply, dotted.first_line, dotted.last_line), text
    rec = extract_record("１） ｅ４ ｅ５ ２） Ｎｆ３")
    assert rec.tokens == ["e4", "e5", "Nf3"] and rec.fullwidth
    assert extract_record("3) Bb5").first_ply == extract_record("3. Bb5").first_ply == 4
    assert extract_record("1) e4 e5 2) Nf3 Nc6 3) Bb5 a6 4) Ba4 Nf6 5) O-O").tokens[-1] == "O-O"
    assert extract_record("1) e4 e5 2) Nf3 Nc6 3) Bb5 a6 4) e8(Q)").tokens[-1] == "e8(Q)"
    assert extract_record("1) 5254 5755 2) 5758(1)").tokens == ["5254", "5755", "5758(1)"]
    # prose stays prose: a numbered list of words is no record
    assert extract_record("1) I think e4 is best\n2) then Nf3").tokens == []
    assert extract_record("see (1) e4 below").tokens == []


def test_j2_bare_numbers_beside_iccf_digits_are_no_record() -> None:
    """A line of bare numbers and four-digit groups is a phone number or a date, not ICCF
    moves: it never joins the record (it would add moves the player never sent)."""
    assert extract_record("090 1234 5678").tokens == []
    rec = extract_record("1. e4 e5 2. Nf3\n\n090 1234 5678")
    assert rec.tokens == ["e4", "e5", "Nf3"]
    assert extract_record("1. 5254 5755 2. 7163").tokens == ["5254", "5755", "7163"]


def test_j2_japanese_full_stop_and_comma_around_moves() -> None:
    """A Japanese writer's 。 after the last move (``4.c3。``) or 、 between moves
    separates like a space; the record was lost for one punctuation mark."""
    rec = extract_record("1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.c3。")
    assert rec.tokens == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3"]
    rec = extract_record("1. e4、e5、2. Nf3、Nc6")
    assert rec.tokens == ["e4", "e5", "Nf3", "Nc6"]
    assert extract_record("よろしくお願いします。").tokens == []


def test_j1_a_record_from_move_1_again_starts_another_record() -> None:
    """J1: after a blank line, ``1.`` begins another record (the same game pasted twice,
    a corrected one); ``2.`` still continues the one above."""
    rec = extract_record("1. e4 e5 2. Nf3\n\n1. e4 e5 2. Nf3")
    assert rec.tokens == ["e4", "e5", "Nf3"] and rec.last_line == 0
    assert extract_record("1. e4 e5\n\n2. Nf3").tokens == ["e4", "e5", "Nf3"]


def test_j1_pgn_comments_and_variations_over_several_lines() -> None:
    """J1: PGN as a program writes it wraps at 80 columns, so a {comment} or a
    (variation) runs over lines; the record was lost (no move found) for it. Every line
    keeps its index, and the record's last line is the one the comment ends on."""
    pgn = ('[Event "JCCA"]\n[White "Yamada, Taro"]\n\n'
           "1. e4 e5 2. Nf3 Nc6 3. Bb5 {The Spanish, my favourite\n"
           "opening for years} a6 (3... Nf6 4. O-O\nNxe4) 4. Ba4 Nf6 5. O-O {castling\nnow} *\n"
           "\nRegards")
    rec = extract_record(pgn)
    assert rec.tokens == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]
    assert rec.variations == {5: [["Nf6", "O-O", "Nxe4"]]}  # after 3... a6
    assert (rec.first_line, rec.last_line) == (3, 6)
    # prose with an open bracket is no record, and the lines after it are read as before
    prose = extract_record("Thanks (and sorry for the delay\nof my move)\n\n1. e4")
    assert prose.tokens == ["e4"] and prose.first_line == 3


def test_j5_a_bishop_written_in_lower_case_gets_the_upper_case_hint() -> None:
    """J5: ``bc4`` after 1.e4 e5, where no b-pawn can take on c4 but the bishop can go
    there, was refused as "no such pawn move; c2-c4"; the reply now says to write the
    piece letter in upper case. Where the b-pawn can take on c4, ``bc4`` stays its move
    (J2: the ``x`` may be left out; J4: a pawn and a bishop are no ambiguity)."""
    after_e4_e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    err = error(after_e4_e5, "bc4")
    assert err.why is not None and err.why.code == "lower_case_letter"
    assert error(after_e4_e5, "fc4", "fr").why == err.why  # the fou, in lower case
    assert uci("4k3/8/8/8/2n5/1P6/8/4KB2 w - - 0 1", "bc4") == "b3c4"
    assert uci(None, "b3") == "b2b3"
