"""What a player's mail asks for, apart from the moves: keywords alone on a line.

Each keyword is a small registered class (:class:`Keyword`, :func:`keyword`); English
and Japanese keywords are equal (INTERFACE.md): ``resign``/``投了``,
``draw?`` (offer), ``draw``/``ドロー`` (accept or claim), ``leave A B``/``休戦``,
``td: text``, ``status``, ``help``, ``digest off``/``ダイジェスト停止`` (D1),
``tutorial end [RESULT]``/``指導終了 [結果]`` (seed 000, the tutor of a tutorial game).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import ClassVar, Literal

RESIGN = {"resign", "resigns", "i resign", "投了", "投了します", "投了する"}
OFFER = {"draw?", "draw ?", "offer draw", "draw offer", "ドロー?", "ドローの提案", "引き分け?",
         "ドローを提案します"}
ACCEPT = {"draw", "accept draw", "draw accepted", "ドロー", "ドローに同意", "ドロー受諾",
          "引き分け", "ドローに同意します", "claim draw"}
STATUS = {"status", "状況", "状態"}
LONG_THINK = {"long think", "long-think", "notice: long think", "長考", "長考します", "長考の予告"}
HELP = {"help", "ヘルプ", "使い方"}
CONFIRM = {"confirm", "確認", "yes", "はい", "確認します", "confirmed"}
CANCEL = {"cancel", "取消", "取り消し", "キャンセル", "取消します", "取り消します"}
DIGEST_OFF = {"digest off", "no digest", "stop digest", "unsubscribe", "ダイジェスト停止",
              "ダイジェスト不要", "ダイジェストを停止", "ダイジェストの停止"}
# D1: the weekly digest again, after "digest off" (or the digest's unsubscribe link)
DIGEST_ON = {"digest on", "resume digest", "ダイジェスト再開", "ダイジェストを再開",
             "ダイジェストの再開", "ダイジェスト希望"}

LEAVE_RE = re.compile(
    r"^(?:leave|休戦)\s*[:：]?\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*(?:-|〜|~|to|から)?\s*"
    r"(\d{4})-(\d{1,2})-(\d{1,2})\s*(?:まで)?$",
    re.IGNORECASE,
)
TD_RE = re.compile(r"^td\s*:\s*(.+)$", re.IGNORECASE)
# seed 000 チュートリアル・ゲーム: the tutor ends the game, with the result to report or none
TUTORIAL_END_RE = re.compile(
    r"^(?:tutorial\s+(?:end|over|ends)|end\s+(?:of\s+)?(?:the\s+)?tutorial|指導終了|"
    r"チュートリアル終了)\s*[:：]?\s*(\S*)$")

# What a keyword (or a TD command) does, declared by its class: the gate, the holds and
# the referee derive every "read-only" and "has more" question from these, never from a
# list of their own (issue 22).
Does = Literal[
    "reads",  # answers the sender and changes nothing (status, help)
    "game",  # changes one game (resign, draw offer or acceptance, a game's own keyword)
    "aside",  # about one game, handled beside its moves (J10 long think, J13 question)
    "member",  # changes the member, not one game (J12 leave, D1 digest off)
    "command",  # a TD command (pipeline/td/)
    "answer",  # answers a confirmation request (confirm, cancel); elsewhere it does nothing
]


@dataclass(frozen=True)
class Found:
    """One keyword or command line of a mail: where it stands, its name, what it does."""

    line: int  # index in the text's splitlines()
    name: str
    does: Does


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
    digest_off: bool = False  # D1: no more weekly digests for the sender
    digest_on: bool = False  # D1: the weekly digests again for the sender
    confirm: bool = False  # a confirmation request answered "confirm" / "確認"
    cancel: bool = False  # ... or "cancel" / "取消"
    # seed 000: the tutor ends a tutorial game; the result written after it ("" for none)
    tutorial_end: str | None = None
    declared: str | None = None  # a game's own keyword (GameRules.keywords), by its name
    found: list[Found] = field(default_factory=list)  # every keyword line, in order

    @property
    def keyword_lines(self) -> set[int]:
        """The indices of the lines that hold a keyword (they are not moves)."""
        return {f.line for f in self.found}

    @property
    def any(self) -> bool:
        """True when the mail asked for something besides moves."""
        return bool(self.found)

    def does(self, *what: Does) -> bool:
        """True when a keyword of the mail does one of ``what`` (its class declares it)."""
        return any(f.does in what for f in self.found)

    @property
    def acts(self) -> bool:
        """True when a keyword would change something: anything but status and help, and
        the answers to a confirmation request (which act only on their request)."""
        return any(f.does not in ("reads", "answer") for f in self.found)


def _nfkc(line: str) -> str:
    """NFKC of ``line``; ASCII is already in NFKC, so it skips the call."""
    return line if line.isascii() else unicodedata.normalize("NFKC", line)


def _word(normalised: str) -> str:
    """The keyword form of an NFKC line: lower case, whitespace runs as one space."""
    # str.split() drops whitespace at both ends and splits on exactly what the regex \s
    # matches, so this equals re.sub(r"\s+", " ", text.strip()) without the regex.
    return " ".join(normalised.lower().split()).rstrip("。.!！")


class Keyword:
    """A player's keyword: one small class each, registered with :func:`keyword`.

    ``words`` are the exact lines (NFKC, lower case, single spaces, no final ``.`` or
    ``。``) that mean it; a keyword with a pattern overrides :meth:`read`. ``apply`` sets
    what it means on the mail's :class:`Intent`.
    """

    name: ClassVar[str]
    does: ClassVar[Does]  # what it does (the gate reads this, never a list of its own)
    words: ClassVar[frozenset[str]] = frozenset()
    prefixes: ClassVar[tuple[str, ...]] = ()  # lines starting so are this keyword's to read

    def read(self, word: str, raw: str, intent: Intent) -> bool:
        """Whether the line is this keyword (``word``: normalised; ``raw``: NFKC, stripped);
        a keyword with a pattern reads it here and records what it found."""
        self.apply(intent)
        return True

    flag: ClassVar[str] = ""  # the Intent field a plain keyword sets to True

    def apply(self, intent: Intent) -> None:
        """Record this keyword on ``intent`` (a plain keyword sets its ``flag``)."""
        if not self.flag:
            raise NotImplementedError(type(self).__name__)
        setattr(intent, self.flag, True)


_BY_WORD: dict[str, Keyword] = {}
_BY_PREFIX: list[Keyword] = []


def keyword(cls: type[Keyword]) -> type[Keyword]:
    """Register a keyword class: by its exact words, and by its prefixes (in order)."""
    instance = cls()
    for word in cls.words:
        _BY_WORD[word] = instance
    if cls.prefixes:
        _BY_PREFIX.append(instance)
    return cls


@keyword
class Resign(Keyword):
    """J15: the sender resigns."""

    name = "resign"
    does = "game"
    words = frozenset(RESIGN)
    flag = "resign"


@keyword
class DrawOffer(Keyword):
    """J15: a draw offer (with or without a move)."""

    name = "draw_offer"
    does = "game"
    words = frozenset(OFFER)
    flag = "draw_offer"


@keyword
class DrawAccept(Keyword):
    """J15: accepting the opponent's offer, or claiming a draw."""

    name = "draw_accept"
    does = "game"
    words = frozenset(ACCEPT)
    flag = "draw_accept"


