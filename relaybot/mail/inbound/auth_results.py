"""``Authentication-Results`` (G12): DMARC verdicts, believed only from our own MTA."""

from __future__ import annotations

import re

from relaybot.mail.inbound.headers import Headers
from relaybot.mail.inbound.lexical import strip_comments, unfold

__all__ = ["dmarc_failed"]

def dmarc_failed(headers: Headers, trusted: str | None) -> bool:
    """True if an Authentication-Results from ``trusted`` says dmarc=fail (G12)."""
    if not trusted:
        return False
    want = trusted.strip().lower()
    for value in headers.all("authentication-results"):
        body = strip_comments(unfold(value))
        authserv, _, rest = body.partition(";")
        ident = authserv.strip().split()[0].lower() if authserv.strip() else ""
        if ident == want and re.search(r"(?i)(?:^|[\s;])dmarc\s*=\s*fail\b", rest):
            return True
    return False
