"""Quote and signature removal: the player's own new text out of a reply.

Reply headers in many clients and languages ("On ... wrote:", Japanese date forms,
Outlook blocks, "-----Original Message-----"), ``>`` lines, inline and bottom posting,
and the ``-- `` signature line.
"""

from __future__ import annotations

import re

__all__ = ["strip_quotes"]

_WROTE_RE = re.compile(
    r"(?i)(\bwrote|a écrit|schrieb|escribió|ha scritto|schreef|書きました|のメール)\s*[:：]\s*$"
)
_ON_START_RE = re.compile(r"(?i)^\s*(on|le|am|el|il|op)\s")
_JA_DATE_RE = re.compile(r"^\s*\d{2,4}\s*[年/.-]\s*\d{1,2}\s*[月/.-]\s*\d{1,2}")
_COLON_END_RE = re.compile(r"[:：]\s*$")
_ORIGINAL_RE = re.compile(
    r"(?i)^\s*-{2,}\s*(original message|元のメッセージ|forwarded message|転送メッセージ|"
    r"message d'origine|ursprüngliche nachricht)\s*-{2,}\s*$"
)
_UNDERSCORE_RE = re.compile(r"^\s*_{10,}\s*$")
_OUTLOOK_FROM_RE = re.compile(r"(?i)^\s*\*?(from|差出人|送信者|von|de|da)\s*\*?\s*[:：]")
_OUTLOOK_SENT_RE = re.compile(
    r"(?i)^\s*\*?(sent|date|送信日時|日時|gesendet|envoyé|to|宛先|subject|件名)\s*\*?\s*[:：]"
)
_QUOTED_LINE_RE = re.compile(r"^[ \t]*[>＞]")


_LOOKAHEAD = 8


def _next_nonblank(lines: list[str], start: int, limit: int = 1) -> list[str]:
    """Up to ``limit`` non-blank lines from ``start``, looking at most a few lines ahead."""
    out: list[str] = []
    for line in lines[start : start + _LOOKAHEAD]:
        if line.strip():
            out.append(line)
            if len(out) >= limit:
                break
    return out


def _is_reply_header(lines: list[str], i: int) -> int:
    """Number of lines of a reply/forward header starting at ``i`` (0 when none)."""
    line = lines[i]
    stripped = line.strip()
    if not stripped or _QUOTED_LINE_RE.match(line) or len(stripped) > 400:
        return 0
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if _ORIGINAL_RE.match(line):
        return 1
    if _UNDERSCORE_RE.match(line):
        after = _next_nonblank(lines, i + 1)
        return 1 if after and _OUTLOOK_FROM_RE.match(after[0]) else 0
    if _OUTLOOK_FROM_RE.match(line):
        after = _next_nonblank(lines, i + 1, 3)
        return 1 if any(_OUTLOOK_SENT_RE.match(a) for a in after) else 0
    if _WROTE_RE.search(line):
        return 1
    if _ON_START_RE.match(line) and _WROTE_RE.search(nxt) and len(nxt) < 400:
        return 2
    if _JA_DATE_RE.match(line):
        if _COLON_END_RE.search(line):
            after = _next_nonblank(lines, i + 1)
            if "@" in line or (after and _QUOTED_LINE_RE.match(after[0])):
                return 1
        elif _COLON_END_RE.search(nxt) and ("@" in line + nxt) and len(nxt) < 400:
            return 2
    return 0


def strip_quotes(full_text: str) -> str:
    """The player's own new text: quoted reply and signature removed.

    A reply header ("On ... wrote:", Japanese date/さんは書きました forms, Outlook blocks,
    "-----Original Message-----") cuts everything after it, except that a "wrote:"-style
    header followed by ``>`` lines *and* later unquoted text (with no further header) is
    an inline or bottom-posted reply: then only the header and the ``>`` lines go.
    A ``-- `` / ``--`` line starts the signature and ends the text.
    """
    lines = full_text.split("\n")
    n = len(lines)
    header = [_is_reply_header(lines, i) for i in range(n)]
    later_header = [False] * (n + 1)
    later_own = [False] * (n + 1)
    for k in range(n - 1, -1, -1):
        line = lines[k]
        own = bool(line.strip()) and not _QUOTED_LINE_RE.match(line) and line.rstrip() != "--"
        later_header[k] = later_header[k + 1] or bool(header[k])
        later_own[k] = later_own[k + 1] or own
    kept: list[str] = []
    i = 0
    while i < n:
        line = lines[i]
        if line.rstrip() == "--":
            break
        used = header[i]
        if used:
            j = i + used
            first = _next_nonblank(lines, j)
            inline = (
                _WROTE_RE.search(lines[j - 1]) is not None
                and bool(first)
                and _QUOTED_LINE_RE.match(first[0]) is not None
                and later_own[j]
                and not later_header[j]
            )
            if not inline:
                break
            i = j
            continue
        if not _QUOTED_LINE_RE.match(line):
            kept.append(line.rstrip())
        i += 1
    text = "\n".join(kept)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")
