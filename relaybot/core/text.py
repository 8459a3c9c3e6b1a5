"""Text clean-up every game shares: full-width forms and punctuation players type (J2).

A game's own normalisation (chess figurines, shogi kanji numerals) builds on these.
"""

from __future__ import annotations

import re
import unicodedata

from relaybot.core.names import display_name

__all__ = ["display_name", "has_fullwidth", "is_fullwidth_char", "normalise"]

# Characters NFKC leaves alone but that players type for "-", "'", '"', "/".
PUNCTUATION: dict[str, str | None] = {
    "\u2010": "-",  # hyphen
    "\u2011": "-",  # non-breaking hyphen
    "\u2012": "-",  # figure dash
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2015": "-",  # horizontal bar
    "\u2212": "-",  # minus sign
    "\u2043": "-",  # hyphen bullet
    "\u2044": "/",  # fraction slash (NFKC turns ½ into 1⁄2)
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\ufe0e": None,  # variation selectors (emoji forms)
    "\ufe0f": None,
}
_PUNCTUATION_MAP = str.maketrans(PUNCTUATION)
_FULLWIDTH_RE = re.compile("[\u3000\uff01-\uff60\uffe0-\uffe6]")


def is_fullwidth_char(ch: str) -> bool:
    """True for an ideographic space or a full-width ASCII form (J2: ``Ｎｆ３``)."""
    code = ord(ch)
    return code == 0x3000 or 0xFF01 <= code <= 0xFF60 or 0xFFE0 <= code <= 0xFFE6


def has_fullwidth(text: str) -> bool:
    """Whether ``text`` contains a character that NFKC maps from full width (J2)."""
    return _FULLWIDTH_RE.search(text) is not None


def normalise(text: str) -> str:
    """NFKC (full width to ASCII, ``…`` to ``...``) and dash and quote variants as ASCII."""
    return unicodedata.normalize("NFKC", text).translate(_PUNCTUATION_MAP)
