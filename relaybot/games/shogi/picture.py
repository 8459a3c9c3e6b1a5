"""The shogi board as a PNG picture for mail (issue 15), drawn with Pillow.

The 9x9 board seen from ``viewer``'s seat as the BOD text shows it (``kif.bod``): 先手
(viewer 0) has the files ９..１ across the top and the ranks 一..九 down the right; 後手
(viewer 1) sees the board turned round (１..９, 九..一), their own pieces at the bottom.
Pieces are kanji on the five-sided koma, the far side's turned round; promoted pieces
in red (と 杏 圭 全 馬 竜); 先手's king 玉, 後手's 王. The pieces in hand lie beside the
board as on a real 駒台: the near side's to the lower right, the far side's to the upper
left. The square the last move went to is tinted.

The empty board of each seat, each piece on a square (plain or tinted) and on a 駒台,
and each count are drawn once per process on one palette (a piece's kanji needs a CJK
font, :func:`relaybot.games.drawing.cjk_font`); a picture pastes them into a copy of the
board and writes an 8-bit PNG, about a millisecond. Without a CJK font
:func:`board_png` gives ``b""`` and the mail has the SVG rasterised
(``relaybot.club.views.board_picture``); that is decided once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from relaybot.games import drawing
from relaybot.games.shogi import position as sp

CELL_W, CELL_H = 40, 44  # a square (koma and squares are a little taller than wide)
PAD = 8
HAND_W = 56  # a 駒台's width
TOP = 24  # the band of file numbers above the board
SIDE = 24  # the band of rank kanji right of the board
BOARD_X = PAD + HAND_W + PAD
BOARD_Y = PAD + TOP
BOARD_W, BOARD_H = 9 * CELL_W, 9 * CELL_H
WIDTH = BOARD_X + BOARD_W + 1 + SIDE + PAD + HAND_W + PAD
HEIGHT = BOARD_Y + BOARD_H + 1 + PAD
SIZE = (WIDTH, HEIGHT)
INSIDE = (CELL_W - 1, CELL_H - 1)  # a square between its grid lines
PIECE = (CELL_W - 3, CELL_H - 3)  # odd, centred in a square's 39x43 inside: turns exactly
HAND_PIECE = (31, 35)
SLOT_H = 38  # one kind of piece in hand
LABEL_H = 24
HAND_H = LABEL_H + 7 * SLOT_H + 4

BACK, BOARD, LINE, STAND = (244, 238, 226), (228, 190, 110), (40, 32, 24), (205, 160, 95)
FACE, EDGE, INK, RED = (250, 226, 176), (120, 84, 40), (20, 20, 20), (200, 0, 0)
LAST = (246, 160, 80)  # the last move's square
TEXT = (60, 44, 28)

# python-shogi's piece types 1-14 as the piece reads (the king: 玉 先手, 王 後手)
NAMES = ("", "歩", "香", "桂", "銀", "金", "角", "飛", "玉", "と", "杏", "圭", "全", "馬", "竜")
KING = 8
PROMOTED = frozenset(range(9, 15))
HAND_ORDER = (7, 6, 5, 4, 3, 2, 1)  # 飛 角 金 銀 桂 香 歩, as KIF lists them
FILE_DIGITS = "１２３４５６７８９"
RANK_KANJI = "一二三四五六七八九"
SIDE_LABELS = ("▲先手", "△後手")


def cell(file: int, rank: int, viewer: int) -> tuple[int, int]:
    """The top left corner (on the grid line) of the square at ``file``, ``rank`` (1-9)
    in the picture seen by ``viewer``."""
    col, row = (9 - file, rank - 1) if viewer == 0 else (file - 1, 9 - rank)
    return BOARD_X + col * CELL_W, BOARD_Y + row * CELL_H


def hand_slot(side: int, slot: int, viewer: int) -> tuple[int, int]:
    """The top left corner of the ``slot``-th kind of piece in ``side``'s hand (the
    near side's 駒台 to the lower right, listed downwards; the far side's to the upper
    left, listed upwards, as the far 駒台 looks from across the board)."""
    if side == viewer:
        x, top = BOARD_X + BOARD_W + 1 + SIDE + PAD, BOARD_Y + BOARD_H + 1 - HAND_H
        return x, top + LABEL_H + slot * SLOT_H
    return PAD, BOARD_Y + HAND_H - LABEL_H - (slot + 1) * SLOT_H


@dataclass(frozen=True)
class _Kit:
    """Everything a picture is pasted from, made once, on one palette."""

    bases: tuple[Image.Image, Image.Image]  # the empty board for each viewer
    # (type, upright, last) -> the inside of a square with that koma, on the board's
    # colour or the last move's (type 0: 後手's king 王; None: an empty square)
    squares: Mapping[tuple[int | None, bool, bool], Image.Image]
    hands: Mapping[tuple[int, bool], Image.Image]  # (type, upright) -> koma on the 駒台
    counts: Mapping[int, Image.Image]  # how many in hand (2 and up)


def _koma(name: str, size: tuple[int, int], font: ImageFont.FreeTypeFont,
          red: bool) -> Image.Image:
    """An upright koma: the five-sided piece with its kanji (RGBA)."""
    canvas, k = drawing.supersampled(size)
    w, h = canvas.size
    shape = [(w / 2, 0.03 * h), (0.83 * w, 0.17 * h), (0.96 * w, 0.97 * h),
             (0.04 * w, 0.97 * h), (0.17 * w, 0.17 * h)]
    ImageDraw.Draw(canvas).polygon(shape, fill=(*FACE, 255), outline=(*EDGE, 255), width=k)
    koma = drawing.shrink(canvas, size)
    drawing.centred_text(ImageDraw.Draw(koma), (size[0] / 2, size[1] * 0.58), name, font,
                         (*RED, 255) if red else (*INK, 255))
    return koma


def _base(viewer: int, small_font: ImageFont.FreeTypeFont) -> Image.Image:
    """The empty board, its coordinates and both 駒台 with their labels, for ``viewer``."""
    image = Image.new("RGB", SIZE, BACK)
    draw = ImageDraw.Draw(image)
    right, bottom = BOARD_X + BOARD_W, BOARD_Y + BOARD_H
    draw.rectangle((BOARD_X - 4, BOARD_Y - 4, right + 4, bottom + 4), fill=BOARD)
    draw.rectangle((BOARD_X - 2, BOARD_Y - 2, right + 2, bottom + 2), outline=LINE, width=2)
    for k in range(10):
        draw.line((BOARD_X + k * CELL_W, BOARD_Y, BOARD_X + k * CELL_W, bottom), fill=LINE)
        draw.line((BOARD_X, BOARD_Y + k * CELL_H, right, BOARD_Y + k * CELL_H), fill=LINE)
    for col in (3, 6):  # the four 星 (the same for either seat)
        for row in (3, 6):
            x, y = BOARD_X + col * CELL_W, BOARD_Y + row * CELL_H
            draw.rectangle((x - 2, y - 2, x + 2, y + 2), fill=LINE)
    for k in range(9):
        file = 9 - k if viewer == 0 else k + 1
        rank = k + 1 if viewer == 0 else 9 - k
        drawing.centred_text(draw, (BOARD_X + k * CELL_W + CELL_W / 2, PAD + TOP / 2),
                             FILE_DIGITS[file - 1], small_font, TEXT)
        drawing.centred_text(draw, (right + 1 + SIDE / 2 + 2, BOARD_Y + k * CELL_H + CELL_H / 2),
                             RANK_KANJI[rank - 1], small_font, TEXT)
    for side in (0, 1):
        near = side == viewer
        x = BOARD_X + BOARD_W + 1 + SIDE + PAD if near else PAD
        top = BOARD_Y + BOARD_H + 1 - HAND_H if near else BOARD_Y
        draw.rounded_rectangle((x, top, x + HAND_W - 1, top + HAND_H - 1), radius=4,
                               fill=STAND, outline=EDGE)
        label_y = top + LABEL_H / 2 + 2 if near else top + HAND_H - LABEL_H / 2 - 2
        drawing.centred_text(draw, (x + HAND_W / 2, label_y), SIDE_LABELS[side], small_font,
                             INK)
    return image


def _count(n: int, font: ImageFont.FreeTypeFont) -> Image.Image:
    """How many of a kind are in hand, on the 駒台 beside it (RGB)."""
    label = Image.new("RGB", (HAND_W - HAND_PIECE[0] - 6, SLOT_H), STAND)
    drawing.centred_text(ImageDraw.Draw(label), (label.width / 2, SLOT_H / 2), str(n), font,
                         INK)
    return label


def _on(background: tuple[int, int, int], size: tuple[int, int], koma: Image.Image | None,
        at: tuple[int, int]) -> Image.Image:
    """A tile of ``size`` in ``background`` with ``koma`` at ``at`` (RGB)."""
    tile = Image.new("RGB", size, background)
    if koma is not None:
        tile.paste(koma, at, koma)
    return tile



@lru_cache(maxsize=1)
def _kit() -> _Kit | None:
    """The layers and tiles (None without a CJK font): made on the first picture, kept."""
    font = drawing.cjk_font(26)
    hand_font = drawing.cjk_font(23)
    small_font = drawing.cjk_font(15)
    if font is None or hand_font is None or small_font is None:
        return None
    boards = (_base(0, small_font), _base(1, small_font))
    squares: dict[tuple[int | None, bool, bool], Image.Image] = {}
    hands: dict[tuple[int, bool], Image.Image] = {}
    for kind in range(15):
        name = NAMES[kind] if kind else "王"  # type 0: 後手's king
        up = _koma(name, PIECE, font, kind in PROMOTED)
        for upright, koma in ((True, up), (False, up.transpose(Image.Transpose.ROTATE_180))):
            for last in (False, True):
                squares[kind, upright, last] = _on(LAST if last else BOARD, INSIDE, koma, (1, 1))
        if kind in HAND_ORDER:
            up = _koma(name, HAND_PIECE, hand_font, False)
            hands[kind, True] = _on(STAND, HAND_PIECE, up, (0, 0))
            hands[kind, False] = hands[kind, True].transpose(Image.Transpose.ROTATE_180)
    squares[None, True, True] = _on(LAST, INSIDE, None, (0, 0))
    counts = {n: _count(n, small_font) for n in range(2, 19)}
    keys = (BACK, BOARD, LINE, STAND, FACE, EDGE, INK, RED, LAST, TEXT)
    palette = drawing.make_palette(
        [boards[0], *squares.values(), *hands.values(), *counts.values()], keys)
    return _Kit(
        (drawing.on_palette(boards[0], palette), drawing.on_palette(boards[1], palette)),
        {key: drawing.on_palette(tile, palette) for key, tile in squares.items()},
        {key: drawing.on_palette(tile, palette) for key, tile in hands.items()},
        {n: drawing.on_palette(tile, palette) for n, tile in counts.items()})


def _draw(kit: _Kit, pieces: Mapping[int, tuple[int, int]],
          hands: tuple[Mapping[int, int], Mapping[int, int]], last: int | None,
          viewer: int) -> Image.Image:
    """The picture on the palette: ``pieces`` square -> (type, side), ``hands`` each
    side's type -> count, ``last`` the square the last move went to."""
    image = kit.bases[viewer].copy()
    if last is not None and last not in pieces:
        x, y = cell(sp.file_of(last), sp.rank_of(last), viewer)
        image.paste(kit.squares[None, True, True], (x + 1, y + 1))
    for square, (kind, side) in pieces.items():
        x, y = cell(sp.file_of(square), sp.rank_of(square), viewer)
        key = kind if kind != KING or side == 0 else 0
        image.paste(kit.squares[key, side == viewer, square == last], (x + 1, y + 1))
    for side in (0, 1):
        slot = 0
        for kind in HAND_ORDER:
            n = hands[side].get(kind, 0)
            if n <= 0:
                continue
            x, y = hand_slot(side, slot, viewer)
            image.paste(kit.hands[kind, side == viewer],
                        (x + 3, y + (SLOT_H - HAND_PIECE[1]) // 2))
            if n > 1:
                image.paste(kit.counts[min(n, 18)], (x + HAND_PIECE[0] + 3, y))
            slot += 1
    return image


def available() -> bool:
    """Whether pictures can be drawn here (a CJK font was found)."""
    return _kit() is not None


def board_png(pos: sp.Position, viewer: int = 0) -> bytes:
    """The board from ``viewer``'s seat (0 先手, 1 後手) as PNG; ``b""`` without a CJK
    font (the caller then rasterises the SVG)."""
    kit = _kit()
    if kit is None:
        return b""
    board = pos.board
    pieces: dict[int, tuple[int, int]] = {}
    for square in range(81):
        piece = board.piece_at(square)
        if piece is not None:
            pieces[square] = (int(piece.piece_type), int(piece.color))
    hands = (board.pieces_in_hand[0], board.pieces_in_hand[1])
    return drawing.png(_draw(kit, pieces, hands, pos.last_to, 1 if viewer else 0))
