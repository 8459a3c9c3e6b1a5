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
from dataclasses import dataclass, field
from functools import lru_cache

from relaybot.core.notation.text import has_fullwidth, looks_like_move, normalise_text
from relaybot.games.base import RecordText

_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "1/2", "*", "0.5-0.5", "=-="})
_MOVE_NUMBER = re.compile(r"^\d{1,4}(?:\.+)$")
_GLUED_NUMBER = re.compile(r"^\d{1,4}\.+(?P<rest>.+)$")
_FILLER = re.compile(r"^(?:\.+|[!?+#]+|\$\d+|e\.?p\.?|--)$", re.IGNORECASE)
_COMMENT_RE = re.compile(r"\{[^{}]*\}")
_PROMO_PAREN = re.compile(r"\([A-Za-z1-4♔♕♖♗♘♙]\)")


@dataclass
class _Line:
    """What one line holds, in order: ("move", tok) | ("result", tok) | ("var", [toks])."""

    items: list[tuple[str, object]] = field(default_factory=list)
    moves: int = 0
    results: int = 0


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
    """("move"|"result"|"skip", text) for one whitespace-free token; None for a word."""
    tok = tok.strip(",;")
    if not tok:
        return ("skip", tok)
    if tok in _RESULTS:
        return ("result", "1/2-1/2" if tok in ("1/2", "0.5-0.5", "=-=") else tok)
    if _MOVE_NUMBER.match(tok) or _FILLER.match(tok):
        return ("skip", tok)
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


def _scan(line: str) -> _Line | None:
    """The items of a move line (or of a results-only line); None for any other line."""
    stripped = _COMMENT_RE.sub(" ", line) if "{" in line else line
    if "{" in stripped or "}" in stripped:
        return None
    parts = _split(stripped)
    if parts is None:
        return None
    out = _Line()
    for kind, text in parts:
        if kind == "var":
            var = _variation_tokens(text)
            if var is not None:
                out.items.append(("var", var))
            continue  # prose in parentheses is a comment
        got = _classify(text)
        if got is None:
            return None
        if got[0] == "move":
            out.moves += 1
            out.items.append(got)
        elif got[0] == "result":
            out.results += 1
            out.items.append(got)
    if out.moves == 0 and out.results == 0:
        return None
    return out


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
    raw_lines = text.splitlines()
    scans: list[_Line | None] = []
    for raw in raw_lines:
        norm, _ = normalise_text(raw)
        scans.append(_scan(norm))

    start = next((i for i, sc in enumerate(scans) if sc is not None and sc.moves > 0), None)
    if start is None:
        return RecordText()
    end = start
    i = start + 1
    while i < len(raw_lines):
        if scans[i] is not None:
            end = i
            i += 1
            continue
        if raw_lines[i].strip() == "":
            j = i
            while j < len(raw_lines) and raw_lines[j].strip() == "":
                j += 1
            if j < len(raw_lines) and scans[j] is not None:
                i = j
                continue
        break

    record = RecordText(first_line=start, last_line=end)
    record.fullwidth = any(has_fullwidth(raw_lines[k]) for k in range(start, end + 1))
    for k in range(start, end + 1):
        sc = scans[k]
        if sc is None:
            continue
        for kind, value in sc.items:
            if kind == "move" and isinstance(value, str):
                record.tokens.append(value)
                record.result = None  # a result is only kept when it is trailing
            elif kind == "result" and isinstance(value, str):
                record.result = value
            elif kind == "var" and isinstance(value, list):
                key = len(record.tokens) - 1
                record.variations.setdefault(key, []).append([str(v) for v in value])
    return record
