"""A game that is not chess, behind the same seam: 3x3 tic-tac-toe ("toy").

It exists to prove that the core (referee, conditional moves) and the registry carry
any :class:`~relaybot.games.base.GameRules`, not just chess. It lives in the tests,
not in the package: ``register(RULES)`` adds it, ``unregister("toy")`` removes it.

- Sides: 0 is X (先手, ×) and moves first, 1 is O (後手, ○).
- Squares ``a1``..``c3`` (file a-c, rank 1-3); a canonical ply is the square, ``b2``.
- Players may write ``b2``, ``B2``, full-width ``Ｂ２`` or a kanji rank ``b二`` (J2).
- A position is a :class:`ToyBoard`; it is saved as nine cells and the side to move,
  ``"....X.... O"``.
- Three in a row wins (termination ``three_in_a_row``); a full board is a draw
  (``full_board``). Results are written ``X+``, ``O+``, ``draw``.
- The record is numbered like chess, ``1. b2 a1 2. c3``; a proposal is a line
  ``if 2... a3 then 3. a2`` (or ``もし 2... a3 なら 3. a2``), several split by ``;``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from relaybot.core.text import has_fullwidth, normalise
from relaybot.games.base import (
    GameRules,
    MoveError,
    Outcome,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
)

KIND = "toy"
THREE_IN_A_ROW = "three_in_a_row"
FULL_BOARD = "full_board"
MARKS = ("X", "O")
EMPTY = "."
FILES = "abc"
SIDES = {"en": ("X", "O"), "ja": ("先手", "後手")}
SIDE_WORDS = {
    "x": 0, "×": 0, "first": 0, "先手": 0, "先": 0,
    "o": 1, "○": 1, "〇": 1, "second": 1, "後手": 1, "後": 1,
}
RESULTS = {"x+": 0, "o+": 1}
_KANJI_DIGITS = str.maketrans({"一": "1", "二": "2", "三": "3"})
_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # ranks 1, 2, 3
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # files a, b, c
    (0, 4, 8), (2, 4, 6),  # diagonals a1-c3, c1-a3
)
_MOVE_RE = re.compile(r"^[a-z][0-9]$")
_NUMBER_RE = re.compile(r"^(\d{1,3})(\.+)(.*)$")
_PROPOSAL_RE = re.compile(r"^(?:if\b|もし)", re.IGNORECASE)
_SAVED_RE = re.compile(r"^([.XO]{9}) ([XO])$")


@dataclass
class ToyBoard:
    """Nine cells, ``cells[(rank - 1) * 3 + file]``, each ``.``, ``X`` or ``O``."""

    cells: list[str] = field(default_factory=lambda: [EMPTY] * 9)

    @property
    def plies(self) -> int:
        """How many marks are on the board (the next ply's 0-based index)."""
        return sum(cell != EMPTY for cell in self.cells)

    @property
    def side(self) -> int:
        """The side to move: X when both have as many marks."""
        return self.plies % 2


def _board(position: object) -> ToyBoard:
    if not isinstance(position, ToyBoard):
        raise TypeError(f"not a toy position: {type(position).__name__}")
    return position


def _index(square: str) -> int | None:
    """The cell index of a canonical square, None if it is not on the board."""
    if len(square) != 2 or square[0] not in FILES or square[1] not in "123":
        return None
    return (int(square[1]) - 1) * 3 + FILES.index(square[0])


def _winner(cells: Sequence[str]) -> int | None:
    for a, b, c in _LINES:
        if cells[a] != EMPTY and cells[a] == cells[b] == cells[c]:
            return MARKS.index(cells[a])
    return None


def _numbered(texts: Sequence[str]) -> str:
    """``1. b2 a1 2. c3``: every X move carries its number."""
    parts: list[str] = []
    for ply, text in enumerate(texts):
        if ply % 2 == 0:
            parts.append(f"{ply // 2 + 1}.")
        parts.append(text)
    return " ".join(parts)


def _first_ply(line: str) -> int:
    """The ply a record line's leading number names: ``1.`` is 0, ``2...`` is 3."""
    number = _NUMBER_RE.match(line.split()[0]) if line.split() else None
    if number is None:
        return 0
    return (int(number.group(1)) - 1) * 2 + (1 if len(number.group(2)) >= 2 else 0)


class ToyRules:
    """Tic-tac-toe on a 3x3 board behind the GameRules protocol."""

    kind = KIND
    record_format = "ttt"
    record_policy: RecordPolicy = "full"  # J1: every mail carries the game from move 1
    display_notation = "squares"  # the only notation: the square's name
    colour_options = ("white", "black")  # --white plays X
    rule_set = RuleSet()
    # a declaration in the manner of shogi's 入玉宣言: all or nothing
    keywords: Mapping[str, str] = MappingProxyType(
        {"declare centre": "centre", "中央宣言": "centre"})

    # --- positions and plies ---------------------------------------------------
    def start(self) -> ToyBoard:
        """An empty board, X to move."""
        return ToyBoard()

    def replay(self, plies: Sequence[str]) -> ToyBoard:
        """The board after the stored plies (ValueError on an illegal one)."""
        board = ToyBoard()
        for ply in plies:
            self.play(board, ply)
        return board

    def copy(self, position: object) -> ToyBoard:
        """An independent copy."""
        return ToyBoard(list(_board(position).cells))

    def save(self, position: object) -> str:
        """Nine cells, a space, the mark to move: ``....X.... O``."""
        board = _board(position)
        return "".join(board.cells) + " " + MARKS[board.side]

    def load(self, saved: str) -> ToyBoard:
        """A board from ``save``'s text (ValueError if it is not one)."""
        match = _SAVED_RE.match(saved)
        if match is None:
            raise ValueError(f"not a saved toy position: {saved!r}")
        board = ToyBoard(list(match.group(1)))
        if MARKS[board.side] != match.group(2):
            raise ValueError(f"wrong side to move in {saved!r}")
        return board

    def play(self, position: object, ply: str) -> None:
        """Put the mover's mark on ``ply`` (ValueError if it is not legal)."""
        board = _board(position)
        if not self.is_legal(board, ply):
            raise ValueError(f"ply {ply!r} is not legal in {self.save(board)!r}")
        index = _index(ply)
        assert index is not None  # is_legal checked it
        board.cells[index] = MARKS[board.side]

    def terms_text(self, position: object, lang: str) -> str:
        """Nothing beyond the time control: every game starts the same."""
        return ""

    def position_text(self, saved: str) -> str:
        """The saved text is the position."""
        return saved

    def is_legal(self, position: object, ply: str) -> bool:
        """An empty square on a board where nobody has won yet."""
        board = _board(position)
        index = _index(ply)
        return (index is not None and board.cells[index] == EMPTY
                and _winner(board.cells) is None)

    def legal_plies(self, position: object) -> Iterator[str]:
        """The empty squares while nobody has won."""
        board = _board(position)
        if _winner(board.cells) is not None:
            return iter(())
        return (FILES[i % 3] + str(i // 3 + 1) for i, cell in enumerate(board.cells)
                if cell == EMPTY)

    def to_move(self, position: object) -> int:
        """0 when X is to move, 1 for O (of a board or a saved text)."""
        if isinstance(position, str):
            return self.load(position).side
        return _board(position).side

    def ply_index(self, position: object) -> int:
        """The number of marks on the board."""
        return _board(position).plies

    def outcome(self, position: object) -> Outcome | None:
        """Three in a row wins; a full board with no row is a draw."""
        board = _board(position)
        winner = _winner(board.cells)
        if winner is not None:
            return Outcome.win(THREE_IN_A_ROW, winner)
        if EMPTY not in board.cells:
            return Outcome.draw(FULL_BOARD)
        return None

    def declare(self, position: object, side: int, name: str) -> Outcome:
        """``centre``: the declarer wins holding b2 and loses without it."""
        if name != "centre":
            raise MoveError("unreadable", name, "no such declaration")
        holds = _board(position).cells[4] == ("X" if side == 0 else "O")
        return Outcome.win("declaration", side) if holds else Outcome.loss("declaration", side)

    def may_declare(self, position: object, side: int) -> bool:
        """On one's turn only."""
        return self.to_move(position) == side

    def free_game(self, position: object) -> bool:
        """Every toy game counts."""
        return False

    def claimable_draw(self, position: object) -> str | None:
        """Tic-tac-toe has no draw to claim."""
        return None

    # --- reading what players write ---------------------------------------------
    def normalise_text(self, text: str) -> tuple[str, bool]:
        """NFKC (full width to ASCII) and kanji ranks 一二三 as digits (J2)."""
        return normalise(text).translate(_KANJI_DIGITS), has_fullwidth(text)

    def looks_like_move(self, token: str) -> bool:
        """A letter and a digit, in any case or width (``d4`` too: it is then unreadable)."""
        return _MOVE_RE.match(self.token_key(token)) is not None

    def _scan(self, line: str) -> tuple[list[str], str | None] | None:
        """(moves, trailing result) of a move line, None for any other line.

        A move line starts with a move number (or is a result alone) and holds only
        numbers, moves and a result; a quoted line (``>``) is never one.
        """
        words = self.normalise_text(line)[0].split()
        if not words or words[0].startswith(">"):
            return None
        if _NUMBER_RE.match(words[0]) is None and self.parse_result(words[0], "") is None:
            return None
        moves: list[str] = []
        result: str | None = None
        for raw in words:
            word = raw.strip(",;")
            number = _NUMBER_RE.match(word)
            if number is not None:
                word = number.group(3)
                if not word:
                    continue
            if self.parse_result(word, "") is not None:
                result = word
                continue
            if not self.looks_like_move(word):
                return None
            moves.append(word)
            result = None
        return moves, result

    def extract_record(self, text: str) -> RecordText:
        """The first block of numbered move lines (blank lines inside allowed)."""
        lines = text.splitlines()
        scans = [self._scan(line) for line in lines]
        start = next((i for i, sc in enumerate(scans) if sc is not None), None)
        if start is None:
            return RecordText()
        record = RecordText(first_line=start, last_line=start,
                            first_ply=_first_ply(self.normalise_text(lines[start])[0]))
        for k in range(start, len(lines)):
            sc = scans[k]
            if sc is None:
                if lines[k].strip():
                    break
                continue
            moves, result = sc
            record.tokens.extend(moves)
            if moves:
                record.result = None  # a result counts only after the last move
            if result is not None:
                record.result = result
            record.last_line = k
            record.fullwidth = record.fullwidth or has_fullwidth(lines[k])
        return record

    def token_key(self, token: str) -> str:
        """``Ｂ２``, ``B2``, ``b二`` all give ``b2``."""
        return self.normalise_text(token)[0].strip().lower()

    def ply_keys(self, position: object, ply: str) -> frozenset[str]:
        """A ply is written one way only: its square."""
        return frozenset({ply})

    def parse(self, position: object, token: str, letters: str = "en") -> str:
        """The square a player's token names, if it is free (J5: MoveError if not)."""
        board = _board(position)
        square = self.token_key(token)
        index = _index(square)
        if index is None:
            raise MoveError("unreadable", token, f"no square {square!r} on a 3x3 board")
        if _winner(board.cells) is not None:
            raise MoveError("illegal", token, "the game is over")
        if board.cells[index] != EMPTY:
            raise MoveError("illegal", token, f"{square} is taken by {board.cells[index]}")
        return square

    def _proposal_clauses(self, text: str) -> list[tuple[int, str, str]]:
        """(line index, normalised line, one ``;`` clause) of every proposal line."""
        found: list[tuple[int, str, str]] = []
        for i, line in enumerate(text.splitlines()):
            norm = self.normalise_text(line)[0].strip()
            if _PROPOSAL_RE.match(norm):
                body = _PROPOSAL_RE.sub("", norm, count=1)
                found.extend((i, norm, clause) for clause in body.split(";"))
        return found

    def standard_form(self, position: object, token: str, letters: str = "en") -> str | None:
        """Every spelling of a square is standard enough: nothing to mention."""
        return None

    def read_proposals(self, text: str, record: RecordText) -> list[ProposalLine]:
        """``if 2... a3 then 3. a2`` lines (J16); words that are no moves are skipped."""
        lines: list[ProposalLine] = []
        for i, norm, clause in self._proposal_clauses(text):
            words = clause.replace("なら", " then ").replace("とします", " ").replace("。", " ")
            moves: list[str] = []
            start: tuple[int, bool] | None = None
            pending: tuple[int, bool] | None = None
            for raw in words.split():
                word = raw.strip(",")
                number = _NUMBER_RE.match(word)
                if number is not None:
                    pending = (int(number.group(1)), len(number.group(2)) >= 2)
                    word = number.group(3)
                if not word or not self.looks_like_move(word):
                    continue
                if start is None:
                    start = pending
                moves.append(word)
            if moves:
                lines.append(ProposalLine(
                    tokens=tuple(moves),
                    start_ply=(start[0] - 1) * 2 + int(start[1]) if start else None,
                    line=i, lines=(i,), text=norm,
                ))
        return lines

    def proposal_lines(self, text: str) -> set[int]:
        """The lines starting with ``if`` or ``もし``."""
        return {i for i, _, _ in self._proposal_clauses(text)}

    def strip_proposals(self, text: str) -> str:
        """``text`` with its proposal lines blanked (line count unchanged)."""
        drop = self.proposal_lines(text)
        if not drop:
            return text
        return "\n".join("" if i in drop else line for i, line in enumerate(text.splitlines()))

    # --- writing what players read ----------------------------------------------
    def side_names(self, lang: str) -> tuple[str, str]:
        """X and O, or 先手 and 後手 in Japanese."""
        return SIDES.get(lang, SIDES["en"])

    def side_of(self, word: str) -> int | None:
        """0 for ``x``/``×``/``先手``, 1 for ``o``/``○``/``後手``, else None."""
        return SIDE_WORDS.get(word.strip().lower())

    def format_result(self, outcome: Outcome) -> str:
        """``X+``, ``O+``, ``draw``; ``*`` for a void game, ``-`` when both lose."""
        if outcome.void:
            return "*"
        if outcome.both_lose:
            return "-"
        if outcome.winner is None:
            return "draw"
        return f"{MARKS[outcome.winner]}+"

    def parse_result(self, text: str, termination: str) -> Outcome | None:
        """``format_result``'s text back as an Outcome (``引き分け`` is a draw too)."""
        word = text.strip().lower()
        if word in RESULTS:
            return Outcome.win(termination, RESULTS[word])
        if word in ("draw", "引き分け"):
            return Outcome.draw(termination)
        if word == "*":
            return Outcome(termination, void=True)
        if word == "-":
            return Outcome(termination, both_lose=True)
        return None

    def move_label(self, ply: int, text: str) -> str:
        """``3. b2`` or ``3... b2`` for a 0-based ply."""
        return f"{self.move_number(ply)} {text}"

    def move_number(self, ply: int, lang: str = "en") -> str:
        """``3.`` before X's move, ``3...`` before O's."""
        return f"{ply // 2 + 1}." if ply % 2 == 0 else f"{ply // 2 + 1}..."

    def format_proposal(self, position: object, plies: Sequence[str], notation: str,
                        letters: str = "en", lang: str = "en") -> str:
        """``if 2... a1 then 3. c3``; every ply numbered (a toy may number as it likes)."""
        board = self.copy(position)
        parts: list[str] = []
        for k, ply in enumerate(plies):
            if not self.is_legal(board, ply):
                break
            if k == 1:
                parts.append("なら" if lang == "ja" else "then")
            parts.append(self.move_label(self.ply_index(board), ply))
            self.play(board, ply)
        return ("もし " if lang == "ja" else "if ") + " ".join(parts)

    def format_record(self, plies: Sequence[str], notation: str, letters: str = "en") -> str:
        """``1. b2 a1 2. c3`` (checked by replaying; one notation only)."""
        self.replay(plies)
        return _numbered(plies)

    def format_ply(self, position: object, ply: str, notation: str, letters: str = "en") -> str:
        """The square (ValueError if the ply is not legal here)."""
        if not self.is_legal(position, ply):
            raise ValueError(f"ply {ply!r} is not legal in {self.save(position)!r}")
        return ply

    def format_stored(self, moves: Sequence[tuple[str, str]], notation: str,
                      letters: str = "en") -> str:
        """The numbered record from stored (ply, text) pairs, without replaying."""
        return _numbered([text or ply for ply, text in moves])

    def stored_move_text(self, canon: str, text: str, notation: str, letters: str = "en") -> str:
        """The square."""
        return canon

    def board_text(self, position: object, lang: str, viewer: int = 0) -> str:
        """Rank 3 on top whoever reads it (the toy has no seats), ``.`` empty, then
        whose move it is."""
        board = self.load(position) if isinstance(position, str) else _board(position)
        rows = [f"{rank} " + " ".join(board.cells[(rank - 1) * 3:rank * 3])
                for rank in (3, 2, 1)]
        rows.append("  " + " ".join(FILES))
        name = self.side_names(lang)[board.side]
        rows.append(f"{name}の番" if lang == "ja" else f"{name} to move")
        return "\n".join(rows)

    def board_svg(self, position: object, viewer: int = 0) -> str:
        """Three rows of text in an SVG (the toy needs no art)."""
        cells = _board(position).cells
        rows = "".join(f'<text x="0" y="{20 * (r + 1)}">{"".join(cells[3 * r:3 * r + 3])}</text>'
                       for r in range(3))
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="60" height="70">{rows}</svg>'

    def write_record(self, info: RecordInfo, fmt: str = "") -> str:
        """A tiny tagged text: headers, then the moves with their send dates."""
        x_rating, o_rating = info.ratings
        tags = [
            ("Game", KIND), ("Event", info.event), ("Site", info.site),
            ("Date", info.start.isoformat()), ("Round", info.round or "-"),
            ("X", info.players[0]), ("O", info.players[1]),
            ("XRating", "-" if x_rating is None else str(x_rating)),
            ("ORating", "-" if o_rating is None else str(o_rating)),
            ("Result", info.result or "*"),
            ("EndDate", info.end.isoformat() if info.end else "-"),
        ]
        texts = [f"{ply} {{{day}}}" for ply, day in info.moves]
        return "\n".join(
            [*(f'[{tag} "{value}"]' for tag, value in tags), "",
             " ".join(filter(None, [_numbered(texts), info.result or "*"]))]
        ) + "\n"


RULES = ToyRules()


def as_game_rules(rules: ToyRules) -> GameRules:
    """Typed proof (mypy) that :class:`ToyRules` satisfies the protocol."""
    return rules
