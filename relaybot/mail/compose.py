"""Outgoing mail as ``EmailMessage`` (G11): our Message-IDs, threading, Auto-Submitted."""

from __future__ import annotations

import base64
import binascii
import re
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.header import Header
from email.headerregistry import Address, BaseHeader, Group, HeaderRegistry, UniqueAddressHeader
from email.message import EmailMessage
from email.policy import EmailPolicy
from typing import Any, TypeVar

from relaybot.mail.inbound.bounces import verp_form


class _MailboxHeader(UniqueAddressHeader):
    """The registry's one-address header (From, To, Reply-To, Sender), made from an
    ``Address`` without printing and reparsing it: the token tree the stdlib builds from
    the printed text is needed only to fold the header, and :func:`fold_address` folds a
    plain mailbox itself. The tree is still built, from the same text, the first time the
    policy's own folding asks for it. A string value is parsed as the registry always does.
    (An ``Address`` cannot hold CR or LF: its constructor refuses them.)"""

    @classmethod
    def parse(cls, value: Any, kwds: dict[str, Any]) -> None:
        if not isinstance(value, Address):
            super().parse(value, kwds)
            return
        kwds["groups"] = [Group(None, [value])]
        kwds["defects"] = []
        kwds["decoded"] = str(value)
        kwds["parse_tree"] = None

    def fold(self, *, policy: Any) -> str:
        if self._parse_tree is None:  # type: ignore[has-type]
            self._parse_tree = self.value_parser(str(self))
        return super().fold(policy=policy)  # type: ignore[misc,no-any-return]


class _CachedRegistry(HeaderRegistry):
    """The standard header registry, but each header class is built once: the stdlib
    builds a fresh class for every header it makes, a third of the cost of a mail."""

    def __init__(self) -> None:
        super().__init__()
        for name in ("from", "to", "reply-to", "sender"):
            self.map_to_type(name, _MailboxHeader)  # type: ignore[arg-type]  # a mixin
        self._classes: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        cls = self._classes.get(key)
        if cls is None:
            cls = self._classes[key] = super().__getitem__(name)
        return cls


# Headers whose values repeat from mail to mail (the bot, a game's address, a member,
# the fixed markers): parsed and folded once, then reused. Message-ID, Date, Subject
# and the threading headers are new in every mail and always go through the registry.
_REPEATING = frozenset({
    "from", "to", "reply-to", "auto-submitted", "x-auto-response-suppress",
    "x-relaybot-kind", "x-relaybot-game", "mime-version", "content-type",
    "content-transfer-encoding", "content-disposition",
})
# Entries per cache, cleared when full. Parsed headers keep their token trees (~10 KB
# each), so the bound is small: the bot's and the games' addresses stay hot anyway.
_CACHE_MAX = 512
_T = TypeVar("_T")
_parsed: dict[tuple[str, str], tuple[str, Any]] = {}
_folded: dict[tuple[str, str], bytes] = {}


class _RelayPolicy(EmailPolicy):
    """``policy.SMTP`` that remembers the parsed and folded form of repeating headers.

    Every header object is still made by the header registry (G11); a header with the
    same name and value as one made before is the same immutable object, folded the
    same way, so the second time costs a dictionary lookup instead of a parse.
    """

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if name.lower() not in _REPEATING or not isinstance(value, str | Address):
            return super().header_store_parse(name, value)
        parse = super().header_store_parse
        return _remember(_parsed, (name, str(value)), lambda: parse(name, value))

    def fold(self, name: str, value: Any) -> str:
        own = _fold_own(name, str(value), self.linesep)
        return own if own is not None else super().fold(name, value)

    def fold_binary(self, name: str, value: Any) -> bytes:
        own = _fold_own(name, str(value), self.linesep)
        if own is None and name.lower() in _ADDRESS_HEADERS:
            own = fold_address(name, value, self.linesep)
        if own is not None:
            return own.encode("ascii")
        if name.lower() not in _REPEATING:
            return super().fold_binary(name, value)
        fold = super().fold_binary
        return _remember(_folded, (name, str(value)), lambda: fold(name, value))


# Headers a mail client acts on whose value is a list of <URI>s (RFC 2369) or a fixed
# keyword (RFC 8058 List-Unsubscribe-Post): written as they are, ASCII, folded only between
# two items, never as RFC 2047 encoded-words (which hide the mailto and the https link
# from the client: issue 26)
LIST_HEADERS = frozenset({
    "list-unsubscribe", "list-unsubscribe-post", "list-id", "list-help", "list-post",
    "list-owner", "list-subscribe", "list-archive",
})
_FOLD_AT = 78  # RFC 5322 2.1.1: lines SHOULD be no longer; 998 is the limit


