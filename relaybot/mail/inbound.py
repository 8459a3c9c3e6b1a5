"""Inbound mail: raw bytes -> :class:`InboundMail`, never raising.

This module is the single place where untrusted mail bytes become Python values.
It upholds, from RELIABILITY.md:

* **G7** (no loops, RFC 3834): :attr:`InboundMail.automated` names the reason a mail
  must never be answered (Auto-Submitted, null or MAILER-DAEMON sender, ``List-*``,
  ``Precedence``, ``multipart/report``, auto-reply markers, our own address).
* **G12** (authority): :attr:`InboundMail.from_addr` comes only from a single,
  well-formed ``From`` mailbox; ``Reply-To`` and ``Sender`` are never consulted, and any
  trick (``alice@x.org)<bob@x.org>``, several mailboxes, unbalanced comments) yields
  ``None``. :attr:`InboundMail.dmarc_fail` reads ``Authentication-Results`` only from
  the trusted authserv-id.
* **G13** (bounded input): caps on header length, MIME depth, part count and decoded text
  size; attachments are never decoded; charsets are tried as declared, then UTF-8, then
  with replacement characters. Every step is wrapped so that :func:`parse_mail` returns a
  value for any input (tested by T12 with Hypothesis and a corpus).
* **T13**: decoded header values (subject, names) have CR, LF and other control
  characters replaced by spaces, so nothing can be injected into headers we write.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import hashlib
import quopri
import re
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import BytesParser
from email.utils import collapse_rfc2231_value

__all__ = [
    "MAX_DEPTH",
    "MAX_PARTS",
    "MAX_TEXT_CHARS",
    "InboundMail",
    "parse_mail",
    "tagged_ids",
    "verp_id",
]

MAX_DEPTH = 20
"""MIME nesting deeper than this is ignored (G13)."""
MAX_PARTS = 500
"""At most this many MIME parts are examined (G13)."""
MAX_TEXT_CHARS = 1_000_000
"""Decoded body text is cut to this many characters (G13)."""
MAX_HTML_CHARS = 200_000
"""HTML beyond this is not parsed: bs4 costs ~20 us per tag (G13)."""
MAX_ENCODED_TEXT_BYTES = 4_000_000
"""A text part whose encoded payload is larger is truncated before decoding (G13)."""
MAX_HEADER_CHARS = 65_536
"""Header values are cut to this length before any parsing (G13)."""
MAX_SUBJECT_CHARS = 2_000
MAX_ID_CHARS = 998
MAX_RECIPIENTS = 200
MAX_REFERENCES = 100

_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{1,40}")
_VERP_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=+-]{0,200}")
_SUBJECT_TAG_RE = re.compile(r"[\[【〔]\s*([a-z0-9][a-z0-9-]{1,40})\s*[\]】〕]")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TEXT_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ENCODED_WORD_RE = re.compile(r"=\?([^?\s]{1,80})\?([bBqQ])\?([^?\s]*)\?=")
_ANGLE_RE = re.compile(r"<([^<>]*)>")
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_ADDR_SPEC_RE = re.compile(
    rf"{_ATEXT}+(?:\.{_ATEXT}+)*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
)
_ADDR_SPLIT_RE = re.compile(r"[\s<>()\[\]\\,;:\"]+")
_JAPANESE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
_AUTOMATED_LOCALS = frozenset({"mailer-daemon", "postmaster", "mail-daemon"})


@dataclass
class InboundMail:
    """One received mail, decoded and judged; every field is safe to log or compare.

    Identity (G12) is :attr:`from_addr` only. :attr:`automated` (G7) is ``None`` unless
    the mail must never be answered. :attr:`problems` lists what G13 handling noticed.
    """

    message_id: str
    from_addr: str | None
    from_name: str
    recipients: list[str]
    subject: str
    text: str
    full_text: str
    in_reply_to: str | None
    references: list[str]
    automated: str | None
    dmarc_fail: bool
    size: int
    problems: list[str] = field(default_factory=list)
    language_hint: str | None = None


# --------------------------------------------------------------------------- charsets

_CHARSET_ALIASES: dict[str, list[str]] = {
    "iso-2022-jp": ["iso2022_jp_ext", "iso2022_jp_2", "iso2022_jp_3"],
    "iso-2022-jp-1": ["iso2022_jp_ext", "iso2022_jp_2", "iso2022_jp_3"],
    "iso-2022-jp-2": ["iso2022_jp_2", "iso2022_jp_ext", "iso2022_jp_3"],
    "iso-2022-jp-3": ["iso2022_jp_3", "iso2022_jp_ext", "iso2022_jp_2"],
    "iso-2022-jp-2004": ["iso2022_jp_2004", "iso2022_jp_ext", "iso2022_jp_2"],
    "csiso2022jp": ["iso2022_jp_ext", "iso2022_jp_2", "iso2022_jp_3"],
    "shift_jis": ["cp932", "shift_jis_2004"],
    "shift-jis": ["cp932", "shift_jis_2004"],
    "sjis": ["cp932", "shift_jis_2004"],
    "x-sjis": ["cp932", "shift_jis_2004"],
    "ms_kanji": ["cp932"],
    "csshiftjis": ["cp932"],
    "windows-31j": ["cp932"],
    "cp932": ["cp932"],
    "x-ms-cp932": ["cp932"],
    "shift_jis-2004": ["shift_jis_2004", "cp932"],
    "euc-jp": ["euc_jp", "euc_jis_2004", "euc_jisx0213"],
    "x-euc-jp": ["euc_jp", "euc_jis_2004"],
    "cseucpkdfmtjapanese": ["euc_jp", "euc_jis_2004"],
    "us-ascii": ["ascii"],
    "ascii": ["ascii"],
    "iso-8859-1": ["cp1252"],
    "latin1": ["cp1252"],
    "gb2312": ["gb18030"],
    "gbk": ["gb18030"],
    "ks_c_5601-1987": ["cp949"],
    "euc-kr": ["cp949"],
}
_REFUSED_CODECS = frozenset(
    {"unicode_escape", "raw_unicode_escape", "idna", "punycode", "undefined", "mbcs", "oem"}
)
_JIS_ESCAPES = (b"\x1b$B", b"\x1b$@", b"\x1b(I", b"\x1b(J", b"\x1b$(D")


def _codec_chain(charset: str | None) -> list[str]:
    """Python codec names to try strictly for a declared MIME charset (may be empty)."""
    if not charset:
        return []
    name = charset.strip().strip("\"'").strip().lower()
    if "*" in name:  # RFC 2231 language suffix
        name = name.split("*", 1)[0]
    if not re.fullmatch(r"[a-z0-9._:+-]{1,40}", name):
        return []
    if name in _CHARSET_ALIASES:
        return list(_CHARSET_ALIASES[name])
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return []
    if info.name in _REFUSED_CODECS:
        return []
    if info.name.startswith("iso2022_jp"):
        return [info.name, "iso2022_jp_ext", "iso2022_jp_2"]
    if info.name in ("shift_jis", "cp932"):
        return ["cp932", "shift_jis_2004"]
    return [info.name]


def _iso2022jp_via_cp932(data: bytes) -> str:
    """Decode ISO-2022-JP leniently by mapping JIS X 0208 rows onto cp932.

    Windows clients (Outlook ja) write NEC row 13 (①, ㈱) and IBM extensions inside
    ISO-2022-JP, which Python's strict codecs reject; cp932 knows them. Half-width kana
    (``ESC ( I`` and SO/SI) are handled too. Unknown sets become U+FFFD.
    """
    out: list[str] = []
    run = bytearray()
    mode = "ascii"
    i = 0
    n = len(data)

    def flush() -> None:
        if run:
            out.append(bytes(run).decode("cp932", "replace"))
            run.clear()

    while i < n:
        b = data[i]
        if b == 0x1B:
            seq3 = data[i : i + 3]
            seq4 = data[i : i + 4]
            if seq3 in (b"\x1b(B", b"\x1b(J"):
                mode, i = "ascii", i + 3
            elif seq3 in (b"\x1b$@", b"\x1b$B"):
                mode, i = "jis", i + 3
            elif seq3 == b"\x1b(I":
                mode, i = "kana", i + 3
            elif seq4 in (b"\x1b$(Q", b"\x1b$(O"):
                mode, i = "jis", i + 4
            elif seq4 in (b"\x1b$(D", b"\x1b$(P"):
                mode, i = "other2", i + 4
            else:
                i += 1
            continue
        if b == 0x0E:
            mode, i = "kana", i + 1
            continue
        if b == 0x0F:
            mode, i = "ascii", i + 1
            continue
        if b in (0x0A, 0x0D):
            run.append(b)
            mode, i = "ascii", i + 1
            continue
        if mode in ("jis", "other2") and 0x21 <= b <= 0x7E and i + 1 < n:
            c = data[i + 1]
            if 0x21 <= c <= 0x7E:
                if mode == "other2":
                    flush()
                    out.append("\ufffd")
                else:
                    s1 = (b + 1) // 2 + 0x70
                    if s1 >= 0xA0:
                        s1 += 0x40
                    if b % 2:
                        s2 = c + 0x1F + (1 if c >= 0x60 else 0)
                    else:
                        s2 = c + 0x7E
                    run += bytes((s1, s2))
                i += 2
                continue
        if mode == "kana" and 0x21 <= b <= 0x5F:
            run.append(b + 0x80)
        elif b < 0x80:
            run.append(b)
        else:
            flush()
            out.append("\ufffd")
        i += 1
    flush()
    return "".join(out)


def _decode_bytes(data: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode bytes: declared charset, then UTF-8, then with replacement (G13)."""
    chain = _codec_chain(charset)
    if charset and not chain:
        problems.append(f"unknown charset {_clean_line(charset)[:40]!r}")
    looks_jis = b"\x1b" in data and any(esc in data for esc in _JIS_ESCAPES)
    if looks_jis and not any(c.startswith("iso2022_jp") for c in chain):
        chain = [*chain, "iso2022_jp_ext", "iso2022_jp_2"]
    for codec in chain:
        try:
            return data.decode(codec)
        except (UnicodeError, LookupError, ValueError):
            continue
    if looks_jis and data.isascii():
        # 7-bit JIS with vendor extensions: "UTF-8" would succeed but mean nothing.
        problems.append("lenient iso-2022-jp decoding")
        return _iso2022jp_via_cp932(data)
    try:
        text = data.decode("utf-8")
        if chain:
            problems.append(f"body not valid {chain[0]}, decoded as utf-8")
        return text
    except UnicodeError:
        pass
    if looks_jis:
        problems.append("lenient iso-2022-jp decoding")
        return _iso2022jp_via_cp932(data)
    problems.append("undecodable bytes replaced")
    for codec in chain:
        try:
            return data.decode(codec, "replace")
        except (UnicodeError, LookupError, ValueError):
            continue
    return data.decode("utf-8", "replace")


# --------------------------------------------------------------------------- headers


def _clean_line(value: str) -> str:
    """Replace CR, LF and other control characters by spaces (T13)."""
    return _CONTROL_RE.sub(" ", value)


def _unfold(value: str) -> str:
    return re.sub(r"\r?\n[ \t]", " ", value).replace("\r", " ").replace("\n", " ")


def _raw_to_str(value: object) -> str:
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


def _b64(data: bytes) -> bytes:
    """Lenient base64: junk characters dropped, padding repaired."""
    cleaned = re.sub(rb"[^A-Za-z0-9+/]", b"", data)
    if len(cleaned) % 4 == 1:
        cleaned = cleaned[:-1]
    cleaned += b"=" * (-len(cleaned) % 4)
    return base64.b64decode(cleaned)


def _decode_rfc2047(value: str, problems: list[str]) -> str:
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
                data = _b64(payload.encode("ascii", "replace"))
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
            out.append(_decode_bytes(chunk, cs, problems))
        else:
            out.append(chunk)
    return "".join(out)


def _decode_header(value: str, problems: list[str], limit: int) -> str:
    text = _decode_rfc2047(_unfold(_raw_to_str(value)), problems)
    text = _clean_line(text)
    if len(text) > limit:
        problems.append("header value truncated")
        text = text[:limit]
    return text.strip()


class _Headers:
    """Raw header access over a compat32 message, never returning ``Header`` objects."""

    def __init__(self, msg: Message) -> None:
        self.items: list[tuple[str, str]] = []
        for name, value in msg.raw_items():
            self.items.append((str(name).strip().lower(), _raw_to_str(value)))

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.items if k == name]

    def first(self, name: str) -> str | None:
        for k, v in self.items:
            if k == name:
                return v
        return None


