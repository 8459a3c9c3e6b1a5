"""Receiving: one inbound mail = one unit of work, applied once (G1-G3).

``process_mail`` gives a mail its own transaction; the poller runs a batch of mails in
one transaction with a savepoint per mail (``process_in``) and moves them out of INBOX
only after that commit. The ingest ledger (``Inbound``: Message-ID and UIDVALIDITY/UID)
makes a redelivered mail a no-op (G2). Then the mail walks downhill: identify the
sender, hand a TD's mail to the TD commands and a member's to the member's commands.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import Session

from relaybot.club.key_rotation import live_keys
from relaybot.config import Config
from relaybot.core.reading import Reading
from relaybot.mail.inbound import InboundMail, parse_mail
from relaybot.mail.work import caused_by, unproven
from relaybot.pipeline import commands, holds
from relaybot.pipeline.effects import prefetch_counts
from relaybot.pipeline.identify import (
    Grant,
    Sender,
    identify,
    members_by_address,
    td_addresses,
    widened,
)
from relaybot.pipeline.play import Received
from relaybot.pipeline.reading import read
from relaybot.pipeline.td import td_mail
from relaybot.store.db import Store
from relaybot.store.faults import crash_point
from relaybot.store.models import Hold, Inbound, Member

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Arrival:
    """One mail as taken from IMAP."""

    raw: bytes
    internaldate: datetime
    folder: str = "INBOX"
    uidvalidity: int = 0
    uid: int = 0


def process_mail(store: Store, cfg: Config, arrival: Arrival, now: datetime) -> str:
    """Handle one mail in one transaction; returns what happened (for logs and tests)."""
    with store.session() as session:
        outcome = _process(session, cfg, arrival, now)
        crash_point("before_commit")
    crash_point("after_commit")
    return outcome


def process_in(session: Session, cfg: Config, arrival: Arrival, now: datetime,
               batch: Prefetch | None = None) -> str:
    """Handle one mail inside the caller's transaction (the poller commits a batch of
    mails at once, each in its own savepoint); returns what happened.

    ``batch``: what :func:`prefetch` read for the whole batch (else read per mail).
    """
    return _process(session, cfg, arrival, now, batch)


@dataclass
class Prefetch:
    """What a batch of mails needs from the store before routing, read in two queries
    for the whole batch instead of two per mail: the ingest ledger (G2) and the senders.

    Only for arrivals with UIDs from one folder and UIDVALIDITY (as the poller has).
    """

    mails: dict[int, InboundMail]  # by UID, parsed once
    seen_ids: set[str]  # Message-IDs handled before, or earlier in this batch
    seen_uids: set[int]
    members: dict[str, Member]  # by address: every sender of the batch who is a member
    tds: frozenset[str]  # every TD address ([bot] td, the events' own)
    # members with a held mail (read once, plus every hold made in the batch): an
    # authenticated mail of anyone else has no hold to supersede
    held: set[int] = field(default_factory=set)
    # addresses whose reply counts of the day are read with the first mail (its "now"),
    # in one query: every sender of the batch gets a reply (effects.prefetch_counts)
    counted: list[str] = field(default_factory=list)
    claimed: dict[int, str] = field(default_factory=dict)  # UID -> Message-ID, this batch
    # UID -> (sender, game id): what the poller's one log line per mail names
    logged: dict[int, tuple[str | None, str | None]] = field(default_factory=dict)

    def claim(self, arrival: Arrival, message_id: str) -> bool:
        """G2 for the batch: False when this mail was handled before (by Message-ID or
        UID), or earlier in this batch; else it is marked handled now."""
        if message_id in self.seen_ids or arrival.uid in self.seen_uids:
            return False
        self.seen_ids.add(message_id)
        self.claimed[arrival.uid] = message_id
        return True

    def release(self, uid: int) -> None:
        """The mail's savepoint was rolled back: its Message-ID is not handled after all."""
        message_id = self.claimed.pop(uid, None)
        if message_id is not None:
            self.seen_ids.discard(message_id)


def prefetch(session: Session, cfg: Config, arrivals: list[Arrival]) -> Prefetch:
    """Parse a batch's mails and read their ledger entries and senders (see Prefetch)."""
    mails: dict[int, InboundMail] = {}
    for arrival in arrivals:
        try:
            mails[arrival.uid] = parse_mail(arrival.raw, own_addresses=[cfg.bot.address],
                                            trusted_authserv=cfg.bot.authserv_id)
        except Exception:  # parsed again in its own savepoint, where a failure counts (G3)
            log.debug("uid %s: parse failed in prefetch", arrival.uid, exc_info=True)
    first = arrivals[0]
    ids = sorted({m.message_id for m in mails.values()})
    seen_ids: set[str] = set()
    seen_uids: set[int] = set()
    for message_id, folder, validity, uid in session.execute(
            select(Inbound.message_id, Inbound.folder, Inbound.uidvalidity, Inbound.uid)
            .where(or_(Inbound.message_id.in_(ids),
                       (Inbound.folder == first.folder)
                       & (Inbound.uidvalidity == first.uidvalidity)
                       & Inbound.uid.in_([a.uid for a in arrivals])))):
        seen_ids.add(message_id)
        if (folder, validity) == (first.folder, first.uidvalidity):
            seen_uids.add(uid)
    senders = sorted({m.from_addr for m in mails.values() if m.from_addr})
    members = members_by_address(session, senders)
    held = session.scalars(select(Hold.member_id).distinct().where(Hold.status == "held"))
    return Prefetch(mails, seen_ids, seen_uids, members, td_addresses(session, cfg),
                    held={i for i in held if i is not None},
                    counted=[*senders, *(m.email for m in members.values())])


