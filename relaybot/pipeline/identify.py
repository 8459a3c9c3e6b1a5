"""Who sent a mail, and what kind of mail it is: a delivery report, automated mail, the
TD, a stranger or a member (G6, G7, G12).

This is the stage where the trust gate goes (INTERFACE.md "Who may act", issue 12). A
member is known by the From: address; :attr:`Sender.authenticated` says whether the
mail also proves it: a reply token issued to that member (or the TD) among its
recipients, or a ``dmarc=pass`` for the From: domain from our own MTA. It is computed
and tested, and nothing is held on it yet: holds and confirmations come next. A TD mail
with a trusted ``dmarc=fail`` is refused already (G12).

差出人の確認：返信トークン（本人宛てに発行したもの）か、自分の MTA の dmarc=pass があれば
本人確認済み（authenticated）です。まだ保留には使っていません。
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.tokens import TD_RECIPIENT, verify
from relaybot.mail.inbound import InboundMail, reply_tokens, verp_id
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
    # the mail proves its From: (a token issued to this member or the TD, or our MTA's
    # dmarc=pass); not yet acted on (issue 12: holds come next)
    authenticated: bool = False


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
        return Sender("td", authenticated=authenticated(cfg, mail, TD_RECIPIENT))
    member = (members.get(mail.from_addr) if members is not None
              else session.scalar(_MEMBER_BY_EMAIL, {"email": mail.from_addr}))
    if member is None:
        return Sender("stranger")  # G12: strangers get no reply at all
    return Sender("member", member, authenticated(cfg, mail, str(member.id)))


def authenticated(cfg: Config, mail: InboundMail, recipient: str) -> bool:
    """True if the mail proves it comes from ``recipient`` (a member id as text, or
    ``"td"``), INTERFACE.md "Who may act":

    * a token address issued to ``recipient`` is among To, Cc, Delivered-To and
      X-Original-To: ``relay+<game-id>.<token>`` verified for that game,
      ``relay+m.<token>`` for member mail; the current and the previous secret both
      count (rotation). A token issued to someone else proves nothing, so the opponent
      who copies a thread's Reply-To gains nothing.
    * or our MTA's topmost Authentication-Results says dmarc=pass for the From: domain
      (``[bot] authserv_id``), and none of ours says fail.

    A ``c.`` confirmation address is not read here: it confirms one hold, found by its
    token, once holds exist. Without a secret nothing is authenticated by token.
    """
    if mail.dmarc_fail:
        return False  # fail closed: our MTA says the From: line was forged
    if mail.dmarc_pass:
        return True
    keys = tuple(k for k in (cfg.bot.secret, cfg.bot.secret_previous) if k)
    if not keys:
        return False
    for found in reply_tokens(mail, cfg.bot.address):
        scope = found.scope
        if scope is not None and verify(keys, scope, recipient, found.token):
            return True
    return False


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
