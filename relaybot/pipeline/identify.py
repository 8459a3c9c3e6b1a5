"""Who sent a mail, and what kind of mail it is: a delivery report, automated mail, a
confirmation of a held mail, a TD, a stranger or a member (G6, G7, G12).

This is the trust gate (INTERFACE.md "Who may act", issue 12). A member is known by any
of their registered addresses (``Member.email`` and ``member_addresses``); a TD by being
``[bot] td`` or an event's ``--td``. :attr:`Sender.authenticated` says whether the mail
also proves its From: line: a reply token issued to that member (or that TD) among its
recipients, or a ``dmarc=pass`` for the From: domain from our own MTA. What is not
proven is held by the next stage (``pipeline/holds.py``); a trusted ``dmarc=fail``
acts on nothing.

差出人の確認：本人宛てに発行した返信トークンか、自分の MTA の dmarc=pass があれば
本人確認済み（authenticated）です。それ以外は保留して登録アドレスに確認を求めます。
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.tokens import TokenAddress, verify
from relaybot.mail.inbound import InboundMail, reply_tokens, verp_id
from relaybot.pipeline.bounces import delivery_report
from relaybot.store.models import Event, Member, MemberAddress


@dataclass(frozen=True)
class Sender:
    """What :func:`identify` found.

    ``kind`` is ``member`` (with ``member``), ``td`` (with ``td``; a TD who also plays
    has ``member`` too), ``confirm`` (a reply to a confirmation request, ``confirm``
    its token address) or a final outcome word (``bounce``, ``automated``,
    ``stranger``, ...) when nothing more is to be done with the mail.
    """

    kind: str
    member: Member | None = None
    # the mail proves its From: for the member (a token issued to them, or our MTA's
    # dmarc=pass); ``td_authenticated`` the same for the TD address
    authenticated: bool = False
    td: str | None = None
    td_authenticated: bool = False
    forged: bool = False  # our MTA says dmarc=fail for the From: domain
    confirm: TokenAddress | None = None


def identify(session: Session, cfg: Config, mail: InboundMail, arrived: datetime,
             members: dict[str, Member] | None = None,
             tds: frozenset[str] | None = None) -> Sender:
    """Classify a mail by its sender; delivery reports are recorded here (G6).

    ``members`` and ``tds``: the batch's senders and the TD addresses, read at once by
    the poller (else a query each).
    """
    for rcpt in mail.recipients:
        token = verp_id(rcpt, cfg.bot.address)
        if token is not None:
            # G6: counted only at an issued VERP address and in a report's shape
            return Sender(delivery_report(session, cfg, mail, token, arrived))
    if mail.automated:
        return Sender("automated")  # G7: never answer automated mail
    if mail.from_addr is None:
        return Sender("no_sender")
    sender = mail.from_addr
    member = (members.get(sender) if members is not None
              else members_by_address(session, [sender]).get(sender))
    is_td = sender in tds if tds is not None else is_td_address(session, cfg, sender)
    td = sender if is_td else None
    if member is None and td is None:
        return Sender("stranger")  # G12: strangers get no reply at all
    confirm = next((t for t in reply_tokens(mail, cfg.bot.address) if t.kind == "c"), None)
    return Sender(
        "confirm" if confirm is not None else ("td" if td is not None else "member"),
        member,
        authenticated=member is not None and authenticated(cfg, mail, str(member.id)),
        td=td,
        td_authenticated=td is not None and authenticated(cfg, mail, td_recipient(cfg, td)),
        forged=mail.dmarc_fail,
        confirm=confirm,
    )


def members_by_address(session: Session, addresses: Iterable[str]) -> dict[str, Member]:
    """The members who own these addresses (their main one or another registered one),
    by address; two queries for any number of addresses."""
    wanted = sorted(set(addresses))
    if not wanted:
        return {}
    found = {m.email: m for m in session.scalars(select(Member).where(Member.email.in_(wanted)))}
    rest = [a for a in wanted if a not in found]
    if rest:
        for address, member in session.execute(
                select(MemberAddress.address, Member)
                .join(Member, Member.id == MemberAddress.member_id)
                .where(MemberAddress.address.in_(rest))):
            found[address] = member
    return found


def is_td_address(session: Session, cfg: Config, address: str) -> bool:
    """True for ``[bot] td`` and for the TD an event names (``event new --td``)."""
    address = address.strip().lower()
    if address == cfg.bot.td.strip().lower():
        return True
    return session.scalar(select(Event.id).where(Event.td == address).limit(1)) is not None


def td_addresses(session: Session, cfg: Config) -> frozenset[str]:
    """Every TD address: ``[bot] td`` and each event's ``--td`` (one query, for a batch)."""
    events = session.scalars(select(Event.td).where(Event.td.is_not(None)).distinct())
    return frozenset({cfg.bot.td.strip().lower(), *(td for td in events if td)})


def td_recipient(cfg: Config, address: str) -> str:
    """Who a TD's reply token is issued to (:func:`relaybot.core.tokens.td_recipient`)."""
    return tokens.td_recipient(cfg.bot.td, address)


def authenticated(cfg: Config, mail: InboundMail, recipient: str) -> bool:
    """True if the mail proves it comes from ``recipient`` (a member id as text, or a
    TD's :func:`td_recipient`), INTERFACE.md "Who may act":

    * a token address issued to ``recipient`` is among To, Cc, Delivered-To and
      X-Original-To: ``relay+<game-id>.<token>`` verified for that game,
      ``relay+m.<token>`` for member mail; the current and the previous secret both
      count (rotation). A token issued to someone else proves nothing, so the opponent
      who copies a thread's Reply-To gains nothing.
    * or our MTA's topmost Authentication-Results says dmarc=pass for the From: domain
      (``[bot] authserv_id``), and none of ours says fail.

    A ``c.`` confirmation address is not read here: it confirms one hold, found by its
    token (``pipeline/holds.py``). Without a secret nothing is authenticated by token.
    """
    if mail.dmarc_fail:
        return False  # fail closed: our MTA says the From: line was forged
    if mail.dmarc_pass:
        return True
    keys = cfg.bot.verify_keys()
    if not keys:
        return False
    for found in reply_tokens(mail, cfg.bot.address):
        scope = found.scope
        if scope is not None and verify(keys, scope, recipient, found.token):
            return True
    return False
