"""Finding the game record in a mail body (J1, J2, J16).

A *move line* is a line that, after :func:`normalise_text`, holds only move
numbers, move-like tokens, results, annotation glyphs, ``{comments}`` and
parenthesised variations, with at least one move. The record is the first
block of move lines; greetings, signatures, keyword lines (``resign``,
``draw?``, ``leave ...``) and conditional lines (``if 3... Bc5 then 4. c3``)
are not move lines because of their words.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from relaybot.core.text import has_fullwidth
from relaybot.games.base import RecordText
from relaybot.games.chess.notation.text import (
    NUMERIC_RE,
    clean_token,
    looks_like_move,
    normalise_text,
)

_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "1/2", "*", "0.5-0.5", "=-="})
_MOVE_NUMBER = re.compile(r"^\d{1,4}(?:\.+)$")
# "1 e4 e5 2 Nf3": the move numbers of many English books, without their dots (J2)
_BARE_NUMBER = re.compile(r"^\d{1,3}$")
_GLUED_NUMBER = re.compile(r"^\d{1,4}\.+(?P<rest>.+)$")
_FILLER = re.compile(r"^(?:\.+|[!?+#]+|\$\d+|e\.?p\.?|--)$", re.IGNORECASE)
_COMMENT_RE = re.compile(r"\{[^{}]*\}")
_PROMO_PAREN = re.compile(r"\([A-Za-z1-4♔♕♖♗♘♙]\)")


class _Line(NamedTuple):
    """What one move line (or results-only line) holds, ready to append to a record.

    ``tokens`` are its moves in order; ``variations`` pair each parenthesised line
    with the index (within ``tokens``) of the move it follows, -1 before the first;
    ``result`` is the last result written after the line's last move, else None.
    Immutable, so that :func:`_scan` can cache it.
    """

    tokens: tuple[str, ...]
    variations: tuple[tuple[int, tuple[str, ...]], ...]
    result: str | None


def _split(line: str) -> list[tuple[str, str]] | None:
    """Split a line into ("tok", text) and ("var", inner text); None if parens are unbalanced."""
    if "(" not in line and ")" not in line:  # the common case: plain tokens
        return [("tok", tok) for tok in line.split()]
    parts: list[tuple[str, str]] = []
    buf: list[str] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch == "(":
            pm = _PROMO_PAREN.match(line, i)
            if buf and pm:  # "e8(Q)" / "5758(1)": part of the move (J2, J3)
                buf.append(pm.group(0))
                i = pm.end()
                continue
            depth, j = 0, i
            while j < n:
                if line[j] == "(":
                    depth += 1
                elif line[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= n:
                return None
            if buf:
                parts.append(("tok", "".join(buf)))
                buf = []
            parts.append(("var", line[i + 1 : j]))
            i = j + 1
            continue
        if ch == ")":
            return None
        if ch.isspace():
            if buf:
                parts.append(("tok", "".join(buf)))
                buf = []
        else:
            buf.append(ch)
        i += 1
    if buf:
        parts.append(("tok", "".join(buf)))
    return parts


@lru_cache(maxsize=16384)
def _classify(tok: str) -> tuple[str, str] | None:
    """("move"|"result"|"skip"|"number", text) for one whitespace-free token; None for a
    word. A "number" is a move number without its dot (``2`` in ``1 e4 e5 2 Nf3``)."""
    tok = tok.strip(",;")
    if not tok:
        return ("skip", tok)
    if tok in _RESULTS:
        return ("result", "1/2-1/2" if tok in ("1/2", "0.5-0.5", "=-=") else tok)
    if _MOVE_NUMBER.match(tok) or _FILLER.match(tok):
        return ("skip", tok)
    if _BARE_NUMBER.match(tok):
        return ("number", tok)  # a move number only beside SAN moves (see _scan)
    glued = _GLUED_NUMBER.match(tok)
    if glued:  # "1.e4", "12.Nf3", "1...e5"
        tok = glued.group("rest")
        if _FILLER.match(tok):
            return ("skip", tok)
    if tok in _RESULTS:
        return ("result", tok)
    if looks_like_move(tok):
        return ("move", tok)
    return None


def _variation_tokens(inner: str) -> list[str] | None:
    """Move tokens of a parenthesised line; None when it is prose (then it is a comment).

    Variations nested inside it are dropped.
    """
    parts = _split(_COMMENT_RE.sub(" ", inner))
    if parts is None:
        return None
    moves: list[str] = []
    for kind, text in parts:
        if kind == "var":
            continue
        got = _classify(text)
        if got is None:
            return None
        if got[0] == "move":
            moves.append(got[1])
    return moves or None


@lru_cache(maxsize=4096)
def _scan(line: str) -> _Line | None:
    """The contents of a move line (or of a results-only line); None for any other line.

    Cached (bounded) on the normalised line: every mail of a game repeats the record
    from move 1, wrapped the same way, so all but its last line or two were scanned
    for the previous mail already. The result is immutable and copied by the caller.
    """
    stripped = _COMMENT_RE.sub(" ", line) if "{" in line else line
    if "{" in stripped or "}" in stripped:
        return None
    tokens: list[str] = []
    variations: list[tuple[int, tuple[str, ...]]] = []
    result: str | None = None
    results = 0  # a line of only results ("1-0") still continues the record
    bare = False  # a move number written without its dot ("1 e4 e5 2 Nf3")
    if "(" not in stripped and ")" not in stripped:
        # the common case, plain tokens: no (kind, text) pairs built just to be unpacked
        for got in map(_classify, stripped.split()):
            if got is None:
                return None
            kind, text = got
            if kind == "move":
                tokens.append(text)
                result = None  # a result only counts when nothing follows it
            elif kind == "number":
                bare = True
            elif kind == "result":
                result = text
                results += 1
    else:
        parts = _split(stripped)
        if parts is None:
            return None
        for kind, text in parts:
            if kind == "var":
                var = _variation_tokens(text)
                if var is not None:
                    variations.append((len(tokens) - 1, tuple(var)))
                continue  # prose in parentheses is a comment
            got = _classify(text)
            if got is None:
                return None
            if got[0] == "move":
                tokens.append(got[1])
                result = None
            elif got[0] == "number":
                bare = True
            elif got[0] == "result":
                result = got[1]
                results += 1
    if not tokens and results == 0:
        return None
    if bare and any(NUMERIC_RE.match(clean_token(t)) for t in tokens):
        # bare numbers stand for move numbers only among SAN moves: beside ICCF digits
        # they are more likely a phone number or a date ("090 1234 5678") than a record
        return None
    return _Line(tuple(tokens), tuple(variations), result)


# ``1) e4 e5 2) Nf3``: a move number closed by a parenthesis, as a numbered list is
# written, reads as ``1. e4 e5 2. Nf3`` (J2). Only a number that starts a word: ``e8(Q)``,
# ``5758(1)`` and variations in parentheses stay as they are.
_PAREN_NUMBER = re.compile(r"(?<!\S)(\d{1,4})\)")


def _paren_numbers(line: str) -> str:
    """``1) e4 e5 2)Nf3`` -> ``1. e4 e5 2.Nf3``; any other line unchanged."""
    return _PAREN_NUMBER.sub(r"\1.", line) if ")" in line else line


def _normalised(raw: str) -> str:
    """:func:`normalise_text` of one line; ASCII is returned as is, since NFKC and the
    dash/quote/figurine map only ever change non-ASCII characters. The Japanese full stop
    and comma a Japanese writer puts after a move (``4.c3。``) separate like spaces. A move
    number closed by a parenthesis (``1)``) reads as ``1.``."""
    if raw.isascii():
        return _paren_numbers(raw)
    return _paren_numbers(normalise_text(raw)[0].replace("。", " ").replace("、", " "))


_START_RE = re.compile(r"^\s*(\d{1,4})\s*(\.{1,3}|…|\s(?=\s*[^\d\s]))")


def _start_match(raw: str) -> re.Match[str] | None:
    """The leading move number of a move line (``1.``, ``3...``, ``1)``, a bare ``3 Bc4``)."""
    return _START_RE.match(_paren_numbers(
        unicodedata.normalize("NFKC", raw) if not raw.isascii() else raw))


def _ply_at(m: re.Match[str]) -> int:
    """The ply a leading move number names (``1.`` 0, ``3.`` 4, ``3...`` 5, ``3 `` 4)."""
    black = m.group(2) != "." and not m.group(2).isspace()
    return max(0, (int(m.group(1)) - 1) * 2 + (1 if black else 0))


def _start_ply(raw: str) -> int:
    """The ply a move line's leading number names (``1.`` 0, ``3.`` 4, ``3...`` 5, a bare
    ``3 Bc4`` 4); 0 for a line without one (a bare ``e4 e5`` is read from move 1)."""
    m = _start_match(raw)
    return 0 if m is None else _ply_at(m)


def _restarts(raw: str) -> bool:
    """Whether a move line begins a game again (``1.`` or ``1 e4``, White's first move):
    after a blank line it is another record (the same game pasted twice, or a corrected
    one), never the continuation of the one above."""
    m = _start_match(raw)
    return m is not None and int(m.group(1)) == 1 and _ply_at(m) == 0


_JOIN_LINES = 12  # lines a comment or a variation may run over (a program wraps at 80)


def _open(text: str) -> bool:
    """Whether a ``{comment}`` or a ``(variation)`` is still open at the end of ``text``."""
    while "{" in text:
        shorter = _COMMENT_RE.sub(" ", text)
        if shorter == text:
            return "}" not in text.rsplit("{", 1)[1]
        text = shorter
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
    return depth > 0


def _joined(lines: list[str]) -> tuple[list[str], dict[int, int]]:
    """The lines with each PGN comment or variation that runs over several lines (as a
    program writes PGN, wrapped at 80 columns) joined onto the line it opens on, and
    the lines it took left blank, so that every line keeps its index; and, for each
    joined line, the last line it took. Lines are joined only where the result reads as
    a move line: prose with a bracket stays as it was."""
    if not any("{" in line or "(" in line for line in lines):
        return lines, {}
    out = list(lines)
    ends: dict[int, int] = {}
    i = 0
    while i < len(out):
        line = out[i]
        if ("{" in line or "(" in line) and _open(line):
            merged, j = line, i + 1
            while j < len(out) and j - i <= _JOIN_LINES and _open(merged):
                merged += " " + out[j]
                j += 1
            if not _open(merged) and _scan(_normalised(merged)) is not None:
                out[i] = merged
                out[i + 1:j] = [""] * (j - i - 1)
                ends[i] = j - 1
                i = j
                continue
        i += 1
    return out, ends


def extract_record(text: str) -> RecordText:
    """Find the first block of move lines in a mail body (J1).

    Move numbers (``1.``, ``1...``, ``1…``, glued ``1.e4``) and results are
    dropped from ``tokens``; a trailing result goes to ``result``;
    parenthesised variations go to ``variations`` under the index of the token
    they follow (-1 before the first); ``{comments}`` are skipped. Blank lines
    inside the block are allowed when the next non-blank line is again a move
    line. ``fullwidth`` is True when the block's lines held full-width
    characters (J2). ``first_line``/``last_line`` index ``text.splitlines()``.
    Never raises.
    """
    if not isinstance(text, str):
        return RecordText()
    raw_lines, ends = _joined(text.splitlines())
    count = len(raw_lines)
    # Lines are scanned lazily, each once: those after the record's end are never looked at.
    scans: dict[int, _Line | None] = {}

    def scan(k: int) -> _Line | None:
        if k not in scans:
            scans[k] = _scan(_normalised(raw_lines[k]))
        return scans[k]

    def block_from(start: int) -> int:
        """The last line of the block of move lines starting at ``start``."""
        end = start
        i = start + 1
        while i < count:
            if scan(i) is not None:
                end = i
                i += 1
                continue
            if raw_lines[i].strip() == "":
                j = i
                while j < count and raw_lines[j].strip() == "":
                    j += 1
                if j < count and scan(j) is not None and not _restarts(raw_lines[j]):
                    i = j
                    continue
            break
        return end

    def next_block(after: int) -> int | None:
        return next((i for i in range(after, count)
                     if (sc := scan(i)) is not None and sc.tokens), None)

    start = next_block(0)
    if start is None:
        return RecordText()
    end = block_from(start)
    first_ply = _start_ply(raw_lines[start])
    if first_ply:
        # J1/J2: players used to postal play write the last moves first ("A局 3. Bc4 Nf6")
        # and the whole game after them; a careful reader takes the block from move 1
        later = next_block(end + 1)
        while later is not None:
            later_end = block_from(later)
            if _start_ply(raw_lines[later]) == 0:
                start, end, first_ply = later, later_end, 0
                break
            later = next_block(later_end + 1)

    record = RecordText(first_line=start, last_line=ends.get(end, end), first_ply=first_ply)
    record.fullwidth = any(
        not raw_lines[k].isascii() and has_fullwidth(raw_lines[k]) for k in range(start, end + 1)
    )
    tokens = record.tokens
    for k in range(start, end + 1):
        sc = scan(k)
        if sc is None:
            continue
        for index, var in sc.variations:
            record.variations.setdefault(len(tokens) + index, []).append(list(var))
        if sc.tokens:
            tokens.extend(sc.tokens)
            record.result = None  # a result is only kept when it is trailing
        if sc.result is not None:
            record.result = sc.result
    return record
