"""Shogi moves as members write them, and as the bot writes them back.

Reading (:func:`parse`): Japanese notation with full-width or half-width digits and
kanji numerals (``▲７六歩``, ``7六歩``, ``７６歩``, ``△同　歩``, ``同歩``), drops (``打``),
promotion (``成``, ``不成``, ``生``), the relative words ``右 左 上 引 寄 直 行 入``, the KIF
origin (``７六歩(77)``), USI (``7g7f``, ``P*5e``, ``8h2b+``) and CSA (``+7776FU``). The text
is normalised first (:func:`clean`: NFKC, kanji numerals, ``同　`` joined).

Writing: :func:`japanese` (``▲７六歩``, the relative word only where the move is
ambiguous, as players write), :func:`kif_move` (``７六歩(77)``, KIF's origin form),
:func:`csa_move` (``+7776FU``) and :func:`usi`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import shogi

from relaybot.core.reasons import Reason
from relaybot.games.base import MoveError
from relaybot.games.shogi.position import (
    BLACK,
    CSA_NAMES,
    NAMES,
    PROMOTED,
    UNPROMOTED,
    Position,
    file_of,
    move_of,
    rank_of,
    square,
)

MARKS = ("▲", "△")
_MARK_CHARS = "▲△☗☖"
_KANJI_DIGITS = {"一": "1", "二": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7",
                 "八": "8", "九": "9"}
_FULL_DIGITS = "１２３４５６７８９"
_KANJI_RANKS = "一二三四五六七八九"
# piece words (after NFKC) -> piece type; the longest first when matching
_PIECES: dict[str, int] = {
    "成銀": 12, "成桂": 11, "成香": 10, "全": 12, "圭": 11, "杏": 10, "仝": 12,
    "歩": 1, "香": 2, "桂": 3, "銀": 4, "金": 5, "角": 6, "飛": 7, "玉": 8, "王": 8,
    "と": 9, "馬": 13, "龍": 14, "竜": 14,
}
_PIECE_ALT = "|".join(sorted(_PIECES, key=len, reverse=True))
_RELATIVE = "右左上引寄直行入"
_JA_RE = re.compile(
    rf"^(?P<mark>[{_MARK_CHARS}])?(?:(?P<file>[1-9])(?P<rank>[1-9])|(?P<same>同))"
    rf"(?P<piece>{_PIECE_ALT})(?P<rel>[{_RELATIVE}]*)(?P<how>打|不成|生|成)?"
    rf"(?:\((?P<of>[1-9])(?P<or>[1-9])\))?$"
)
_USI_RE = re.compile(r"^(?:[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])$")
_CSA_RE = re.compile(
    r"^(?P<sign>[+-])?(?P<from>00|[1-9][1-9])(?P<to>[1-9][1-9])(?P<piece>[A-Z]{2})$")
_CSA_PIECES = {name: k for k, name in enumerate(CSA_NAMES) if name}
_SAME_SPACE_RE = re.compile(r"同[\s\u3000]+")
# ``２二角成り``, ``５五角打ち``: the kana a casual hand adds to 成, 不成 and 打 (only right
# after a piece or a relative word, so that prose such as 成り行き stays as written)
_OKURIGANA_RE = re.compile(r"(?<=[歩香桂銀金角飛玉王と馬龍竜全圭杏仝右左上引寄直行入])"
                           r"(不成(?=り)|成(?=り)|打(?=ち)).")
_MARK_SPLIT_RE = re.compile(rf"(?<=\S)(?=[{_MARK_CHARS}])")
_ALIASES = str.maketrans({"王": "玉", "竜": "龍", "全": "成銀", "圭": "成桂", "杏": "成香",
                         "仝": "成銀"})
_KEY_STRIP_RE = re.compile(rf"[{_MARK_CHARS}{_RELATIVE}]|\(\d\d\)|不成|生|打")


_NEEDS_CLEAN_RE = re.compile(
    r"[\s\u3000\uff01-\uff5e一二三四五六七八九▽]|同|(?<=\S)[▲△☗☖]|成り|打ち")


def clean(text: str) -> str:
    """NFKC (full width to ASCII), kanji rank numerals as digits inside Japanese moves,
    ``同　歩`` joined to ``同歩``, and a space before every ▲ △ so that moves run
    together (``▲７六歩△３四歩``) split into tokens. Older books and vertical text write
    the file in kanji too (``▲七六歩``) and some mark gote ``▽``: both read as usual."""
    if unicodedata.is_normalized("NFKC", text) and _NEEDS_CLEAN_RE.search(text) is None:
        return text  # a token read from a cleaned line: already clean (the common case)
    text = unicodedata.normalize("NFKC", text).replace("▽", "△")  # ▽: gote in some books
    text = _SAME_SPACE_RE.sub("同", text)
    text = _OKURIGANA_RE.sub(lambda m: m.group(1), text)
    text = _MARK_SPLIT_RE.sub(" ", text)
    return _kanji_ranks(text)


_KANJI_RANK_RE = re.compile(r"([1-9])([一二三四五六七八九])")
# ``七六歩``: a file in kanji too, read only where a piece follows the two numerals (so
# that prose such as 一二三 stays as written)
_KANJI_SQUARE_RE = re.compile(
    rf"(?<![一二三四五六七八九十])([一二三四五六七八九])([一二三四五六七八九])(?=(?:{_PIECE_ALT}))")


def _kanji_ranks(text: str) -> str:
    """``7六歩`` -> ``76歩``: a kanji numeral right after a file digit is the rank; ``七六歩``
    -> ``76歩`` where both numerals are kanji and a piece follows."""
    text = _KANJI_SQUARE_RE.sub(
        lambda m: _KANJI_DIGITS[m.group(1)] + _KANJI_DIGITS[m.group(2)], text)
    return _KANJI_RANK_RE.sub(lambda m: m.group(1) + _KANJI_DIGITS[m.group(2)], text)


def key(token: str) -> str:
    """A token reduced to a comparison key: no mark, relative word, origin, 打 or 不成;
    aliases of a piece as one name; USI and CSA lower case, CSA without its sign."""
    word = clean(token).strip()
    if word.isascii():  # USI, CSA (without its sign) or something unreadable
        return (word.lstrip("+-") if _CSA_RE.match(word) else word).lower()
    return _KEY_STRIP_RE.sub("", word).translate(_ALIASES)


def looks_like_move(token: str) -> bool:
    """Whether ``token`` could be a shogi move in any notation the bot reads."""
    return is_move_word(clean(token).strip())


# a word that tries to be a move: a side's mark before it, or a square (or 同) with a
# piece after it (``▲同飛車``, ``２四同歩``), where the move itself does not read
_MOVE_ATTEMPT_RE = re.compile(rf"^[{_MARK_CHARS}].|(?:同|[1-9][1-9])(?:{_PIECE_ALT})")


def is_move_attempt(word: str) -> bool:
    """Whether a cleaned ``word`` that :func:`is_move_word` refuses was still meant as a
    move (J16: a proposal names it as unreadable rather than drop it and read the line
    without it)."""
    return _MOVE_ATTEMPT_RE.search(word) is not None


def is_move_word(word: str) -> bool:
    """:func:`looks_like_move` for a word already cleaned."""
    return bool(_JA_RE.match(word) or _USI_RE.match(word) or _CSA_RE.match(word))


def usi(move: Any) -> str:
    """The USI text of a python-shogi Move."""
    return str(move.usi())


def _squares(mask: int) -> list[int]:
    """The squares of a bitboard."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def _candidates(pos: Position, to_sq: int, piece_type: int) -> list[Any]:
    """Every legal move of a ``piece_type`` of the side to move to ``to_sq``, drops
    included, with and without promotion."""
    board = pos.board
    side = pos.turn
    found: list[Any] = []
    base = UNPROMOTED[piece_type]
    target = shogi.BB_SQUARES[to_sq]
    # ``３九と`` is a と that moves (a pawn promoting there is ``３九歩成``); the bitboards
    # first: only pieces that attack the square are tried for legality
    for sq in _squares(board.piece_bb[piece_type] & board.occupied[side]):
        if not shogi.Board.attacks_from(piece_type, sq, board.occupied, side) & target:
            continue
        for promote in (False, True):
            if promote and PROMOTED[piece_type] == 0:
                continue
            move = shogi.Move(sq, to_sq, promote)
            if board.is_legal(move):
                found.append(move)
    if piece_type == base and base != 8 and board.has_piece_in_hand(base, side):
        drop = shogi.Move(None, to_sq, False, base)
        if board.is_legal(drop):
            found.append(drop)
    return found


