"""The sweep's daily upkeep (issue 12 items 8 and 11): the TD's summary of the mail the
caps held back, and forgetting the raw text of mail that concerns no member.

Both are cheap when there is nothing to do: the summary reads outbox rows by status
(indexed), and the raw text is forgotten at most once an hour per process.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import default

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import (
    HELD_FOR_SUMMARY,
    SUMMARY_KIND,
    UNPROVEN_HELD,
    Mail,
    emit,
    to_td,
)
from relaybot.store.models import Inbound, Outbox, ReplyCount

SUMMARY_LIMIT = 500
"""At most this many held mails are listed one by one in a summary; the rest counted."""

DISPOSABLE_OUTCOMES = frozenset({
    "stranger", "automated", "no_sender", "bounce", "bounce_unknown", "bounce_delayed",
    "not_a_bounce", "td_unauthenticated",
})
"""Ledger outcomes of mail that concerns no member's game: from strangers and automated
mail (auto-replies, bounces). Their raw text goes after ``[mail] retention_days``; the
ledger line (Message-ID, sender, subject, date) stays for G2. A forgery in a member's
name (``forged``: our MTA said dmarc=fail) and a refused confirmation are kept whole:
they concern a member's game, and the TD may need them as evidence."""

_HOUR = timedelta(hours=1)
_last_forget: dict[str, datetime] = {}  # database URL -> when raw text was last forgotten


def td_summary(session: Session, cfg: Config, now: datetime) -> int:
    """One mail to each TD listing the mail held back by the caps on the days before
    today (``[mail] td_alert_cap``, and the TD's replies over ``reply_cap``); the held
    rows are then marked ``summarised``. Returns how many summaries were queued."""
    today = local_day(now, cfg.bot.timezone)
    held: dict[str, list[Outbox]] = {}  # recipient -> rows, oldest first
    for row in session.scalars(
            select(Outbox).where(Outbox.status.in_((HELD_FOR_SUMMARY, UNPROVEN_HELD)))
            .order_by(Outbox.id)):
        if local_day(row.created_at, cfg.bot.timezone) < today:
            # mail to members held back by the caps on unproven mail: the club's TD hears
            # of it (issue 22 item 6); the rest is the TD's own held mail
            whom = cfg.bot.td if row.status == UNPROVEN_HELD else row.recipient
            held.setdefault(whom, []).append(row)
    queued = 0
    for recipient, rows in held.items():
        items = [{"kind": row.kind, "game_id": row.game_id or "",
                  "subject": _subject(row.raw),
                  "to": row.recipient if row.status == UNPROVEN_HELD else "",
                  "day": local_day(row.created_at, cfg.bot.timezone).isoformat()}
                 for row in rows[:SUMMARY_LIMIT]]
        to = to_td(cfg) if recipient == cfg.bot.td else Recipient("TD", recipient)
        sent = emit(session, cfg, Mail(
            kind=SUMMARY_KIND, template="summary", audience="td", to=to,
            lang=cfg.bot.language,
            dedupe_key=f"{SUMMARY_KIND}:{today.isoformat()}:{rows[0].id}",
            context={"items": items, "more": max(0, len(rows) - SUMMARY_LIMIT),
                     "total": len(rows), "cap": cfg.mail.td_alert_cap,
                     "reply_cap": cfg.mail.reply_cap,
                     "unproven": sum(r.status == UNPROVEN_HELD for r in rows),
                     "unproven_cap": cfg.mail.unproven_cap,
                     "unproven_address_cap": cfg.mail.unproven_address_cap}), now)
        queued += sent is not None
        for row in rows:
            row.status = "summarised"
    return queued


def _subject(raw: bytes) -> str:
    """The Subject line of a queued mail (written by us: one encoded header line)."""
    try:
        msg = BytesHeaderParser(policy=default).parsebytes(raw)
        return " ".join(str(msg.get("Subject", "")).split())[:200]
    except Exception:  # our own mail; a header we cannot read is left blank
        return ""


def forget_raw(session: Session, cfg: Config, now: datetime, url: str = "") -> int:
    """Blank the raw text of strangers' and automated mail older than ``[mail]
    retention_days`` (issue 12 item 11), and drop the caps' day counters older than a
    week; at most once an hour per database and process. Returns how many mails were
    blanked."""
    last = _last_forget.get(url)
    if last is not None and timedelta(0) <= now - last < _HOUR:
        return 0
    _last_forget[url] = now
    cutoff = now - timedelta(days=cfg.mail.retention_days)
    result = session.execute(
        update(Inbound)
        .where(Inbound.outcome.in_(sorted(DISPOSABLE_OUTCOMES)),
               Inbound.received_at < cutoff, func.length(Inbound.raw) > 0)
        .values(raw=b"")
        .execution_options(synchronize_session=False))
    # the caps' day counters are read only for today: a week's are kept for a look back
    week_ago = local_day(now, cfg.bot.timezone) - timedelta(days=7)
    session.execute(delete(ReplyCount).where(ReplyCount.day < week_ago)
                    .execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)
