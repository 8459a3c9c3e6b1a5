"""The body text of a mail: the MIME walk (bounded, G13), the preferred text part
(plain, else HTML), transfer encodings and charsets, attachments never decoded.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from email import policy
from email.message import Message
from email.parser import BytesParser
from email.utils import collapse_rfc2231_value

from relaybot.mail.inbound.charsets import decode_bytes, lenient_b64decode
from relaybot.mail.inbound.headers import raw_to_str
from relaybot.mail.inbound.html_text import html_body_text
from relaybot.mail.inbound.lexical import first_token, strip_comments
from relaybot.mail.inbound.limits import (
    MAX_DEPTH,
    MAX_ENCODED_TEXT_BYTES,
    MAX_PARTS,
    MAX_TEXT_CHARS,
)

__all__ = ["content_type", "normalise_text", "select_body", "unflow"]

_TEXT_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _header_param(part: Message, header: str, param: str) -> str | None:
    try:
        got = part.get_param(param, header=header)
    except Exception:
        return None
    if isinstance(got, tuple):
        try:
            got = collapse_rfc2231_value(got)
        except Exception:
            return None
    if got is None:
        return None
    return str(got)


def content_type(part: Message) -> str:
    """The part's ``type/subtype``, lower-cased; ``text/plain`` when unreadable."""
    try:
        raw = part.get("content-type")
        if raw is None:
            return part.get_default_type()
        ctype = strip_comments(raw_to_str(raw)).split(";", 1)[0].strip().lower()
        if ctype.count("/") != 1:
            return "text/plain"
        return ctype
    except Exception:
        return "text/plain"


def _is_attachment(part: Message) -> bool:
    try:
        disp = part.get("content-disposition")
        kind = first_token(raw_to_str(disp)) if disp is not None else ""
        if kind == "attachment":
            return True
        return kind != "inline" and bool(
            _header_param(part, "content-disposition", "filename")
            or _header_param(part, "content-type", "name")
        )
    except Exception:
        return True


def _part_bytes(part: Message, problems: list[str]) -> bytes:
    """The decoded payload bytes of a leaf text part, bounded (G13)."""
    # The raw payload: compat32's get_payload() would already decode 8-bit text with
    # the declared charset and "replace", losing the bytes we want to try ourselves.
    payload = getattr(part, "_payload", None)
    if payload is None:
        payload = part.get_payload()
    if isinstance(payload, list):
        return b""
    if isinstance(payload, bytes):
        data = payload
    else:
        try:
            data = str(payload).encode("ascii", "surrogateescape")
        except UnicodeError:
            data = str(payload).encode("utf-8", "replace")
    cte_raw = part.get("content-transfer-encoding")
    cte = first_token(raw_to_str(cte_raw)) if cte_raw is not None else ""
    if len(data) > MAX_ENCODED_TEXT_BYTES:
        problems.append("text part truncated")
        data = data[:MAX_ENCODED_TEXT_BYTES]
        cut = data.rfind(b"\n")
        if cut > 0:
            data = data[:cut]
    if cte == "base64":
        try:
            return lenient_b64decode(data)
        except (binascii.Error, ValueError):
            problems.append("bad base64")
            return b""
    if cte == "quoted-printable":
        try:
            return binascii.a2b_qp(data)
        except (binascii.Error, ValueError):
            problems.append("bad quoted-printable")
            return data
    if cte and cte not in ("7bit", "8bit", "binary"):
        problems.append(f"unknown transfer encoding {cte[:20]!r}")
    return data


def _iter_parts(msg: Message, problems: list[str]) -> Iterator[tuple[Message, int]]:
    """Depth-first leaves and containers, capped in depth and count (G13)."""
    stack: list[tuple[Message, int]] = [(msg, 0)]
    count = 0
    depth_noted = False
    while stack:
        part, depth = stack.pop()
        count += 1
        if count > MAX_PARTS:
            problems.append(f"more than {MAX_PARTS} MIME parts, rest ignored")
            return
        yield part, depth
        payload = part.get_payload()
        if isinstance(payload, list):
            if depth >= MAX_DEPTH:
                if not depth_noted:
                    problems.append(f"MIME nesting deeper than {MAX_DEPTH} ignored")
                    depth_noted = True
                continue
            if content_type(part).startswith("message/"):
                continue  # forwarded or returned mail is not the player's text
            subs = [p for p in payload if isinstance(p, Message)]
            stack.extend((p, depth + 1) for p in reversed(subs))