def _result_type(pos: Position, move: Any) -> int:
    """The piece type a move leaves on its square (promoted when it promotes)."""
    m = move
    if m.drop_piece_type:
        return int(m.drop_piece_type)
    kind = int(pos.board.piece_type_at(m.from_square))
    return PROMOTED[kind] if m.promotion else kind


def _moved_type(pos: Position, move: Any) -> int:
    """The piece type that moves (before any promotion)."""
    m = move
    if m.drop_piece_type:
        return int(m.drop_piece_type)
    return int(pos.board.piece_type_at(m.from_square))


def _forward(side: int, from_sq: int, to_sq: int) -> int:
    """Ranks moved toward the opponent (positive: 上, negative: 引, 0: 寄)."""
    delta = rank_of(from_sq) - rank_of(to_sq)
    return delta if side == BLACK else -delta


def _rightness(side: int, sq: int) -> int:
    """How far right ``sq`` is as the mover sees the board (files count from the right)."""
    return -file_of(sq) if side == BLACK else file_of(sq)


def _filter_relative(pos: Position, moves: list[Any], rel: str) -> list[Any]:
    """The moves the relative words ``rel`` (右 左 上 引 寄 直 行 入) pick: the motion
    (上 引 寄 直) first, then the side (右 左) among those, as the standard form reads
    ``５八金左上``: of the golds that move up, the left one."""
    side = pos.turn
    board_moves = [m for m in moves if not m.drop_piece_type]
    for word in sorted(rel, key=lambda w: w in "右左"):
        if word in "上行入":
            board_moves = [m for m in board_moves
                           if _forward(side, m.from_square, m.to_square) > 0]
        elif word == "引":
            board_moves = [m for m in board_moves
                           if _forward(side, m.from_square, m.to_square) < 0]
        elif word == "寄":
            board_moves = [m for m in board_moves
                           if _forward(side, m.from_square, m.to_square) == 0]
        elif word == "直":
            board_moves = [m for m in board_moves
                           if file_of(m.from_square) == file_of(m.to_square)
                           and _forward(side, m.from_square, m.to_square) == 1]
        elif word in "右左" and board_moves:
            sign = 1 if word == "右" else -1
            best = max(sign * _rightness(side, m.from_square) for m in board_moves)
            board_moves = [m for m in board_moves
                           if sign * _rightness(side, m.from_square) == best]
    return list(board_moves)