def _strip_comments(value: str) -> str:
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


def _normalise_id(value: str) -> str | None:
    """``<Local@Domain>`` -> ``Local@domain``; None when nothing usable is left."""
    value = _clean_line(value).strip().strip("<>").strip()
    value = re.sub(r"\s+", "", value)
    if not value:
        return None
    if "@" in value:
        local, _, domain = value.rpartition("@")
        value = f"{local}@{domain.lower()}"
    return value[:MAX_ID_CHARS]


def _ids_in(value: str) -> list[str]:
    value = _unfold(value)
    found = _ANGLE_RE.findall(value)
    if not found:
        found = value.split()
    out: list[str] = []
    for item in found:
        norm = _normalise_id(item)
        if norm and norm not in out:
            out.append(norm)
    return out


def _parse_single_mailbox(value: str) -> tuple[str | None, str]:
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


def _strip_tag(address: str) -> str:
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return address.strip().lower()
    return f"{local.split('+', 1)[0]}@{domain}"


def _addresses(value: str) -> list[str]:
    """Loose list of addresses in a recipient header (lower-cased, deduplicated)."""
    value = _strip_comments(_unfold(value))
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


# --------------------------------------------------------------------------- G7, G12


def _first_token(value: str) -> str:
    value = _strip_comments(_unfold(value)).strip().lower()
    return re.split(r"[;\s]", value, maxsplit=1)[0] if value else ""


