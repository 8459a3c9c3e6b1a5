"""A shogi position for mail play: python-shogi's board plus what a saved SFEN loses.

A mail game is stored as text between mails. SFEN alone forgets two things the rules
need: the last move's square (``同歩`` names it) and the positions seen so far (千日手,
the fourfold repetition, and who gave a perpetual check). :class:`Position` keeps both
and :func:`save` writes them after the SFEN: ``SFEN|last|key key ...``, one short key a
position (its Zobrist hash in hex, ``+`` when the side to move was in check).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import shogi

BLACK = 0  # 先手 (sente), side 0, moves first
WHITE = 1  # 後手 (gote)
KING = 8
BIG = frozenset({6, 7, 13, 14})  # 角 飛 馬 龍: five points each in the 24-point rule

# piece type -> its name in a written move (KIF writes 成香 成桂 成銀 in full)
NAMES = ("", "歩", "香", "桂", "銀", "金", "角", "飛", "玉", "と", "成香", "成桂", "成銀", "馬",
         "龍")
CSA_NAMES = ("", "FU", "KY", "KE", "GI", "KI", "KA", "HI", "OU", "TO", "NY", "NK", "NG", "UM",
             "RY")
PROMOTED = (0, 9, 10, 11, 12, 0, 13, 14, 0, 0, 0, 0, 0, 0, 0)  # unpromoted -> promoted type
UNPROMOTED = (0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 6, 7)


def square(file: int, rank: int) -> int:
    """python-shogi's square index of (file 1-9 from Black's right, rank 1-9 from the top)."""
    return (rank - 1) * 9 + (9 - file)


def file_of(sq: int) -> int:
    """The file (1-9) of a square index."""
    return 9 - sq % 9


def rank_of(sq: int) -> int:
    """The rank (1-9, 一-九) of a square index."""
    return sq // 9 + 1


@dataclass
class Position:
    """A board, the square the last move went to, and the position keys so far."""

    board: Any  # shogi.Board (python-shogi ships no type hints)
    last_to: int | None = None
    history: list[str] = field(default_factory=list)

    @property
    def turn(self) -> int:
        """The side to move: 0 先手, 1 後手."""
        return int(self.board.turn)

    def key(self) -> str:
        """This position's repetition key: the Zobrist hash, ``+`` when in check."""
        return f"{self.board.zobrist_hash():x}" + ("+" if self.board.is_check() else "")


def start() -> Position:
    """The even-game (平手) start position."""
    pos = Position(shogi.Board())
    pos.history.append(pos.key())
    return pos


def copy(pos: Position) -> Position:
    """An independent copy (the board without its move stack)."""
    return Position(shogi.Board(pos.board.sfen()), pos.last_to, list(pos.history))


def move_of(ply: str) -> Any:
    """python-shogi's Move of a USI ply (ValueError when it is no USI move)."""
    try:
        return shogi.Move.from_usi(ply)
    except (ValueError, IndexError, KeyError) as exc:
        raise ValueError(f"not a USI move: {ply!r}") from exc


def is_legal(pos: Position, ply: str) -> bool:
    """Whether the USI ``ply`` is legal here (二歩, 打ち歩詰め, self-check refused)."""
    try:
        return bool(pos.board.is_legal(move_of(ply)))
    except ValueError:
        return False


def legal_plies(pos: Position) -> Iterator[str]:
    """Every legal move of the side to move, in USI (a promotion and its refusal are
    two moves)."""
    return (str(move.usi()) for move in pos.board.generate_legal_moves())


def play(pos: Position, ply: str) -> None:
    """Apply a USI ply in place; ValueError if it is not legal."""
    move = move_of(ply)
    if not pos.board.is_legal(move):
        raise ValueError(f"ply {ply!r} is not legal in {pos.board.sfen()}")
    pos.board.push(move)
    pos.last_to = int(move.to_square)
    pos.history.append(pos.key())


