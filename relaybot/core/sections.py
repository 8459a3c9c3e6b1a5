"""Several games in one mail: split a body into one section per game (J17).

Players with several games against each other may move all of them in one
mail, as the JCCA postal example moves games A and B on one card::

    A局 1. e4 e5
    2. Nf3 Nc6
    B局 1. d4
    もし、1... d5 なら 2. c4 とします。

A line naming a game starts its section; the rest of that line is the
section's first line. Text before the first label is the common greeting.
Each section is then checked on its own by the referee, and one bad section
does not block the others (that is the service's part). Pure; never raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from relaybot.core.text import normalise

MoveTest = Callable[[str], bool]  # the game's looks_like_move: could this token be a move?

_BRACKETS = (("[", "]"), ("(", ")"), ("【", "】"), ("<", ">"), ("「", "」"))
_GAME_WORD = r"(?:game|ゲーム|対局)"
_MOVE_NUMBER_RE = re.compile(r"^\d{1,4}\.")
_BARE_NUMBER_RE = re.compile(r"^\d{1,4}(?:手目)?$")
_KEYWORD_RE = re.compile(r"^(?:if\b|もし)", re.IGNORECASE)


@dataclass(frozen=True)
class Section:
    """One game's part of a mail (J17).

    ``text`` holds the section's lines joined by ``\\n``, the label removed from
    its first line; ``line_numbers[k]`` is the index in the mail's
    ``text.splitlines()`` of ``text``'s line ``k`` (so ``first_line`` is the
    label line). A game named twice gets one section, its parts in order.
    ``label`` is the label as written (normalised), e.g. ``A局``.
    """

    game_id: str
    text: str
    first_line: int
    label: str = ""
    line_numbers: tuple[int, ...] = ()


def label_core(label: str) -> str:
    """The bare label inside a written form: ``Game A``, ``[A]``, ``A:``, ``ゲームA``,
    ``A局``, ``#k7m2qx`` all give ``A`` / ``k7m2qx`` (NFKC, case kept)."""
    s = normalise(label).strip()
    for left, right in _BRACKETS:
        if s.startswith(left) and s.endswith(right):
            s = s[1:-1].strip()
    s = s.rstrip(":").strip()
    s = re.sub(rf"^{_GAME_WORD}\s*", "", s, flags=re.IGNORECASE)
    s = s.lstrip("#").strip()
    if s.endswith("局") and len(s) > 1:
        s = s[:-1].strip()
    return s


def _cores(labels: dict[str, str]) -> dict[str, str]:
    """Case-folded bare label -> game id; every game id also names itself."""
    cores: dict[str, str] = {}
    for written, game_id in labels.items():
        core = label_core(written)
        if core:
            cores.setdefault(core.casefold(), game_id)
    for game_id in labels.values():
        cores.setdefault(game_id.casefold(), game_id)
    return cores


def _patterns(cores: dict[str, str]) -> list[tuple[re.Pattern[str], bool]]:
    """The compiled label forms for a set of cores (cached: built once per label set)."""
    return _compiled(tuple(sorted(cores)))


@lru_cache(maxsize=2048)
def _compiled(names: tuple[str, ...]) -> list[tuple[re.Pattern[str], bool]]:
    """Label forms at the start of a line, with whether they are unmistakable.

    A *strong* form (``[A]``, ``A:``, ``Game A:``, ``ゲームA``, ``A局``, ``#A``)
    starts a section whatever follows; a *weak* one (``A``, ``Game A``) only
    when the line ends there or moves follow (``A 1. e4``), so that prose such
    as ``A nice game`` or ``A (0:1), B (0:0)`` is not a label.
    """
    alternation = "|".join(re.escape(c) for c in sorted(names, key=len, reverse=True))
    core = rf"(?P<core>{alternation})"
    strong = [
        *(rf"{re.escape(a)}\s*{core}\s*{re.escape(b)}(?:\s*:)?" for a, b in _BRACKETS),
        rf"{_GAME_WORD}\s*{core}\s*:",
        rf"(?:ゲーム|対局)\s*{core}(?![A-Za-z0-9])(?:\s*:)?",
        rf"{core}\s*局(?:\s*:)?",
        rf"\#{core}(?![A-Za-z0-9])(?:\s*:)?",
        rf"{core}\s*:",
    ]
    weak = [rf"{_GAME_WORD}\s+{core}(?![A-Za-z0-9])", rf"{core}(?![A-Za-z0-9])"]
    flags = re.IGNORECASE
    return [(re.compile(rf"^\s*{p}", flags), True) for p in strong] + [
        (re.compile(rf"^\s*{p}", flags), False) for p in weak
    ]