def _automated_reason(
    headers: _Headers,
    content_type: str,
    from_value: str | None,
    from_addr: str | None,
    own: set[str],
) -> str | None:
    """The G7 / RFC 3834 reason this mail must never be answered, or None."""
    for value in headers.all("auto-submitted"):
        token = _first_token(value)
        if token != "no":
            return f"auto-submitted: {token or 'empty'}"
    for value in headers.all("return-path"):
        inner = _strip_comments(_unfold(value)).strip()
        if inner.strip("<> \t") == "":
            return "null return path"
        bare_local = inner.strip("<> \t").split("@", 1)[0].lower()
        if bare_local in _AUTOMATED_LOCALS:
            return "mailer-daemon return path"
        for addr in _addresses(inner):
            if addr.split("@", 1)[0] in _AUTOMATED_LOCALS:
                return "mailer-daemon return path"
            if _strip_tag(addr) in own:
                return "own address in return path"
    candidates = [from_addr] if from_addr else []
    if from_value is not None and _strip_comments(from_value).strip("<> \t") == "":
        return "empty sender"
    if from_value is not None:
        candidates += _addresses(from_value)
        if not from_addr and re.search(r"(?i)mailer-daemon|postmaster", from_value):
            return "mailer-daemon sender"
    for addr in candidates:
        if addr.split("@", 1)[0] in _AUTOMATED_LOCALS:
            return "mailer-daemon sender"
    for name, _value in headers.items:
        if name.startswith("list-"):
            return f"list header: {name}"
    for value in headers.all("precedence"):
        token = _first_token(value)
        if token in ("bulk", "junk", "list"):
            return f"precedence: {token}"
    if content_type in (
        "multipart/report",
        "message/delivery-status",
        "message/disposition-notification",
    ):
        return content_type
    for name in ("x-autoreply", "x-autorespond", "x-autoresponder"):
        for value in headers.all(name):
            if _first_token(value) not in ("no", "false", "0"):
                return name
    for value in headers.all("x-auto-response-suppress"):
        tokens = {t for t in re.split(r"[\s,;]+", _unfold(value).lower()) if t}
        if tokens - {"none"}:
            return "x-auto-response-suppress"
    for addr in candidates:
        if _strip_tag(addr) in own:
            return "own address"
    for value in headers.all("x-loop"):
        if any(_strip_tag(a) in own for a in _addresses(value)):
            return "x-loop"
    return None


