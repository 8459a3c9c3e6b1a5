"""The club's books (seed 000): memberships, the pawn ledger, fees, awards and the
books' settings."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from relaybot.store.models.base import Base, UtcDateTime


class Membership(Base):
    """A member's place in the club's books (issue 30, seed 000 入会案内): ``kind``
    regular, family (valid as long as ``family_of``'s membership) or junior (by the
    member's ``Member.born``); ``paid_until`` the last day paid for; ``lapsed_told``
    the expiry the TD was told had lapsed (once); ``left_on`` the day the member left
    (pawns forfeited). A member without a row is outside the books (no fee, no
    expiry)."""

    __tablename__ = "memberships"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(12), default="regular")
    family_of_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    paid_until: Mapped[date | None] = mapped_column(Date, nullable=True)
    lapsed_told: Mapped[date | None] = mapped_column(Date, nullable=True)
    left_on: Mapped[date | None] = mapped_column(Date, nullable=True)


class PawnEntry(Base):
    """One movement of a member's pawn deposit (seed 000 JCCAデポジット制度): ``pawns``
    in (positive) or out (negative), the ``yen`` it stands for, its reason; ``ref`` keys
    the movements the bot makes itself (a prize, an entry fee), never twice."""

    __tablename__ = "pawn_entries"
    __table_args__ = (UniqueConstraint("member_id", "ref", name="uq_pawn_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    pawns: Mapped[int] = mapped_column(Integer)
    yen: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(16))  # deposit|payment|fee|entry|prize|forfeit
    reason: Mapped[str] = mapped_column(Text, default="")
    ref: Mapped[str | None] = mapped_column(String(120), nullable=True)


class FeePayment(Base):
    """A fee paid (seed 000): a year's membership or an event's entry fee, in yen or from
    pawns (``pawns`` > 0)."""

    __tablename__ = "fee_payments"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    what: Mapped[str] = mapped_column(String(12))  # membership | entry
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"), nullable=True)
    yen: Mapped[int] = mapped_column(Integer, default=0)
    pawns: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class EventFee(Base):
    """An event's entry fee in yen (``event new --fee``); juniors pay half."""

    __tablename__ = "event_fees"

    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), primary_key=True)
    yen: Mapped[int] = mapped_column(Integer)


class ClubAward(Base):
    """A prize or the annual most-games award given (``what`` prize|award; ``ref`` the
    preliminary event's name or the award year), announced in the next digest."""

    __tablename__ = "club_awards"
    __table_args__ = (UniqueConstraint("what", "ref", "member_id", name="uq_club_award"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    what: Mapped[str] = mapped_column(String(8))
    ref: Mapped[str] = mapped_column(String(200))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    pawns: Mapped[int] = mapped_column(Integer, default=0)
    games: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class ClubSetting(Base):
    """A figure of the club's books changed from seed 000's default (``club settings``)."""

    __tablename__ = "club_settings"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(80))
