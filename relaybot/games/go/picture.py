"""The go board as a PNG picture for mail (issue 15), drawn with Pillow.

Colours as ``board_svg`` draws them (a wooden board, black lines and stones, white
stones ringed in black, the last move ringed in red), with the coordinates players write
moves in: columns A-T without I along the top and bottom, rows numbered from the bottom
on both sides. Both players read a go board from the same side (``board_text``), so the
picture is the same for either seat. 19, 13 and 9 lines (any size from 2 to 19 draws).

The empty board of each size and the stones are drawn once per process; a picture
pastes the stones and writes an 8-bit PNG, a millisecond or two instead of a tenth of a
second or more for rasterising the SVG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from relaybot.games import drawing
from relaybot.games.go.board import GTP_COLUMNS, PASS, GoPosition, to_rc

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


def star_points(size: int) -> list[tuple[int, int]]:
    """The (row, column) of the star points (as ``board_text`` marks them)."""
    if size < 7:
        return []
    near = 2 if size < 13 else 3
    lines = sorted({near, size // 2, size - 1 - near})
    if size < 13:  # 9x9: the corners' 3-3 points and the centre, no side points
        return [(r, c) for r in lines for c in lines
                if (r == c == size // 2) or (r != size // 2 and c != size // 2)]
    return [(r, c) for r in lines for c in lines]


@dataclass(frozen=True)
class _Layers:
    """One size's empty board and stones (RGBA, the last-move ring apart)."""

    base: Image.Image
    stones: tuple[Image.Image, Image.Image]  # black, white
    rings: tuple[Image.Image, Image.Image]  # the last-move ring on black, on white


def _disc(diameter: int, fill: tuple[int, int, int], outline: tuple[int, int, int],
          ring: float = 0.0) -> Image.Image:
    """An anti-aliased disc (a stone; with ``ring``, a ring of that fraction of the
    diameter instead)."""
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
def _layers(size: int) -> _Layers:
    """The empty board of ``size`` lines with its coordinates, and its stones."""
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
    diameter = (c - 1) | 1  # odd: a stone's middle pixel on its point
    stones = (_disc(diameter, BLACK, LINE), _disc(diameter, WHITE, LINE))
    ring = _disc(diameter, MARK, MARK, ring=0.5)
    return _Layers(image, stones, (ring, ring))


def _draw(size: int, stones: Iterable[tuple[int, int, int]],
          last: tuple[int, int] | None) -> Image.Image:
    """The picture in RGB: ``stones`` as (row, column, side), ``last`` the last move."""
    layers = _layers(size)
    image = layers.base.copy()
    half = layers.stones[0].width // 2
    for row, col, colour in stones:
        x, y = point_xy(row, col, size)
        stone = layers.stones[colour]
        image.paste(stone, (x - half, y - half), stone)
    if last is not None:
        x, y = point_xy(*last, size)
        ring = layers.rings[0]
        image.paste(ring, (x - half, y - half), ring)
    return image


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The colours of every size's board, stones and ring, made once."""
    samples = []
    for size in sorted(set(CELLS)):
        stones = [(r, c, (r + c) % 2) for r in range(0, size, 2) for c in range(size)]
        samples.append(_draw(size, stones, (0, 0)))
    return drawing.make_palette(samples, (BOARD, BLACK, WHITE, MARK, TEXT), colours=64)


def board_png(position: GoPosition, viewer: int = 0) -> bytes:
    """The board as PNG (the same for either ``viewer``: go is read from one side)."""
    del viewer
    size = position.size
    colours = {"b": 0, "w": 1}
    stones = [(row, col, colours[colour])
              for colour, (row, col) in position.board.list_occupied_points()]
    last = to_rc(position.last, size) if position.last and position.last != PASS else None
    return drawing.png(_draw(size, stones, last), _palette())