@keyword
class Status(Keyword):
    """The game's state by return mail."""

    name = "status"
    does = "reads"
    words = frozenset(STATUS)
    flag = "status"


@keyword
class Help(Keyword):
    """How to write moves and keywords, by return mail."""

    name = "help"
    does = "reads"
    words = frozenset(HELP)
    flag = "help"


@keyword
class LongThink(Keyword):
    """J10: notice that this reply may take 10 days or more."""

    name = "long_think"
    does = "aside"
    words = frozenset(LONG_THINK)
    flag = "long_think"


@keyword
class DigestOff(Keyword):
    """D1: ``digest off`` / ``ダイジェスト停止``: the weekly digest stops for the sender
    (also what the digest's List-Unsubscribe mailto sends)."""

    name = "digest_off"
    does = "member"
    words = frozenset(DIGEST_OFF)
    flag = "digest_off"


@keyword
class DigestOn(Keyword):
    """D1: ``digest on`` / ``ダイジェスト再開``: the weekly digest again for the sender, who
    had stopped it (the way back that ``digest off``'s reply names)."""

    name = "digest_on"
    does = "member"
    words = frozenset(DIGEST_ON)
    flag = "digest_on"


@keyword
class Question(Keyword):
    """J13: ``td: text``, a question to the TD (the clocks stop until the answer)."""

    name = "td_question"
    does = "aside"
    prefixes = ("td",)

    def read(self, word: str, raw: str, intent: Intent) -> bool:
        m = TD_RE.match(raw)
        if m is None:
            return False
        intent.td_question = m.group(1).strip()
        return True