def _dmarc_fail(headers: _Headers, trusted: str | None) -> bool:
    """True if an Authentication-Results from ``trusted`` says dmarc=fail (G12)."""
    if not trusted:
        return False
    want = trusted.strip().lower()
    for value in headers.all("authentication-results"):
        body = _strip_comments(_unfold(value))
        authserv, _, rest = body.partition(";")
        ident = authserv.strip().split()[0].lower() if authserv.strip() else ""
        if ident == want and re.search(r"(?i)(?:^|[\s;])dmarc\s*=\s*fail\b", rest):
            return True
    return False


# --------------------------------------------------------------------------- body


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


def _content_type(part: Message) -> str:
    try:
        raw = part.get("content-type")
        if raw is None:
            return part.get_default_type()
        ctype = _strip_comments(_raw_to_str(raw)).split(";", 1)[0].strip().lower()
        if ctype.count("/") != 1:
            return "text/plain"
        return ctype
    except Exception:
        return "text/plain"


def _is_attachment(part: Message) -> bool:
    try:
        disp = part.get("content-disposition")
        kind = _first_token(_raw_to_str(disp)) if disp is not None else ""
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
    cte = _first_token(_raw_to_str(cte_raw)) if cte_raw is not None else ""
    if len(data) > MAX_ENCODED_TEXT_BYTES:
        problems.append("text part truncated")
        data = data[:MAX_ENCODED_TEXT_BYTES]
        cut = data.rfind(b"\n")
        if cut > 0:
            data = data[:cut]
    if cte == "base64":
        try:
            return _b64(data)
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
            if _content_type(part).startswith("message/"):
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