# Hot statements built once, run with parameters: neither rebuilt nor re-keyed per mail.
_SEEN_ID = select(Inbound.id).where(Inbound.message_id == bindparam("mid")).limit(1)
_SEEN_ID_OR_UID = select(Inbound.id).where(or_(
    Inbound.message_id == bindparam("mid"),
    (Inbound.folder == bindparam("folder")) & (Inbound.uidvalidity == bindparam("validity"))
    & (Inbound.uid == bindparam("uid")))).limit(1)


def _already_seen(session: Session, arrival: Arrival, message_id: str) -> bool:
    """G2: the same (folder, UIDVALIDITY, UID) or the same Message-ID was handled before."""
    if not arrival.uid:
        return session.scalar(_SEEN_ID, {"mid": message_id}) is not None
    found = session.scalar(_SEEN_ID_OR_UID, {
        "mid": message_id, "folder": arrival.folder, "validity": arrival.uidvalidity,
        "uid": arrival.uid})
    return found is not None


def _process(session: Session, cfg: Config, arrival: Arrival, now: datetime,
             batch: Prefetch | None = None) -> str:
    cfg = live_keys(session, cfg, now)  # the old key's tokens only within its 30 days
    mail = batch.mails.pop(arrival.uid, None) if batch is not None else None
    if batch is not None and batch.counted:
        prefetch_counts(session, cfg, batch.counted, now)
        batch.counted = []
    if mail is None:
        mail = parse_mail(arrival.raw, own_addresses=[cfg.bot.address],
                          trusted_authserv=cfg.bot.authserv_id)
    seen = (not batch.claim(arrival, mail.message_id) if batch is not None
            else _already_seen(session, arrival, mail.message_id))
    if batch is not None:  # for the log line (logging hook)
        batch.logged[arrival.uid] = (mail.from_addr, None)
    if seen:
        return "duplicate"  # G2: the same mail again (redelivery, new UIDVALIDITY)
    inbound = Inbound(
        message_id=mail.message_id, folder=arrival.folder, uidvalidity=arrival.uidvalidity,
        uid=arrival.uid, received_at=arrival.internaldate, from_addr=mail.from_addr,
        subject=mail.subject[:2000], game_id=None, outcome="pending", raw=arrival.raw,
        processed_at=now,
    )
    # Added last, with its outcome: one INSERT instead of an INSERT and two UPDATEs. The
    # moves it carries reach the session first and bring it along (Move.inbound).
    with caused_by(session, mail.from_addr):  # issue 12 item 8: its replies are capped
        inbound.outcome = _route(session, cfg, mail, inbound, arrival, now,
                                 batch)
    if batch is not None:
        batch.logged[arrival.uid] = (mail.from_addr, inbound.game_id)
    session.add(inbound)
    return inbound.outcome


