"""The board as a PNG picture for mail (issue 15), drawn with Pillow.

Rasterising the whole board SVG costs a tenth of a second or more per mail; here each
piece's SVG (python-chess's) is rasterised once per process and the board is composed
from those pictures, a millisecond or two. Same colours and seat as ``board_svg``.
"""

from __future__ import annotations

import io
from functools import lru_cache

import cairosvg
import chess
import chess.svg
from PIL import Image, ImageDraw

SQUARE = 45
MARGIN = 18  # room for the file letters and rank numbers
LIGHT, DARK, FRAME, INK = (255, 206, 158), (209, 139, 71), (33, 33, 33), (230, 230, 230)


@lru_cache(maxsize=12)
def _sprite(symbol: str) -> Image.Image:
    """One piece, rasterised once (transparent background)."""
    svg = chess.svg.piece(chess.Piece.from_symbol(symbol), size=SQUARE)
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=SQUARE,
                           output_height=SQUARE)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def board_png(board: chess.Board, viewer: int = 0) -> bytes:
    """The board seen from White's side (viewer 0) or Black's, with coordinates."""
    side = 8 * SQUARE + 2 * MARGIN
    image = Image.new("RGB", (side, side), FRAME)
    draw = ImageDraw.Draw(image)
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        col, row = (file, 7 - rank) if viewer == 0 else (7 - file, rank)
        x, y = MARGIN + col * SQUARE, MARGIN + row * SQUARE
        draw.rectangle((x, y, x + SQUARE - 1, y + SQUARE - 1),
                       fill=LIGHT if (file + rank) % 2 else DARK)
        piece = board.piece_at(square)
        if piece is not None:
            sprite = _sprite(piece.symbol())
            image.paste(sprite, (x, y), sprite)
    for i in range(8):
        letter = chess.FILE_NAMES[i if viewer == 0 else 7 - i]
        number = str(8 - i if viewer == 0 else i + 1)
        middle = MARGIN + i * SQUARE + SQUARE // 2
        for x, y, text in ((middle - 3, 3, letter), (middle - 3, side - MARGIN + 3, letter),
                           (6, middle - 5, number), (side - MARGIN + 6, middle - 5, number)):
            draw.text((x, y), text, fill=INK)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=3)  # fast; the picture is small anyway
    return out.getvalue()