def _recover_boundary(part: Message, problems: list[str]) -> Message | None:
    """A multipart without a boundary: guess it from the first ``--xyz`` line."""
    payload = part.get_payload()
    if not isinstance(payload, str):
        return None
    m = re.search(r"(?m)^--([^\s\"]{1,70})[ \t]*\r?$", payload[:100_000])
    if not m:
        return None
    problems.append("multipart boundary recovered")
    head = f'Content-Type: multipart/mixed; boundary="{m.group(1)}"\r\n\r\n'
    try:
        data = head.encode("ascii", "surrogateescape") + payload.encode("ascii", "surrogateescape")
        return BytesParser(policy=policy.compat32).parsebytes(data)
    except Exception:
        return None


def select_body(msg: Message, problems: list[str], recovered: bool = False) -> str:
    """The decoded text of the preferred body part (plain, else HTML), or ''."""
    html: Message | None = None
    for part, _depth in _iter_parts(msg, problems):
        ctype = content_type(part)
        payload = part.get_payload()
        if ctype.startswith("multipart/") and not isinstance(payload, list):
            problems.append("multipart without boundary")
            if not recovered:
                inner = _recover_boundary(part, problems)
                if inner is not None:
                    text = select_body(inner, problems, recovered=True)
                    if text:
                        return text
            ctype = "text/plain"
        if isinstance(payload, list) or ctype not in ("text/plain", "text/html"):
            continue
        if _is_attachment(part):
            continue
        if ctype == "text/plain":
            text = _decode_part(part, problems)
            if (_header_param(part, "content-type", "format") or "").lower() == "flowed":
                delsp = (_header_param(part, "content-type", "delsp") or "").lower() == "yes"
                text = unflow(text, delsp)
            return text
        if html is None:
            html = part
    if html is not None:
        return html_body_text(_decode_part(html, problems), problems)
    return ""


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 ``format=flowed``: a line ending in a space runs on into the next line of
    the same quote depth, as the sender's and the reader's clients show it, so that a word
    the client wrapped onto a line of its own ("I am not going to" / "resign") is never
    read as that word alone on a line (G13, the one reading). Space-stuffing is undone,
    the signature line ``-- `` stays a hard line, and quoted lines keep their ``>``."""
    out: list[str] = []
    para: list[str] = []
    depth_of_para = 0

    def flush() -> None:
        if para:
            out.append((">" * depth_of_para + " " if depth_of_para else "") + "".join(para))
            para.clear()

    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        content = raw[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (or the space after ">")
        if para and depth != depth_of_para:
            flush()
        depth_of_para = depth
        if content == "-- " or not content.endswith(" "):
            para.append(content)
            flush()
        else:
            para.append(content[:-1] if delsp else content)
    flush()
    return "\n".join(out)


def _decode_part(part: Message, problems: list[str]) -> str:
    data = _part_bytes(part, problems)
    charset = _header_param(part, "content-type", "charset")
    return decode_bytes(data, charset, problems)


def normalise_text(text: str, problems: list[str]) -> str:
    """Body text with LF line ends, control characters removed, cut to
    :data:`~relaybot.mail.inbound.limits.MAX_TEXT_CHARS` (G13)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        problems.append("NUL bytes removed")
    text = _TEXT_CONTROL_RE.sub("", text)
    # every line end str.splitlines() knows is a line end here too (NEL included), so the
    # quote and signature removal cuts the lines the keyword reader reads (G13, one reading)
    text = text.replace("\u2028", "\n").replace("\u2029", "\n").replace("\x85", "\n")
    if len(text) > MAX_TEXT_CHARS:
        problems.append("text truncated")
        text = text[:MAX_TEXT_CHARS]
    return text
