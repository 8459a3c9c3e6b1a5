"""Text clean-up every game shares: full-width forms and punctuation players type (J2).

A game's own normalisation (chess figurines, shogi kanji numerals) builds on these.
"""

from __future__ import annotations

import re
import unicodedata

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


def _is_cjk(text: str) -> bool:
    """Whether ``text`` holds kanji or kana (a name Japanese writes family first)."""
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff"
               or "\uf900" <= ch <= "\ufaff" for ch in text)


def display_name(name: str, lang: str) -> str:
    """A member's name as ``lang`` writes it, from the stored "Family, Given" form.

    English puts the given name first ("Smith, Ann" -> "Ann Smith"); a Japanese name
    (kanji or kana) keeps the family name first with no space ("山田, 太郎" -> "山田太郎")
    in either language; a Western name read in Japanese keeps its own order, as Japanese
    text writes it. A name without exactly one comma is shown as it is, so the function
    may be applied twice.
    """
    family, comma, given = name.partition(",")
    if not comma or "," in given or not family.strip() or not given.strip():
        return name.strip()
    family, given = family.strip(), given.strip()
    if _is_cjk(family) or _is_cjk(given):
        return family + given
    return f"{given} {family}"