def _fold_own(name: str, value: str, linesep: str) -> str | None:
    """A header this module folds itself, else None (the policy's own folding).

    List headers: their items, one a line when the whole does not fit in 78 characters.
    Subject with non-ASCII text: RFC 2047 encoded-words cut at characters, the spaces
    inside them (the standard folder drops a space between two encoded-words: "山田太郎
    先手の勝ち" arrived as "山田太郎先手の勝ち").
    """
    key = name.lower()
    if key in LIST_HEADERS:
        return fold_list(name, value, linesep)
    if key == "subject" and not value.isascii():
        words = value.split(" ")
        plain = 0  # the leading ASCII words ([id]) stay readable as they are
        while plain < len(words) and words[plain].isascii():
            plain += 1
        head = f"{name}: " + "".join(word + " " for word in words[:plain])
        encoded = Header(" ".join(words[plain:]), "utf-8", header_name=head[:-2]).encode(
            linesep=linesep)
        return f"{head}{encoded}{linesep}"
    return None


# One mailbox a header, as compose writes them: folded here when the address is plain
# (the stdlib's refolding of a non-ASCII display name took about 2 ms a header, most of
# a digest's cost, and a digest's To and Reply-To are new in every mail: issue 29)
_ADDRESS_HEADERS = frozenset({"from", "to", "reply-to", "sender"})
_DOT_ATOM = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_ATOM_PHRASE = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?: [A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")


def fold_address(name: str, header: Any, linesep: str = "\r\n") -> str | None:
    """An address header made by the registry (one mailbox, no group, no defects) as
    sent: ``Name: phrase <addr-spec>``, a non-ASCII display name as RFC 2047 encoded-words
    (whole words, the address after them, on the next line when it does not fit in 78
    characters). None for anything else, which the policy folds itself: several
    addresses, a group, a local part that needs quoting, an ASCII name that needs quoting
    or folding, a non-ASCII domain."""
    groups = getattr(header, "groups", None)
    if not groups or len(groups) != 1 or groups[0].display_name is not None:
        return None
    addresses = groups[0].addresses
    if len(addresses) != 1 or list(getattr(header, "defects", [])):
        return None
    mailbox = addresses[0]
    local, domain, display = mailbox.username, mailbox.domain, mailbox.display_name
    if not (_DOT_ATOM.fullmatch(local) and _DOT_ATOM.fullmatch(domain)):
        return None
    spec = f"{local}@{domain}"
    if not display:
        line = f"{name}: {spec}"
        return line + linesep if len(line) <= 998 else None
    if display.isascii():
        line = f"{name}: {display} <{spec}>"
        if not _ATOM_PHRASE.fullmatch(display) or len(line) > _FOLD_AT:
            return None
        return line + linesep
    if any(ch in display for ch in "\r\n\0"):
        return None  # never the case for a composed mail (its names are single lines)
    lines = Header(display, "utf-8", header_name=name).encode(linesep=linesep).split(linesep)
    lines[0] = f"{name}: {lines[0]}"
    if len(lines[-1]) + len(spec) + 3 <= _FOLD_AT:
        lines[-1] += f" <{spec}>"
    else:
        lines.append(f" <{spec}>")
    if any(len(line) > 998 for line in lines):
        return None
    return linesep.join(lines) + linesep


def fold_list(name: str, value: str, linesep: str = "\r\n") -> str:
    """An RFC 2369 list header as sent: ``<uri>, <uri>`` on one line, or one item a line
    when that is too long; ValueError for a value a client could not read as URIs (non-ASCII,
    a line break, a line over 998 octets)."""
    text = " ".join(value.split())
    if not text.isascii():
        raise ValueError(f"{name}: not ASCII (RFC 2369 URIs are percent-encoded): {text!r}")
    items = [item.strip() for item in re.split(r"(?<=>)\s*,\s*(?=<)", text)]
    one = f"{name}: {', '.join(items)}"
    lines = [one] if len(one) <= _FOLD_AT else [
        (f"{name}: " if i == 0 else " ") + item + ("," if i < len(items) - 1 else "")
        for i, item in enumerate(items)]
    if any(len(line) > 998 for line in lines):
        raise ValueError(f"{name}: a line longer than 998 octets")
    return linesep.join(lines) + linesep


def _remember(cache: dict[tuple[str, str], _T], key: tuple[str, str],
              make: Callable[[], _T]) -> _T:
    """``cache[key]``, made first if missing; the cache is emptied when it is full."""
    hit = cache.get(key)
    if hit is None:
        if len(cache) >= _CACHE_MAX:
            cache.clear()
        hit = cache[key] = make()
    return hit


# G11: headers still come from the header registry; only its classes and results are reused
POLICY = _RelayPolicy(header_factory=_CachedRegistry(), **{
    k: getattr(policy.SMTP, k) for k in ("linesep", "max_line_length", "utf8", "cte_type",
                                         "raise_on_defect", "mangle_from_")})


def new_token() -> str:
    """A random token that names one outgoing mail (Message-ID and VERP)."""
    return uuid.uuid4().hex


def message_id_for(token: str, domain: str) -> str:
    """Message-ID (without angle brackets) in our own domain."""
    return f"{token}@{domain}"


def new_verp_token() -> str:
    """A random token for one outgoing mail's envelope sender, distinct from its
    Message-ID: 80 bits, lower-case base32 (16 characters). The Message-ID is quoted in
    every thread the opponent sees; this token only the MTAs on the way see, so a
    delivery report sent to it was caused by that mail (G6, issue 12 item 7)."""
    return base64.b32encode(secrets.token_bytes(10)).decode("ascii").lower()


def verp_address(local: str, domain: str, token: str) -> str:
    """Envelope sender that names the outbox row a bounce belongs to (G6):
    ``<local>+b.<token>@<domain>``, ``token`` from :func:`new_verp_token`."""
    return verp_form(local, domain, token)


@dataclass(frozen=True)
class Part:
    """A file in a mail: an inline image of the HTML part (``cid`` set) or an attachment."""

    filename: str
    maintype: str
    subtype: str
    data: bytes
    cid: str = ""


@dataclass(frozen=True)
class Alternative:
    """What a mail carries besides its plain text (issue 15): an HTML part with its
    inline images, and attachments (a finished game's record file)."""

    html: str = ""
    images: tuple[Part, ...] = ()
    attachments: tuple[Part, ...] = ()


def _address(display: str, addr: str) -> Address:
    local, _, domain = addr.partition("@")
    return Address(display_name=display, username=local, domain=domain)


def compose(
    *,
    from_name: str,
    from_addr: str,
    to_name: str,
    to_addr: str,
    subject: str,
    body: str,
    message_id: str,
    date: datetime,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    auto_submitted: str = "auto-generated",
    extra: dict[str, str] | None = None,
    alternative: Alternative | None = None,
) -> EmailMessage:
    """Build one well-formed mail; header values go through the header registry.

    With ``alternative`` the mail is multipart: the plain text first (the part every
    client can show, and the one replies quote), then the HTML part with its images
    (multipart/alternative, multipart/related), then any attachment (multipart/mixed).
    """
    msg = EmailMessage(policy=POLICY)
    msg["From"] = _address(from_name, from_addr)
    msg["To"] = _address(to_name, to_addr)
    # Subjects come from templates filled with data; CR/LF can never reach a header.
    msg["Subject"] = " ".join(subject.split())
    msg["Date"] = date  # the registry formats a datetime itself: nothing to parse
    msg["Message-ID"] = f"<{message_id}>"
    if reply_to:
        msg["Reply-To"] = _address(from_name, reply_to)
    if in_reply_to:
        msg["In-Reply-To"] = f"<{in_reply_to}>"
    refs = [r for r in dict.fromkeys(references) if r]
    if refs:
        msg["References"] = " ".join(f"<{r}>" for r in refs[-10:])
    msg["Auto-Submitted"] = auto_submitted
    msg["X-Auto-Response-Suppress"] = "All"
    for name, value in (extra or {}).items():
        msg[name] = " ".join(value.split())
    if alternative is not None and (alternative.html or alternative.attachments):
        _multipart(msg, body, alternative)
        return msg
    # quoted-printable keeps every line under 998 bytes whatever the body holds; the C
    # encoder gives the same text as set_content(cte="quoted-printable") at a tenth of it
    msg["MIME-Version"] = "1.0"
    msg["Content-Type"] = 'text/plain; charset="utf-8"'
    msg["Content-Transfer-Encoding"] = "quoted-printable"
    msg.set_payload(binascii.b2a_qp(body.encode("utf-8"), istext=True).decode("ascii"))
    return msg


# Fixed boundaries, one a level: every part is quoted-printable or base64, which can
# never hold "=_" (RFC 2045 5.1, 6.7), so no body can contain them; being fixed, the
# containers' Content-Type headers repeat from mail to mail and are parsed once
_BOUNDARIES = {"mixed": "=_relaybot_mixed", "alternative": "=_relaybot_alternative",
               "related": "=_relaybot_related"}


def _leaf(content_type: str, cte: str, payload: str, *, cid: str = "",
          disposition: str = "", filename: str = "") -> EmailMessage:
    """One body part with its payload already encoded (quoted-printable or base64)."""
    part = EmailMessage(policy=POLICY)
    part["Content-Type"] = content_type
    part["Content-Transfer-Encoding"] = cte
    if disposition:
        part.add_header("Content-Disposition", disposition, filename=filename)
    if cid:
        part["Content-ID"] = f"<{cid}>"
    part.set_payload(payload)
    return part


def _text(subtype: str, text: str) -> EmailMessage:
    """A UTF-8 text part, quoted-printable (the C encoder; see :func:`compose`)."""
    return _leaf(f'text/{subtype}; charset="utf-8"', "quoted-printable",
                 binascii.b2a_qp(text.encode("utf-8"), istext=True).decode("ascii"))


def _file(part: Part, disposition: str) -> EmailMessage:
    """An image or attachment, base64 in lines of 76; a text file says it is UTF-8 (a
    KIF record, whose Japanese a mail client would otherwise guess at)."""
    charset = '; charset="utf-8"' if part.maintype == "text" else ""
    return _leaf(f"{part.maintype}/{part.subtype}{charset}", "base64",
                 base64.encodebytes(part.data).decode("ascii"), cid=part.cid,
                 disposition=disposition, filename=part.filename)


def _container(msg: EmailMessage, subtype: str, parts: list[EmailMessage]) -> EmailMessage:
    """``msg`` made a multipart/``subtype`` of ``parts``."""
    msg["Content-Type"] = f'multipart/{subtype}; boundary="{_BOUNDARIES[subtype]}"'
    msg.set_payload(parts)  # type: ignore[arg-type]  # a multipart's payload is its parts
    return msg


def _multipart(msg: EmailMessage, body: str, alternative: Alternative) -> None:
    """The body parts of a multipart mail (see :func:`compose`), built from encoded
    parts: the stdlib's content manager (``set_content``, ``add_related``) makes and
    folds a dozen headers more and costs as much again as the whole mail."""
    msg["MIME-Version"] = "1.0"
    readable = [_text("plain", body)]  # the alternatives, plainest first (RFC 2046 5.1.4)
    if alternative.html:
        html = _text("html", alternative.html)
        if alternative.images:
            html = _container(EmailMessage(policy=POLICY), "related",
                              [html, *(_file(i, "inline") for i in alternative.images)])
        readable.append(html)
    if not alternative.attachments:
        _container(msg, "alternative", readable)
        return
    first = (readable[0] if len(readable) == 1
             else _container(EmailMessage(policy=POLICY), "alternative", readable))
    _container(msg, "mixed",
               [first, *(_file(a, "attachment") for a in alternative.attachments)])


def flatten(msg: EmailMessage) -> bytes:
    """``msg.as_bytes()`` for a mail :func:`compose` built, in a fraction of the time.

    The stdlib's generator copies every part through buffers of its own and dispatches
    per content type; a composed mail has only headers, encoded ASCII payloads and
    multiparts with fixed boundaries, so it is written here directly, the same bytes
    (the headers folded by the same policy). Anything else falls back to ``as_bytes``.
    """
    out: list[bytes] = []
    if not _flatten_into(msg, out):
        return msg.as_bytes()
    return b"".join(out)


def _flatten_into(msg: EmailMessage, out: list[bytes]) -> bool:
    """Append ``msg`` as the generator writes it; False for a shape not handled here."""
    policy = msg.policy
    nl = policy.linesep
    if msg.preamble is not None or msg.epilogue is not None:
        return False
    for name, value in msg.raw_items():
        out.append(policy.fold_binary(name, value))
    out.append(nl.encode("ascii"))
    payload = msg._payload  # type: ignore[attr-defined]  # the generator reads it so too
    if isinstance(payload, list):
        boundary = msg.get_boundary()
        if not boundary:
            return False
        for index, part in enumerate(payload):
            out.append(((nl if index else "") + f"--{boundary}{nl}").encode("ascii"))
            if not isinstance(part, EmailMessage) or not _flatten_into(part, out):
                return False
        out.append(f"{nl}--{boundary}--{nl}".encode("ascii"))
        return True
    if payload is None:
        return True
    if not isinstance(payload, str) or not payload.isascii():
        return False  # 8-bit or surrogate-escaped text: the generator's own rules
    # every line break (CRLF, CR or LF) as the policy's, as the generator writes it, by
    # three replaces: its regex split of a 20 kB base64 picture was a third of a flatten
    text = payload.replace("\r\n", "\n").replace("\r", "\n")
    out.append((text.replace("\n", nl) if nl != "\n" else text).encode("ascii"))
    return True