def parse(pos: Position, token: str) -> str:
    """The USI ply a member's ``token`` means in ``pos``; MoveError saying why not.

    Lenient where a human is (no ▲△, ``同`` with or without the space, a KIF origin);
    strict where the rules are: a promotion choice left unsaid when both are legal is
    ambiguous, and 二歩, 打ち歩詰め or a move into check are illegal.
    """
    word = clean(token).strip()
    if not word:
        raise MoveError("unreadable", token, Reason.of("empty_move"))
    token = shown(word)  # a reply quotes the move as players write it: ▲５八金, not ▲58金
    mark = word[0] if word[0] in _MARK_CHARS else ""
    if mark and (mark in "▲☗") != (pos.turn == BLACK):
        side = "sente" if pos.turn == BLACK else "gote"
        raise MoveError("illegal", token, Reason.of("shogi_turn", side=side))
    if _USI_RE.match(word):
        return _checked(pos, token, move_of(word))
    csa = _CSA_RE.match(word)
    if csa:
        return _parse_csa(pos, token, csa)
    ja = _JA_RE.match(word)
    if ja is None:
        raise MoveError("unreadable", token, Reason.of("shogi_form"))
    return _parse_japanese(pos, token, ja)


def shown(word: str) -> str:
    """A cleaned Japanese move as players write it (``▲58金`` -> ``▲５八金``, ``同歩`` ->
    ``同　歩``); any other word unchanged."""
    m = _JA_RE.match(word)
    if m is None:
        return word
    dest = "同　" if m.group("same") else \
        _FULL_DIGITS[int(m.group("file")) - 1] + _KANJI_RANKS[int(m.group("rank")) - 1]
    return (m.group("mark") or "") + dest + word[m.end("same" if m.group("same") else "rank"):]


def _checked(pos: Position, token: str, move: Any) -> str:
    """The move's USI if it is legal, else MoveError with the rule it breaks."""
    if pos.board.is_legal(move):
        return usi(move)
    raise MoveError("illegal", token, _why_illegal(pos, move))