def _select_body(msg: Message, problems: list[str], recovered: bool = False) -> str:
    """The decoded text of the preferred body part (plain, else HTML), or ''."""
    html: Message | None = None
    for part, _depth in _iter_parts(msg, problems):
        ctype = _content_type(part)
        payload = part.get_payload()
        if ctype.startswith("multipart/") and not isinstance(payload, list):
            problems.append("multipart without boundary")
            if not recovered:
                inner = _recover_boundary(part, problems)
                if inner is not None:
                    text = _select_body(inner, problems, recovered=True)
                    if text:
                        return text
            ctype = "text/plain"
        if isinstance(payload, list) or ctype not in ("text/plain", "text/html"):
            continue
        if _is_attachment(part):
            continue
        if ctype == "text/plain":
            return _decode_part(part, problems)
        if html is None:
            html = part
    if html is not None:
        source = _decode_part(html, problems)
        cut = _HTML_STOP_RE.search(source)
        if cut:
            source = source[: cut.start()]
        if len(source) > MAX_HTML_CHARS:
            problems.append("html truncated")
        return _html_to_text(source)
    return ""


def _decode_part(part: Message, problems: list[str]) -> str:
    data = _part_bytes(part, problems)
    charset = _header_param(part, "content-type", "charset")
    return _decode_bytes(data, charset, problems)


_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "tr",
        "li",
        "ul",
        "ol",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "hr",
        "section",
        "article",
        "header",
        "footer",
    }
)
_HTML_STOP_RE = re.compile(
    r"""<div\b[^<>]{0,200}\bid=["']?(?:divRplyFwdMsg|appendonsend)\b""", re.I
)
_SKIP_TAGS = frozenset({"style", "script", "head", "title", "blockquote", "template"})
_QUOTE_CLASSES = frozenset(
    {"gmail_quote", "gmail_quote_container", "yahoo_quoted", "moz-forward-container"}
)
_QUOTE_MARK = "\n>\n"
"""Left where quoted HTML was removed, so the text step can tell a bottom-post."""
_STOP_IDS = frozenset({"divRplyFwdMsg", "appendonsend"})


