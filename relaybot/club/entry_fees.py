"""Entry fees (issue 30, seed 000): an event's fee, taken from each player's pawns where
they have enough, else recorded as paid in yen, and each player's fee and whether it is
paid.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.book_settings import rules_of
from relaybot.club.errors import AdminError
from relaybot.club.memberships import membership_of
from relaybot.club.pawns import balance, pay_pawns
from relaybot.club.tournaments import event_players
from relaybot.core.books_rules import entry_fee, pawns_for_fee
from relaybot.store.models import Event, EventFee, FeePayment, Member


@dataclass(frozen=True)
class EntryLine:
    """One player's entry fee in an event."""

    email: str
    yen: int
    paid: str | None  # "pawns", "yen", or None while unpaid


def set_event_fee(session: Session, event: Event, yen: int, now: datetime) -> list[EntryLine]:
    """Give the event an entry fee and take it from each player's pawns where they have
    enough; the rest stay unpaid until ``club paid`` records them."""
    if yen < 0:
        raise AdminError("--fee is a number of yen, 0 or more")
    session.add(EventFee(event_id=event.id, yen=yen))
    session.flush()
    rules = rules_of(session)
    for member in event_players(session, event):
        due = entry_fee(yen, _kind(session, member), rules)
        need = pawns_for_fee(due, rules)
        if due and balance(session, member) >= need:
            pay_pawns(session, member, need, f"entry fee, {event.name} ({due} yen)", now,
                      kind="entry", ref=f"entry:{event.id}")
            session.add(FeePayment(member_id=member.id, what="entry", event_id=event.id,
                                   yen=0, pawns=need, at=now))
    session.flush()
    return entry_lines(session, event)


def record_entry_paid(session: Session, event: Event, member: Member, now: datetime) -> str:
    """Record a player's entry fee as paid in yen."""
    fee = session.get(EventFee, event.id)
    if fee is None:
        raise AdminError(f"the event {event.name!r} has no entry fee")
    if member.id not in {m.id for m in event_players(session, event)}:
        raise AdminError(f"{member.email} does not play in {event.name!r}")
    if _entry_paid(session, event, member) is not None:
        raise AdminError(f"{member.email} has paid for {event.name!r} already")
    due = entry_fee(fee.yen, _kind(session, member), rules_of(session))
    session.add(FeePayment(member_id=member.id, what="entry", event_id=event.id, yen=due,
                           pawns=0, at=now))
    session.flush()
    return f"{member.email}: entry fee for {event.name} paid ({due} yen)"


def entry_lines(session: Session, event: Event) -> list[EntryLine]:
    """Each player's entry fee and whether it is paid; empty for an event without fee."""
    fee = session.get(EventFee, event.id)
    if fee is None:
        return []
    rules = rules_of(session)
    return [EntryLine(m.email, entry_fee(fee.yen, _kind(session, m), rules),
                      _entry_paid(session, event, m))
            for m in event_players(session, event)]


def _entry_paid(session: Session, event: Event, member: Member) -> str | None:
    row = session.scalar(select(FeePayment).where(
        FeePayment.event_id == event.id, FeePayment.member_id == member.id,
        FeePayment.what == "entry"))
    if row is None:
        return None
    return "pawns" if row.pawns else "yen"


def _kind(session: Session, member: Member) -> str | None:
    ms = membership_of(session, member)
    return ms.kind if ms is not None else None
