"""Claims that let several instances share one database (G2, G9, issue 31).

Inbound mail: each IMAP message (mailbox, folder, UIDVALIDITY, UID) is claimed by
inserting its ``inbound_claims`` row with ``ON CONFLICT DO NOTHING`` in the batch's
transaction, the one that also commits the mail's effects. On PostgreSQL a second
instance's insert of the same key waits for the first transaction: if that commits, the
insert does nothing and the second instance skips the mail; if it rolls back (a crash,
a lost connection), the second instance gets the claim and handles the mail itself.

The outbox needs no table of its own: rows are claimed with ``SELECT ... FOR UPDATE
SKIP LOCKED`` (relaybot/app/outbox.py), and a claim ends with its transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from relaybot.store.models import InboundClaim


def mailbox_key(user: str, host: str) -> str:
    """The name a mailbox is claimed under: its IMAP login at its server."""
    return f"{user}@{host}"[:320]


def claim_uids(session: Session, mailbox: str, folder: str, uidvalidity: int,
               uids: Iterable[int], now: datetime) -> set[int]:
    """Claim these UIDs in the session's transaction; returns those claimed here.

    A UID missing from the answer was claimed by a transaction that committed (here
    or in another instance): its mail has been handled and must be skipped. Inserted
    in UID order, so two instances claiming overlapping batches never deadlock.
    """
    rows = [{"mailbox": mailbox, "folder": folder, "uidvalidity": uidvalidity, "uid": uid,
             "claimed_at": now} for uid in sorted(set(uids))]
    if not rows:
        return set()
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = (insert(InboundClaim).values(rows).on_conflict_do_nothing()
            .returning(InboundClaim.uid))
    return {int(uid) for uid in session.scalars(stmt)}


def release_uid(session: Session, mailbox: str, folder: str, uidvalidity: int,
                uid: int) -> None:
    """Give a claim back (its mail raised and is to be tried again, G3)."""
    session.execute(delete(InboundClaim).where(
        InboundClaim.mailbox == mailbox, InboundClaim.folder == folder,
        InboundClaim.uidvalidity == uidvalidity, InboundClaim.uid == uid))