def _route(
    session: Session, cfg: Config, mail: InboundMail, inbound: Inbound, arrival: Arrival,
    now: datetime, batch: Prefetch | None = None,
) -> str:
    """identify -> read once -> the trust gate -> the TD's commands or the member's
    commands; returns the outcome word for the ledger.

    The gate (INTERFACE.md "Who may act") decides on the mail's one reading
    (``pipeline/reading.py``), the same value every later stage takes: a mail acts at once
    when its proofs cover all it asks (token scopes, our MTA's dmarc=pass); a trusted
    ``dmarc=fail`` acts on nothing and the registered address is told; a mail that only
    asks for ``status`` / ``help`` is answered at once (to the registered address only);
    anything else from a registered address is held whole until that address confirms it.
    """
    sender = identify(session, cfg, mail, arrival.internaldate,
                      batch.members if batch is not None else None,
                      batch.tds if batch is not None else None)
    if sender.kind in ("td", "member", "confirm"):
        reading = read(session, cfg, mail, sender.member)
    else:
        return sender.kind
    if sender.kind == "confirm" and sender.forged:
        # our MTA's dmarc=fail: nothing acts, and the registered address is told that
        # someone wrote in its name, a reply to a confirmation address too (G12)
        assert mail.from_addr is not None
        with unproven(session):
            if sender.member is None:
                assert sender.td is not None
                return "td_" + holds.forged(session, cfg, holds.td_holder(cfg, sender.td),
                                            mail, now)
            return holds.forged(session, cfg, holds.member_holder(sender.member,
                                                                  mail.from_addr), mail, now)
    if sender.kind == "confirm":
        assert sender.confirm is not None
        outcome = holds.answer(session, cfg, mail, sender.confirm.token, sender.member,
                               sender.td, now, _apply_held, reading)
        if isinstance(outcome, str):
            return outcome
        # moves or commands of its own: the sender's new mail, proven by their c. token
        # while its hold waited (else held like any unproven mail), about the games the
        # request was about when it names none of its own
        reading = read(session, cfg, mail, sender.member,
                       also_named=outcome.hold.games.split())
        everything = Grant(everything=True)
        # a stale c. token proves nothing: the mail's other proofs (a game token beside
        # it) count as they would without it
        sender = replace(sender, kind="td" if sender.td is not None else "member",
                         grant=(everything if outcome.proven and sender.member is not None
                                else sender.grant),
                         td_grant=(everything if outcome.proven and sender.td is not None
                                   else sender.td_grant))
    assert mail.from_addr is not None
    ordered = bool(reading.commands) if sender.td is not None else False
    if ordered and sender.member is not None and not sender.forged \
            and reading.without_commands.acts:
        # a TD who plays, with moves or keywords and command lines in one mail: each half
        # is what it is (one reading, G12): the player's part acts or is held as a
        # player's, the command lines run or are held as the TD's; never one dropped unsaid
        # for the other ("Answer to your question: ..." in a move mail included)
        played = _as_member(session, cfg, sender, reading, mail, inbound, arrival, now,
                            batch)
        return f"{played} {_as_td(session, cfg, sender, reading, mail, inbound, arrival, now)}"
    if sender.td is not None and (sender.member is None or ordered):
        return _as_td(session, cfg, sender, reading, mail, inbound, arrival, now)
    return _as_member(session, cfg, sender, reading, mail, inbound, arrival, now, batch)


def _as_td(session: Session, cfg: Config, sender: Sender, reading: Reading,
           mail: InboundMail, inbound: Inbound, arrival: Arrival, now: datetime) -> str:
    """A TD's mail: its command lines run when its proofs cover them, else are held."""
    assert sender.td is not None
    who = holds.td_holder(cfg, sender.td)
    if sender.forged:
        with unproven(session):
            return "td_" + holds.forged(session, cfg, who, mail, now)
    if not reading.commands:
        return "td_no_command"
    if not sender.td_grant.covers(reading.commands_only):
        with unproven(session):
            return "td_" + holds.hold(session, cfg, who, mail, inbound, now,
                                      reading.commands_only if sender.member is not None
                                      else reading)
    holds.supersede(session, reading, now, td=sender.td)
    # the TD's decision takes effect when the mail reached us (J13: the answer's arrival)
    return td_mail(session, cfg, mail.text, mail.message_id, mail.references,
                   arrival.internaldate, inbound, sender.td)


def _as_member(session: Session, cfg: Config, sender: Sender, reading: Reading,
               mail: InboundMail, inbound: Inbound, arrival: Arrival, now: datetime,
               batch: Prefetch | None) -> str:
    """A member's mail: it acts when its proofs cover all it asks, is answered when it
    only reads, and is held whole otherwise."""
    assert mail.from_addr is not None
    member = sender.member
    if member is None:
        return sender.kind
    got = Received(mail, inbound, arrival.internaldate)
    with unproven(session):  # what a mail that proved nothing causes is capped club-wide
        if sender.forged:
            return holds.forged(session, cfg, holds.member_holder(member, mail.from_addr),
                                mail, now)
        grant = widened(session, sender.grant) if reading.sections else sender.grant
        # a player's command lines do nothing (only a TD's do): they need no scope
        if not grant.covers(reading.without_commands):
            if not reading.read_only:
                if batch is not None:
                    batch.held.add(member.id)  # a later mail in the batch may supersede it
                return holds.hold(session, cfg, holds.member_holder(member, mail.from_addr),
                                  mail, inbound, now, reading)
            return commands.handle(session, cfg, member, got, now, reading)
    if batch is None or batch.held:
        holds.supersede(session, reading, now, member=member)
    return commands.handle(session, cfg, member, got, now, reading)


def _apply_held(session: Session, cfg: Config, hold: Hold, mail: InboundMail,
                now: datetime) -> str:
    """A confirmed hold: its mail acts now as if it had been authenticated when it
    arrived (its INTERNALDATE is the receipt that counts, J6)."""
    held = session.get(Inbound, hold.inbound_id)
    assert held is not None
    if hold.member_id is None:
        return td_mail(session, cfg, mail.text, mail.message_id, mail.references,
                       held.received_at, held, hold.td)
    member = session.get(Member, hold.member_id)
    assert member is not None
    return commands.handle(session, cfg, member, Received(mail, held, held.received_at), now)
