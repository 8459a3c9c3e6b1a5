"""Header values as text: raw compat32 access, RFC 2047 encoded words, safe decoding.

:class:`Headers` never hands out ``email.header.Header`` objects; every value is cut to
:data:`~relaybot.mail.inbound.limits.MAX_HEADER_CHARS` before any parsing (G13).
"""

from __future__ import annotations

import binascii
import quopri
import re
from email.message import Message

from relaybot.mail.inbound.charsets import decode_bytes, lenient_b64decode
from relaybot.mail.inbound.lexical import clean_line, unfold
from relaybot.mail.inbound.limits import MAX_HEADER_CHARS

__all__ = ["Headers", "decode_header", "decode_rfc2047", "raw_to_str"]

_ENCODED_WORD_RE = re.compile(r"=\?([^?\s]{1,80})\?([bBqQ])\?([^?\s]*)\?=")


def raw_to_str(value: object) -> str:
    """A raw header value from compat32 (str with surrogate escapes) as real text."""
    if not isinstance(value, str):
        value = str(value)
    value = value[:MAX_HEADER_CHARS]
    try:
        data = value.encode("ascii", "surrogateescape")
    except UnicodeError:
        return value.encode("utf-8", "replace").decode("utf-8", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeError:
        return data.decode("cp1252", "replace")


def decode_rfc2047(value: str, problems: list[str]) -> str:
    """Decode RFC 2047 encoded words; adjacent words of one charset are joined first."""
    pieces: list[tuple[str | None, str | bytes]] = []
    pos = 0
    for m in _ENCODED_WORD_RE.finditer(value):
        between = value[pos : m.start()]
        if between and not (between.isspace() and pieces and pieces[-1][0] is not None):
            pieces.append((None, between))
        charset, enc, payload = m.group(1), m.group(2).lower(), m.group(3)
        try:
            if enc == "b":
                data = lenient_b64decode(payload.encode("ascii", "replace"))
            else:
                data = quopri.decodestring(payload.replace("_", " ").encode("ascii", "replace"))
        except (binascii.Error, ValueError):
            problems.append("bad encoded word")
            data = payload.encode("ascii", "replace")
        key = charset.lower()
        if pieces and pieces[-1][0] == key and isinstance(pieces[-1][1], bytes):
            pieces[-1] = (key, pieces[-1][1] + data)
        else:
            pieces.append((key, data))
        pos = m.end()
    if pos < len(value):
        pieces.append((None, value[pos:]))
    out: list[str] = []
    for cs, chunk in pieces:
        if isinstance(chunk, bytes):
            out.append(decode_bytes(chunk, cs, problems))
        else:
            out.append(chunk)
    return "".join(out)


def decode_header(value: str, problems: list[str], limit: int) -> str:
    """A raw header value decoded (RFC 2047), cleaned of control characters (T13), cut
    to ``limit`` characters."""
    text = decode_rfc2047(unfold(raw_to_str(value)), problems)
    text = clean_line(text)
    if len(text) > limit:
        problems.append("header value truncated")
        text = text[:limit]
    return text.strip()


class Headers:
    """Raw header access over a compat32 message, never returning ``Header`` objects."""

    def __init__(self, msg: Message) -> None:
        self.items: list[tuple[str, str]] = []
        for name, value in msg.raw_items():
            self.items.append((str(name).strip().lower(), raw_to_str(value)))

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.items if k == name]

    def first(self, name: str) -> str | None:
        for k, v in self.items:
            if k == name:
                return v
        return None
