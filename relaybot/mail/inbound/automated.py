"""Automated mail (G7, RFC 3834): the reason a mail must never be answered.

Auto-Submitted, a null or MAILER-DAEMON sender, ``List-*``, ``Precedence``, delivery and
disposition reports (bounces), auto-reply markers, and mail from our own address.
"""

from __future__ import annotations

import re

from relaybot.mail.inbound.addresses import loose_addresses, strip_tag
from relaybot.mail.inbound.headers import Headers
from relaybot.mail.inbound.lexical import first_token, strip_comments, unfold

__all__ = ["automated_reason"]

_AUTOMATED_LOCALS = frozenset({"mailer-daemon", "postmaster", "mail-daemon"})


def automated_reason(
    headers: Headers,
    content_type: str,
    from_value: str | None,
    from_addr: str | None,
    own: set[str],
) -> str | None:
    """The G7 / RFC 3834 reason this mail must never be answered, or None."""
    for value in headers.all("auto-submitted"):
        token = first_token(value)
        if token != "no":
            return f"auto-submitted: {token or 'empty'}"
    for value in headers.all("return-path"):
        inner = strip_comments(unfold(value)).strip()
        if inner.strip("<> \t") == "":
            return "null return path"
        bare_local = inner.strip("<> \t").split("@", 1)[0].lower()
        if bare_local in _AUTOMATED_LOCALS:
            return "mailer-daemon return path"
        for addr in loose_addresses(inner):
            if addr.split("@", 1)[0] in _AUTOMATED_LOCALS:
                return "mailer-daemon return path"
            if strip_tag(addr) in own:
                return "own address in return path"
    candidates = [from_addr] if from_addr else []
    if from_value is not None and strip_comments(from_value).strip("<> \t") == "":
        return "empty sender"
    if from_value is not None:
        candidates += loose_addresses(from_value)
        if not from_addr and re.search(r"(?i)mailer-daemon|postmaster", from_value):
            return "mailer-daemon sender"
    for addr in candidates:
        if addr.split("@", 1)[0] in _AUTOMATED_LOCALS:
            return "mailer-daemon sender"
    for name, _value in headers.items:
        if name.startswith("list-"):
            return f"list header: {name}"
    for value in headers.all("precedence"):
        token = first_token(value)
        # "auto_reply": what vacation programs write without RFC 3834's header (G7)
        if token in ("bulk", "junk", "list", "auto_reply", "auto-reply"):
            return f"precedence: {token}"
    if content_type in (
        "multipart/report",
        "message/delivery-status",
        "message/disposition-notification",
    ):
        return content_type
    for name in ("x-autoreply", "x-autorespond", "x-autoresponder"):
        for value in headers.all(name):
            if first_token(value) not in ("no", "false", "0"):
                return name
    for value in headers.all("x-auto-response-suppress"):
        tokens = {t for t in re.split(r"[\s,;]+", unfold(value).lower()) if t}
        if tokens - {"none"}:
            return "x-auto-response-suppress"
    for addr in candidates:
        if strip_tag(addr) in own:
            return "own address"
    for value in headers.all("x-loop"):
        if any(strip_tag(a) in own for a in loose_addresses(value)):
            return "x-loop"
    return None