def _html_to_text(html: str) -> str:
    """HTML body -> text; quoted blocks (blockquote, Gmail, Outlook, Yahoo) dropped.

    One iterative walk in document order (linear even for 100,000 nested tags): <style>,
    <script> and quote containers are skipped, Outlook's ``divRplyFwdMsg`` ends the text,
    <br> and block elements give newlines. A removed quote leaves a lone ``>`` line.
    """
    from bs4 import BeautifulSoup
    from bs4.element import Comment, Declaration, NavigableString, ProcessingInstruction, Tag

    soup = BeautifulSoup(html[:MAX_HTML_CHARS], "html.parser")
    out: list[str] = []
    stack: list[object] = [soup]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and not isinstance(node, NavigableString):
            out.append(node)  # a marker pushed below
            continue
        if isinstance(node, NavigableString):
            if not isinstance(node, (Comment, Declaration, ProcessingInstruction)):
                out.append(str(node))
            continue
        if not isinstance(node, Tag):
            continue
        name = (node.name or "").lower()
        if name in _SKIP_TAGS:
            if name == "blockquote":
                out.append(_QUOTE_MARK)
            continue
        if str(node.get("id", "")) in _STOP_IDS:
            break
        classes = node.get("class")
        if classes and not isinstance(classes, str) and _QUOTE_CLASSES.intersection(classes):
            out.append(_QUOTE_MARK)
            continue
        if name == "br":
            out.append("\n")
            continue
        if name in _BLOCK_TAGS:
            out.append("\n")
            stack.append("\n")
        elif name in ("td", "th"):
            stack.append(" ")
        stack.extend(reversed(node.contents))
    text = "".join(out).replace("\xa0", " ")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _normalise_text(text: str, problems: list[str]) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        problems.append("NUL bytes removed")
    text = _TEXT_CONTROL_RE.sub("", text)
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    if len(text) > MAX_TEXT_CHARS:
        problems.append("text truncated")
        text = text[:MAX_TEXT_CHARS]
    return text


# --------------------------------------------------------------------------- quotes

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


def _strip_quotes(full_text: str) -> str:
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


# --------------------------------------------------------------------------- API


def _fallback(raw: bytes, reason: str) -> InboundMail:
    return InboundMail(
        message_id="missing-" + hashlib.sha256(raw).hexdigest()[:32],
        from_addr=None,
        from_name="",
        recipients=[],
        subject="",
        text="",
        full_text="",
        in_reply_to=None,
        references=[],
        automated="unparseable",
        dmarc_fail=False,
        size=len(raw),
        problems=[reason],
        language_hint=None,
    )


def parse_mail(
    raw: bytes,
    *,
    own_addresses: Collection[str] = (),
    trusted_authserv: str | None = None,
) -> InboundMail:
    """Parse raw RFC 5322 bytes into an :class:`InboundMail`; never raises (G13, T12).

    ``own_addresses`` are the bot's addresses (``+tags`` are ignored on both sides): mail
    from them is ``automated`` (G7). ``trusted_authserv`` is the authserv-id of our own
    MTA; only its ``Authentication-Results`` can set ``dmarc_fail`` (G12).
    """
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        return _fallback(b"", "input is not bytes")
    raw = bytes(raw)
    try:
        return _parse(raw, own_addresses, trusted_authserv)
    except Exception as exc:  # G13: never raise, whatever the input
        return _fallback(raw, f"parse failed: {type(exc).__name__}")


