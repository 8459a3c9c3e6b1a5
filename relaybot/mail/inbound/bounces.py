"""Delivery reports (G6, issue 12 item 7): the VERP address a bounce came back to, the
report's shape, and the recipients it says failed.

A bounce counts only when all three agree:

* it arrived at a VERP address the bot issued: ``<local>+b.<token>@<domain>``, where the
  token is random and distinct from the Message-ID (the Message-ID is in every thread the
  opponent sees; the envelope sender is seen only by the MTAs on the way). Whether the
  token was issued is the identify stage's question (an outbox row sent with it);
* it has the shape of a delivery report: a null return path (``Return-Path: <>``) or a
  ``multipart/report`` body;
* flufl.bounce reads failed recipients out of it. An out-of-office reply (which RFC 3834
  sends to the envelope sender, so to the VERP address) names none, and is never a bounce
  even with a null return path.

配送エラー通知：ボットが発行した VERP アドレス宛てで、配送レポートの形をしていて、
flufl.bounce が失敗した宛先を読み取れたときだけ数えます。不在通知は数えません。
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from email.message import Message

from flufl.bounce import all_failures

from relaybot.mail.inbound.headers import Headers
from relaybot.mail.inbound.lexical import first_token, strip_comments, unfold

__all__ = ["DeliveryReport", "read_report", "report_shaped", "verp_form", "verp_token"]

log = logging.getLogger(__name__)

VERP_TAG = "b"
"""The scope tag of a VERP address: ``relay+b.<token>@club.example``."""
_VERP_TOKEN_RE = re.compile(r"[a-z2-7]{16,40}")
# what out-of-office and vacation replies put in their subject (and bounces never do)
_AUTO_REPLY_SUBJECT_RE = re.compile(
    r"(?i)out of (the )?office|automatic reply|auto(matic)?[- ]?reply|autoreply|vacation|"
    r"abwesenheit|absence|不在|自動応答|自動返信|休暇")
_AUTO_REPLY_HEADERS = ("x-autoreply", "x-autorespond", "x-autoresponder")


def verp_form(local: str, domain: str, token: str) -> str:
    """The VERP envelope sender for one outgoing mail's ``token``."""
    return f"{local}+{VERP_TAG}.{token}@{domain}"


def verp_token(address: str, bot_address: str) -> str | None:
    """``relay+b.<token>@club.example`` -> ``<token>`` for bot ``relay@club.example``.

    Local part and domain compare case-insensitively (MTAs change case); tokens are
    issued in lower case and read in lower case. Anything else gives None, including the
    old ``relay+bounce-<Message-ID token>`` form: that one could be written by anyone who
    had seen a Message-ID.
    """
    if not isinstance(address, str) or not isinstance(bot_address, str):
        return None
    bot_local, at, bot_domain = bot_address.strip().lower().rpartition("@")
    if not at:
        return None
    addr = address.strip().strip("<>").strip().lower()
    local, at, domain = addr.rpartition("@")
    if not at or domain != bot_domain:
        return None
    base, plus, tag = local.partition("+")
    if not plus or base != bot_local.split("+", 1)[0]:
        return None
    scope, dot, token = tag.partition(".")
    if scope != VERP_TAG or not dot or not _VERP_TOKEN_RE.fullmatch(token):
        return None
    return token


def report_shaped(headers: Headers, content_type: str) -> bool:
    """A null return path or a ``multipart/report`` body: what a delivery report looks
    like from outside, before it is read."""
    if content_type == "multipart/report":
        return True
    for value in headers.all("return-path"):
        if strip_comments(unfold(value)).strip().strip("<> \t") == "":
            return True
    return False


def looks_like_auto_reply(headers: Headers, subject: str) -> bool:
    """Vacation and out-of-office markers (never a bounce, whatever else it has)."""
    for name in _AUTO_REPLY_HEADERS:
        for value in headers.all(name):
            if first_token(value) not in ("no", "false", "0"):
                return True
    return _AUTO_REPLY_SUBJECT_RE.search(subject) is not None


@dataclass(frozen=True)
class DeliveryReport:
    """What a delivery report says: the recipients that failed for good and those that
    are only delayed (both lower case)."""

    permanent: tuple[str, ...] = ()
    temporary: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """A permanent failure: the only kind that counts against a member (G6)."""
        return bool(self.permanent)


def read_report(msg: Message, headers: Headers, content_type: str,
                subject: str) -> DeliveryReport | None:
    """Read a report-shaped mail with flufl.bounce; None when it is not a delivery
    report at all (not report-shaped, an out-of-office reply, nothing failed, or the
    detectors gave up)."""
    if not report_shaped(headers, content_type):
        return None
    if content_type != "multipart/report" and looks_like_auto_reply(headers, subject):
        return None
    try:
        temporary, permanent = all_failures(msg)
    except Exception:  # G13: a report the detectors choke on says nothing
        log.debug("delivery report unreadable", exc_info=True)
        return None
    report = DeliveryReport(_addresses(permanent), _addresses(temporary))
    if not report.permanent and not report.temporary:
        return None
    return report


def _addresses(found: object) -> tuple[str, ...]:
    out: list[str] = []
    for item in found if isinstance(found, (set, frozenset, list, tuple)) else ():
        text = item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)
        text = text.strip().strip("<>").lower()
        if text and text not in out and len(out) < 50:
            out.append(text[:320])
    return tuple(sorted(out))
