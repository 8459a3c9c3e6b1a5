"""``Authentication-Results`` (G12, INTERFACE.md "Who may act", issue 12): DMARC verdicts,
believed only from our own MTA.

Anyone can write an ``Authentication-Results`` header into a mail; only the ones our
MTA added mean anything, and those carry its authserv-id (``[bot] authserv_id``). The
operator's MTA strips incoming headers with that id, then adds its own on top, so:

* a ``dmarc=pass`` counts only from the topmost header with our id, and only for the
  From: domain (``header.from``): a pass written further down, or for another domain,
  was not written by our MTA for this From;
* a ``dmarc=fail`` in any header with our id is reported. Failing closed costs nothing
  here: a forger who adds one only stops his own mail, and a mail with both is not
  authenticated.

Headers are read with the ``authres`` library (RFC 8601), not a regex; a header it
cannot read gives nothing. If that header carries our id, the search stops there
(nothing below it is trusted in its place).

送信ドメイン認証の結果は、自分の MTA（authserv-id が一致するもの）が付けたヘッダーだけを
読みます。
"""

from __future__ import annotations

from dataclasses import dataclass

import authres

from relaybot.mail.inbound.headers import Headers
from relaybot.mail.inbound.lexical import strip_comments, unfold

__all__ = ["DmarcReading", "authserv_id_of", "read_dmarc"]


@dataclass(frozen=True)
class DmarcReading:
    """What our MTA said about DMARC: ``passed`` for the From: domain, ``failed``."""

    passed: bool = False
    failed: bool = False


_NOTHING = DmarcReading()


def _authserv_guess(value: str) -> str:
    """The authserv-id of a header ``authres`` could not read: its first word."""
    head = strip_comments(value).partition(";")[0].strip()
    return head.split()[0].lower() if head else ""


def authserv_id_of(value: str) -> str:
    """The authserv-id an ``Authentication-Results`` value names, lower case ("" when it
    names none); what ``relaybot check`` lists for ``[bot] authserv_id``."""
    text = unfold(value).strip()
    try:
        return str(authres.parse_value(text).authserv_id or "").lower()
    except Exception:  # authres raises its own errors and more on odd input
        return _authserv_guess(text)


def read_dmarc(headers: Headers, trusted: str | None, from_domain: str | None) -> DmarcReading:
    """DMARC as our MTA (authserv-id ``trusted``) saw it; nothing when ``trusted`` is
    empty. See the module docstring for which headers count."""
    if not trusted or not trusted.strip():
        return _NOTHING
    want = trusted.strip().lower()
    domain = (from_domain or "").strip().lower()
    passed = failed = False
    topmost = True
    for value in headers.all("authentication-results"):
        text = unfold(value).strip()
        try:
            parsed = authres.parse_value(text)
            ident = str(parsed.authserv_id or "").lower()
        except Exception:  # authres raises its own errors and more on odd input
            if _authserv_guess(text) in (want, ""):
                break  # ours (or unknown) and unreadable: trust nothing below it
            continue
        if ident != want:
            continue
        for result in parsed.results:
            if str(result.method).lower() != "dmarc":
                continue
            verdict = str(result.result).lower()
            if verdict == "fail":
                failed = True
            elif verdict == "pass" and topmost and domain and _header_from(result) == domain:
                passed = True
        topmost = False
    return DmarcReading(passed=passed and not failed, failed=failed)


def _header_from(result: object) -> str:
    """The ``header.from`` property of one result, lower case ("" if absent)."""
    for prop in getattr(result, "properties", ()) or ():
        if (str(getattr(prop, "type", "")).lower() == "header"
                and str(getattr(prop, "name", "")).lower() == "from"):
            return str(getattr(prop, "value", "")).strip().lower()
    return ""
