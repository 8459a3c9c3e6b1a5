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

from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.mail.compose import verp_address
from relaybot.mail.inbound import InboundMail
from relaybot.outbox import note_bounce
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
