"""A member's name and how each reader writes it (issue 26 item 2).

A member has a family name, a given name (either may stand alone: a name registered
without a comma is the family name only) and, optionally, the name in Japanese script
(``早川悟``). Each language writes them its own way:

- Japanese: the Japanese-script name where there is one (``早川悟``); else family first,
  with no comma (``山田太郎``, ``Hayakawa Satoru``), for a member who reads Japanese; a
  member who reads English keeps their own order (``Ann Smith``), as Japanese text
  writes a foreign name;
- English: given name first (``Satoru Hayakawa``); a name in kanji or kana keeps its own
  order (``山田太郎``), as English text writes a name it cannot romanise;
- PGN: the standard ``Family, Given``;
- KIF and SGF, and anything else without a reader (a mail header, a CLI list):
  family first without a comma (``Hayakawa Satoru``, ``山田太郎``).

:class:`PersonName` is a ``str`` whose value is the PGN form, the form the club has always
stored and compared: code that keys standings or sorts by a member's name keeps working,
and anything that formats it for a reader finds the parts on the value itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any


def is_japanese_script(text: str) -> bool:
    """Whether ``text`` holds kanji or kana (a name written without a space between the
    family and the given name)."""
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff"
               or "\uf900" <= ch <= "\ufaff" or "\uff66" <= ch <= "\uff9f" for ch in text)


def _clean(text: str) -> str:
    # one space between words, none around: what an operator typed, tidied
    return " ".join(text.split())


def split_name(text: str) -> tuple[str, str]:
    """``(family, given)`` from the stored form: ``"Hayakawa, Satoru"`` is
    ``("Hayakawa", "Satoru")``; a name without exactly one comma (``"Ann Smith"``,
    ``"Odd, Name, Here"``) is the family name alone, as it was written."""
    family, comma, given = text.partition(",")
    if not comma or "," in given or not family.strip() or not given.strip():
        return _clean(text), ""
    return _clean(family), _clean(given)


class PersonName(str):
    """A member's name: ``family``, ``given`` and the Japanese-script ``ja`` ("" when
    none); the string value is the PGN form ``"Family, Given"``. ``tag`` tells apart two
    members of one name where both stand in one list (:func:`distinct`): every form of
    the name ends with it."""

    family: str
    given: str
    ja: str
    eastern: bool  # family name first in Japanese text
    tag: str

    def __new__(cls, family: str, given: str = "", ja: str = "",
                eastern: bool = True, tag: str = "") -> PersonName:
        family, given, ja, tag = _clean(family), _clean(given), _clean(ja), _clean(tag)
        if not family and given:  # a given name alone is still the name
            family, given = given, ""
        value = super().__new__(cls, _tagged(f"{family}, {given}" if given else family, tag))
        value.family, value.given, value.ja, value.tag = family, given, ja, tag
        value.eastern = eastern or bool(ja)
        return value

    @classmethod
    def parse(cls, text: str, ja: str = "") -> PersonName:
        """The name from its stored ``"Family, Given"`` form (see :func:`split_name`)."""
        if isinstance(text, PersonName) and not ja:
            return text
        return cls(*split_name(str(text)), ja=ja)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (a test's deepcopy, a process pool) with its parts, not as a bare str
        return (PersonName, (self.family, self.given, self.ja, self.eastern, self.tag))

    def tagged(self, tag: str) -> PersonName:
        """The same name with ``tag`` after every form of it."""
        return PersonName(self.family, self.given, self.ja, self.eastern, tag)

    def pgn(self) -> str:
        """The PGN tag value: ``"Hayakawa, Satoru"``; a family name alone as it is."""
        return str.__str__(self)

    def plain(self) -> str:
        """Family first, no comma: ``"Hayakawa Satoru"``, ``"山田太郎"`` (KIF, SGF, a mail
        header, a CLI list: no reader's language to follow)."""
        if not self.given:
            return _tagged(self.family, self.tag)
        joiner = "" if is_japanese_script(self.family + self.given) else " "
        return _tagged(f"{self.family}{joiner}{self.given}", self.tag)

    def western(self) -> str:
        """Given name first: ``"Satoru Hayakawa"`` (a kanji or kana name keeps its
        order: ``"山田太郎"``)."""
        if not self.given or is_japanese_script(self.family + self.given):
            return self.plain()
        return _tagged(f"{self.given} {self.family}", self.tag)

    def for_language(self, lang: str) -> str:
        """The name as a reader of ``lang`` writes it: ``早川悟`` (or ``Hayakawa Satoru``
        without a Japanese-script name) in Japanese, ``Satoru Hayakawa`` in English."""
        if lang == "ja":
            return (_tagged(self.ja, self.tag) if self.ja
                    else self.plain() if self.eastern else self.western())
        return self.western()


def _tagged(text: str, tag: str) -> str:
    return f"{text} {tag}" if tag else text


def distinct(names: Iterable[tuple[int, PersonName]]) -> dict[int, PersonName]:
    """Each member's name by id, those that two or more members share tagged with their
    member number (``"Yamada, Taro (#12)"``), so that a list keyed by name (standings,
    pairings) keeps them apart. Names no one else has are as they are."""
    pairs = list(names)
    seen = Counter(str(name) for _, name in pairs)
    return {i: name.tagged(f"(#{i})") if seen[str(name)] > 1 else name for i, name in pairs}


def display_name(name: str, lang: str) -> str:
    """``name`` (a :class:`PersonName`, or a stored ``"Family, Given"`` text) as ``lang``
    writes it. A text already written for a reader (no comma) comes back as it is, so the
    function may be applied twice."""
    person = name if isinstance(name, PersonName) else PersonName.parse(name)
    if not isinstance(name, PersonName) and not person.given:
        return name.strip()  # "Odd, Name, Here", "Ann Smith": as written
    return person.for_language(lang)
