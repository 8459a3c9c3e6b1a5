"""Reading and writing single chess moves on a position (J2, J3, J4).

Legality is python-chess's: every algebraic form is rewritten to plain English
SAN/LAN and handed to :meth:`chess.Board.parse_san`, which only matches legal
moves, so J4 ambiguity (two pieces of one kind that can *legally* reach the
square) comes out right, pins included. ICCF numeric moves (J3) are checked
against :attr:`chess.Board.legal_moves` directly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from relaybot.core.reasons import Reason
from relaybot.core.text import has_fullwidth
from relaybot.games.base import MoveError
from relaybot.games.chess.notation.text import (
    CASTLE_RE,
    LETTER_SETS,
    NUMERIC_RE,
    PIECE_ORDER,
    WHITE_FIGURINES,
    clean_token,
    token_key,
)

_PIECE_NAMES = {
    chess.PAWN: "pawn",
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
    chess.KING: "king",
}
# J3: fifth digit of an ICCF promotion.
NUMERIC_PROMOTION: dict[chess.PieceType, int] = {
    chess.QUEEN: 1,
    chess.ROOK: 2,
    chess.BISHOP: 3,
    chess.KNIGHT: 4,
}
_DIGIT_PROMOTION = {digit: piece for piece, digit in NUMERIC_PROMOTION.items()}

_FIG = "".join(WHITE_FIGURINES)
_ALGEBRAIC_RE = re.compile(
    rf"^(?P<piece>[A-Z{_FIG}])?(?P<ff>[a-h])?(?P<fr>[1-8])?(?P<sep>[-x:])?"
    rf"(?P<to>[a-h][1-8])"
    rf"(?:=?(?P<p1>[A-Za-z{_FIG}])|/(?P<p2>[A-Za-z{_FIG}])|\((?P<p3>[A-Za-z{_FIG}])\))?$"
)


@dataclass(frozen=True)
class ParsedMove:
    """A move read from a player's token.

    ``nonstandard`` is set for forms the rules accept only when unambiguous and
    want mentioned (J3: ``5758(1)``, ``5751``); ``note`` says what was noticed
    (also full-width input, J2), empty when nothing needs saying.
    """

    move: chess.Move
    nonstandard: bool = False
    note: str = ""


def letter_set(letters: str) -> str:
    """The piece letters K, Q, R, B, N of a language code (J2); unknown codes give English."""
    return LETTER_SETS.get((letters or "en").lower(), LETTER_SETS["en"])


def _letter_map(letters: str) -> dict[str, chess.PieceType]:
    return dict(zip(letter_set(letters), PIECE_ORDER, strict=True))


def _san_letter(piece_type: chess.PieceType) -> str:
    return chess.piece_symbol(piece_type).upper()


def _describe(board: chess.Board, move: chess.Move) -> str:
    """Long algebraic text of a move for error details, e.g. ``Ng1-e2``."""
    return board.lan(move)


def _numeric_square(file_digit: str, rank_digit: str) -> chess.Square | None:
    f, r = int(file_digit), int(rank_digit)
    if 1 <= f <= 8 and 1 <= r <= 8:
        return chess.square(f - 1, r - 1)
    return None


def _parse_numeric(board: chess.Board, token: str, m: re.Match[str]) -> ParsedMove:
    """ICCF numeric notation (J3)."""
    a, b, c, d = m.group("a"), m.group("b"), m.group("c"), m.group("d")
    promo_digit = m.group("p") or m.group("p2") or m.group("p3")
    bracketed = bool(m.group("p2") or m.group("p3"))
    src = _numeric_square(a, b)
    dst = _numeric_square(c, d)
    if src is None:
        raise MoveError("unreadable", token, Reason.of("numeric_digits"))
    legal = list(board.legal_moves)
    if promo_digit is not None:
        piece = _DIGIT_PROMOTION.get(int(promo_digit))
        if dst is None or piece is None:
            raise MoveError(
                "unreadable", token, Reason.of("numeric_promotion_digit")
            )
        move = chess.Move(src, dst, promotion=piece)
        if move in legal:
            if bracketed:
                note = f"non-standard numeric form; standard is {a}{b}{c}{d}{promo_digit}"
                return ParsedMove(move, nonstandard=True, note=note)
            return ParsedMove(move)
        if chess.Move(src, dst) in legal:
            raise MoveError("illegal", token, Reason.of("numeric_fifth_digit"))
        raise MoveError("illegal", token, _numeric_illegal_detail(board, src, dst))

    # Four digits: the standard reading is from-square + to-square.
    std = chess.Move(src, dst) if dst is not None else None
    if std is not None and std in legal and not _alt_possible(board, src, c, d):
        return ParsedMove(std)
    std_ok = std is not None and std in legal
    std_needs_promo = dst is not None and any(
        mv.from_square == src and mv.to_square == dst and mv.promotion for mv in legal
    )
    # Non-standard "5751": from 57 to file 5 of the last rank, promote to 1=Q (J3).
    alt: chess.Move | None = None
    alt_piece = _DIGIT_PROMOTION.get(int(d))
    if alt_piece is not None and 1 <= int(c) <= 8:
        last_rank = 7 if board.turn == chess.WHITE else 0
        cand = chess.Move(src, chess.square(int(c) - 1, last_rank), promotion=alt_piece)
        if cand in legal:
            alt = cand
    if alt is not None:
        standard = f"{a}{b}{c}{chess.square_rank(alt.to_square) + 1}{d}"
        if std_ok:
            raise MoveError(
                "ambiguous",
                token,
                Reason.of("numeric_ambiguous", digits=f"{a}{b}{c}{d}",
                          plain=f"{a}{b}-{c}{d}", promotion=standard),
            )
        return ParsedMove(
            alt, nonstandard=True, note=f"non-standard numeric form; standard is {standard}"
        )
    if std_needs_promo:
        raise MoveError(
            "illegal",
            token,
            Reason.of("numeric_promotion_missing", example=f"{a}{b}{c}{d}1"),
        )
    if dst is None:
        raise MoveError("unreadable", token, Reason.of("numeric_digits"))
    raise MoveError("illegal", token, _numeric_illegal_detail(board, src, dst))


def _alt_possible(board: chess.Board, src: chess.Square, c: str, d: str) -> bool:
    """Whether a four-digit token could also be the non-standard promotion form (J3)."""
    if d not in "1234" or board.piece_type_at(src) != chess.PAWN:
        return False
    return chess.square_rank(src) == (6 if board.turn == chess.WHITE else 1)


def _numeric_illegal_detail(board: chess.Board, src: chess.Square,
                            dst: chess.Square) -> Reason:
    piece = board.piece_at(src)
    lan = f"{chess.square_name(src)}-{chess.square_name(dst)}"
    if piece is None:
        return Reason.of("numeric_no_piece", move=lan, square=chess.square_name(src))
    if piece.color != board.turn:
        return Reason.of("numeric_not_yours", move=lan, square=chess.square_name(src))
    return Reason.of("numeric_cannot_move", move=lan, piece=_PIECE_NAMES[piece.piece_type])


def _castle(board: chess.Board, token: str, long: bool) -> ParsedMove:
    san = "O-O-O" if long else "O-O"
    try:
        return ParsedMove(board.parse_san(san))
    except ValueError:
        pass
    side = "queenside" if long else "kingside"
    has_right = (
        board.has_queenside_castling_rights(board.turn)
        if long
        else board.has_kingside_castling_rights(board.turn)
    )
    if not has_right:
        code = "castling_moved"
    elif board.is_check():
        code = "castling_check"
    else:
        code = "castling_blocked"
    raise MoveError("illegal", token, Reason.of(code, side=side))


def _candidates(
    board: chess.Board, piece_type: chess.PieceType, to_sq: chess.Square
) -> list[chess.Move]:
    return [
        mv
        for mv in board.legal_moves
        if mv.to_square == to_sq and board.piece_type_at(mv.from_square) == piece_type
    ]


def _illegal_detail(
    board: chess.Board,
    piece_type: chess.PieceType,
    to_sq: chess.Square,
    from_file: int | None,
    from_rank: int | None,
    promotion: chess.PieceType | None,
) -> Reason:
    name = _PIECE_NAMES[piece_type]
    dest = chess.square_name(to_sq)
    legal = _candidates(board, piece_type, to_sq)
    if from_file is not None and from_rank is not None:
        src = chess.square(from_file, from_rank)
        piece = board.piece_at(src)
        if piece is None:
            return Reason.of("no_piece_on", square=chess.square_name(src))
        if piece.color != board.turn:
            return Reason.of("not_yours", square=chess.square_name(src))
        if piece.piece_type != piece_type:
            return Reason.of("piece_is", square=chess.square_name(src),
                             piece=_PIECE_NAMES[piece.piece_type])
    if legal and promotion is None and any(mv.promotion for mv in legal):
        return Reason.of("promotion_missing")
    if legal:
        return Reason.of("no_such_piece_move", piece=name, dest=dest,
                         legal=", ".join(_describe(board, mv) for mv in legal))
    if piece_type == chess.PAWN:
        return Reason.of("pawn_cannot_reach", dest=dest)
    if board.color_at(to_sq) == board.turn:
        return Reason.of("own_piece", dest=dest)
    # Pieces of that kind that attack the square but may not go there (J4: pins count).
    attackers = [
        sq
        for sq in board.attackers(board.turn, to_sq)
        if board.piece_type_at(sq) == piece_type
        and (from_file is None or chess.square_file(sq) == from_file)
        and (from_rank is None or chess.square_rank(sq) == from_rank)
    ]
    if attackers:
        where = ", ".join(chess.square_name(sq) for sq in attackers)
        return Reason.of("pinned", piece=name, where=where, dest=dest)
    return Reason.of("cannot_reach", piece=name, dest=dest)


def _ambiguous_detail(
    board: chess.Board, piece_type: chess.PieceType, to_sq: chess.Square, matches: list[chess.Move]
) -> Reason:
    return Reason.of("ambiguous_pieces", count=len(matches), piece=_PIECE_NAMES[piece_type],
                     dest=chess.square_name(to_sq),
                     sans=", ".join(board.san(mv) for mv in matches))


def _to_piece(ch: str | None, letter_map: dict[str, chess.PieceType]) -> chess.PieceType | None:
    if ch is None:
        return None
    if ch in WHITE_FIGURINES:
        return WHITE_FIGURINES[ch]
    if ch == "P":
        return chess.PAWN
    return letter_map.get(ch)


def _promo_piece(ch: str | None, letter_map: dict[str, chess.PieceType]) -> chess.PieceType | None:
    if ch is None:
        return None
    if ch in WHITE_FIGURINES:
        return WHITE_FIGURINES[ch]
    return letter_map.get(ch) or letter_map.get(ch.upper())


def _letters_hint(ch: str, letters: str) -> Reason:
    own = letter_set(letters)
    others = [code for code, ls in LETTER_SETS.items() if ch in ls and code != letters]
    if others:
        return Reason.of("letter_other", letter=ch, own=own, others=",".join(others))
    return Reason.of("letter_unknown", letter=ch, own=own)


def _parse_algebraic(board: chess.Board, token: str, s: str, letters: str) -> ParsedMove | None:
    """SAN, LAN, UCI and their J2 variants; None when ``s`` is not of that shape."""
    m = _ALGEBRAIC_RE.match(s)
    if not m:
        return None
    letter_map = _letter_map(letters)
    piece_ch = m.group("piece")
    piece_type = _to_piece(piece_ch, letter_map)
    if piece_ch is not None and piece_type is None:
        raise MoveError("unreadable", token, _letters_hint(piece_ch, letters))
    promo_ch = m.group("p1") or m.group("p2") or m.group("p3")
    promotion = _promo_piece(promo_ch, letter_map)
    if promo_ch is not None and (promotion is None or promotion in (chess.KING, chess.PAWN)):
        raise MoveError("unreadable", token, Reason.of("not_promotion_piece", letter=promo_ch))
    ff, fr, sep, to = m.group("ff"), m.group("fr"), m.group("sep"), m.group("to")
    to_sq = chess.parse_square(to)
    from_file = chess.FILE_NAMES.index(ff) if ff else None
    from_rank = int(fr) - 1 if fr else None
    promo_san = "=" + _san_letter(promotion) if promotion else ""

    if piece_type in (None, chess.PAWN) and ff is None and fr is None and sep in ("x", ":"):
        # "Pxd5" / "xd5": a pawn capture without its file; accept it if only one fits.
        matches = [
            mv
            for mv in board.legal_moves
            if mv.to_square == to_sq
            and board.piece_type_at(mv.from_square) == chess.PAWN
            and board.is_capture(mv)
            and mv.promotion == promotion
        ]
        if len(matches) == 1:
            return ParsedMove(matches[0])
        if matches:
            raise MoveError(
                "ambiguous", token, _ambiguous_detail(board, chess.PAWN, to_sq, matches)
            )
        raise MoveError("illegal", token, Reason.of("pawn_cannot_capture", dest=to))

    if piece_ch is None and ff is not None and fr is None and sep is None and not promotion:
        _lower_case_piece(board, token, ff, to_sq, letter_map)
    if piece_type is None or piece_type == chess.PAWN:
        san = f"{ff or ''}{fr or ''}{to}{promo_san}"
        kind_for_detail: chess.PieceType = chess.PAWN
        if ff and fr:
            # Fully specified squares (UCI / LAN, J2): python-chess reads any piece.
            piece = board.piece_at(chess.square(from_file or 0, from_rank or 0))
            if piece is not None:
                kind_for_detail = piece.piece_type
            if piece_type == chess.PAWN and kind_for_detail != chess.PAWN:
                raise MoveError("illegal", token, Reason.of(
                    "piece_is", square=f"{ff}{fr}", piece=_PIECE_NAMES[kind_for_detail]))
    elif piece_type == chess.KING and ff and fr:
        # "Ke1-g1" is castling written as a king move; python-chess needs "e1g1".
        src = chess.square(chess.FILE_NAMES.index(ff), int(fr) - 1)
        if board.piece_type_at(src) != chess.KING or board.color_at(src) != board.turn:
            raise MoveError(
                "illegal",
                token,
                _illegal_detail(board, chess.KING, to_sq, from_file, from_rank, promotion),
            )
        san = f"{ff}{fr}{to}{promo_san}"
        kind_for_detail = chess.KING
    else:
        san = f"{_san_letter(piece_type)}{ff or ''}{fr or ''}{to}{promo_san}"
        kind_for_detail = piece_type

    try:
        move = board.parse_san(san)
    except chess.AmbiguousMoveError:
        matches = [
            mv
            for mv in _candidates(board, kind_for_detail, to_sq)
            if mv.promotion == promotion
            and (from_file is None or chess.square_file(mv.from_square) == from_file)
            and (from_rank is None or chess.square_rank(mv.from_square) == from_rank)
        ]
        raise MoveError(
            "ambiguous", token, _ambiguous_detail(board, kind_for_detail, to_sq, matches)
        ) from None
    except ValueError:  # IllegalMoveError / InvalidMoveError
        raise MoveError(
            "illegal",
            token,
            _illegal_detail(board, kind_for_detail, to_sq, from_file, from_rank, promotion),
        ) from None
    if not move:  # null move; cannot happen with the strings built above
        raise MoveError("unreadable", token, Reason.of("not_a_move"))
    return ParsedMove(move)


def _lower_case_piece(board: chess.Board, token: str, file: str, to_sq: chess.Square,
                      letter_map: dict[str, chess.PieceType]) -> None:
    """``bc4`` with no b-pawn able to take on c4 but a bishop able to go there: the bishop
    written in lower case, as a phone or a lazy hand writes it. Refused (J5) with the
    upper-case hint rather than "no such pawn move". Where the pawn can take there it is
    the pawn's move (J2: the ``x`` may be left out; J4: a pawn and a bishop are no
    ambiguity), and this returns."""
    piece = letter_map.get(file.upper())
    if piece is None or piece == chess.PAWN or not _candidates(board, piece, to_sq):
        return
    if not any(mv.to_square == to_sq and board.piece_type_at(mv.from_square) == chess.PAWN
               and chess.square_file(mv.from_square) == chess.FILE_NAMES.index(file)
               for mv in board.legal_moves):
        raise MoveError("unreadable", token, Reason.of("lower_case_letter"))


def parse_move_ex(board: chess.Board, token: str, letters: str = "en") -> ParsedMove:
    """Read one move token on ``board`` and say whether it was non-standard.

    Accepts everything J2 lists (missing or wrong ``x`` ``+`` ``#`` ``e.p.``,
    ``0-0``/``O-O``/``o-o``, ``e8=Q`` ``e8Q`` ``e8(Q)`` ``e8/Q``, a ``P``
    prefix, long algebraic ``Ng1-f3``, UCI ``g1f3``, full-width characters,
    annotation glyphs, figurines, the player's piece letters ``letters`` of
    en/de/fr/es) and ICCF numeric moves (J3). Raises :class:`MoveError` with
    kind ``illegal``, ``ambiguous`` (J4: only when two pieces of one kind can
    legally reach the square) or ``unreadable``.
    """
    if not isinstance(token, str) or not token.strip():
        raise MoveError("unreadable", str(token), Reason.of("empty_move"))
    notes: list[str] = []
    if has_fullwidth(token):
        notes.append("full-width characters read as half-width")  # J2
    s = clean_token(token)
    if not s:
        raise MoveError("unreadable", token, Reason.of("not_a_move"))

    parsed: ParsedMove | None
    if CASTLE_RE.match(s):
        parsed = _castle(board, token, long=len(s.replace("-", "")) == 3)
    elif (nm := NUMERIC_RE.match(s)) is not None:
        parsed = _parse_numeric(board, token, nm)  # J3
    else:
        parsed = _parse_algebraic(board, token, s, letters)
    if parsed is None:
        code = "not_chess_move"
        if s[:1] in "kqrnst" and _ALGEBRAIC_RE.match(s[0].upper() + s[1:]):
            code = "lower_case_letter"
        raise MoveError("unreadable", token, Reason.of(code))
    if parsed.note:
        notes.append(parsed.note)
    note = "; ".join(notes)
    return ParsedMove(parsed.move, parsed.nonstandard, note)


def parse_move(board: chess.Board, token: str, letters: str = "en") -> chess.Move:
    """The legal move ``token`` means on ``board`` (J2-J4); raises :class:`MoveError`."""
    return parse_move_ex(board, token, letters).move


# --- writing moves ----------------------------------------------------------


def numeric_move(move: chess.Move) -> str:
    """ICCF numeric text of a move (J3): ``7163``, ``5171``, ``57581``."""
    text = "".join(
        f"{chess.square_file(sq) + 1}{chess.square_rank(sq) + 1}"
        for sq in (move.from_square, move.to_square)
    )
    if move.promotion:
        text += str(NUMERIC_PROMOTION[move.promotion])
    return text


def _localise(san: str, letters: str) -> str:
    table = dict(zip(LETTER_SETS["en"], letter_set(letters), strict=True))
    return "".join(table.get(ch, ch) for ch in san)


def format_move(board: chess.Board, move: chess.Move, notation: str, letters: str = "en") -> str:
    """Write ``move`` (legal on ``board``) in a player's notation.

    ``notation`` is ``san`` (python-chess SAN, piece letters of ``letters``,
    J2), ``numeric`` (ICCF digits, J3), or also ``lan`` (``Ng1-f3``) and
    ``uci``. Raises ValueError for another notation.
    """
    if notation == "san":
        return _localise(board.san(move), letters)
    if notation == "numeric":
        return numeric_move(move)
    if notation == "lan":
        return _localise(board.lan(move), letters)
    if notation == "uci":
        return move.uci()
    raise ValueError(f"unknown notation {notation!r}")


def format_record(
    moves: Sequence[chess.Move],
    notation: str,
    letters: str = "en",
    start: chess.Board | None = None,
) -> str:
    """A game as ``1. e4 e5 2. Nf3 Nc6`` in a player's notation (no result).

    ``start`` is the position before the first move (default: the initial
    position); when Black moves first the record starts ``1... e5``.
    """
    board = start.copy(stack=False) if start is not None else chess.Board()
    parts: list[str] = []
    for i, move in enumerate(moves):
        if board.turn == chess.WHITE:
            parts.append(f"{board.fullmove_number}.")
        elif i == 0:
            parts.append(f"{board.fullmove_number}...")
        parts.append(format_move(board, move, notation, letters))
        board.push(move)
    return " ".join(parts)


def format_stored(
    moves: Sequence[tuple[str, str]], notation: str, letters: str = "en"
) -> str:
    """A game from the initial position as ``format_record`` writes it, from stored
    (UCI, English SAN) pairs, without replaying: numeric needs only the squares (J3),
    SAN only a change of piece letters (J2)."""
    parts: list[str] = []
    for i, (uci, san) in enumerate(moves):
        if i % 2 == 0:
            parts.append(f"{i // 2 + 1}.")
        parts.append(stored_move_text(uci, san, notation, letters))
    return " ".join(parts)


def stored_move_text(uci: str, san: str, notation: str, letters: str = "en") -> str:
    """One stored move (UCI and English SAN) in a player's notation, without a board."""
    if notation == "numeric":
        return numeric_move(chess.Move.from_uci(uci))
    if notation == "san":
        return san if letters == "en" else _localise(san, letters)
    raise ValueError(f"unknown notation {notation!r}")


