"""Chess behind the :class:`~relaybot.games.base.GameRules` protocol (python-chess).

Positions are :class:`chess.Board`; canonical plies are UCI strings. Reading
player text (J2-J4) and writing records (J3) is :mod:`relaybot.games.chess.notation`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

import chess

from relaybot.core.reasons import Reason
from relaybot.games.base import (
    MoveError,
    Outcome,
    Progress,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
)
from relaybot.games.chess import notation as _nt
from relaybot.games.chess import proposals as _proposals
from relaybot.games.chess.notation.text import NUMERIC_RE, clean_token
from relaybot.games.chess.pgn import write_pgn

SIDES = {"en": ("White", "Black"), "ja": ("白", "黒")}
SIDE_WORDS = {"white": 0, "black": 1, "w": 0, "b": 1, "白": 0, "黒": 1, "白番": 0, "黒番": 1}
_RESULTS = {"1-0": 0, "0-1": 1}


def _last_move(board: chess.Board, last: str) -> chess.Move | None:
    """The move that led to ``board`` (a UCI string; a saved FEN keeps no history)."""
    if not last:
        return board.peek() if board.move_stack else None
    try:
        return chess.Move.from_uci(last)
    except ValueError:
        return None


def _board(position: object) -> chess.Board:
    if not isinstance(position, chess.Board):
        raise TypeError(f"not a chess position: {type(position).__name__}")
    return position


def _move(board: chess.Board, ply: str) -> chess.Move:
    """The legal move of a stored UCI ply; ValueError if it is not legal here."""
    move = chess.Move.from_uci(ply)
    if move not in board.legal_moves:
        raise ValueError(f"ply {ply!r} is not legal in {board.fen()}")
    return move


class ChessRules:
    """Standard chess: python-chess boards, UCI plies."""

    kind = "chess"
    record_format = "pgn"
    record_policy: RecordPolicy = "full"  # J1: every mail carries the game from move 1
    display_notation = "san"  # what Move.text holds
    colour_options = ("white", "black")  # --white is side 0
    rule_set = RuleSet()  # JCCA (seed 000): 10/30, grace 1, leave, binding proposals, J5
    keywords: Mapping[str, str] = MappingProxyType({})  # none of its own (draws are core's)

    def start(self) -> chess.Board:
        """A new initial position."""
        return chess.Board()

    def replay(self, plies: Sequence[str]) -> chess.Board:
        """The position after the stored UCI plies (ValueError on an illegal ply)."""
        board = chess.Board()
        for ply in plies:
            board.push(_move(board, ply))
        return board

    def copy(self, position: object) -> chess.Board:
        """An independent copy of the board (without its move stack)."""
        return _board(position).copy(stack=False)

    def terms_text(self, position: object, lang: str) -> str:
        """Nothing beyond the time control: every game starts the same."""
        return ""

    def position_text(self, saved: str) -> str:
        """The FEN: the saved text is one."""
        return saved

    def is_legal(self, position: object, ply: str) -> bool:
        """Whether the UCI ``ply`` is legal on the board."""
        try:
            return chess.Move.from_uci(ply) in _board(position).legal_moves
        except ValueError:
            return False

    def legal_plies(self, position: object) -> Iterator[str]:
        """Every legal move of the side to move, in UCI."""
        return (move.uci() for move in _board(position).legal_moves)

    def ply_index(self, position: object) -> int:
        """0-based index of the next ply, from the board's move number and turn."""
        board = _board(position)
        return (board.fullmove_number - 1) * 2 + (0 if board.turn == chess.WHITE else 1)

    def normalise_text(self, text: str) -> tuple[str, bool]:
        """A mail body cleaned for move reading (J2: NFKC, dashes, figurines)."""
        return _nt.normalise_text(text)

    def looks_like_move(self, token: str) -> bool:
        """Whether ``token`` could be a chess move in any accepted notation (J2, J3)."""
        return _nt.looks_like_move(token)

    def standard_form(self, position: object, token: str, letters: str = "en") -> str | None:
        """The standard ICCF numeric form of an accepted non-standard one (J3: ``5758(1)``,
        ``5751`` are ``57581``); None for every standard form and for SAN."""
        if not NUMERIC_RE.match(clean_token(token)):
            return None  # only numeric forms have accepted non-standard spellings
        try:
            parsed = _nt.parse_move_ex(_board(position), token, letters)
        except MoveError:
            return None
        return _nt.numeric_move(parsed.move) if parsed.nonstandard else None

    def read_proposals(self, text: str, record: RecordText) -> list[ProposalLine]:
        """Conditional proposals in a mail: ``if`` lines and PGN variations (J16)."""
        return _proposals.parse_proposals(text, record)

    def proposal_lines(self, text: str) -> set[int]:
        """Indices of the lines holding ``if`` proposals."""
        return _proposals.proposal_lines(text)

    def strip_proposals(self, text: str) -> str:
        """``text`` with its ``if`` proposals blanked."""
        return _proposals.strip_proposals(text)

    def side_names(self, lang: str) -> tuple[str, str]:
        """White and Black in ``lang`` (Japanese 白/黒)."""
        return SIDES.get(lang, SIDES["en"])

    def side_of(self, word: str) -> int | None:
        """0 for ``white``/``w``/``白``, 1 for ``black``/``b``/``黒``, else None."""
        return SIDE_WORDS.get(word.strip().lower())

    def format_result(self, outcome: Outcome) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2``; ``*`` for a void game (both losing: ``0-0``)."""
        if outcome.void:
            return "*"
        if outcome.both_lose:
            return "0-0"
        if outcome.winner is None:
            return "1/2-1/2"
        return "1-0" if outcome.winner == 0 else "0-1"

    def parse_result(self, text: str, termination: str) -> Outcome | None:
        """``1-0``, ``0-1``, ``1/2-1/2`` (or ``½-½``), ``*`` as an Outcome; else None."""
        word = text.strip().replace("½", "1/2")
        if word in _RESULTS:
            return Outcome.win(termination, _RESULTS[word])
        if word == "1/2-1/2":
            return Outcome.draw(termination)
        if word == "*":
            return Outcome(termination, void=True)
        if word == "0-0":
            return Outcome(termination, both_lose=True)
        return None

    def move_label(self, ply: int, text: str) -> str:
        """``12. Nf3`` or ``12... Nf6`` for a 0-based ply."""
        return f"{self.move_number(ply)} {text}"

    def move_number(self, ply: int, lang: str = "en") -> str:
        """``3.`` before White's move, ``3...`` before Black's (0-based ply), in either
        language."""
        return f"{ply // 2 + 1}." if ply % 2 == 0 else f"{ply // 2 + 1}..."

    def progress(self, plies: int) -> Progress:
        """How far the game is as ``move_number`` counts: after ``3. Bb5`` (5 plies)
        White's 3rd move, after ``3... Nf6`` (6 plies) Black's 3rd."""
        if plies <= 0:
            return Progress()
        return Progress((plies + 1) // 2, (plies - 1) % 2)

    def format_proposal(self, position: object, plies: Sequence[str], notation: str,
                        letters: str = "en", lang: str = "en") -> str:
        """``if 3... Bc5 then 4. c3 Nf6 5. d4`` (``もし ... なら ...`` in Japanese): every
        White move numbered, Black's only where the line starts (J3, J18)."""
        board = self.copy(position)
        parts: list[str] = []
        for k, ply in enumerate(plies):
            if not self.is_legal(board, ply):
                break
            if k == 1:
                parts.append("なら" if lang == "ja" else "then")
            if board.turn == chess.WHITE or k in (0, 1):
                parts.append(self.move_number(self.ply_index(board)))
            parts.append(self.format_ply(board, ply, notation, letters))
            self.play(board, ply)
        return ("もし " if lang == "ja" else "if ") + " ".join(parts)

    def format_stored(self, moves: Sequence[tuple[str, str]], notation: str,
                      letters: str = "en") -> str:
        """The record from stored (UCI, SAN) pairs without replaying (J3)."""
        return _nt.format_stored(list(moves), notation, letters)

    def stored_move_text(self, canon: str, text: str, notation: str, letters: str = "en") -> str:
        """One stored ply (UCI, SAN) in a reader's notation, without a board."""
        return _nt.stored_move_text(canon, text, notation, letters)

    def board_svg(self, position: object, viewer: int = 0, last: str = "") -> str:
        """The board drawn by python-chess, from White's side (viewer 0) or Black's, the
        ``last`` move (UCI; a FEN keeps no history) marked."""
        import chess.svg  # here: only a drawing needs it, not reading a game

        board = position if isinstance(position, chess.Board) else chess.Board(str(position))
        return chess.svg.board(board, orientation=chess.WHITE if viewer == 0 else chess.BLACK,
                               size=360, lastmove=_last_move(board, last))

    def board_png(self, position: object, viewer: int = 0, last: str = "") -> bytes:
        """The board as a PNG picture for mail, composed from cached piece pictures, the
        ``last`` move's squares tinted (optional in the protocol: a game without it has
        its SVG rasterised)."""
        # here: the picture's stack (Pillow, cairosvg) loads with the first picture, not
        # with the game, so a command that only reads a game starts without it
        from relaybot.games.chess import picture as _picture

        board = position if isinstance(position, chess.Board) else chess.Board(str(position))
        return _picture.board_png(board, viewer, _last_move(board, last))

    def write_record(self, info: RecordInfo, fmt: str = "") -> str:
        """PGN: the JCCA report form (J15), or the standard headers when
        ``info.standard``; ValueError for any other format."""
        if fmt not in ("", "pgn"):
            raise ValueError(f"a chess game is written as pgn, not {fmt}")
        return write_pgn(info)

    def save(self, position: object) -> str:
        """The position as FEN (no move history; repetition claims need ``replay``)."""
        return _board(position).fen()

    def load(self, saved: str) -> chess.Board:
        """A board from ``save``'s FEN (ValueError if it is not a FEN)."""
        return chess.Board(saved)

    def extract_record(self, text: str) -> RecordText:
        """Find the move record in a mail body (J1, J2)."""
        return _nt.extract_record(text)

    def token_key(self, token: str) -> str:
        """A player's token reduced to a comparison key (J1, J2)."""
        return _nt.token_key(token)

    def ply_keys(self, position: object, ply: str) -> frozenset[str]:
        """All keys a correctly written token for ``ply`` reduces to (J1)."""
        board = _board(position)
        return _nt.ply_keys(board, chess.Move.from_uci(ply))

    def parse(self, position: object, token: str, letters: str = "en") -> str:
        """The UCI ply a player's token means here (J2-J4); raises MoveError."""
        return _nt.parse_move(_board(position), token, letters).uci()

    def play(self, position: object, ply: str) -> None:
        """Apply a UCI ply in place (ValueError if it is not legal)."""
        board = _board(position)
        board.push(_move(board, ply))

    def to_move(self, position: object) -> int:
        """0 when White is to move, else 1 (of a board or a saved FEN)."""
        if isinstance(position, chess.Board):  # no FEN built just to read the turn
            return 0 if position.turn == chess.WHITE else 1
        return 0 if _placement(position)[1] else 1

    def outcome(self, position: object) -> Outcome | None:
        """Checkmate, stalemate, insufficient material (and the automatic
        fivefold repetition / 75-move draws); claimable draws are not here."""
        result = _board(position).outcome(claim_draw=False)
        if result is None:
            return None
        termination = result.termination.name.lower()
        if result.winner is None:
            return Outcome.draw(termination)
        return Outcome.win(termination, 0 if result.winner == chess.WHITE else 1)

    def free_game(self, position: object) -> bool:
        """Every chess game of a rated event is rated (R1)."""
        return False

    def may_declare(self, position: object, side: int) -> bool:
        """Only the side to move declares (chess declares nothing anyway)."""
        return self.to_move(position) == side

    def declare(self, position: object, side: int, name: str) -> Outcome:
        """Chess has no declarations: every one is refused."""
        raise MoveError("unreadable", name, Reason.of("chess_no_declaration"))

    def claimable_draw(self, position: object) -> str | None:
        """``threefold`` or ``fifty_moves`` when the side to move may claim a draw (J15)."""
        board = _board(position)
        if board.can_claim_threefold_repetition():
            return "threefold"
        if board.can_claim_fifty_moves():
            return "fifty_moves"
        return None

    def format_record(self, plies: Sequence[str], notation: str, letters: str = "en") -> str:
        """The whole game in a player's notation (``san`` or ``numeric``, J3)."""
        board = chess.Board()
        moves: list[chess.Move] = []
        for ply in plies:
            move = _move(board, ply)
            moves.append(move)
            board.push(move)
        return _nt.format_record(moves, notation, letters)

    def format_ply(self, position: object, ply: str, notation: str, letters: str = "en") -> str:
        """One ply in a player's notation, from ``position`` before the ply."""
        board = _board(position)
        return _nt.format_move(board, _move(board, ply), notation, letters)

    def final_board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """A finished game's board: as :meth:`board_text`, without whose move it is."""
        return self.board_text(position, lang, viewer, over=True)

    def board_text(self, position: object, lang: str, viewer: int = 0,
                   over: bool = False) -> str:
        """A monospace diagram from White's side (viewer 0) or Black's, plus whose move
        it is (not once the game is ``over``).

        ``position`` is a board or its saved FEN (the mails use the stored FEN, so no
        board is built for them). Upper case is White, lower case Black, ``.`` empty.
        """
        placement, white = _placement(position)
        rows: list[tuple[int, list[str]]] = []
        # the FEN's placement field lists ranks 8..1 with the letters of Piece.symbol()
        for rank, row in zip(range(8, 0, -1), placement.split("/"), strict=True):
            cells: list[str] = []
            for char in row:
                cells.extend("." * int(char) if char.isdigit() else char)
            rows.append((rank, cells))
        files = list(chess.FILE_NAMES)
        if viewer == 1:  # Black's seat: rank 1 on top, the h-file on the left
            rows = [(rank, cells[::-1]) for rank, cells in reversed(rows)]
            files.reverse()
        lines = [f"{rank} " + " ".join(cells) for rank, cells in rows]
        lines.append("  " + " ".join(files))
        if over:  # a finished game: nobody is to move
            return "\n".join(lines)
        if lang == "ja":
            lines.append("白番" if white else "黒番")
        else:
            lines.append("White to move" if white else "Black to move")
        return "\n".join(lines)


def _placement(position: object) -> tuple[str, bool]:
    """(FEN piece placement, White to move) of a board or a saved FEN."""
    if isinstance(position, str):
        fields = position.split()
        if len(fields) >= 2 and fields[0].count("/") == 7 and fields[1] in ("w", "b"):
            return fields[0], fields[1] == "w"
        position = chess.Board(position)  # not a plain FEN: let python-chess judge it
    board = _board(position)
    return board.board_fen(), board.turn == chess.WHITE


RULES = ChessRules()

__all__ = ["RULES", "SIDES", "ChessRules"]
