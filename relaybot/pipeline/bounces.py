"""Delivery reports sent back to a VERP address (G6, issue 12 item 7).

The identify stage hands over every mail sent to a ``relay+b.<token>`` address. It
counts against a member only when the token is one the bot issued (an outbox row was
sent with that envelope sender) and the mail is a delivery report flufl.bounce could
read a permanent failure out of (:mod:`relaybot.mail.inbound.bounces`). A forged
report (a token nobody was given: the Message-ID the opponent sees is no help), an
out-of-office reply, and a report that a mail is only delayed count for nothing. None
of them is ever answered (G7).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.mail.compose import verp_address
from relaybot.mail.inbound import InboundMail
from relaybot.pipeline.effects import Mail, emit, to_td
from relaybot.store.models import Outbox

_BY_ENVELOPE = select(Outbox).where(Outbox.envelope_from == bindparam("envelope")).limit(1)


def delivery_report(session: Session, cfg: Config, mail: InboundMail, token: str,
                    now: datetime) -> str:
    """Record a delivery report that came back to the VERP address of ``token``; returns
    the outcome word for the ledger:

    * ``bounce`` - a permanent failure of a mail we sent: the row is marked bounced and
      counted against its member (repeated bounces go to the TD, never a forfeit);
    * ``bounce_unknown`` - no mail was sent with this envelope sender (forged);
    * ``bounce_delayed`` - the report says delivery is only delayed;
    * ``not_a_bounce`` - sent to an issued VERP address but not a delivery report
      (an out-of-office reply, a person writing to the envelope sender).
    """
    envelope = verp_address(cfg.bot.local.lower(), cfg.bot.domain.lower(), token)
    row = session.scalar(_BY_ENVELOPE, {"envelope": envelope})
    if row is None:
        return "bounce_unknown"
    report = mail.delivery_report
    if not mail.report_shaped or report is None:
        return "not_a_bounce"
    if not report.failed:
        return "bounce_delayed"
    if row.status != "bounced":
        row.status = "bounced"
        named = ", ".join(report.permanent[:3])
        # the report's words, no sentence of ours: the TD's notice shows it as the
        # server's answer in the bot's language (issue 15)
        row.last_error = f"DSN: {named}"[:2000]
        note_bounce(session, cfg, row, now)
    return "bounce"


BOUNCE_WINDOW = timedelta(days=30)  # G6: permanent bounces per member counted over this
BOUNCE_ESCALATE = 3  # ... and every this many the TD is told (never a forfeit)


def note_bounce(session: Session, cfg: Config, row: Outbox, now: datetime) -> int:
    """Count a permanent bounce against the row's member (G6); escalate to the TD.

    Call after setting ``row.status = "bounced"`` (SMTP 5xx here; a VERP delivery
    report in service._bounce). Every ``BOUNCE_ESCALATE`` bounces within
    ``BOUNCE_WINDOW`` the TD gets one notice; a game is never forfeited for it.
    Returns the member's count (0 for mail to no member).
    """
    if row.member_id is None:
        return 0
    session.flush()
    count = len(session.scalars(select(Outbox.id).where(
        Outbox.member_id == row.member_id, Outbox.status == "bounced",
        Outbox.created_at >= now - BOUNCE_WINDOW)).all())
    if count < BOUNCE_ESCALATE or count % BOUNCE_ESCALATE:
        return count
    emit(session, cfg, Mail(
        kind="td_bounces", template="delivery", audience="td", to=to_td(cfg),
        lang=cfg.bot.language, dedupe_key=f"bounces:{row.member_id}:{count // BOUNCE_ESCALATE}",
        context={"why": "bounced", "recipient": row.recipient, "kind": row.kind,
                 "game_id": row.game_id, "message_id": row.message_id,
                 "detail": row.last_error, "bounces": count,
                 "window": BOUNCE_WINDOW.days}), now)
    return count