def _why_illegal(pos: Position, move: Any) -> Reason:
    """The reason that a well-formed move is not legal."""
    board = pos.board
    m = move
    if board.is_pseudo_legal(m):
        board.push(m)
        suicide = board.was_suicide()
        board.pop()
        if suicide:
            return Reason.of("shogi_self_check")
        return Reason.of("shogi_pawn_drop_mate")
    if m.drop_piece_type:
        if not board.has_piece_in_hand(m.drop_piece_type, pos.turn):
            return Reason.of("shogi_not_in_hand")
        if board.piece_at(m.to_square) is not None:
            return Reason.of("shogi_occupied")
        if board.is_double_pawn(m.to_square, m.drop_piece_type):
            return Reason.of("shogi_double_pawn")
        return Reason.of("shogi_dead_piece")
    piece = board.piece_at(m.from_square)
    if piece is None or piece.color != pos.turn:
        return Reason.of("shogi_no_own_piece")
    return Reason.of("shogi_cannot_move")


def _parse_csa(pos: Position, token: str, m: re.Match[str]) -> str:
    sign = m.group("sign")
    if sign and (sign == "+") != (pos.turn == BLACK):
        raise MoveError("illegal", token, Reason.of("shogi_wrong_sign"))
    piece_type = _CSA_PIECES.get(m.group("piece"))
    if piece_type is None:
        raise MoveError("unreadable", token,
                        Reason.of("shogi_not_csa_piece", name=m.group("piece")))
    to_sq = square(int(m.group("to")[0]), int(m.group("to")[1]))
    if m.group("from") == "00":
        if piece_type >= 8:
            raise MoveError("illegal", token, Reason.of("shogi_promoted_drop"))
        return _checked(pos, token, shogi.Move(None, to_sq, False, piece_type))
    from_sq = square(int(m.group("from")[0]), int(m.group("from")[1]))
    here = pos.board.piece_type_at(from_sq)
    promote = bool(here) and piece_type != here and PROMOTED[int(here)] == piece_type
    return _checked(pos, token, shogi.Move(from_sq, to_sq, promote))


def _parse_japanese(pos: Position, token: str, m: re.Match[str]) -> str:
    if m.group("same"):
        if pos.last_to is None:
            raise MoveError("illegal", token, Reason.of("shogi_no_previous"))
        to_sq = pos.last_to
    else:
        to_sq = square(int(m.group("file")), int(m.group("rank")))
    piece_type = _PIECES[m.group("piece")]
    how = m.group("how") or ""
    moves = _candidates(pos, to_sq, piece_type)
    if m.group("of"):
        origin = square(int(m.group("of")), int(m.group("or")))
        moves = [mv for mv in moves if mv.from_square == origin]
        if not moves:  # the KIF origin names the piece: say why that one cannot go
            _origin_refused(pos, token, shogi.Move(origin, to_sq, how == "成"), piece_type)
    if how == "打":
        moves = [mv for mv in moves if mv.drop_piece_type]
    elif any(not mv.drop_piece_type for mv in moves):
        # a board move needs no mark even where a drop was possible
        moves = [mv for mv in moves if not mv.drop_piece_type]
    if m.group("rel"):
        reachable = moves
        moves = _filter_relative(pos, moves, m.group("rel"))
        if reachable and not moves:
            # the piece can get there, but not the way the words say (▲同銀引 for a silver
            # that goes up): name the moves there are, not a rule the move never broke
            there = "、".join(sorted({japanese(pos, usi(mv), mark=False)
                                     for mv in reachable}))
            raise MoveError("illegal", token, Reason.of(
                "shogi_relative_none", words=m.group("rel"), moves=there))
    before = moves
    if how == "成":
        moves = [mv for mv in moves if mv.promotion]
    elif how in ("不成", "生"):
        moves = [mv for mv in moves if not mv.promotion]
    if not moves and before:  # the piece can go there, but not as the promotion word says
        raise MoveError("illegal", token, Reason.of(
            "shogi_cannot_promote" if how == "成" else "shogi_must_promote"))
    if not moves:
        return _no_candidate(pos, token, to_sq, piece_type, how)
    if len(moves) == 1:
        return usi(moves[0])
    names = sorted({japanese(pos, usi(mv), mark=False) for mv in moves})
    promotes = {bool(mv.promotion) for mv in moves}
    origins = {mv.from_square for mv in moves}
    if len(promotes) == 2 and len(origins) == 1:
        detail = Reason.of("shogi_say_promotion")
    else:
        detail = Reason.of("shogi_say_which")
    raise MoveError("ambiguous", token, detail, candidates=tuple(names))


