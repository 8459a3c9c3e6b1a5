"""The mail path's own rows: each inbound mail and its claim or failure, the outbox,
reply counts, the poller's lock and IMAP state, and the secret key's rotations."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from relaybot.store.models.base import Base, UtcDateTime


class Inbound(Base):
    """Every mail taken from IMAP, raw (J19), and the idempotency ledger (G2)."""

    __tablename__ = "inbound"
    __table_args__ = (
        UniqueConstraint("folder", "uidvalidity", "uid", name="uq_inbound_uid"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(512), unique=True)
    folder: Mapped[str] = mapped_column(String(255))
    # IMAP's are unsigned 32-bit: over a signed INTEGER's range (0024)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    uid: Mapped[int] = mapped_column(BigInteger)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())
    from_addr: Mapped[str | None] = mapped_column(String(320), nullable=True)
    subject: Mapped[str] = mapped_column(Text, default="")
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    outcome: Mapped[str] = mapped_column(String(40))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime())


class InboundClaim(Base):
    """The ingest ledger's claim (G2, G9): one row per IMAP message handled, inserted
    with ``ON CONFLICT DO NOTHING`` in the same transaction as the mail's effects. On
    PostgreSQL a second instance's claim waits for the first one's transaction and then
    fails cleanly, so that instance skips the mail; a mail whose processing raised gives
    its claim back (deleted in the same transaction) and is tried again (G3)."""

    __tablename__ = "inbound_claims"

    mailbox: Mapped[str] = mapped_column(String(320), primary_key=True)
    folder: Mapped[str] = mapped_column(String(255), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    claimed_at: Mapped[datetime] = mapped_column(UtcDateTime())  # the wall clock, not --now


class InboundFailure(Base):
    """Failed attempts per IMAP message, committed apart from the rolled-back work (G3)."""

    __tablename__ = "inbound_failures"
    __table_args__ = (
        UniqueConstraint("folder", "uidvalidity", "uid", name="uq_failure_uid"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    folder: Mapped[str] = mapped_column(String(255))
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    uid: Mapped[int] = mapped_column(BigInteger)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    quarantined: Mapped[int] = mapped_column(Integer, default=0)


class Outbox(Base):
    """Transactional outbox (G4): written with the state change, sent afterwards."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    dedupe_key: Mapped[str | None] = mapped_column(String(255), unique=True, nullable=True)
    kind: Mapped[str] = mapped_column(String(40))
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    recipient: Mapped[str] = mapped_column(String(320))
    # the VERP envelope sender (G6): a delivery report is matched to its row by it
    envelope_from: Mapped[str] = mapped_column(String(320), index=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class ReplyCount(Base):
    """Mail to one address on one day, counted against the caps (G7, issue 12 item 8):
    ``count`` error replies, ``replies`` every reply caused by that address's own mail,
    ``alerts`` the TD's alerts (those over the cap go into one summary mail), ``unproven``
    mail caused by mail that proved no sender (issue 22 item 6; the whole club's under
    the address ``(unproven)``)."""

    __tablename__ = "reply_counts"
    __table_args__ = (UniqueConstraint("address", "day", name="uq_reply_counts"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    day: Mapped[date] = mapped_column(Date)
    count: Mapped[int] = mapped_column(Integer, default=0)
    replies: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    alerts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    unproven: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Lock(Base):
    """One holder per role (G9); ``heartbeat`` lets a new holder notice a dead one."""

    __tablename__ = "locks"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(255))
    heartbeat: Mapped[datetime] = mapped_column(UtcDateTime())


class ImapState(Base):
    """A folder's UIDVALIDITY as the poller last saw it (a change means new UIDs)."""

    __tablename__ = "imap_state"

    folder: Mapped[str] = mapped_column(String(255), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)


class KeyRotation(Base):
    """When relaybot first ran with a ``[bot] secret_previous`` (INTERFACE: the old key's
    tokens stay valid for 30 days). The key itself is never stored: its SHA-256."""

    __tablename__ = "key_rotations"

    fingerprint: Mapped[str] = mapped_column(String(64), primary_key=True)
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime())
