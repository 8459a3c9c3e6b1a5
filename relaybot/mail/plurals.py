"""A number with its word, in the plural the reader's language gives it (issue 26 item 6).

CLDR's plural rules through Babel: ``1 ply``, ``2 plies``, ``0 days`` in English; Japanese
has one form (``3日``). Never a hand-made ``day(s)``. Templates use it as the ``count``
filter: ``{{ pending_days|count("day") }}``. Ordinals likewise (``ordinal``: ``3rd``,
``11th``, ``21st`` by CLDR's ordinal rules).

The two languages' rules are CLDR's own text, evaluated by Babel's ``PluralRule``: reading
them from Babel's locale data unpickles the whole locale (names of every territory and
currency), about 20 ms of a command's start-up for two short rules.
``tests/unit/test_words.py`` holds them equal to that data, so they cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from babel.plural import PluralRule

# CLDR's plural rules (supplemental plurals.xml, cardinal) of the bot's two languages
CLDR_RULES: Mapping[str, Mapping[str, str]] = {
    "en": {"one": "i = 1 and v = 0"},
    "ja": {},  # one form for every number
}

# CLDR's ordinal rules (supplemental ordinals.xml) of the bot's two languages: 1st, 2nd,
# 3rd, 4th, 11th, 21st in English; Japanese writes 第3 for every number
CLDR_ORDINALS: Mapping[str, Mapping[str, str]] = {
    "en": {"one": "n mod 10 in 1 and n mod 100 not in 11",
           "two": "n mod 10 in 2 and n mod 100 not in 12",
           "few": "n mod 10 in 3 and n mod 100 not in 13"},
    "ja": {},
}
ORDINAL_SUFFIXES: Mapping[str, str] = {"one": "st", "two": "nd", "few": "rd", "other": "th"}


@lru_cache(maxsize=4)
def _rule(lang: str) -> PluralRule:
    return PluralRule(CLDR_RULES["ja" if lang == "ja" else "en"])


def plural_form(number: float, lang: str) -> str:
    """The CLDR plural category of ``number`` in ``lang`` (``one``, ``other``, ...)."""
    return str(_rule(lang)(number))



@lru_cache(maxsize=4)
def _ordinal_rule(lang: str) -> PluralRule:
    return PluralRule(CLDR_ORDINALS["ja" if lang == "ja" else "en"])


def ordinal_form(number: int, lang: str) -> str:
    """The CLDR ordinal category of ``number`` in ``lang`` (``one``, ``two``, ``few``,
    ``other``)."""
    return str(_ordinal_rule(lang)(number))


def ordinal(number: int, lang: str = "en") -> str:
    """``number`` as an ordinal: ``1st``, ``2nd``, ``3rd``, ``11th``, ``21st`` in English
    (CLDR's categories), ``第3`` in Japanese."""
    if lang == "ja":
        return f"第{number}"
    return f"{number}{ORDINAL_SUFFIXES[ordinal_form(number, lang)]}"


# English words the templates and the CLI count with (ja: the counter words)
NOUNS: Mapping[str, Mapping[str, Mapping[str, str]]] = {
    "en": {"day": {"one": "day", "other": "days"}, "ply": {"one": "ply", "other": "plies"},
           "move": {"one": "move", "other": "moves"}, "mail": {"one": "mail", "other": "mails"},
           "game": {"one": "game", "other": "games"},
           "win": {"one": "win", "other": "wins"}, "draw": {"one": "draw", "other": "draws"},
           "loss": {"one": "loss", "other": "losses"},
           "stone": {"one": "stone", "other": "stones"},
           "point": {"one": "point", "other": "points"}},
    "ja": {"day": {"other": "日"}, "ply": {"other": "手"}, "move": {"other": "手"},
           "mail": {"other": "通"}, "game": {"other": "局"}, "win": {"other": "勝"},
           "draw": {"other": "引き分け"}, "loss": {"other": "敗"}, "stone": {"other": "子"},
           "point": {"other": "点"}},
}


def word_for(number: float, forms: Mapping[str, str], lang: str) -> str:
    """The form of a word that goes with ``number`` in ``lang`` (``forms`` by CLDR plural
    category; ``other`` when the category has no form of its own)."""
    return forms.get(plural_form(number, lang), forms.get("other", ""))


def count(number: object, noun: str | Mapping[str, str], lang: str = "en") -> str:
    """``number`` with its word: ``1 ply``, ``3 plies`` in English; ``3手`` in Japanese.
    ``noun`` is one of :data:`NOUNS` or the word's forms by plural category; a value that
    is no number (a template's ``-``) takes the ``other`` form."""
    forms = NOUNS["ja" if lang == "ja" else "en"][noun] if isinstance(noun, str) else noun
    shown = f"{number:g}" if isinstance(number, float) else str(number)
    try:
        value = float(str(number))
    except ValueError:
        value = None
    if value is not None and value.is_integer():
        value = int(value)
    word = word_for(value, forms, lang) if value is not None else forms.get("other", "")
    return f"{shown}{word}" if lang == "ja" else f"{shown} {word}"