def save(pos: Position) -> str:
    """``SFEN|last square|keys``: the position, the 同 square and the repetition keys."""
    last = "" if pos.last_to is None else str(pos.last_to)
    return f"{pos.board.sfen()}|{last}|{' '.join(pos.history)}"


def load(saved: str) -> Position:
    """A position from :func:`save`'s text (a bare SFEN also works); ValueError if not one."""
    sfen, _, rest = saved.partition("|")
    last, _, keys = rest.partition("|")
    fields = sfen.split()
    if len(fields) != 4 or fields[0].count("/") != 8 or fields[1] not in ("b", "w"):
        raise ValueError(f"not a saved shogi position: {saved[:80]!r}")
    board = shogi.Board(sfen)
    pos = Position(board, int(last) if last.isdigit() else None, keys.split())
    if not pos.history:
        pos.history.append(pos.key())
    return pos


def sfen_turn(saved: str) -> int:
    """The side to move of a saved text, read without building a board."""
    fields = saved.split("|", 1)[0].split()
    if len(fields) < 2 or fields[1] not in ("b", "w"):
        raise ValueError(f"not a saved shogi position: {saved[:80]!r}")
    return BLACK if fields[1] == "b" else WHITE


def has_legal_move(pos: Position) -> bool:
    """Whether the side to move has a legal move: the king's own moves are tried first,
    since in check they are the likeliest (and cheapest) way out."""
    board = pos.board
    kings_only = board.generate_legal_moves(
        pawns=False, lances=False, knights=False, silvers=False, golds=False, bishops=False,
        rooks=False, king=True, pawns_drop=False, lances_drop=False, knights_drop=False,
        silvers_drop=False, golds_drop=False, bishops_drop=False, rooks_drop=False)
    if next(iter(kings_only), None) is not None:
        return True
    return next(iter(board.generate_legal_moves()), None) is not None


def ply_count(pos: Position) -> int:
    """Plies played since the start (the SFEN move number counts from 1)."""
    return int(pos.board.move_number) - 1


def repetition(pos: Position) -> tuple[bool, int | None]:
    """(千日手 now, the side that loses by perpetual check or None).

    The same position for the fourth time is 千日手, a draw; but when one side's every
    move since the first of the four was a check, that side loses (連続王手の千日手).
    """
    key = pos.history[-1] if pos.history else pos.key()
    seen = [i for i, k in enumerate(pos.history) if k == key]
    if len(seen) < 4:
        return False, None
    first = seen[0]
    # history[i] is the position after ply i-1 (history[0]: the start); the side to move
    # in history[i] is in check when the move that made it was a check by the other side
    span = range(first + 1, len(pos.history))
    turn_now = pos.turn
    for checker in (BLACK, WHITE):
        # positions where the checker's opponent is to move: parity relative to now
        theirs = [i for i in span
                  if (turn_now if (len(pos.history) - 1 - i) % 2 == 0 else 1 - turn_now)
                  == 1 - checker]
        if theirs and all(pos.history[i].endswith("+") for i in theirs):
            return True, checker
    return True, None


def in_camp(side: int, sq: int) -> bool:
    """Whether ``sq`` is in the opponent's camp of ``side`` (ranks 1-3 for 先手)."""
    rank = rank_of(sq)
    return rank <= 3 if side == BLACK else rank >= 7


def points(pos: Position, side: int) -> int:
    """The 24-point rule's count (seed 002 rule 15): 大駒 5, 小駒 1, the king not counted;
    every piece of ``side`` on the board and in hand."""
    total = 0
    board = pos.board
    for sq in range(81):
        piece = board.piece_at(sq)
        if piece is not None and piece.color == side and piece.piece_type != KING:
            total += 5 if piece.piece_type in BIG else 1
    for piece_type, count in board.pieces_in_hand[side].items():
        total += (5 if piece_type in BIG else 1) * count
    return total


def king_square(pos: Position, side: int) -> int | None:
    """Where ``side``'s king stands."""
    sq = pos.board.king_squares[side]
    return None if sq is None else int(sq)
