"""Bytes to text (G13): declared charset first, then UTF-8, then replacement characters.

Japanese mail gets special care: charset aliases map onto the codecs that mail clients
really mean (``shift_jis`` is cp932, ``iso-2022-jp`` has vendor extensions), and 7-bit
JIS that no strict codec accepts is decoded leniently through cp932. Also the lenient
base64 decoder used for bodies and RFC 2047 encoded words.
"""

from __future__ import annotations

import base64
import codecs
import re

from relaybot.mail.inbound.lexical import clean_line

__all__ = ["decode_bytes", "lenient_b64decode"]

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
# UTF-7 hides text from every filter that reads ASCII ("+ADw-script+AD4-") and decodes
# to lone surrogates; no mail client sends it (RFC 2152 forbids it for mail bodies), so it
# is read as if undeclared (issue 12 item 11)
_REFUSED_CODECS = frozenset(
    {"unicode_escape", "raw_unicode_escape", "idna", "punycode", "undefined", "mbcs", "oem",
     "utf-7"}
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


def decode_bytes(data: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode bytes: declared charset, then UTF-8, then with replacement (G13)."""
    chain = _codec_chain(charset)
    if charset and not chain:
        problems.append(f"unknown charset {clean_line(charset)[:40]!r}")
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


def lenient_b64decode(data: bytes) -> bytes:
    """Lenient base64: junk characters dropped, padding repaired."""
    cleaned = re.sub(rb"[^A-Za-z0-9+/]", b"", data)
    if len(cleaned) % 4 == 1:
        cleaned = cleaned[:-1]
    cleaned += b"=" * (-len(cleaned) % 4)
    return base64.b64decode(cleaned)