@keyword
class LeaveRequest(Keyword):
    """J12: ``leave YYYY-MM-DD YYYY-MM-DD`` / ``休戦 ...``; a malformed one is noted."""

    name = "leave"
    does = "member"
    prefixes = ("leave", "休戦")

    def read(self, word: str, raw: str, intent: Intent) -> bool:
        match = LEAVE_RE.match(raw)
        try:
            if match is None:
                raise ValueError(word)
            nums = [int(g) for g in match.groups()]
            intent.leave = (date(*nums[:3]), date(*nums[3:]))
        except ValueError:
            intent.leave_invalid = True
        return True


@keyword
class TutorialEnd(Keyword):
    """Seed 000 チュートリアル・ゲーム: ``tutorial end`` / ``指導終了`` (or
    ``チュートリアル終了``), optionally with the result to report (``tutorial end 1-0``,
    ``指導終了 先手勝ち``): the tutor judges the pupil has no question left and ends the
    game (ゲーム進行に関する疑問点がなくなったとチューターが判断したところでゲームは中断
    され). Handled beside the moves: only the tutorial's tutor may (pipeline/tutorial.py)."""

    name = "tutorial_end"
    does = "aside"
    prefixes = ("tutorial", "end", "指導終了", "チュートリアル終了")

    def read(self, word: str, raw: str, intent: Intent) -> bool:
        m = TUTORIAL_END_RE.match(word)
        if m is None:
            return False
        intent.tutorial_end = m.group(1)
        return True


@keyword
class Confirm(Keyword):
    """The answer to a confirmation request: the held mail is the sender's (INTERFACE.md
    "Who may act"); alone on its line, and only in a reply to the request's address."""

    name = "confirm"
    does = "answer"
    words = frozenset(CONFIRM)
    flag = "confirm"


@keyword
class Cancel(Keyword):
    """The answer to a confirmation request: drop the held mail."""

    name = "cancel"
    does = "answer"
    words = frozenset(CANCEL)
    flag = "cancel"


def read_intent(text: str, game_words: Mapping[str, str] | None = None) -> Intent:
    """Find the registered keywords in ``text``, each alone on its line; never raises.

    ``game_words``: the game's own keywords (line -> name, ``GameRules.keywords``).
    """
    intent = Intent()
    for index, line in enumerate(text.splitlines()):
        head = line.lstrip()[:1]
        if not head or head.isdigit():
            continue  # move lines ("1. e4 e5") never hold a keyword: skip them cheaply
        normalised = _nfkc(line)  # once for both forms below
        word = _word(normalised)
        if not word:
            continue
        if game_words and word in game_words:
            intent.declared = game_words[word]
            intent.found.append(Found(index, "declared", "game"))
            continue
        head, _, rest = word.partition(" ")
        if game_words and ":" in head and head.partition(":")[0] in game_words:
            # a form's label: ``Result: B+3.5``, ``結果：黒3目半勝ち`` (NFKC made the colon)
            head, _, glued = word.partition(":")
            rest = glued.strip()
        if game_words and rest and head in game_words:
            # a game keyword with words after it (go: ``result B+3.5``, ``結果 黒3目半勝ち``):
            # its name and the words, for the game's ``declare``
            intent.declared = f"{game_words[head]} {rest}"
            intent.found.append(Found(index, "declared", "game"))
            continue
        found = _BY_WORD.get(word)
        if found is not None:
            found.apply(intent)
            intent.found.append(Found(index, found.name, found.does))
            continue
        raw = normalised.strip()
        for kw in _BY_PREFIX:
            if word.startswith(kw.prefixes) and kw.read(word, raw, intent):
                intent.found.append(Found(index, kw.name, kw.does))
                break
    return intent


def strip_lines(text: str, lines: set[int]) -> str:
    """``text`` without the given line indices (keyword lines are not moves)."""
    if not lines:
        return text
    return "\n".join(
        "" if i in lines else line for i, line in enumerate(text.splitlines())
    )
