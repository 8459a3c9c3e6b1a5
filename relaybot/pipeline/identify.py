"""Who sent a mail, and what kind of mail it is: a delivery report, automated mail, the
TD, a stranger or a member (G6, G7, G12).

This is the stage where the trust gate goes: today a member is known by the From:
address alone (and the TD's by a trusted DMARC result not failing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.mail.inbound import InboundMail, verp_id
from relaybot.outbox import note_bounce
from relaybot.store.models import Member, Outbox

_MEMBER_BY_EMAIL = select(Member).where(Member.email == bindparam("email"))


@dataclass(frozen=True)
class Sender:
    """What :func:`identify` found: ``kind`` is ``member`` (with ``member``), ``td``, or a
    final outcome word (``bounce``, ``automated``, ``stranger``, ...) when nothing more is
    to be done with the mail."""

    kind: str
    member: Member | None = None


def identify(session: Session, cfg: Config, mail: InboundMail, arrived: datetime,
             members: dict[str, Member] | None = None) -> Sender:
    """Classify a mail by its sender; delivery reports are recorded here (G6).

    ``members``: the batch's senders read at once by the poller (else one query).
    """
    for rcpt in mail.recipients:
        token = verp_id(rcpt, cfg.bot.address)
        if token is not None:
            return Sender(_bounce(session, cfg, token, arrived))
    if mail.automated:
        return Sender("automated")  # G7: never answer automated mail
    if mail.from_addr is None:
        return Sender("no_sender")
    if mail.from_addr == cfg.bot.td.lower():
        if mail.dmarc_fail:
            return Sender("td_unauthenticated")  # G12: our MTA says the TD was forged
        return Sender("td")
    member = (members.get(mail.from_addr) if members is not None
              else session.scalar(_MEMBER_BY_EMAIL, {"email": mail.from_addr}))
    if member is None:
        return Sender("stranger")  # G12: strangers get no reply at all
    return Sender("member", member)


def _bounce(session: Session, cfg: Config, token: str, now: datetime) -> str:
    """A delivery report for one of our mails (G6): record it against the row and the
    member; repeated bounces go to the TD, and never forfeit a game by themselves."""
    row = session.scalar(select(Outbox).where(Outbox.message_id == f"{token}@{cfg.bot.domain}"))
    if row is None:
        return "bounce_unknown"
    if row.status != "bounced":
        row.status = "bounced"
        row.last_error = "delivery report received"
        note_bounce(session, cfg, row, now)
    return "bounce"
