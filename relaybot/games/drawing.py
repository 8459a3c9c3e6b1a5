"""What the games' board pictures (issue 15) share: a small PNG, and a font for kanji.

Each game draws, once per process and in full colour, the empty board of each seat
(with its coordinates) and a tile for each thing that can stand on a square (a piece on
a light or dark square, a stone on an inner or edge point); then makes one palette from
them (:func:`make_palette`) and maps every layer and tile onto it (:func:`on_palette`).
A picture is the board's copy with the tiles pasted in (indices copied: no mask, no
blending, no colour mapping) written as an 8-bit PNG (:func:`png`): a third of the bytes
to compress and under half the size of an RGB PNG, with no visible difference (a board
has a few dozen colours). A picture takes about a millisecond.

The Japanese glyphs of shogi's pieces need a CJK font; :func:`cjk_font_path` looks for
one once per process (Debian's fonts-ipafont-gothic, else any font fontconfig says
covers Japanese) and says None when there is none, and shogi's pictures then fall back
to the SVG (see ``relaybot.club.views.board_picture``).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# where Debian and Ubuntu put IPA Gothic (fonts-ipafont-gothic, installed by
# scripts/test.sh), then the alternatives' link to it
CJK_FONTS = (
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
    "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)
RGB = tuple[int, int, int]
PNG_LEVEL = 3  # zlib: 6 saves a fifth of the bytes (2-3 kB) but doubles the time


@lru_cache(maxsize=1)
def cjk_font_path() -> str | None:
    """A font file with the Japanese glyphs, looked for once: the known paths, else the
    first font ``fc-list`` finds for ``:lang=ja``; None when there is none."""
    for path in CJK_FONTS:
        if Path(path).is_file():
            return path
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    try:
        found = subprocess.run([fc_list, "-f", "%{file}\n", ":lang=ja"], capture_output=True,
                               text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    files = sorted(f for f in found.splitlines()
                   if f.endswith((".ttf", ".otf", ".ttc")) and Path(f).is_file())
    # a gothic (sans) face reads best small; any will do
    files.sort(key=lambda f: not any(w in f.lower() for w in ("goth", "sans")))
    return files[0] if files else None


@lru_cache(maxsize=16)
def cjk_font(size: int) -> ImageFont.FreeTypeFont | None:
    """The CJK font at ``size`` pixels (None without one, or when it will not load)."""
    path = cjk_font_path()
    if path is None:
        return None
    try:
        return ImageFont.truetype(path, size)
    except OSError:
        return None


@lru_cache(maxsize=8)
def latin_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font at ``size`` pixels, for coordinates (no font file needed; a
    Pillow before 10.1 has only its small bitmap font)."""
    try:
        return ImageFont.load_default(size)
    except TypeError:
        return ImageFont.load_default()


def make_palette(layers: Iterable[Image.Image], keys: Iterable[RGB] = (),
                 colours: int = 128) -> Image.Image:
    """A palette image (for :func:`on_palette`) from every layer and tile a picture is
    composed of (their colours, anti-aliased edges included), made once per game. The
    ``keys`` (a board's own colours: a stone, the last move's mark) are in it exactly,
    however few pixels show them."""
    exact = list(dict.fromkeys(keys))
    images = [layer.convert("RGB") for layer in layers]
    width = sum(i.width for i in images)
    swatch = Image.new("RGB", (width, max(i.height for i in images)))
    x = 0
    for i in images:
        swatch.paste(i, (x, 0))
        x += i.width
    found = swatch.quantize(colours - len(exact), method=Image.Quantize.MEDIANCUT,
                            dither=Image.Dither.NONE).getpalette() or []
    entries = [c for rgb in exact for c in rgb] + found[:3 * (colours - len(exact))]
    palette = Image.new("P", (1, 1))
    palette.putpalette(entries)
    return palette


def on_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` mapped onto ``palette`` (each colour to the nearest): a layer or tile
    made once, pasted into pictures on the same palette as it is, without a mask."""
    return image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)


def png(image: Image.Image) -> bytes:
    """A picture composed on a palette (:func:`on_palette`), written as an 8-bit PNG."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()


def centred_text(draw: ImageDraw.ImageDraw, centre: tuple[float, float], text: str,
                 font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
                 fill: tuple[int, int, int] | tuple[int, int, int, int]) -> None:
    """``text`` drawn with its middle at ``centre``."""
    if isinstance(font, ImageFont.FreeTypeFont):
        draw.text(centre, text, font=font, fill=fill, anchor="mm")
        return
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)  # a bitmap font
    draw.text((centre[0] - (left + right) / 2, centre[1] - (top + bottom) / 2), text,
              font=font, fill=fill)


def supersampled(size: tuple[int, int], scale: int = 4) -> tuple[Image.Image, int]:
    """A transparent RGBA canvas ``scale`` times ``size`` (shapes drawn on it and
    :func:`shrink`-ed come out anti-aliased) and the scale."""
    return Image.new("RGBA", (size[0] * scale, size[1] * scale), (0, 0, 0, 0)), scale


def shrink(canvas: Image.Image, size: tuple[int, int]) -> Image.Image:
    """A :func:`supersampled` canvas down to ``size``: each pixel the mean of the ones it
    covers (no ringing: a flat colour stays flat up to the edge)."""
    return canvas.resize(size, Image.Resampling.BOX)
