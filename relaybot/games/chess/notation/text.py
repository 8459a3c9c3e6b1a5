"""Text clean-up and board-free comparison keys for chess move tokens.

Everything here works without a position: :func:`normalise_text` cleans a whole
mail body (J2: NFKC for full-width input, figurines, dashes, quotes) and
:func:`token_key` reduces one written move to a key for the fast whole-game
comparison of J1 (the key drops everything J2 says is not an error: ``x``,
``+``, ``#``, ``e.p.``, annotation glyphs, the ``P`` prefix, promotion
punctuation, ``-`` of long algebraic notation, zeros in castling).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import chess

from relaybot.core.text import PUNCTUATION, has_fullwidth

# J2: piece letters per player language, in the order K, Q, R, B, N.
LETTER_SETS: dict[str, str] = {
    "en": "KQRBN",
    "de": "KDTLS",  # König Dame Turm Läufer Springer
    "fr": "RDTFC",  # Roi Dame Tour Fou Cavalier
    "es": "RDTAC",  # Rey Dama Torre Alfil Caballo
}

PIECE_ORDER: tuple[chess.PieceType, ...] = (
    chess.KING,
    chess.QUEEN,
    chess.ROOK,
    chess.BISHOP,
    chess.KNIGHT,
)

# J2: figurines of both colours name the piece (colour is implied by the turn).
WHITE_FIGURINES: dict[str, chess.PieceType] = {
    "♔": chess.KING,
    "♕": chess.QUEEN,
    "♖": chess.ROOK,
    "♗": chess.BISHOP,
    "♘": chess.KNIGHT,
    "♙": chess.PAWN,
}
_BLACK_TO_WHITE_FIGURINE = {
    "♚": "♔",
    "♛": "♕",
    "♜": "♖",
    "♝": "♗",
    "♞": "♘",
    "♟": "♙",
}
_FIGURINE_TO_EN = {
    "♔": "K",
    "♕": "Q",
    "♖": "R",
    "♗": "B",
    "♘": "N",
    "♙": "P",
}

# J2: the shared punctuation clean-up, and black figurines read as the white ones.
_TEXT_MAP = str.maketrans({**PUNCTUATION, **_BLACK_TO_WHITE_FIGURINE})

# Inside a single move token we may also read the Japanese long-vowel mark and
# the multiplication sign (IME output) as "-" and "x" without harming prose.
_TOKEN_MAP = str.maketrans({"ー": "-", "×": "x", "∶": ":"})


def normalise_text(text: str) -> tuple[str, bool]:
    """Clean a mail body for move reading (J2).

    Applies NFKC (full-width ``Ｎｆ３`` / ``０－０`` become ``Nf3`` / ``0-0``,
    ``…`` becomes ``...``, ``½`` becomes ``1/2``), maps dash and quote variants
    to ASCII, and black figurines to the white ones (both name the piece).
    Figurines themselves are kept so that they stay readable whatever piece
    letters the player uses. Returns the text and whether it contained
    full-width characters (J2 says the reply must mention it).
    """
    fullwidth = has_fullwidth(text)
    cleaned = unicodedata.normalize("NFKC", text).translate(_TEXT_MAP)
    return cleaned, fullwidth


# --- token clean-up shared by token_key and the parser ---------------------

_TRAILING_JUNK = "!?+#‡,;"
_EP_SUFFIX = re.compile(r"(?<=[1-8])\.?(?:e\.?p\.?|ep)$", re.IGNORECASE)

CASTLE_RE = re.compile(r"^[0Oo]-?[0Oo](-?[0Oo])?$")
# J3: ICCF numeric, standard "7163" / "57581" and the non-standard "5758(1)",
# "5758=1", "5758/1" (a separate promotion digit), "57-58" tolerated.
NUMERIC_RE = re.compile(
    r"^(?P<a>[0-9])(?P<b>[0-9])-?(?P<c>[0-9])(?P<d>[0-9])"
    r"(?:(?P<p>[0-9])|(?P<sep>[=/])(?P<p2>[0-9])|\((?P<p3>[0-9])\))?$"
)


def clean_token(token: str) -> str:
    """NFKC a single token and strip what J2 says never matters.

    Removes whitespace, annotation glyphs (``!`` ``?``), check and mate signs
    (``+`` ``#``), ``e.p.`` and trailing punctuation. Keeps capture marks,
    dashes and promotion punctuation (the caller decides about those).
    """
    s = unicodedata.normalize("NFKC", token).translate(_TEXT_MAP).translate(_TOKEN_MAP)
    s = "".join(s.split())
    s = s.replace("!", "").replace("?", "")
    while True:
        before = s
        s = s.rstrip(_TRAILING_JUNK)
        s = _EP_SUFFIX.sub("", s)
        if s.endswith(".") and not s.endswith(".."):
            s = s[:-1]
        if s == before:
            return s


_PROMO_SUFFIX = re.compile(r"(?:[=/](?P<a>[A-Za-z♕♖♗♘])|\((?P<b>[A-Za-z♕♖♗♘])\))$")
_SQUARE_DASH = re.compile(r"(?<=[1-8])-(?=[a-h])")


@lru_cache(maxsize=16384)
def token_key(token: str) -> str:
    """Reduce a written move to a comparison key without a board (J1, J2, J3).

    ``Nxf3+`` ``Ng1-f3`` and ``Ｎｆ３`` become ``Nf3``/``Ng1f3``/``Nf3``;
    ``0-0``/``o-o`` become ``O-O``; ``e8=Q``/``e8(Q)``/``e8/Q``/``e8q`` become
    ``e8Q``; ``Pe2-e4`` becomes ``e2e4``; ``e7e8q`` becomes ``e7e8Q``;
    numeric stays digits (``5758(1)`` becomes ``57581``). A pawn capture written
    without its file (``xd5``) keeps its ``x`` so it never equals the push
    ``d5``. Figurines become English letters. Never raises.
    """
    s = clean_token(token)
    if CASTLE_RE.match(s):
        return "O-O-O" if len(s.replace("-", "")) == 3 else "O-O"
    m = NUMERIC_RE.match(s)
    if m:  # J3
        promo = m.group("p") or m.group("p2") or m.group("p3") or ""
        return m.group("a") + m.group("b") + m.group("c") + m.group("d") + promo
    s = "".join(_FIGURINE_TO_EN.get(ch, ch) for ch in s)
    pm = _PROMO_SUFFIX.search(s)
    if pm:
        letter = pm.group("a") or pm.group("b") or ""
        s = s[: pm.start()] + letter
    # Lower-case promotion letter after the last rank (UCI "e7e8q").
    if len(s) >= 2 and s[-1] in "qrbn" and s[-2] in "18":
        s = s[:-1] + s[-1].upper()
    if len(s) >= 3 and s[0] == "P" and s[1] in "abcdefghx:":
        s = s[1:]
    s = _SQUARE_DASH.sub("", s)
    if s[:1] in ("x", ":"):
        return "x" + s[1:].replace("x", "").replace(":", "").replace("-", "")
    return s.replace("x", "").replace(":", "").replace("-", "")


_ALL_PIECE_LETTERS = "".join(sorted(set("".join(LETTER_SETS.values()))))
MOVE_KEY_RE = re.compile(
    rf"^(?:O-O(?:-O)?"
    rf"|[{_ALL_PIECE_LETTERS}]?[a-h]?[1-8]?[a-h][1-8][{_ALL_PIECE_LETTERS}]?"
    rf"|x[a-h][1-8][{_ALL_PIECE_LETTERS}]?"
    rf"|[1-8]{{4}}[1-4]?)$"
)


@lru_cache(maxsize=16384)
def looks_like_move(token: str) -> bool:
    """Whether ``token`` could be a move in any accepted notation (J2, J3)."""
    return bool(MOVE_KEY_RE.match(token_key(token)))
