"""What a player's mail asks for, apart from the moves: keywords alone on a line.

English and Japanese keywords are equal (INTERFACE.md): ``resign``/``投了``,
``draw?`` (offer), ``draw``/``ドロー`` (accept or claim), ``leave A B``/``休戦``,
``td: text``, ``status``, ``help``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

RESIGN = {"resign", "resigns", "i resign", "投了", "投了します", "投了する"}
OFFER = {"draw?", "draw ?", "offer draw", "draw offer", "ドロー?", "ドローの提案", "引き分け?",
         "ドローを提案します"}
ACCEPT = {"draw", "accept draw", "draw accepted", "ドロー", "ドローに同意", "ドロー受諾",
          "引き分け", "ドローに同意します", "claim draw"}
STATUS = {"status", "状況", "状態"}
LONG_THINK = {"long think", "long-think", "notice: long think", "長考", "長考します", "長考の予告"}
HELP = {"help", "ヘルプ", "使い方"}

LEAVE_RE = re.compile(
    r"^(?:leave|休戦)\s*[:：]?\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*(?:-|〜|~|to|から)?\s*"
    r"(\d{4})-(\d{1,2})-(\d{1,2})\s*(?:まで)?$",
    re.IGNORECASE,
)
TD_RE = re.compile(r"^td\s*:\s*(.+)$", re.IGNORECASE)


@dataclass
class Intent:
    """Keywords found in a mail body (each alone on its line)."""

    resign: bool = False
    draw_offer: bool = False
    draw_accept: bool = False
    status: bool = False
    help: bool = False
    leave: tuple[date, date] | None = None
    leave_invalid: bool = False
    td_question: str | None = None
    long_think: bool = False  # J10: notice that this reply may take 10 days or more
    keyword_lines: set[int] = field(default_factory=set)

    @property
    def any(self) -> bool:
        """True when the mail asked for something besides moves."""
        return bool(
            self.resign or self.draw_offer or self.draw_accept or self.status or self.help
            or self.leave or self.leave_invalid or self.td_question or self.long_think
        )


def _nfkc(line: str) -> str:
    """NFKC of ``line``; ASCII is already in NFKC, so it skips the call."""
    return line if line.isascii() else unicodedata.normalize("NFKC", line)


def _word(normalised: str) -> str:
    """The keyword form of an NFKC line: lower case, whitespace runs as one space."""
    # str.split() drops whitespace at both ends and splits on exactly what the regex \s
    # matches, so this equals re.sub(r"\s+", " ", text.strip()) without the regex.
    return " ".join(normalised.lower().split()).rstrip("。.!！")


def read_intent(text: str) -> Intent:
    """Find the keywords of INTERFACE.md in ``text``; never raises."""
    intent = Intent()
    for index, line in enumerate(text.splitlines()):
        head = line.lstrip()[:1]
        if not head or head.isdigit():
            continue  # move lines ("1. e4 e5") never hold a keyword: skip them cheaply
        normalised = _nfkc(line)  # once for both forms below
        raw = normalised.strip()
        word = _word(normalised)
        if not word:
            continue
        hit = True
        if word in RESIGN:
            intent.resign = True
        elif word in OFFER:
            intent.draw_offer = True
        elif word in ACCEPT:
            intent.draw_accept = True
        elif word in STATUS:
            intent.status = True
        elif word in HELP:
            intent.help = True
        elif word in LONG_THINK:
            intent.long_think = True
        elif (m := TD_RE.match(raw)) is not None:
            intent.td_question = m.group(1).strip()
        elif word.startswith(("leave", "休戦")):
            match = LEAVE_RE.match(raw)
            try:
                if match is None:
                    raise ValueError(word)
                nums = [int(g) for g in match.groups()]
                intent.leave = (date(*nums[:3]), date(*nums[3:]))
            except ValueError:
                intent.leave_invalid = True
        else:
            hit = False
        if hit:
            intent.keyword_lines.add(index)
    return intent


def strip_lines(text: str, lines: set[int]) -> str:
    """``text`` without the given line indices (keyword lines are not moves)."""
    if not lines:
        return text
    return "\n".join(
        "" if i in lines else line for i, line in enumerate(text.splitlines())
    )
