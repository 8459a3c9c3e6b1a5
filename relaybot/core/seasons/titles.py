"""The league's titles (T3; seed 002 rule 13 タイトル). Pure.

「S級の優勝者に名人の称号を与える。通算5期名人を獲得すると、永世名人の称号を与える」.
"""

from __future__ import annotations

MEIJIN = "名人"
ETERNAL = "永世名人"
ETERNAL_AFTER = 5  # 通算5期

# how an English reader is told the titles (the Japanese stays beside it: it is the
# title's name)
_ENGLISH = {MEIJIN: "Meijin (名人)", ETERNAL: "Lifetime Meijin (永世名人)"}


def titles_of(times_meijin: int, holds_now: bool) -> list[str]:
    """The titles of a member who has been 名人 ``times_meijin`` times in all and, when
    ``holds_now``, won the latest season's S class: 名人 while holding it, 永世名人 from
    the fifth time on, for life."""
    out = [MEIJIN] if holds_now else []
    if times_meijin >= ETERNAL_AFTER:
        out.append(ETERNAL)
    return out


def title_words(title: str, lang: str) -> str:
    """A league title as a reader of ``lang`` reads it: 名人 in Japanese, ``Meijin
    (名人)`` in English; any other title as it is."""
    return title if lang == "ja" else _ENGLISH.get(title, title)
