"""The go board as a PNG picture for mail (issue 15), drawn with Pillow.

Colours as ``board_svg`` draws them (a wooden board, black lines and stones, white
stones ringed in black, the last move ringed in red), with the coordinates players write
moves in: columns A-T without I along the top and bottom, rows numbered from the bottom
on both sides. Both players read a go board from the same side (``board_text``), so the
picture is the same for either seat. 19, 13 and 9 lines (any size from 2 to 19 draws).

The empty board of each size and a tile of each stone (black or white, ringed or not, on
an inner, edge or corner point) are drawn once per process on one palette; a picture
pastes the stones' tiles into a copy of the board and writes an 8-bit PNG, about a
millisecond instead of the tens of milliseconds rasterising the SVG takes; the last few
pictures are kept.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from relaybot.games import drawing
from relaybot.games.go.board import GTP_COLUMNS, PASS, GoPosition, star_points, to_rc

BOARD, LINE, BLACK, WHITE, MARK = (220, 179, 92), (0, 0, 0), (0, 0, 0), (255, 255, 255), \
    (204, 0, 0)
TEXT = (40, 28, 8)
CELLS = {19: 22, 13: 30, 9: 40}  # the lines' spacing: every board about 430 pixels wide
MARGIN = 22  # room for the coordinates outside the outer lines


def cell_of(size: int) -> int:
    """The spacing of the lines on a ``size`` board."""
    return CELLS.get(size, max(16, 420 // max(size, 1)))


def origin(size: int) -> int:
    """Where the first line lies (from the left and from the top)."""
    return MARGIN + cell_of(size) // 2


def side(size: int) -> int:
    """The picture's width and height for a ``size`` board."""
    return 2 * origin(size) + (size - 1) * cell_of(size) + 1


def point_xy(row: int, col: int, size: int) -> tuple[int, int]:
    """The pixel of sgfmill's point (row from the bottom, column)."""
    o, c = origin(size), cell_of(size)
    return o + col * c, o + (size - 1 - row) * c


def _disc(diameter: int, fill: tuple[int, int, int], outline: tuple[int, int, int],
          ring: float = 0.0) -> Image.Image:
    """An anti-aliased disc (a stone; with ``ring``, a ring of that fraction of the
    diameter instead), RGBA."""
    canvas, k = drawing.supersampled((diameter, diameter))
    draw = ImageDraw.Draw(canvas)
    d = diameter * k
    if ring:
        inset = d * (1 - ring) / 2
        draw.ellipse((inset, inset, d - 1 - inset, d - 1 - inset), outline=(*MARK, 255),
                     width=max(k, round(d * 0.09)))
    else:
        draw.ellipse((0, 0, d - 1, d - 1), fill=(*fill, 255), outline=(*outline, 255),
                     width=k)
    return drawing.shrink(canvas, (diameter, diameter))


@lru_cache(maxsize=4)
def _board(size: int) -> Image.Image:
    """The empty board of ``size`` lines with its star points and coordinates (RGB)."""
    c, o, s = cell_of(size), origin(size), side(size)
    image = Image.new("RGB", (s, s), BOARD)
    draw = ImageDraw.Draw(image)
    end = o + (size - 1) * c
    for k in range(size):
        draw.line((o, o + k * c, end, o + k * c), fill=LINE)
        draw.line((o + k * c, o, o + k * c, end), fill=LINE)
    dot = _disc(max(5, c // 5) | 1, LINE, LINE)
    for row, col in star_points(size):
        x, y = point_xy(row, col, size)
        image.paste(dot, (x - dot.width // 2, y - dot.height // 2), dot)
    font = drawing.latin_font(13)
    for k in range(size):
        line, row_line = o + k * c, o + (size - 1 - k) * c
        for edge in (MARGIN / 2, s - MARGIN / 2):
            drawing.centred_text(draw, (line, edge), GTP_COLUMNS[k], font, TEXT)
            drawing.centred_text(draw, (edge, row_line), str(k + 1), font, TEXT)
    return image


def _kind(index: int, size: int) -> int:
    """0 for the first line, 2 for the last, 1 between: what a point's tile shows of the
    lines under a stone depends on that alone (a star point is hidden under it)."""
    return 0 if index == 0 else 2 if index == size - 1 else 1


def _tile_box(row: int, col: int, size: int) -> tuple[int, int, int, int]:
    """The square of pixels a stone on (row, col) covers, one line spacing wide: tiles
    of neighbouring points abut."""
    x, y = point_xy(row, col, size)
    c = cell_of(size)
    return x - c // 2, y - c // 2, x - c // 2 + c, y - c // 2 + c


def _stone(size: int, colour: int, marked: bool, row_kind: int, col_kind: int) -> Image.Image:
    """A stone (ringed when it is the last move) on a point of the given kind, with the
    board and lines around it (RGB)."""
    row = (size - 1, 1, 0)[row_kind]  # a point of that kind (rows counted from the bottom)
    col = (0, 1, size - 1)[col_kind]
    tile = _board(size).crop(_tile_box(row, col, size))
    diameter = (cell_of(size) - 1) | 1  # odd: a stone's middle pixel on its point
    at = (cell_of(size) // 2 - diameter // 2,) * 2
    disc = _disc(diameter, (BLACK, WHITE)[colour], LINE)
    tile.paste(disc, at, disc)
    if marked:
        ring = _disc(diameter, MARK, MARK, ring=0.5)
        tile.paste(ring, at, ring)
    return tile


VARIANTS = [(colour, marked, r, c) for colour in (0, 1) for marked in (False, True)
            for r in range(3) for c in range(3)]


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The colours of every size's board, stones and ring, made once."""
    layers = [_board(size) for size in CELLS]
    layers += [_stone(size, *variant) for size in CELLS for variant in VARIANTS]
    return drawing.make_palette(layers, (BOARD, BLACK, WHITE, MARK, TEXT), colours=64)


@lru_cache(maxsize=4)
def _base(size: int) -> Image.Image:
    """:func:`_board` on the palette."""
    return drawing.on_palette(_board(size), _palette())


@lru_cache(maxsize=128)
def _tile(size: int, colour: int, marked: bool, row_kind: int, col_kind: int) -> Image.Image:
    """:func:`_stone` on the palette."""
    return drawing.on_palette(_stone(size, colour, marked, row_kind, col_kind), _palette())


def board_png(position: GoPosition, viewer: int = 0) -> bytes:
    """The board as PNG (the same for either ``viewer``: go is read from one side, so
    the move relayed to the opponent and its receipt to the mover share one picture)."""
    del viewer
    last = position.last if position.last and position.last != PASS else None
    return _picture(position.size, position.grid(), last)


@lru_cache(maxsize=32)
def _picture(size: int, grid: str, last: str | None) -> bytes:
    """The PNG of a board given as ``GoPosition.grid`` (top row first) and its last move."""
    marked = to_rc(last, size) if last else None
    image = _base(size).copy()
    for index, mark in enumerate(grid):
        if mark == ".":
            continue
        row, col = size - 1 - index // size, index % size
        tile = _tile(size, 0 if mark == "X" else 1, (row, col) == marked,
                     _kind(size - 1 - row, size), _kind(col, size))
        image.paste(tile, _tile_box(row, col, size)[:2])
    return drawing.png(image)
