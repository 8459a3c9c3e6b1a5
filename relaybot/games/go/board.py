"""A go position on sgfmill's board: stones, whose turn, ko, captures, passes, the setup.

Sides: 0 is Black (黒), 1 is White (白). Black moves first, except in a handicap game
(stones placed before the game), where White moves first. A canonical ply is an SGF
point in lower case (``pd``: column ``p``, row ``d`` from the top) or ``pass``.

Legality (INTERFACE "Go moves"): a point must be empty and on the board; suicide is
illegal; the simple ko point may not be retaken at once; with ``superko`` on, no move may
repeat a whole-board position seen before in the game (positional superko).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sgfmill import boards  # type: ignore[import-untyped]

from relaybot.core.reasons import Reason
from relaybot.games.base import MoveError

BLACK, WHITE = 0, 1
COLOURS = ("b", "w")  # sgfmill's colours, by side
SIZES = (9, 13, 19)
PASS = "pass"
SGF_LETTERS = "abcdefghijklmnopqrs"
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRST"  # A-T without I

# Standard handicap points (star points), in the order stones are placed: 2 = the two
# opposite corners, 3 adds a third corner, 4 all corners, 5 the centre, 6 the sides,
# 7 sides and centre, 8 four sides, 9 everything. Given as (column, row-from-top) in
# "line from the edge" terms so one table serves 9, 13 and 19.


def _star_lines(size: int) -> tuple[int, int, int]:
    """(near, middle, far) 0-based lines of the star points for ``size``."""
    near = 2 if size < 13 else 3
    return near, size // 2, size - 1 - near


def star_points(size: int) -> list[tuple[int, int]]:
    """The (row, column) of the star points, as the text board and the picture mark
    them (sgfmill's rows, from the bottom; the board is symmetric)."""
    if size < 7:
        return []
    near, middle, far = _star_lines(size)  # the handicap stones' lines
    lines = sorted({near, middle, far})
    if size < 13:  # 9x9: the corners' 3-3 points and the centre, no side points
        return [(r, c) for r in lines for c in lines
                if (r == c == middle) or (r != middle and c != middle)]
    return [(r, c) for r in lines for c in lines]


def example_points(size: int) -> dict[str, str]:
    """What a player's mail gives as examples on a ``size`` board: the upper right and
    the lower left star points (``Q16``, ``D4`` on 19x19; ``G7``, ``C3`` on 9x9) and the
    last column (``T``, ``J``), and the first as an SGF point (``pd``, ``gc``): no 9x9
    game is told to play Q16, off its board."""
    near, _, far = _star_lines(size)
    first = from_rc(far, far, size)
    return {"first": vertex(first, size), "sgf": first,
            "second": vertex(from_rc(near, near, size), size),
            "last_column": GTP_COLUMNS[size - 1]}


def handicap_points(size: int, stones: int) -> list[str]:
    """The SGF points of ``stones`` handicap stones on the standard points (2..9).

    9x9 takes at most 5 (the board has no side star points in common use).
    """
    limit = 5 if size == 9 else 9
    if not 2 <= stones <= limit:
        raise ValueError(f"a {size}x{size} board takes 2 to {limit} handicap stones, "
                         f"not {stones}")
    near, mid, far = _star_lines(size)
    # (col, row) with row 0 at the top, as SGF writes points
    top_right, bottom_left = (far, near), (near, far)
    bottom_right, top_left = (far, far), (near, near)
    centre = (mid, mid)
    left, right, top, bottom = (near, mid), (far, mid), (mid, near), (mid, far)
    corners = [top_right, bottom_left, bottom_right, top_left]
    order: dict[int, list[tuple[int, int]]] = {
        2: corners[:2], 3: corners[:3], 4: corners,
        5: [*corners, centre], 6: [*corners, left, right],
        7: [*corners, left, right, centre], 8: [*corners, left, right, top, bottom],
        9: [*corners, left, right, top, bottom, centre],
    }
    return [SGF_LETTERS[c] + SGF_LETTERS[r] for c, r in order[stones]]


def to_rc(point: str, size: int) -> tuple[int, int]:
    """sgfmill's (row from the bottom, column) of an SGF point."""
    col, row_top = SGF_LETTERS.index(point[0]), SGF_LETTERS.index(point[1])
    return size - 1 - row_top, col


def from_rc(row: int, col: int, size: int) -> str:
    """The SGF point of sgfmill's (row, column)."""
    return SGF_LETTERS[col] + SGF_LETTERS[size - 1 - row]


def vertex(point: str, size: int) -> str:
    """``Q16`` for ``pd`` on 19x19 (columns A-T without I, rows from the bottom)."""
    if point == PASS:
        return PASS
    row, col = to_rc(point, size)
    return f"{GTP_COLUMNS[col]}{row + 1}"


def on_board(point: str, size: int) -> bool:
    """Whether an SGF point lies on a ``size`` board."""
    return (len(point) == 2 and point[0] in SGF_LETTERS[:size]
            and point[1] in SGF_LETTERS[:size])


@dataclass
class GoPosition:
    """Everything the rules need of a go game now, saved as one line of text.

    ``komi`` is as SGF's KM defines it: points added to White's score (negative when
    White gives komi to Black). ``claims``: the result each side stated after both
    passed (``""`` when none yet).
    """

    size: int = 19
    komi: float = 6.5
    handicap: int = 0  # HA: stones placed (0: none)
    setup: tuple[str, ...] = ()  # AB: the handicap stones' points
    superko: bool = False
    free: bool = False  # seed 004: a free game by the players' wish (points unchanged)
    board: boards.Board = None
    to_move: int = BLACK
    ply: int = 0
    ko: str | None = None  # the point the side to move may not retake now
    captures: list[int] = field(default_factory=lambda: [0, 0])  # stones taken by side
    passes: int = 0  # consecutive passes just played
    last: str | None = None  # the last ply (for the board's mark)
    claims: list[str] = field(default_factory=lambda: ["", ""])
    first_claim: int | None = None
    history: set[str] = field(default_factory=set)  # superko: boards seen (hashes)

    def __post_init__(self) -> None:
        if self.board is None:
            self.board = boards.Board(self.size)

    @property
    def counting(self) -> bool:
        """Both players passed: no more moves, each states the result."""
        return self.passes >= 2

    def copy(self) -> GoPosition:
        """An independent copy."""
        return GoPosition(
            size=self.size, komi=self.komi, handicap=self.handicap, setup=self.setup,
            superko=self.superko, free=self.free, board=self.board.copy(),
            to_move=self.to_move,
            ply=self.ply, ko=self.ko, captures=list(self.captures), passes=self.passes,
            last=self.last, claims=list(self.claims), first_claim=self.first_claim,
            history=set(self.history))

    def assign(self, other: GoPosition) -> None:
        """Become ``other`` (the protocol plays a ply in place on the caller's object)."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(other, name))

    def stone(self, point: str) -> int | None:
        """The side whose stone is on ``point``, or None."""
        row, col = to_rc(point, self.size)
        colour = self.board.get(row, col)
        return None if colour is None else COLOURS.index(colour)

    def grid(self) -> str:
        """The board as ``size * size`` characters, top row first: ``.``, ``X``, ``O``."""
        marks = {None: ".", "b": "X", "w": "O"}
        cells = self.board.board  # sgfmill's rows, row 0 at the bottom
        return "".join(marks[cells[r][c]] for r in range(self.size - 1, -1, -1)
                       for c in range(self.size))

    def digest(self) -> str:
        """A short hash of the stones alone (positional superko)."""
        return hashlib.blake2b(self.grid().encode(), digest_size=6).hexdigest()


def new_position(size: int = 19, handicap: int = 0, komi: float | None = None,
                 superko: bool = False, free: bool = False) -> GoPosition:
    """The start of a game: handicap stones on the standard points, White to move in a
    handicap game; ``komi`` defaults to the salon's 5.5 in an even game and 0 with stones."""
    if size not in SIZES:
        raise ValueError(f"board size must be 9, 13 or 19, not {size}")
    points = tuple(handicap_points(size, handicap)) if handicap >= 2 else ()
    if handicap < 0 or handicap == 1:
        raise ValueError("handicap is 0 (none) or 2 to 9 stones")
    if komi is None:  # seed 004: an even game's komi is 5.5 from Black; none with stones
        komi = 0.0 if handicap else 5.5
    position = GoPosition(size=size, komi=komi, handicap=len(points), setup=points,
                          superko=superko, free=free, to_move=WHITE if points else BLACK)
    for point in points:
        position.board.play(*to_rc(point, size), "b")
    if superko:
        position.history.add(position.digest())
    return position


def check(position: GoPosition, ply: str, token: str) -> GoPosition:
    """The position after ``ply`` by the side to move; MoveError says why it is illegal."""
    if position.counting:
        raise MoveError("illegal", token, Reason.of("go_counting"))
    after = position.copy()
    mover = position.to_move
    after.ko = None
    if ply == PASS:
        after.passes += 1
    else:
        if not on_board(ply, position.size):
            raise MoveError("unreadable", token, Reason.of("go_off_board", size=position.size))
        if position.stone(ply) is not None:
            raise MoveError("illegal", token,
                            Reason.of("go_occupied", point=vertex(ply, position.size)))
        if ply == position.ko:
            raise MoveError("illegal", token, Reason.of("go_ko"))
        row, col = to_rc(ply, position.size)
        before = position.board
        ko_point = after.board.play(row, col, COLOURS[mover])
        if after.board.get(row, col) is None:
            raise MoveError("illegal", token, Reason.of("go_suicide"))
        after.captures[mover] += _taken(before, after.board, row, col, COLOURS[1 - mover])
        after.ko = None if ko_point is None else from_rc(ko_point[0], ko_point[1],
                                                         position.size)
        after.passes = 0
        if position.superko:
            key = after.digest()
            if key in position.history:
                raise MoveError("illegal", token, Reason.of("go_superko"))
            after.history.add(key)
    after.to_move = 1 - mover
    after.ply += 1
    after.last = ply
    return after


def _taken(before: boards.Board, after: boards.Board, row: int, col: int, colour: str) -> int:
    """How many stones of ``colour`` next to (row, col) the move removed."""
    size = before.side
    seen: set[tuple[int, int]] = set()
    stack = [(r, c) for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1))
             if 0 <= r < size and 0 <= c < size and before.get(r, c) == colour
             and after.get(r, c) is None]
    while stack:
        r, c = stack.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < size and 0 <= nc < size and before.get(nr, nc) == colour:
                stack.append((nr, nc))
    return len(seen)


