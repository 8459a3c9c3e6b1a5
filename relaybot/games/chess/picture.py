"""The board as a PNG picture for mail (issue 15), drawn with Pillow.

Rasterising the whole board SVG costs a tenth of a second or more per mail; here each
piece's SVG (python-chess's) is rasterised once per process, and so is the empty board
of each seat with its coordinates; a picture pastes the pieces on a copy and is written
as an 8-bit PNG on a palette made once (``relaybot.games.drawing``): about a
millisecond, and a third of the bytes of an RGB PNG. Same colours and seat as
``board_svg``.
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
def _base(viewer: int) -> Image.Image:
    """The empty board seen by ``viewer``, with the coordinates on all four sides."""
    image = Image.new("RGB", (SIDE, SIDE), FRAME)
    draw = ImageDraw.Draw(image)
    for square in chess.SQUARES:
        x, y = square_xy(square, viewer)
        light = (chess.square_file(square) + chess.square_rank(square)) % 2
        draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1), fill=LIGHT if light else DARK)
    for i in range(8):
        letter = chess.FILE_NAMES[i if viewer == 0 else 7 - i]
        number = str(8 - i if viewer == 0 else i + 1)
        middle = MARGIN + i * SQUARE + SQUARE // 2
        for x, y, text in ((middle - 3, 3, letter), (middle - 3, SIDE - MARGIN + 3, letter),
                           (6, middle - 5, number), (SIDE - MARGIN + 6, middle - 5, number)):
            draw.text((x, y), text, fill=INK)
    return image


def _draw(board: chess.Board, viewer: int) -> Image.Image:
    """The picture in RGB."""
    image = _base(viewer).copy()
    for square, piece in board.piece_map().items():
        sprite = _sprite(piece.symbol())
        image.paste(sprite, square_xy(square, viewer), sprite)
    return image


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The colours of the board and of every piece on either colour of square."""
    board = chess.Board(None)
    for k, symbol in enumerate("PNBRQKpnbrqk"):
        board.set_piece_at(k, chess.Piece.from_symbol(symbol))  # both sides
        board.set_piece_at(63 - k, chess.Piece.from_symbol(symbol))
    return drawing.make_palette([_draw(board, 0)],
                               (LIGHT, DARK, FRAME, INK, (0, 0, 0), (255, 255, 255)))


def board_png(board: chess.Board, viewer: int = 0) -> bytes:
    """The board seen from White's side (viewer 0) or Black's, with coordinates."""
    return drawing.png(_draw(board, 1 if viewer else 0), _palette())
