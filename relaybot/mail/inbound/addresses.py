"""Mailboxes and message ids in headers: the strict From parser (G12), loose recipient
lists, ``+tag`` stripping, Message-ID / In-Reply-To / References.
"""

from __future__ import annotations

import re

from relaybot.mail.inbound.lexical import clean_line, strip_comments, unfold
from relaybot.mail.inbound.limits import MAX_ID_CHARS

__all__ = [
    "ids_in",
    "loose_addresses",
    "message_id_in",
    "normalise_id",
    "parse_single_mailbox",
    "strip_tag",
]

_ANGLE_RE = re.compile(r"<([^<>]*)>")
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_ADDR_SPEC_RE = re.compile(
    rf"{_ATEXT}+(?:\.{_ATEXT}+)*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
)
_ADDR_SPLIT_RE = re.compile(r"[\s<>()\[\]\\,;:\"]+")


def normalise_id(value: str) -> str | None:
    """``<Local@Domain>`` -> ``Local@domain``; None when nothing usable is left."""
    value = clean_line(value).strip().strip("<>").strip()
    value = re.sub(r"\s+", "", value)
    if not value:
        return None
    if "@" in value:
        local, _, domain = value.rpartition("@")
        value = f"{local}@{domain.lower()}"
    return value[:MAX_ID_CHARS]


def message_id_in(value: str) -> str | None:
    """The message id a ``Message-ID`` value names: the first ``<...>``, else the whole
    value; normalised as by :func:`normalise_id`."""
    message_id = normalise_id(unfold(value)) if value else None
    found = _ANGLE_RE.search(unfold(value))
    if found:
        message_id = normalise_id(found.group(1)) or message_id
    return message_id


def ids_in(value: str) -> list[str]:
    """The message ids in ``In-Reply-To`` / ``References`` (``<...>``, else words)."""
    value = unfold(value)
    found = _ANGLE_RE.findall(value)
    if not found:
        found = value.split()
    out: list[str] = []
    for item in found:
        norm = normalise_id(item)
        if norm and norm not in out:
            out.append(norm)
    return out


def parse_single_mailbox(value: str) -> tuple[str | None, str]:
    """Strictly parse a From value holding exactly one mailbox (G12, T13).

    Returns ``(addr, display_phrase_raw)``; ``addr`` is None for anything odd: several
    mailboxes, groups, unbalanced quotes/comments/brackets, a stray ``)`` or ``>``,
    more than one ``@`` outside quotes, or an addr-spec that is not a plain dot-atom.
    """
    bare: list[str] = []
    phrase_chars: list[str] = []
    depth = 0
    quoted = False
    escape = False
    for ch in value:
        if escape:
            escape = False
            if quoted:
                phrase_chars.append(ch)
            continue
        if ch == "\\":
            if not (quoted or depth):
                return None, ""
            escape = True
            continue
        if quoted:
            if ch == '"':
                quoted = False
                bare.append('"')
            else:
                phrase_chars.append(ch)
            continue
        if depth:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            continue
        if ch == "(":
            depth = 1
            bare.append(" ")
            continue
        if ch == ")":
            return None, ""
        if ch == '"':
            quoted = True
            bare.append('"')
            continue
        bare.append(ch)
    if quoted or depth or escape:
        return None, ""
    text = "".join(bare).strip()
    if any(c in text for c in ",;:") or text.count("@") != 1:
        return None, ""
    if "<" in text or ">" in text:
        m = re.fullmatch(r"([^<>@]*)<\s*([^<>\s]+)\s*>\s*", text)
        if not m:
            return None, ""
        addr = m.group(2)
        phrase = m.group(1).replace('"', " ").strip()
        if phrase_chars:
            phrase = "".join(phrase_chars).strip() or phrase
    else:
        addr = text
        phrase = ""
    if '"' in addr or not _ADDR_SPEC_RE.fullmatch(addr):
        return None, ""
    return addr.lower(), phrase


def strip_tag(address: str) -> str:
    """``Relay+tag@X.example`` -> ``relay@x.example``: lower-cased, ``+tag`` dropped."""
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return address.strip().lower()
    return f"{local.split('+', 1)[0]}@{domain}"


def loose_addresses(value: str) -> list[str]:
    """Loose list of addresses in a recipient header (lower-cased, deduplicated)."""
    value = strip_comments(unfold(value))
    value = re.sub(r'"(?:[^"\\]|\\.)*"', " ", value)
    out: list[str] = []
    for token in _ADDR_SPLIT_RE.split(value):
        token = token.strip(".").lower()
        if token.count("@") != 1 or len(token) > 320:
            continue
        local, _, domain = token.partition("@")
        if local and domain and token not in out:
            out.append(token)
    return out
