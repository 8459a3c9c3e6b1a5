"""Why a move or a proposal was refused, as a value, and its words in each language.

A game that refuses a move (:class:`relaybot.core.game.MoveError`) or the conditional
checker that refuses a proposal line says why with a :class:`Reason`: a code and its
parameters (squares, the move as the player wrote it, a piece). The mail layer
(``relaybot.mail.wording.reason_text``) turns it into the reader's language when it
writes the reply; the English words also serve the exception's message and the logs.

Pure data: the phrases of the codes every game shares, in English and Japanese; each
game package adds its own with :func:`add_reasons` when it is imported
(``relaybot/games/<kind>/reasons.py``). A parameter named in
:data:`WORD_PARAMS` is itself a word code (``knight``, ``kingside``, ``sente``) and is
said in the reader's language too; a parameter that is a :class:`Reason` is said whole
(a refused proposal quotes the move's own reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Union

LANGS = ("en", "ja")

Param = Union[str, int, "Reason"]


@dataclass(frozen=True)
class Reason:
    """A refusal's code (a key of :data:`PHRASES`) and its parameters."""

    code: str
    params: tuple[tuple[str, Param], ...] = ()

    @classmethod
    def of(cls, code: str, **params: Param) -> Reason:
        """``Reason.of("castling_moved", side="kingside")``."""
        if code not in PHRASES:
            raise KeyError(f"no words for the reason {code!r}")
        return cls(code, tuple(params.items()))

    def get(self, name: str) -> Param | None:
        """The parameter ``name``, or None."""
        return dict(self.params).get(name)


# Parameters whose value is a word code, said in the reader's language
WORD_PARAMS = frozenset({"piece", "side", "inner_kind"})

# the word codes every game may name; a game adds its own (pieces, sides) with its reasons
_WORDS: dict[str, dict[str, str]] = {
    "en": {"illegal": "not a legal move", "ambiguous": "an ambiguous move",
           "unreadable": "not readable as a move"},
    # in words every game shares: a go move is 打つ, a chess or shogi move 指す
    "ja": {"illegal": "この局面ではできない手です", "ambiguous": "不明瞭な手です",
           "unreadable": "手として読めません"},
}
WORDS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {lang: MappingProxyType(table) for lang, table in _WORDS.items()})

# parameters whose value is a comma-separated list of word codes, with their words per
# language (chess's ``others``: the languages a piece letter set is named after)
_LISTS: dict[str, Mapping[str, Mapping[str, str]]] = {}


def phrase(en: str, ja: str) -> Mapping[str, str]:
    """A reason's words in English and Japanese (``{name}`` marks a parameter)."""
    return MappingProxyType({"en": en, "ja": ja})


_PHRASES: dict[str, Mapping[str, str]] = {
    # --- every game -----------------------------------------------------------
    "empty_move": phrase("empty move", "手が書かれていません"),
    "not_a_move": phrase("not a move", "手として読めません"),
    "no_declaration": phrase("no such declaration", "そのような申告はありません"),
    # --- conditional proposals (J16) ---------------------------------------------
    "proposal_no_answer": phrase("a predicted move needs an answer (if ... then ...)",
                                "予想手には応手が必要です（「もし … なら …」）"),
    "proposal_too_long": phrase("a proposal may have at most {max} moves",
                               "予想手順は {max} 手までです"),
    "move_kind": phrase("{inner_kind}", "{inner_kind}"),
    # a plug-in's plain English detail: only English says it, Japanese says the kind
    "plain_detail": phrase("{text}", "{inner_kind}"),
    "proposal_start": phrase("the proposal is written for {start}; it must start with the "
                            "reply at {here} ({inner})",
                            "この予想手順は {start} からのものです。{here} の応手から始めて"
                            "ください（{inner}）"),
    "proposal_conflict": phrase("{predicted} already has the answer {answer}; "
                               "a second answer {second} is refused",
                               "{predicted} にはすでに応手 {answer} があります。2つ目の応手 "
                               "{second} は受け付けません"),
}
# every reason's words: the shared ones above and those each game package added
PHRASES: Mapping[str, Mapping[str, str]] = MappingProxyType(_PHRASES)


def add_reasons(phrases: Mapping[str, Mapping[str, str]],
                words: Mapping[str, Mapping[str, str]] | None = None,
                lists: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None) -> None:
    """A game's own reasons (code -> :func:`phrase`), the word codes its parameters name
    (language -> code -> word: pieces, sides) and its list parameters (name -> language
    -> code -> word), added when the game's package is imported: a game's words live in
    its package, and a new game brings its own. A code or word already added with other
    words is refused (two games may not say one code differently)."""
    for code, said in phrases.items():
        if set(said) != set(LANGS):
            raise ValueError(f"the reason {code!r} needs words in {', '.join(LANGS)}")
        if _PHRASES.get(code, said) != said:
            raise ValueError(f"the reason {code!r} already has other words")
    for lang, table in (words or {}).items():
        if lang not in LANGS:
            raise ValueError(f"no such language {lang!r}: the words are in {', '.join(LANGS)}")
        for code, word in table.items():
            if _WORDS[lang].get(code, word) != word:
                raise ValueError(f"the word {code!r} already says {_WORDS[lang][code]!r}")
    _PHRASES.update(phrases)
    for lang, table in (words or {}).items():
        _WORDS[lang].update(table)
    _LISTS.update(lists or {})


def say(reason: Reason, lang: str) -> str:
    """The reason in ``lang`` (``en`` or ``ja``; anything else reads English)."""
    lang = lang if lang in LANGS else "en"
    words = WORDS[lang]
    values: dict[str, str] = {}
    for name, value in reason.params:
        if isinstance(value, Reason):
            values[name] = say(value, lang)
        elif name in WORD_PARAMS:
            values[name] = words.get(str(value), str(value))
        elif name in _LISTS:
            names = _LISTS[name].get(lang, {})
            values[name] = ("、" if lang == "ja" else ", ").join(
                names.get(code, code) for code in str(value).split(","))
        else:
            values[name] = str(value)
    return PHRASES[reason.code][lang].format(**values)
