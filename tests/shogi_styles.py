"""Shogi moves written the ways members write them (issue 16), for the tests that replay
a professional game: each ply in one of several styles, in turn."""

from __future__ import annotations

from pathlib import Path

import shogi.KIF

from relaybot.games import rules_for
from relaybot.games.base import MoveError
from relaybot.games.shogi import notation

RULES = rules_for("shogi")
PRO_GAME = Path(__file__).resolve().parent / "data" / "habu-fujii-2006.kif"
RELATIVE = ("右", "左", "上", "引", "寄", "直", "右上", "左上", "右引", "左引", "右寄", "左寄")
STYLES = 6
_FULL_TO_HALF = str.maketrans("１２３４５６７８９", "123456789")
_ALL_TO_HALF = str.maketrans("１２３４５６７８９一二三四五六七八九", "123456789123456789")


def pro_game() -> tuple[str, list[str]]:
    """The source KIF text and its moves (USI) as python-shogi's own parser reads them."""
    text = PRO_GAME.read_text(encoding="cp932")
    return text, list(shogi.KIF.Parser.parse_str(text)[0]["moves"])


def _relative_form(pos: object, ply: str, bare: str) -> str:
    """An ambiguous move (``５二金(61)``) said with 右 左 上 引 寄 直 instead, as players do."""
    head = bare[:bare.index("(")]
    promo = "成" if head.endswith("成") and not head.endswith("不成") else ""
    stem = head[:-1] if promo else head
    for word in RELATIVE:
        try:
            if RULES.parse(pos, stem + word + promo) == ply:
                return stem + word + promo
        except MoveError:
            continue
    return bare


def written(pos: object, ply: str, style: int, number: int) -> str:
    """``ply`` (move ``number``) as a member might write it in the given style:
    ``15 ▲７七角``, a KIF line with its origin, USI, CSA, ``15手目 7七角``, half width."""
    ja = RULES.format_ply(pos, ply, "ja")  # ▲７六歩 / △同　歩 / ▲５二金(61)
    mark, bare = ja[0], ja[1:]
    if "(" in bare and style % STYLES in (0, 4, 5):
        bare = _relative_form(pos, ply, bare)
    styles = [
        f"{number} {mark}{bare}",
        f"  {number} {notation.kif_move(pos, ply)}",
        f"{number} {ply}",
        f"{number} {notation.csa_move(pos, ply)}",
        f"{number}手目 {bare.translate(_FULL_TO_HALF)}",
        f"{number} {mark}{bare.translate(_ALL_TO_HALF)}",
    ]
    return styles[style % STYLES]