def _moves_follow(rest: str, looks_like_move: MoveTest) -> bool:
    """Whether the text after a weak label starts with a move, a move number or a proposal."""
    words = rest.split()
    if not words:
        return True
    head = words[0].strip(",;")
    if _BARE_NUMBER_RE.match(head) and len(words) > 1:
        # shogi and go number a move without a dot (``A 15 ▲７七角``): the move must follow
        return looks_like_move(words[1].strip(",;"))
    return bool(_MOVE_NUMBER_RE.match(head) or looks_like_move(head) or _KEYWORD_RE.match(head))


def _raw_rest(raw: str, norm_label: str) -> str | None:
    """The raw line after the label (keeps full width for the J2 note); None if unmapped."""
    for k in range(len(raw) + 1):
        if normalise(raw[:k]) == norm_label:
            return raw[k:]
    return None


def _match_label(
    line: str, patterns: list[tuple[re.Pattern[str], bool]], cores: dict[str, str],
    looks_like_move: MoveTest,
) -> tuple[str, str, str] | None:
    """(game id, label as written, rest of the raw line) when ``line`` starts a section."""
    norm = normalise(line)
    if norm.lstrip().startswith(">"):
        return None  # quoted text never counts
    for pattern, strong in patterns:
        m = pattern.match(norm)
        if m is None:
            continue
        rest = norm[m.end() :]
        if strong:
            closed = m.group(0).rstrip().endswith((":", "]", ")", "】", ">", "」"))
            if rest and not (rest[0].isspace() or closed):
                continue
        elif not (rest == "" or rest[0].isspace()) or not _moves_follow(rest, looks_like_move):
            continue
        game_id = cores[m.group("core").casefold()]
        raw_rest = _raw_rest(line, norm[: m.end()])
        return game_id, m.group(0).strip(), (rest if raw_rest is None else raw_rest).strip()
    return None


def split_sections(text: str, labels: dict[str, str], looks_like_move: MoveTest) -> list[Section]:
    """Split a mail body into game sections by label lines (J17).

    ``labels`` maps a label as players write it (``A``, ``B``, a game id such
    as ``k7m2qx``; decorated forms like ``Game A``, ``[A]``, ``A:``,
    ``ゲームA``, ``A局`` are reduced to their core) to the game id; every game id
    is also a label of itself. Matching is case-insensitive and full-width
    tolerant (NFKC, J2). A line naming a label starts a section; text before
    the first label is the common greeting (:func:`split_mail`). Returns the
    sections in order of first appearance; an empty list when no line names a
    label (a single-game mail). ``looks_like_move`` is the game's test of a move
    token (a weak label such as ``A`` counts only when a move follows). Never raises.
    """
    return split_mail(text, labels, looks_like_move)[1]


def split_mail(
    text: str, labels: dict[str, str], looks_like_move: MoveTest
) -> tuple[str, list[Section]]:
    """The common greeting (text before the first label) and the sections (J17, J18).

    With no label line the greeting is the whole text and the list is empty.
    """
    if not isinstance(text, str):
        return "", []
    cores = _cores(labels)
    lines = text.splitlines()
    if not cores:
        return text, []
    patterns = _patterns(cores)
    order: list[str] = []
    parts: dict[str, list[tuple[int, str]]] = {}
    written: dict[str, str] = {}
    first: dict[str, int] = {}
    current: str | None = None
    greeting_end = len(lines)
    for index, line in enumerate(lines):
        hit = _match_label(line, patterns, cores, looks_like_move)
        if hit is not None:
            game_id, label, rest = hit
            if current is None:
                greeting_end = index
            current = game_id
            if game_id not in parts:
                order.append(game_id)
                parts[game_id] = []
                written[game_id] = label
                first[game_id] = index
            parts[game_id].append((index, rest))
            continue
        if current is not None:
            parts[current].append((index, line))
    if not order:
        return text, []
    greeting = "\n".join(lines[:greeting_end])
    sections = [
        Section(
            game_id=game_id,
            text="\n".join(line for _, line in parts[game_id]),
            first_line=first[game_id],
            label=written[game_id],
            line_numbers=tuple(index for index, _ in parts[game_id]),
        )
        for game_id in order
    ]
    return greeting, sections
