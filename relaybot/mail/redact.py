"""Reply tokens taken out of mail the TD keeps (``game export``, J19; INTERFACE.md "Who
may act": an export for the TD carries no token that still acts).

An export holds the players' mails as they arrived and the bot's as it sent them; their
headers (To, Cc, Reply-To, Delivered-To, X-Original-To, List-Unsubscribe, ...) and texts
(a quoted reply, a mailto link) carry token addresses ``<local>+<scope>.<token>@<domain>``
(:mod:`relaybot.core.tokens`; and the VERP sender ``<local>+b.<token>@``) and one-click
links ``/unsubscribe/<member>/<token>``. Each token becomes :data:`MARKER`, which is not a
token's shape (``0`` is not in base32's alphabet, ``-`` neither), so
:func:`relaybot.core.tokens.is_token` refuses it and it verifies for no one under any
key: a mail sent to ``relay+<game>.redacted-0@...`` is a plain mail to the game, held
unless the MTA's DMARC says otherwise. The address still names the game, so the TD reads
who wrote to which game.

Tokens are found where they are written: in the raw bytes (headers and 7bit/8bit text),
inside base64 and quoted-printable parts (decoded, redacted, encoded again; a
quoted-printable soft line break may split a token) and inside RFC 2047 encoded words.
Case is ignored (MTAs change the case of addresses; tokens are read lower case), and
``+``/``@`` may be percent-encoded (``%2B``, ``%40``: a mailto link).
"""

from __future__ import annotations

import base64
import binascii
import email
import quopri
import re
from email import policy
from email.header import Header, decode_header, make_header

__all__ = ["MARKER", "redact_mail", "redact_text"]

MARKER = "redacted-0"  # never a token: not 10 characters of [a-z2-7]

# a token address: "+" (or %2B) <scope tag> "." <token> "@" (or %40); the tag is a game
# id, m, c or the VERP's b; the token 10 characters (reply tokens) up to 40 (VERP)
_ADDRESS_RE = re.compile(
    rb"(?i)((?:\+|%2B)[a-z0-9][a-z0-9-]{0,40}\.)[a-z2-7]{10,40}(?=@|%40)")
# the one-click unsubscribe link's path
_UNSUBSCRIBE_RE = re.compile(rb"(?i)(/unsubscribe/[0-9]+/)[a-z2-7]{10}(?![a-z0-9])")
# an RFC 2047 encoded word
_ENCODED_WORD_RE = re.compile(rb"=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=")


def redact_text(data: bytes) -> bytes:
    """``data`` with every token (address or unsubscribe link) as :data:`MARKER`."""
    marker = MARKER.encode("ascii")
    data = _ADDRESS_RE.sub(lambda m: m[1] + marker, data)
    return _UNSUBSCRIBE_RE.sub(lambda m: m[1] + marker, data)


def _encoded_words(raw: bytes) -> bytes:
    """Encoded words that decode to a token, written again without it (UTF-8, base64)."""

    def one(match: re.Match[bytes]) -> bytes:
        word = match[0].decode("ascii", "replace")
        try:
            text = str(make_header(decode_header(word)))
        except (ValueError, LookupError, UnicodeDecodeError, binascii.Error):
            return match[0]
        clean = redact_text(text.encode("utf-8")).decode("utf-8")
        if clean == text:
            return match[0]
        return Header(clean, "utf-8").encode(maxlinelen=0).encode("ascii")

    return _ENCODED_WORD_RE.sub(one, raw)


def redact_mail(raw: bytes) -> bytes:
    """A raw mail with no reply token left in it, else unchanged byte for byte.

    A mail whose base64 or quoted-printable parts held a token is written again from
    its parsed form (compat32, lines not refolded): its text is the same, its encoded
    parts freshly encoded.
    """
    out = _encoded_words(redact_text(raw))
    msg = email.message_from_bytes(out, policy=policy.compat32)
    changed = False
    for part in msg.walk():
        if part.is_multipart():
            continue
        encoding = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        if encoding not in ("base64", "quoted-printable"):
            continue
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes):
            continue
        clean = redact_text(data)
        if clean == data:
            continue
        if encoding == "base64":
            part.set_payload(base64.encodebytes(clean).decode("ascii"))
        else:  # line breaks as lines again, not "=0D"
            part.set_payload(quopri.encodestring(clean.replace(b"\r\n", b"\n"))
                             .decode("ascii"))
        changed = True
    if not changed:
        return out
    return msg.as_bytes(policy=policy.compat32.clone(max_line_length=0))
