"""The :class:`InboundMail` value and :func:`parse_mail`, which ties the other modules of
the package together: headers, addresses, automated-mail and DMARC checks, body text,
quote removal; every step wrapped so that nothing raises (G13).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import BytesParser

from relaybot.mail.inbound.addresses import (
    ids_in,
    loose_addresses,
    message_id_in,
    parse_single_mailbox,
    strip_tag,
)
from relaybot.mail.inbound.auth_results import read_dmarc
from relaybot.mail.inbound.automated import automated_reason
from relaybot.mail.inbound.body import content_type, normalise_text, select_body
from relaybot.mail.inbound.bounces import (
    DeliveryReport,
    read_report,
    report_shaped,
    verp_token,
)
from relaybot.mail.inbound.headers import Headers, decode_header, decode_rfc2047
from relaybot.mail.inbound.lexical import clean_line, unfold
from relaybot.mail.inbound.limits import MAX_RECIPIENTS, MAX_REFERENCES, MAX_SUBJECT_CHARS
from relaybot.mail.inbound.quotes import strip_quotes

__all__ = ["InboundMail", "parse_mail"]

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_JAPANESE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


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
    # our MTA's topmost Authentication-Results says dmarc=pass for the From: domain
    # (and none of ours says fail): the From: line is believed (issue 12)
    dmarc_pass: bool = False
    # G6, issue 12 item 7: a null return path or multipart/report (what a delivery report
    # looks like), and, for such a mail sent to one of our VERP addresses, what
    # flufl.bounce read out of it (None: no failed recipient, e.g. an out-of-office reply)
    report_shaped: bool = False
    delivery_report: DeliveryReport | None = None


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
    MTA (``[bot] authserv_id``); only its ``Authentication-Results`` can set
    ``dmarc_fail`` and ``dmarc_pass`` (G12, issue 12).
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
    headers = Headers(msg)

    mid_value = headers.first("message-id")
    message_id = message_id_in(mid_value) if mid_value is not None else None
    if not message_id:
        problems.append("missing Message-ID")
        message_id = "missing-" + hashlib.sha256(raw).hexdigest()[:32]

    from_values = headers.all("from")
    from_value = unfold(from_values[0]) if from_values else None
    from_addr: str | None = None
    from_name = ""
    if len(from_values) > 1:
        problems.append("several From headers")
    elif from_value is not None:
        from_addr, phrase = parse_single_mailbox(from_value.strip())
        if from_addr is None:
            problems.append("From rejected")
        else:
            from_name = clean_line(decode_rfc2047(phrase, problems)).strip()[:200]
    else:
        problems.append("missing From")

    recipients: list[str] = []
    for name in ("to", "cc", "delivered-to", "x-original-to"):
        for value in headers.all(name):
            for addr in loose_addresses(value):
                if addr not in recipients and len(recipients) < MAX_RECIPIENTS:
                    recipients.append(addr)

    subject_value = headers.first("subject")
    subject = decode_header(subject_value, problems, MAX_SUBJECT_CHARS) if subject_value else ""

    irt_value = headers.first("in-reply-to")
    irt_ids = ids_in(irt_value) if irt_value else []
    in_reply_to = irt_ids[0] if irt_ids else None
    references: list[str] = []
    for value in headers.all("references"):
        for ref in ids_in(value):
            if ref not in references and len(references) < MAX_REFERENCES:
                references.append(ref)

    top_type = content_type(msg)
    own = {strip_tag(a) for a in own_addresses if isinstance(a, str) and a.strip()}
    try:
        automated = automated_reason(headers, top_type, from_value, from_addr, own)
    except Exception as exc:
        problems.append(f"automated check failed: {type(exc).__name__}")
        automated = "unchecked"
    try:
        dmarc = read_dmarc(headers, trusted, from_addr.rpartition("@")[2] if from_addr else None)
    except Exception:  # G13: a header we cannot read says nothing
        dmarc = read_dmarc(headers, None, None)

    try:
        body = select_body(msg, problems)
    except Exception as exc:
        problems.append(f"body failed: {type(exc).__name__}")
        body = ""
    full_text = normalise_text(body, problems)
    shaped, report = _delivery_report(msg, headers, top_type, subject, recipients,
                                      own_addresses)
    try:
        text = strip_quotes(full_text)
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
        message_id=_scrub(message_id),
        from_addr=_scrub(from_addr) if from_addr else from_addr,
        from_name=_scrub(from_name),
        recipients=[_scrub(r) for r in recipients],
        subject=_scrub(subject),
        text=_scrub(text),
        full_text=_scrub(full_text),
        in_reply_to=_scrub(in_reply_to) if in_reply_to else in_reply_to,
        references=[_scrub(r) for r in references],
        automated=_scrub(automated) if automated else automated,
        dmarc_fail=dmarc.failed,
        size=len(raw),
        problems=[_scrub(p) for p in dict.fromkeys(problems)],
        language_hint="ja" if _JAPANESE_RE.search(text) else None,
        dmarc_pass=dmarc.passed and from_addr is not None,
        report_shaped=shaped,
        delivery_report=report,
    )


def _scrub(text: str) -> str:
    """Lone surrogates (a UTF-7 or surrogate-escaped leftover) as U+FFFD: no database
    driver can store them, and a mail that cannot be stored would be retried as poison
    (issue 12 item 11, G13)."""
    return _SURROGATE_RE.sub("\ufffd", text)


def _delivery_report(msg: Message, headers: Headers, top_type: str, subject: str,
                     recipients: list[str], own_addresses: Collection[str],
                     ) -> tuple[bool, DeliveryReport | None]:
    """(report-shaped, what flufl.bounce read): read only for a report-shaped mail to one
    of our VERP addresses, so that nobody else's mail pays for the detectors (G6)."""
    try:
        shaped = report_shaped(headers, top_type)
        if not shaped or not any(verp_token(r, own) for r in recipients
                                 for own in own_addresses if isinstance(own, str)):
            return shaped, None
        return shaped, read_report(msg, headers, top_type, subject)
    except Exception:  # G13: never raise
        return False, None
