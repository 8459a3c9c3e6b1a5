"""Issue 15: the board picture in mail drawn by each game with Pillow (shogi and go as
chess): a PNG of the expected size, a piece or stone where the position has it, from
the reader's seat, and what the mail path sends; shogi without a CJK font falls back to
the SVG rasterised."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from PIL import Image

from relaybot.club import views
from relaybot.games import drawing, rules_for
from relaybot.games.base import GameRules
from relaybot.games.chess import RULES as CHESS
from relaybot.games.go import RULES as GO
from relaybot.games.go import picture as go_picture
from relaybot.games.go.board import to_rc
from relaybot.games.go.notation import sgf_of_vertex
from relaybot.games.shogi import picture as shogi_picture
from relaybot.games.shogi import position as sp
from relaybot.mail.html import alternative

SHOGI = rules_for("shogi")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
Colour = tuple[int, int, int]


def _image(png: bytes) -> Image.Image:
    assert png[:8] == PNG_MAGIC
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def _near(a: Colour, b: Colour, tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def _colours(image: Image.Image, box: tuple[int, int, int, int]) -> Counter[Colour]:
    counts: Counter[Colour] = Counter()
    for n, colour in image.crop(box).getcolors(1 << 16) or []:
        counts[colour] += n
    return counts


def _share(image: Image.Image, box: tuple[int, int, int, int], colour: Colour,
           tolerance: int = 12) -> float:
    """The part of ``box`` painted ``colour`` (or nearly)."""
    counts = _colours(image, box)
    return sum(n for c, n in counts.items() if _near(c, colour, tolerance)) / counts.total()


def _has(image: Image.Image, box: tuple[int, int, int, int], colour: Colour,
         tolerance: int = 24) -> bool:
    return any(_near(c, colour, tolerance) for c in _colours(image, box))


# --- shogi ------------------------------------------------------------------------------

def test_a_cjk_font_is_installed_for_the_shogi_pictures() -> None:
    """scripts/test.sh installs fonts-ipafont-gothic; without a font the pictures fall
    back to the SVG (tested below), so this says loudly why the other tests fail."""
    assert drawing.cjk_font_path() is not None, "no CJK font: apt-get install " \
        "fonts-ipafont-gothic"
    assert shogi_picture.available()


def test_the_cjk_font_is_looked_for_at_known_paths_then_by_fontconfig(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = drawing.cjk_font_path()
    try:
        monkeypatch.setattr(drawing, "CJK_FONTS", ("/nonexistent/font.ttf",))
        drawing.cjk_font_path.cache_clear()
        by_fontconfig = drawing.cjk_font_path()  # fc-list :lang=ja finds IPA Gothic too
        assert by_fontconfig is not None and by_fontconfig.endswith((".ttf", ".otf", ".ttc"))
        monkeypatch.setattr(drawing.shutil, "which", lambda name: None)
        drawing.cjk_font_path.cache_clear()
        assert drawing.cjk_font_path() is None  # no font: shogi falls back to the SVG
    finally:
        drawing.cjk_font_path.cache_clear()
        monkeypatch.undo()
    assert drawing.cjk_font_path() == found


def _square(file: int, rank: int, viewer: int) -> tuple[int, int, int, int]:
    """The inside of a square (its grid lines left out)."""
    x, y = shogi_picture.cell(file, rank, viewer)
    return x + 1, y + 1, x + shogi_picture.CELL_W, y + shogi_picture.CELL_H


def _board(viewer_image: Image.Image) -> Image.Image:
    x, y = shogi_picture.BOARD_X, shogi_picture.BOARD_Y
    return viewer_image.crop((x, y, x + shogi_picture.BOARD_W + 1,
                              y + shogi_picture.BOARD_H + 1))


def test_shogi_picture_is_a_png_of_the_expected_size_and_differs_by_position() -> None:
    start = _image(SHOGI.board_png(SHOGI.start(), 0))
    assert start.size == shogi_picture.SIZE
    after = SHOGI.board_png(SHOGI.replay(["7g7f"]), 0)
    assert after != SHOGI.board_png(SHOGI.start(), 0)
    assert len(after) < 40_000  # small: an 8-bit PNG


def test_shogi_pieces_stand_on_their_squares_and_the_last_move_is_tinted() -> None:
    image = _image(SHOGI.board_png(SHOGI.replay(["7g7f"]), 0))
    face, board = shogi_picture.FACE, shogi_picture.BOARD
    assert _share(image, _square(7, 6, 0), face) > 0.4  # the pawn moved to 7f
    assert _share(image, _square(7, 7, 0), board) > 0.95  # and left 7g empty
    assert _has(image, _square(7, 6, 0), shogi_picture.LAST)  # the last move's square
    assert not _has(image, _square(5, 9, 0), shogi_picture.LAST)
    assert _share(image, _square(5, 9, 0), face) > 0.4  # 先手's king at the bottom...
    # ...seen from 先手's seat: 5九 low in the picture, 1九 at the right
    assert shogi_picture.cell(5, 9, 0)[1] > shogi_picture.cell(5, 1, 0)[1]
    assert shogi_picture.cell(1, 9, 0)[0] > shogi_picture.cell(9, 9, 0)[0]


def test_shogi_picture_from_gote_is_the_board_turned_round() -> None:
    """後手 (viewer 1) sees the board turned round, every piece with it: the board's part
    of the picture is exactly the other seat's turned by 180 degrees."""
    position = SHOGI.replay(["7g7f", "3c3d", "8h2b+"])
    sente, gote = (_image(SHOGI.board_png(position, v)) for v in (0, 1))
    assert sente.size == gote.size
    assert sente.tobytes() != gote.tobytes()
    turned = _board(sente).transpose(Image.Transpose.ROTATE_180)
    assert turned.tobytes() == _board(gote).tobytes()
    # the same square is at the other end of the board for the other seat
    x, y = shogi_picture.BOARD_X, shogi_picture.BOARD_Y
    w, h = shogi_picture.CELL_W, shogi_picture.CELL_H
    assert shogi_picture.cell(2, 2, 0) == (x + 7 * w, y + 1 * h)  # 2b: upper right
    assert shogi_picture.cell(2, 2, 1) == (x + 1 * w, y + 7 * h)  # lower left


