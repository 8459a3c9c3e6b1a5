"""RFC 5322 lexical helpers shared by the header readers: unfolding, comments, tokens.

:func:`clean_line` is the T13 guard: control characters in a decoded value become spaces.
"""

from __future__ import annotations

import re

__all__ = ["clean_line", "first_token", "strip_comments", "unfold"]

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def clean_line(value: str) -> str:
    """Replace CR, LF and other control characters by spaces (T13)."""
    return _CONTROL_RE.sub(" ", value)


def unfold(value: str) -> str:
    """A folded header value on one line (CR and LF become spaces)."""
    return re.sub(r"\r?\n[ \t]", " ", value).replace("\r", " ").replace("\n", " ")


def strip_comments(value: str) -> str:
    """Remove (possibly nested) RFC 5322 comments, keeping quoted strings."""
    out: list[str] = []
    depth = 0
    quoted = False
    escape = False
    for ch in value:
        if escape:
            escape = False
            if depth == 0:
                out.append(ch)
            continue
        if ch == "\\":
            escape = True
            if depth == 0:
                out.append(ch)
            continue
        if quoted:
            out.append(ch)
            if ch == '"':
                quoted = False
            continue
        if ch == "(":
            depth += 1
            continue
        if ch == ")" and depth:
            depth -= 1
            continue
        if depth == 0:
            if ch == '"':
                quoted = True
            out.append(ch)
    return "".join(out)


def first_token(value: str) -> str:
    """The first word of a structured header value, lower-cased, comments removed."""
    value = strip_comments(unfold(value)).strip().lower()
    return re.split(r"[;\s]", value, maxsplit=1)[0] if value else ""