def _origin_refused(pos: Position, token: str, move: Any, piece_type: int) -> None:
    """MoveError for a move whose KIF origin (``(69)``) names no legal move of the piece."""
    here = pos.board.piece_at(move.from_square)
    if (here is not None and here.color == pos.turn
            and int(here.piece_type) in (piece_type, UNPROMOTED[piece_type])
            and not pos.board.is_legal(move)):
        raise MoveError("illegal", token, _why_illegal(pos, move))
    if here is None or here.color != pos.turn:
        raise MoveError("illegal", token, Reason.of("shogi_no_own_piece"))
    raise MoveError("illegal", token, Reason.of(
        "shogi_none_reach", name=NAMES[piece_type], square=_square_name(move.to_square)))


def _square_name(sq: int) -> str:
    """``５五``: a square as players write it."""
    return _FULL_DIGITS[file_of(sq) - 1] + _KANJI_RANKS[rank_of(sq) - 1]


def _no_candidate(pos: Position, token: str, to_sq: int, piece_type: int, how: str) -> str:
    """MoveError for a readable Japanese move that names no legal move, with the rule it
    breaks where one well-formed move of that piece names it (二歩, 打ち歩詰め, check)."""
    board = pos.board
    side = pos.turn
    base = UNPROMOTED[piece_type]
    tries: list[shogi.Move] = []
    if piece_type == base and base != 8 and how != "成":
        tries.append(shogi.Move(None, to_sq, False, base))
    if how != "打":
        for sq in range(81):
            p = board.piece_at(sq)
            if p is not None and p.color == side and int(p.piece_type) in (piece_type, base):
                tries.extend(shogi.Move(sq, to_sq, promote) for promote in (how == "成", False))
    if how != "打":
        tries.reverse()  # a board move explains better than a drop
    for move in tries:
        if board.is_pseudo_legal(move) and not board.is_legal(move):
            raise MoveError("illegal", token, _why_illegal(pos, move))
    on_board = any(not move.drop_piece_type for move in tries)
    if how == "打" or not on_board or board.has_piece_in_hand(base, side):
        # a drop is what the player may have meant only when they wrote 打, hold the piece
        # or have none on the board: "not in hand" for a gold on the board that cannot get
        # there misleads
        for move in tries:
            if move.drop_piece_type and not board.is_legal(move):
                raise MoveError("illegal", token, _why_illegal(pos, move))
    if on_board:
        raise MoveError("illegal", token, Reason.of(
            "shogi_none_reach", name=NAMES[piece_type], square=_square_name(to_sq)))
    raise MoveError("illegal", token, Reason.of("shogi_no_piece_moves"))


# --- writing ------------------------------------------------------------------------


def _dest(pos: Position, move: shogi.Move, same: bool = True) -> str:
    if same and pos.last_to is not None and move.to_square == pos.last_to:
        return "同"
    return _FULL_DIGITS[file_of(move.to_square) - 1] + _KANJI_RANKS[rank_of(move.to_square) - 1]


def _relative(pos: Position, move: shogi.Move) -> str:
    """What singles ``move`` out when the piece and square alone do not, as players and
    the KI2 standard write it (issue 26): the motion 上 引 寄 (or 直, straight up), else
    the side 右 左, else both (``左上``); the origin (``(61)``) only where no word does;
    ``打`` for a drop where a board move was possible; "" otherwise."""
    moved = _moved_type(pos, move)
    rivals = [mv for mv in _candidates(pos, move.to_square, moved)
              if bool(mv.promotion) == bool(move.promotion)]
    if move.drop_piece_type:
        return "打" if any(not mv.drop_piece_type for mv in rivals) else ""
    board_rivals = [mv for mv in rivals if not mv.drop_piece_type]
    if len(board_rivals) <= 1:
        return ""
    return (relative_words(pos, move, board_rivals)
            or f"({file_of(move.from_square)}{rank_of(move.from_square)})")


def relative_words(pos: Position, move: shogi.Move, rivals: list[Any]) -> str:
    """The shortest of the standard words (上 引 寄 直 右 左, 右上 ...) that picks ``move``
    alone among ``rivals`` (board moves of the same piece to the same square), as this
    module reads them back; "" when none does. 竜 and 馬 take no 直."""
    fwd = _forward(pos.turn, move.from_square, move.to_square)
    motion = "上" if fwd > 0 else "引" if fwd < 0 else "寄"
    tries = [motion]
    if _moved_type(pos, move) not in (13, 14):
        tries.append("直")
    tries += ["右", "左", "右" + motion, "左" + motion]
    wanted = usi(move)
    for words in tries:
        picked = _filter_relative(pos, rivals, words)
        if len(picked) == 1 and usi(picked[0]) == wanted:
            return words
    return ""


