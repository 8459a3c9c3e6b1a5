"""The HTML part of a mail and its files (issue 15), composed from the rendered text.

The plain text stays the mail: the HTML part shows the same text, with the board as a
picture (the game's SVG drawn to PNG, since mail clients do not show SVG) where the
text diagram stood, the position string and a link to the game's page when the web
pages run. A finished game's record file is attached. Everything comes from the mail's
context, which the shells fill (``views.game_context``); nothing here knows a game.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import cairosvg

from relaybot.mail.compose import Alternative, Part
from relaybot.mail.render import render_html

BOARD_CID_LOCAL = "board"
# the record formats' media types (RFC-registered where one exists)
MEDIA_TYPES = {
    "pgn": ("application", "vnd.chess-pgn"),
    "sgf": ("application", "x-go-sgf"),
}


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header (IHDR comes first)."""
    if len(png) < 24 or png[12:16] != b"IHDR":
        return 0, 0
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


@lru_cache(maxsize=256)
def board_png(svg: str) -> bytes:
    """A board SVG drawn as PNG (cached: a relayed position goes to both players)."""
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    assert isinstance(png, bytes)
    return png


def alternative(lang: str, subject: str, body: str, context: Mapping[str, Any],
                domain: str) -> Alternative | None:
    """The HTML part, inline board image and attachments of one mail; None for a mail
    with neither a board nor a file (a digest, an error reply), which stays one plain
    text part: the HTML would only repeat it, and a digest run builds thousands.

    The image's Content-ID is the hash of the picture in the bot's ``domain``: unique
    to that picture, as RFC 2392 asks, without a counter.
    """
    board_text = context.get("board")
    drawn = context.get("board_png")
    svg = context.get("board_svg")
    before, after, cid, size = body, "", "", (0, 0)
    images: tuple[Part, ...] = ()
    if isinstance(board_text, str) and board_text and (drawn or svg):
        head, found, tail = body.partition(board_text)
        if found:
            # the game's own picture, else its SVG rasterised (slow: a tenth of a second)
            png = drawn if isinstance(drawn, bytes) and drawn else board_png(str(svg))
            cid = f"{BOARD_CID_LOCAL}.{hashlib.sha256(png).hexdigest()[:20]}@{domain}"
            before, after = head, tail
            images = (Part("board.png", "image", "png", png, cid),)
            size = png_size(png)  # each game's picture has its own shape
    record = context.get("record_file")
    if not images and not (isinstance(record, Mapping) and record.get("text")):
        return None
    html = render_html(
        lang, "mail", subject=subject, before=before.strip("\n"), after=after.strip("\n"),
        board_cid=cid, board_alt=board_text or "", board_width=size[0],
        board_height=size[1],
        # the text carries the position line already (FEN: ..., SFEN: ...): not twice
        position="" if f"{context.get('position', '')}" in body else context.get("position", ""),
        position_name=context.get("position_name", ""),
        game_link=context.get("game_link", ""))
    attachments: tuple[Part, ...] = ()
    if isinstance(record, Mapping) and record.get("text"):
        maintype, subtype = MEDIA_TYPES.get(str(record["format"]), ("text", "plain"))
        attachments = (Part(str(record["name"]), maintype, subtype,
                            str(record["text"]).encode("utf-8")),)
    return Alternative(html, images, attachments)
