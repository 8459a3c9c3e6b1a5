"""The pawn deposit (issue 30, seed 000): each member's pawns, a movement in (a deposit,
a sale between members, a prize) or out (a fee, an entry fee, a purchase), and the
member's ledger of them.

Nothing here is paid out in cash, and no balance ever goes below zero: a payment larger
than the member's pawns is refused whole.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.store.models import Member, PawnEntry


def balance(session: Session, member: Member) -> int:
    """The member's pawns now."""
    return int(session.scalar(select(func.coalesce(func.sum(PawnEntry.pawns), 0))
                              .where(PawnEntry.member_id == member.id)) or 0)


def add_pawns(session: Session, member: Member, pawns: int, reason: str, now: datetime, *,
              yen: int = 0, kind: str = "deposit", ref: str | None = None) -> PawnEntry:
    """Pawns in: a deposit, a sale between members, a prize."""
    if pawns <= 0:
        raise AdminError("--add takes a number of pawns above 0")
    if not reason.strip():
        raise AdminError("every movement of pawns needs its --reason")
    entry = PawnEntry(member_id=member.id, at=now, pawns=pawns, yen=yen, kind=kind,
                      reason=reason.strip(), ref=ref)
    session.add(entry)
    session.flush()
    return entry


def pay_pawns(session: Session, member: Member, pawns: int, reason: str, now: datetime, *,
              kind: str = "payment", ref: str | None = None) -> PawnEntry:
    """Pawns out: a fee, an entry fee, a purchase; refused when the balance would go
    below zero (never paid out in cash either)."""
    if pawns <= 0:
        raise AdminError("--pay takes a number of pawns above 0")
    if not reason.strip():
        raise AdminError("every movement of pawns needs its --reason")
    have = balance(session, member)
    if pawns > have:
        raise AdminError(f"{member.email} has {have} pawns, not {pawns}: "
                         "a deposit never goes below zero")
    entry = PawnEntry(member_id=member.id, at=now, pawns=-pawns, yen=0, kind=kind,
                      reason=reason.strip(), ref=ref)
    session.add(entry)
    session.flush()
    return entry


def ledger(session: Session, member: Member) -> list[PawnEntry]:
    """Every movement of the member's pawns, oldest first."""
    return list(session.scalars(select(PawnEntry).where(PawnEntry.member_id == member.id)
                                .order_by(PawnEntry.at, PawnEntry.id)))