def _promotion(pos: Position, move: shogi.Move) -> str:
    if move.drop_piece_type:
        return ""
    if move.promotion:
        return "成"
    moved = _moved_type(pos, move)
    if PROMOTED[moved] and pos.board.is_legal(shogi.Move(move.from_square, move.to_square, True)):
        return "不成"  # the choice was there: say it
    return ""


def japanese(pos: Position, ply: str, *, mark: bool = True) -> str:
    """``▲７六歩``, ``△同　歩``, ``▲２二角成``, ``▲５二金(61)``: as players write a move,
    from ``pos`` before it; the origin (or ``打``) only where the move is ambiguous."""
    move = move_of(ply)
    moved = _moved_type(pos, move)
    dest = _dest(pos, move)
    rel = _relative(pos, move)
    text = ("同　" if dest == "同" else dest) + NAMES[moved]
    if not rel.startswith("("):  # 打 and the words come before 成: ５三桂左成
        text += rel
    text += _promotion(pos, move) + (rel if rel.startswith("(") else "")
    return (MARKS[pos.turn] if mark else "") + text


def written(pos: Position, ply: str, token: str) -> str | None:
    """The player's own standard words for ``ply`` when they differ from ours and still
    name it alone (``５八金直`` where we would write ``５八金上``): the record keeps what
    the player wrote (issue 26); None otherwise."""
    m = _JA_RE.match(clean(token))
    if m is None or not m.group("rel") or m.group("of"):
        return None
    move = move_of(ply)
    if move.drop_piece_type:
        return None
    ours = _relative(pos, move)
    theirs = "".join(w for w in m.group("rel") if w in "右左") + "".join(
        w for w in m.group("rel") if w not in "右左")
    if ours.startswith("(") or theirs == ours:
        return None
    moved = _moved_type(pos, move)
    rivals = [mv for mv in _candidates(pos, move.to_square, moved)
              if bool(mv.promotion) == bool(move.promotion) and not mv.drop_piece_type]
    picked = _filter_relative(pos, rivals, theirs)
    if len(picked) != 1 or usi(picked[0]) != ply:
        return None
    dest = _dest(pos, move)
    return (MARKS[pos.turn] + ("同　" if dest == "同" else dest) + NAMES[moved] + theirs
            + _promotion(pos, move))


def kif_move(pos: Position, ply: str) -> str:
    """``７六歩(77)``, ``同　歩(64)``, ``３一角打``, ``３三角成(77)``: a KIF move line's text."""
    move = move_of(ply)
    moved = _moved_type(pos, move)
    dest = _dest(pos, move)
    text = ("同　" if dest == "同" else dest) + NAMES[moved]
    if move.drop_piece_type:
        return text + "打"
    if move.promotion:
        text += "成"
    elif _promotion(pos, move) == "不成":
        text += "不成"
    return text + f"({file_of(move.from_square)}{rank_of(move.from_square)})"


def csa_move(pos: Position, ply: str) -> str:
    """``+7776FU``, ``-0055KA`` (a drop), ``+8822UM`` (the piece after the move)."""
    move = move_of(ply)
    sign = "+" if pos.turn == BLACK else "-"
    origin = "00" if move.drop_piece_type else \
        f"{file_of(move.from_square)}{rank_of(move.from_square)}"
    to = f"{file_of(move.to_square)}{rank_of(move.to_square)}"
    return f"{sign}{origin}{to}{CSA_NAMES[_result_type(pos, move)]}"


def keys_for(pos: Position, ply: str) -> frozenset[str]:
    """Every comparison key a correctly written token for ``ply`` reduces to."""
    move = move_of(ply)
    csa = csa_move(pos, ply)[1:].lower()
    moved = _moved_type(pos, move)
    piece = NAMES[moved]
    promo = "成" if move.promotion else ""
    digits = f"{file_of(move.to_square)}{rank_of(move.to_square)}"
    found: set[str] = {ply.lower(), csa, digits + piece + promo}
    if pos.last_to is not None and move.to_square == pos.last_to:
        found.add("同" + piece + promo)
        found.add(digits + "同" + piece + promo)
    return frozenset(found)