def _parse(raw: bytes, own_addresses: Collection[str], trusted: str | None) -> InboundMail:
    problems: list[str] = []
    try:
        msg = BytesParser(policy=policy.compat32).parsebytes(raw)
    except Exception as exc:
        problems.append(f"MIME parse failed: {type(exc).__name__}")
        msg = BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
    headers = _Headers(msg)

    mid_value = headers.first("message-id")
    message_id = _normalise_id(_unfold(mid_value)) if mid_value else None
    if mid_value is not None:
        found = _ANGLE_RE.search(_unfold(mid_value))
        if found:
            message_id = _normalise_id(found.group(1)) or message_id
    if not message_id:
        problems.append("missing Message-ID")
        message_id = "missing-" + hashlib.sha256(raw).hexdigest()[:32]

    from_values = headers.all("from")
    from_value = _unfold(from_values[0]) if from_values else None
    from_addr: str | None = None
    from_name = ""
    if len(from_values) > 1:
        problems.append("several From headers")
    elif from_value is not None:
        from_addr, phrase = _parse_single_mailbox(from_value.strip())
        if from_addr is None:
            problems.append("From rejected")
        else:
            from_name = _clean_line(_decode_rfc2047(phrase, problems)).strip()[:200]
    else:
        problems.append("missing From")

    recipients: list[str] = []
    for name in ("to", "cc", "delivered-to", "x-original-to"):
        for value in headers.all(name):
            for addr in _addresses(value):
                if addr not in recipients and len(recipients) < MAX_RECIPIENTS:
                    recipients.append(addr)

    subject_value = headers.first("subject")
    subject = _decode_header(subject_value, problems, MAX_SUBJECT_CHARS) if subject_value else ""

    irt_value = headers.first("in-reply-to")
    irt_ids = _ids_in(irt_value) if irt_value else []
    in_reply_to = irt_ids[0] if irt_ids else None
    references: list[str] = []
    for value in headers.all("references"):
        for ref in _ids_in(value):
            if ref not in references and len(references) < MAX_REFERENCES:
                references.append(ref)

    top_type = _content_type(msg)
    own = {_strip_tag(a) for a in own_addresses if isinstance(a, str) and a.strip()}
    try:
        automated = _automated_reason(headers, top_type, from_value, from_addr, own)
    except Exception as exc:
        problems.append(f"automated check failed: {type(exc).__name__}")
        automated = "unchecked"
    try:
        dmarc_fail = _dmarc_fail(headers, trusted)
    except Exception:
        dmarc_fail = False

    try:
        body = _select_body(msg, problems)
    except Exception as exc:
        problems.append(f"body failed: {type(exc).__name__}")
        body = ""
    full_text = _normalise_text(body, problems)
    try:
        text = _strip_quotes(full_text)
    except Exception as exc:
        problems.append(f"quote removal failed: {type(exc).__name__}")
        text = full_text

    try:
        defects = len(msg.defects)
    except Exception:
        defects = 0
    if defects:
        problems.append(f"{defects} MIME defects")

    return InboundMail(
        message_id=message_id,
        from_addr=from_addr,
        from_name=from_name,
        recipients=recipients,
        subject=subject,
        text=text,
        full_text=full_text,
        in_reply_to=in_reply_to,
        references=references,
        automated=automated,
        dmarc_fail=dmarc_fail,
        size=len(raw),
        problems=list(dict.fromkeys(problems)),
        language_hint="ja" if _JAPANESE_RE.search(text) else None,
    )


def _split_bot(bot_address: str) -> tuple[str, str] | None:
    local, at, domain = bot_address.strip().lower().rpartition("@")
    if not at or not local or not domain:
        return None
    return local.split("+", 1)[0], domain


def tagged_ids(mail: InboundMail, bot_address: str) -> list[str]:
    """Game ids the mail names: plus-address ids first, then subject tags.

    ``relay+g7k2@club.example`` (for bot ``relay@club.example``) names ``g7k2``; VERP
    ``bounce-...`` ids are left to :func:`verp_id`. Subject tags ``[g7k2]`` / ``【g7k2】``
    count after NFKC normalisation. Ids are lower-cased and deduplicated; the caller checks
    which games exist (G12).
    """
    out: list[str] = []
    bot = _split_bot(bot_address)
    if bot is not None:
        for rcpt in mail.recipients:
            local, at, domain = rcpt.strip().lower().rpartition("@")
            if not at or domain != bot[1]:
                continue
            base, plus, tag = local.partition("+")
            if not plus or base != bot[0] or tag.startswith("bounce-"):
                continue
            if _ID_RE.fullmatch(tag) and tag not in out:
                out.append(tag)
    subject = unicodedata.normalize("NFKC", mail.subject).lower()
    for m in _SUBJECT_TAG_RE.finditer(subject):
        tag = m.group(1)
        if tag not in out:
            out.append(tag)
    return out


def verp_id(address: str, bot_address: str) -> str | None:
    """``relay+bounce-<id>@club.example`` -> ``<id>`` for bot ``relay@club.example`` (G6).

    Local part and domain compare case-insensitively; the id keeps its case and may
    contain letters, digits and ``. _ = + -``. Anything else gives None.
    """
    bot = _split_bot(bot_address)
    if bot is None or not isinstance(address, str):
        return None
    addr = address.strip().strip("<>").strip()
    local, at, domain = addr.rpartition("@")
    if not at or domain.lower() != bot[1]:
        return None
    prefix = bot[0] + "+bounce-"
    if not local.lower().startswith(prefix):
        return None
    ident = local[len(prefix) :]
    return ident if _VERP_ID_RE.fullmatch(ident) else None