def ply_keys(board: chess.Board, move: chess.Move) -> frozenset[str]:
    """Every :func:`token_key` a correct English writing of ``move`` reduces to (J1).

    Covers SAN as python-chess writes it, every sufficient disambiguation
    (``Nge2``, ``N1e2``, ``Ng1e2``; over-disambiguation is fine, J4), long
    algebraic, UCI, ICCF numeric (J3), castling as ``O-O`` and as a king move.
    """
    keys: set[str] = set()
    # No board.lan(move): its key is always among these (a piece's "Ng1-f3" below, a
    # pawn's "e2-e4"/"e7-e8=Q" equal to the UCI key, castling equal to the SAN key), and
    # python-chess would play the move and test for check just to write it.
    writings = [board.san(move), move.uci(), numeric_move(move)]
    piece_type = board.piece_type_at(move.from_square)
    src, dst = chess.square_name(move.from_square), chess.square_name(move.to_square)
    promo = "=" + _san_letter(move.promotion) if move.promotion else ""
    if piece_type is not None and piece_type != chess.PAWN:
        letter = _san_letter(piece_type)
        # Legal moves of this piece type to the same square. The from-mask lets
        # python-chess generate only those pieces' moves instead of every legal move
        # (only the mover's pieces have legal moves). No to-mask for a king: python-chess
        # matches a castling move's to-mask against the rook's square, not the king's.
        to_mask = chess.BB_ALL if piece_type == chess.KING else chess.BB_SQUARES[move.to_square]
        same = [
            mv
            for mv in board.generate_legal_moves(
                board.pieces_mask(piece_type, board.turn), to_mask
            )
            if mv.to_square == move.to_square
        ]
        for file_part, rank_part in (("", ""), (src[0], ""), ("", src[1]), (src[0], src[1])):
            fits = [
                mv
                for mv in same
                if (not file_part or chess.square_name(mv.from_square)[0] == file_part)
                and (not rank_part or chess.square_name(mv.from_square)[1] == rank_part)
            ]
            if len(fits) == 1:
                writings.append(f"{letter}{file_part}{rank_part}{dst}")
        writings.append(f"{letter}{src}-{dst}")
    elif piece_type == chess.PAWN:
        writings.append(f"{src}{dst}{promo}")
        if board.is_capture(move):
            writings.append(f"{src[0]}x{dst}{promo}")
        else:
            writings.append(f"{dst}{promo}")
    for text in writings:
        keys.add(token_key(text))
    return frozenset(keys)
