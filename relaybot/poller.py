"""The IMAP side of the flow: fetch, process in one transaction, then MOVE (G1-G3, G8).

A mail leaves INBOX only after its transaction has committed: moved to
``Processed`` on success, or to ``Quarantine`` after three failed attempts
(the attempt count is committed apart from the rolled-back work).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.faults import crash_point
from relaybot.mail.imap import Fetched, Mailbox
from relaybot.outbox import Recipient, queue_mail
from relaybot.service import Arrival, process_mail
from relaybot.store.db import Store
from relaybot.store.models import ImapState, InboundFailure

log = logging.getLogger(__name__)

PROCESSED = "Processed"
QUARANTINE = "Quarantine"
MAX_ATTEMPTS = 3  # G3
STORE_RETRIES = (0.5, 1.0, 2.0, 4.0)
"""Pauses between retries of a mail whose transaction met a transient database error (T7)."""


@dataclass
class PollCounts:
    fetched: int = 0
    processed: int = 0
    failed: int = 0
    quarantined: int = 0
    vanished: int = 0
    outcomes: dict[str, int] | None = None

    def count(self, outcome: str) -> None:
        if self.outcomes is None:
            self.outcomes = {}
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def _note_uidvalidity(store: Store, folder: str, uidvalidity: int) -> None:
    """Persist UIDVALIDITY; a change is logged and handled by the Message-ID ledger (G8)."""
    with store.session() as session:
        state = session.get(ImapState, folder)
        if state is None:
            session.add(ImapState(folder=folder, uidvalidity=uidvalidity))
        elif state.uidvalidity != uidvalidity:
            log.warning("UIDVALIDITY of %s changed %s -> %s; re-syncing by Message-ID",
                        folder, state.uidvalidity, uidvalidity)
            state.uidvalidity = uidvalidity


def _failure(store: Store, folder: str, uidvalidity: int, uid: int, error: str) -> int:
    with store.session() as session:
        row = session.scalar(select(InboundFailure).where(
            InboundFailure.folder == folder, InboundFailure.uidvalidity == uidvalidity,
            InboundFailure.uid == uid))
        if row is None:
            row = InboundFailure(folder=folder, uidvalidity=uidvalidity, uid=uid, attempts=0,
                                 last_error="", quarantined=0)
            session.add(row)
        row.attempts += 1
        row.last_error = error[:2000]
        return row.attempts


def _quarantine_alert(session: Session, cfg: Config, folder: str, uidvalidity: int, uid: int,
                      error: str, now: datetime) -> None:
    from relaybot.mail.render import render

    subject, body = render(cfg.bot.language, "operator", "quarantine", folder=folder, uid=uid,
                           error=error[:2000])
    queue_mail(session, cfg, kind="quarantine", to=Recipient("TD", cfg.bot.td),
               subject=subject, body=body, now=now,
               dedupe_key=f"quarantine:{folder}:{uidvalidity}:{uid}")


def poll_once(
    store: Store, cfg: Config, mailbox: Mailbox, now: Callable[[], datetime]
) -> PollCounts:
    """Process every mail now in the folder, in UID order."""
    counts = PollCounts()
    folder = cfg.imap.folder
    uidvalidity = mailbox.uidvalidity
    _note_uidvalidity(store, folder, uidvalidity)
    uids = mailbox.pending_uids()
    heads = mailbox.heads(uids) if uids else {}  # every size first, in one round trip
    for uid in uids:
        crash_point("after_search")
        fetched = mailbox.fetch(uid, heads.get(uid))
        if fetched is None:
            counts.vanished += 1  # T5: another client expunged it; nothing to do
            continue
        counts.fetched += 1
        crash_point("after_fetch")
        _handle(store, cfg, mailbox, fetched, folder, uidvalidity, now, counts)
    return counts


def _handle(store: Store, cfg: Config, mailbox: Mailbox, fetched: Fetched, folder: str,
            uidvalidity: int, now: Callable[[], datetime], counts: PollCounts) -> None:
    uid = fetched.uid
    if fetched.too_big or fetched.raw is None:
        # G13: never download a huge mail; keep it, out of the way, for the operator
        _quarantine(store, cfg, mailbox, folder, uidvalidity, uid,
                    f"mail of {fetched.size} bytes is over the size cap", now(), counts)
        return
    arrival = Arrival(raw=fetched.raw, internaldate=fetched.internaldate, folder=folder,
                      uidvalidity=uidvalidity, uid=uid)
    try:
        outcome = _process_retrying(store, cfg, arrival, now)
    except Exception as exc:  # G3: one bad mail must never block the rest
        if transient(exc):
            raise  # T7: the database, not the mail; it stays in INBOX, uncounted
        log.exception("processing uid %s failed", uid)
        counts.failed += 1
        error = f"{type(exc).__name__}: {exc}"
        if _failure(store, folder, uidvalidity, uid, error) >= MAX_ATTEMPTS:
            _quarantine(store, cfg, mailbox, folder, uidvalidity, uid, error, now(), counts)
        return
    counts.processed += 1
    counts.count(outcome)
    mailbox.move(uid, PROCESSED)
    crash_point("after_move")


def transient(exc: BaseException) -> bool:
    """True for a database error that says nothing about the mail (T7).

    A locked SQLite file, a PostgreSQL backend that was terminated or restarted, a lost
    connection: the transaction was rolled back and doing it again may well succeed.
    Such errors must never count towards quarantine (G3 is for poison mail only).
    """
    if isinstance(exc, OperationalError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def _process_retrying(store: Store, cfg: Config, arrival: Arrival,
                      now: Callable[[], datetime]) -> str:
    """process_mail, retried after a rolled-back transaction on a transient error (T7)."""
    for pause in (*STORE_RETRIES, None):
        try:
            crash_point("process", arrival.raw)
            return process_mail(store, cfg, arrival, now())
        except Exception as exc:
            if pause is None or not transient(exc):
                raise
            log.warning("uid %s: database busy or gone (%s); rolled back, retrying in %.1f s",
                        arrival.uid, type(exc).__name__, pause)
            time.sleep(pause)
    raise AssertionError("unreachable")


def _quarantine(store: Store, cfg: Config, mailbox: Mailbox, folder: str, uidvalidity: int,
                uid: int, error: str, now: datetime, counts: PollCounts) -> None:
    with store.session() as session:
        _quarantine_alert(session, cfg, folder, uidvalidity, uid, error, now)
    mailbox.move(uid, QUARANTINE)
    counts.quarantined += 1
