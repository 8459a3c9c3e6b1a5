"""The board as a PNG picture for mail (issue 15), drawn with Pillow.

Rasterising the whole board SVG costs tens of milliseconds per mail; here each piece's
SVG (python-chess's) is rasterised once per process, put on a light and a dark square,
and, with the empty board of each seat and its coordinates, mapped onto one palette
(``relaybot.games.drawing``); a picture pastes the squares with pieces onto a copy of
the board and is written as an 8-bit PNG: about a millisecond, and under half the bytes
of an RGB PNG. Same colours and seat as ``board_svg``; the last move's two squares are
tinted as python-chess tints them (issue 26).
"""

from __future__ import annotations

import io
from functools import lru_cache

import cairosvg
import chess
import chess.svg
from PIL import Image, ImageDraw

from relaybot.games import drawing

SQUARE = 45
MARGIN = 18  # room for the file letters and rank numbers
SIDE = 8 * SQUARE + 2 * MARGIN
LIGHT, DARK, FRAME, INK = (255, 206, 158), (209, 139, 71), (33, 33, 33), (230, 230, 230)
# the last move's squares, light and dark (chess.svg's lastmove colours)
LIGHT_LAST, DARK_LAST = (205, 210, 106), (170, 162, 58)
SYMBOLS = "PNBRQKpnbrqk"


@lru_cache(maxsize=12)
def _sprite(symbol: str) -> Image.Image:
    """One piece, rasterised once (transparent background)."""
    svg = chess.svg.piece(chess.Piece.from_symbol(symbol), size=SQUARE)
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=SQUARE,
                           output_height=SQUARE)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def square_xy(square: chess.Square, viewer: int) -> tuple[int, int]:
    """The top left corner of ``square`` in the picture seen by ``viewer``."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    col, row = (file, 7 - rank) if viewer == 0 else (7 - file, rank)
    return MARGIN + col * SQUARE, MARGIN + row * SQUARE


@lru_cache(maxsize=2)
def _board(viewer: int) -> Image.Image:
    """The empty board seen by ``viewer``, with the coordinates on all four sides (RGB)."""
    image = Image.new("RGB", (SIDE, SIDE), FRAME)
    draw = ImageDraw.Draw(image)
    for square in chess.SQUARES:
        x, y = square_xy(square, viewer)
        draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1),
                       fill=LIGHT if _light(square) else DARK)
    for i in range(8):
        letter = chess.FILE_NAMES[i if viewer == 0 else 7 - i]
        number = str(8 - i if viewer == 0 else i + 1)
        middle = MARGIN + i * SQUARE + SQUARE // 2
        for x, y, text in ((middle - 3, 3, letter), (middle - 3, SIDE - MARGIN + 3, letter),
                           (6, middle - 5, number), (SIDE - MARGIN + 6, middle - 5, number)):
            draw.text((x, y), text, fill=INK)
    return image


def _light(square: chess.Square) -> bool:
    return (chess.square_file(square) + chess.square_rank(square)) % 2 == 1


def _colour(light: bool, last: bool) -> tuple[int, int, int]:
    if last:
        return LIGHT_LAST if light else DARK_LAST
    return LIGHT if light else DARK


def _square(symbol: str, light: bool, last: bool = False) -> Image.Image:
    """A piece (or nothing, ``symbol`` "") on a light or dark square, tinted when the
    last move left or reached it (RGB)."""
    tile = Image.new("RGB", (SQUARE, SQUARE), _colour(light, last))
    if symbol:
        sprite = _sprite(symbol)
        tile.paste(sprite, (0, 0), sprite)
    return tile


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The colours of the board and of every piece on either colour of square."""
    tiles = [_square(symbol, light, last) for symbol in ("", *SYMBOLS)
             for light in (False, True) for last in (False, True)]
    return drawing.make_palette([_board(0), *tiles],
                                (LIGHT, DARK, FRAME, INK, (0, 0, 0), (255, 255, 255),
                                 LIGHT_LAST, DARK_LAST))


@lru_cache(maxsize=2)
def _base(viewer: int) -> Image.Image:
    """:func:`_board` on the palette."""
    return drawing.on_palette(_board(viewer), _palette())


@lru_cache(maxsize=52)
def _tile(symbol: str, light: bool, last: bool = False) -> Image.Image:
    """:func:`_square` on the palette."""
    return drawing.on_palette(_square(symbol, light, last), _palette())


def board_png(board: chess.Board, viewer: int = 0, last: chess.Move | None = None) -> bytes:
    """The board seen from White's side (viewer 0) or Black's, with coordinates; the
    squares ``last`` moved from and to tinted (by default the board's own last move,
    when it knows its moves: a replayed board; one read from a FEN has none)."""
    seat = 1 if viewer else 0
    image = _base(seat).copy()
    if last is None and board.move_stack:
        last = board.move_stack[-1]
    marked = {last.from_square, last.to_square} if last else set()
    pieces = board.piece_map()
    for square in set(pieces) | marked:
        piece = pieces.get(square)
        image.paste(_tile(piece.symbol() if piece else "", _light(square), square in marked),
                    square_xy(square, seat))
    return drawing.png(image)