def save(position: GoPosition) -> str:
    """One line: ``go size=19 komi=6.5 ha=0 ab=- sk=0 tm=b ply=0 ko=- cap=0,0 pass=0
    last=- claims=|| fc=- board=... hist=-``."""
    fields = [
        "go", f"size={position.size}", f"komi={position.komi:g}", f"ha={position.handicap}",
        f"ab={','.join(position.setup) or '-'}", f"sk={int(position.superko)}",
        f"tm={COLOURS[position.to_move]}", f"ply={position.ply}", f"ko={position.ko or '-'}",
        f"cap={position.captures[0]},{position.captures[1]}", f"pass={position.passes}",
        f"last={position.last or '-'}", f"claims={'|'.join(position.claims)}",
        f"fc={'-' if position.first_claim is None else position.first_claim}",
        f"board={position.grid()}",
    ]
    if position.free:  # written only when set: positions saved before it read the same
        fields.append("free=1")
    if position.superko:
        fields.append(f"hist={','.join(sorted(position.history)) or '-'}")
    return " ".join(fields)


def load(saved: str) -> GoPosition:
    """A position back from :func:`save`'s text (ValueError if it is not one)."""
    parts = saved.split(" ")
    if not parts or parts[0] != "go":
        raise ValueError(f"not a saved go position: {saved[:40]!r}")
    values = dict(part.split("=", 1) for part in parts[1:])
    try:
        size = int(values["size"])
        position = GoPosition(
            size=size, komi=float(values["komi"]), handicap=int(values["ha"]),
            setup=tuple(p for p in values["ab"].split(",") if p and p != "-"),
            superko=values["sk"] == "1", to_move=COLOURS.index(values["tm"]),
            ply=int(values["ply"]), ko=None if values["ko"] == "-" else values["ko"],
            captures=[int(n) for n in values["cap"].split(",")],
            passes=int(values["pass"]), last=None if values["last"] == "-" else values["last"],
            claims=values["claims"].split("|"),
            first_claim=None if values["fc"] == "-" else int(values["fc"]),
        )
        grid = values["board"]
        if len(grid) != size * size or len(position.claims) != 2:
            raise ValueError("wrong board length")
        stones: dict[str, list[tuple[int, int]]] = {"X": [], "O": [], ".": []}
        for index, mark in enumerate(grid):
            stones[mark].append((size - 1 - index // size, index % size))
        if not position.board.apply_setup(stones["X"], stones["O"], ()):
            raise ValueError("a group without liberties")
        position.free = values.get("free", "0") == "1"
        hist = values.get("hist", "-")
        position.history = set() if hist == "-" else set(hist.split(","))
    except (KeyError, ValueError, IndexError) as exc:
        raise ValueError(f"not a saved go position: {saved[:40]!r} ({exc})") from None
    return position