def test_shogi_promoted_piece_in_red_and_the_piece_in_hand_beside_the_board() -> None:
    """8h2b+ takes 後手's bishop: 馬 (red) on 2b, and a 角 in 先手's hand: on the near
    駒台 (lower right) for 先手, on the far one (upper left) for 後手."""
    position = SHOGI.replay(["7g7f", "3c3d", "8h2b+"])
    for viewer in (0, 1):
        image = _image(SHOGI.board_png(position, viewer))
        assert _has(image, _square(2, 2, viewer), shogi_picture.RED, 60)
        assert not _has(image, _square(7, 6, viewer), shogi_picture.RED, 60)  # a pawn: black
        x, y = shogi_picture.hand_slot(0, 0, viewer)
        slot = (x, y, x + shogi_picture.HAND_W // 2, y + shogi_picture.SLOT_H)
        assert _has(image, slot, shogi_picture.FACE, 12)
        x, y = shogi_picture.hand_slot(1, 0, viewer)  # 後手 has nothing in hand
        empty = (x, y, x + shogi_picture.HAND_W // 2, y + shogi_picture.SLOT_H)
        assert not _has(image, empty, shogi_picture.FACE, 12)
        near = x > shogi_picture.BOARD_X
        assert near == (viewer == 1)


def test_shogi_picture_of_the_saved_text_and_of_a_whole_game() -> None:
    position = SHOGI.replay(["7g7f", "3c3d"])
    saved = SHOGI.save(position)
    assert SHOGI.board_png(saved, 1) == SHOGI.board_png(position, 1)
    pos = sp.load(saved)
    assert pos.last_to is not None


def test_shogi_without_a_cjk_font_falls_back_to_the_svg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shogi_picture, "_kit", lambda: None)
    saved = SHOGI.save(SHOGI.start())
    assert SHOGI.board_png(saved, 0) == b""
    picture = views.board_picture(SHOGI, saved, 0)
    assert picture["board_png"] == b"" and picture["board_svg"].startswith("<svg")


# --- go ---------------------------------------------------------------------------------

def _point_colour(image: Image.Image, point: str, size: int) -> Colour:
    """The colour a little off the point (its lines pass through the point itself)."""
    x, y = go_picture.point_xy(*to_rc(point, size), size)
    quarter = go_picture.cell_of(size) // 4
    colour = image.getpixel((x + quarter, y + quarter))
    assert isinstance(colour, tuple)
    return colour[0], colour[1], colour[2]


@pytest.mark.parametrize("size", [19, 13, 9])
def test_go_picture_size_and_stones_where_played(size: int) -> None:
    position = GO.setup({"size": str(size)})
    for ply in ("c3", "g7"):  # Black C3, White G7
        GO.play(position, ply)
    image = _image(GO.board_png(position, 0))
    side = go_picture.side(size)
    assert image.size == (side, side)
    black, white = (sgf_of_vertex(ply, size) or "" for ply in ("c3", "g7"))
    assert _near(_point_colour(image, black, size), go_picture.BLACK)
    assert _near(_point_colour(image, white, size), go_picture.WHITE)
    assert _near(_point_colour(image, "cc", size), go_picture.BOARD)  # an empty point
    # the last move (G7) is ringed in red, the one before not
    half = go_picture.cell_of(size) // 2
    x, y = go_picture.point_xy(*to_rc(white, size), size)
    assert _has(image, (x - half, y - half, x + half, y + half), go_picture.MARK, 40)
    x, y = go_picture.point_xy(*to_rc(black, size), size)
    assert not _has(image, (x - half, y - half, x + half, y + half), go_picture.MARK, 40)


def test_go_picture_is_the_same_from_either_seat_and_differs_by_position() -> None:
    """Go is read from one side by both players (board_text), so is its picture."""
    position = GO.replay(["q16", "d4"])
    assert GO.board_png(position, 0) == GO.board_png(position, 1)
    assert GO.board_png(position, 0) != GO.board_png(GO.replay(["q16"]), 0)
    assert GO.board_png(GO.save(position), 1) == GO.board_png(position, 0)  # saved text too
    # Q16 is upper right: column Q, row 16 counted from the bottom
    x, y = go_picture.point_xy(*to_rc("pd", 19), 19)
    assert x > go_picture.side(19) // 2 > y


def test_go_picture_of_a_pass_and_of_handicap_stones() -> None:
    position = GO.setup({"size": "13", "handicap": "4"})
    image = _image(GO.board_png(position, 0))
    for point in position.setup:
        assert _near(_point_colour(image, point, 13), go_picture.BLACK)
    GO.play(position, "pass")
    assert not _has(_image(GO.board_png(position, 0)), (0, 0, *image.size), go_picture.MARK,
                    40)


# --- the mail path ----------------------------------------------------------------------

@pytest.mark.parametrize("rules", [SHOGI, GO], ids=["shogi", "go"])
def test_the_mail_gets_the_games_own_picture(rules: GameRules) -> None:
    """views.board_picture gives the game's PNG (not its SVG to rasterise), and the
    HTML part of the mail carries exactly that picture."""
    position = rules.start()
    rules.play(position, "7g7f" if rules.kind == "shogi" else "q16")
    saved = rules.save(position)
    picture = views.board_picture(rules, saved, 1)
    draw = getattr(rules, "board_png")  # noqa: B009 - optional in the protocol
    assert picture == {"board_png": draw(saved, 1), "board_svg": ""}
    board = rules.board_text(position, "en", 1)
    body = f"Dear reader,\n\n{board}\n\nBest\n"
    alt = alternative("en", "[g1] subject", body, {"board": board, **picture},
                      "club.example")
    assert alt is not None and len(alt.images) == 1
    assert alt.images[0].data == picture["board_png"]
    width, height = _image(picture["board_png"]).size  # shown in its own shape (shogi's
    assert f'width="{width}" height="{height}"' in alt.html  # is wider than it is high)


def test_chess_still_draws_its_own_picture_small_and_from_either_side() -> None:
    board = CHESS.replay(["e2e4"])
    white, black = CHESS.board_png(board, 0), CHESS.board_png(board, 1)
    assert white != black and _image(white).size == _image(black).size == (396, 396)
    assert len(white) < 20_000


def test_chess_picture_tints_the_last_moves_squares_when_the_board_knows_it() -> None:
    from relaybot.games.chess import picture as chess_picture

    def box(square: str, viewer: int) -> tuple[int, int, int, int]:
        index = "abcdefgh".index(square[0]) + 8 * (int(square[1]) - 1)
        x, y = chess_picture.square_xy(index, viewer)
        return x + 2, y + 2, x + 8, y + 8  # a corner: the square's colour, not the piece

    played = _image(CHESS.board_png(CHESS.replay(["e2e4"]), 0))
    for square in ("e2", "e4"):  # e2 a light square, e4 a light one too: both tinted
        assert _share(played, box(square, 0), chess_picture.LIGHT_LAST) > 0.9, square
    assert _share(played, box("d2", 0), chess_picture.DARK) > 0.9  # the rest as before
    turned = _image(CHESS.board_png(CHESS.replay(["e2e4"]), 1))
    assert _share(turned, box("e4", 1), chess_picture.LIGHT_LAST) > 0.9
    from_fen = _image(CHESS.board_png(CHESS.load(CHESS.save(CHESS.replay(["e2e4"]))), 0))
    assert _share(from_fen, box("e4", 0), chess_picture.LIGHT) > 0.9  # no history: no mark
def test_chess_picture_marks_the_last_move() -> None:
    """Issue 26 item 7: the last move's two squares are tinted on the chess picture (a
    FEN keeps no history: the move is passed as ``last``) and in its SVG."""
    from relaybot.games.chess import picture as chess_picture

    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    board = CHESS.load(fen)
    marked = Image.open(io.BytesIO(CHESS.board_png(board, 0, last="e2e4"))).convert("RGB")
    plain = Image.open(io.BytesIO(CHESS.board_png(board, 0))).convert("RGB")
    for square, colour in ((12, chess_picture.LIGHT_LAST), (28, chess_picture.LIGHT_LAST)):
        x, y = chess_picture.square_xy(square, 0)  # e2 and e4 (light squares): a corner
        assert marked.getpixel((x + 1, y + 1)) == colour
        assert plain.getpixel((x + 1, y + 1)) != colour
    assert "lastmove" in CHESS.board_svg(board, 0, last="e2e4")
    # the mail's picture gets the game's last move through the views
    drawn = views.board_picture(CHESS, fen, 0, "e2e4")["board_png"]
    assert drawn == CHESS.board_png(board, 0, last="e2e4")


def test_chess_picture_tints_a_dark_square_dark() -> None:
    from relaybot.games.chess import picture as chess_picture

    board = CHESS.load("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    marked = Image.open(io.BytesIO(CHESS.board_png(board, 1, last="e7e5"))).convert("RGB")
    for square in (52, 36):  # e7 (dark), e5 (dark), seen from Black's seat
        x, y = chess_picture.square_xy(square, 1)
        assert marked.getpixel((x + 1, y + 1)) == chess_picture.DARK_LAST
