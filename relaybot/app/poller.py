"""The IMAP side of the flow: fetch, process, commit, then MOVE (G1-G3, G8).

A mail leaves INBOX only after its transaction has committed: moved to
``Processed`` on success, or to ``Quarantine`` after three failed attempts
(the attempt count is committed apart from the mail's rolled-back work).
Mail is handled in batches: one transaction per batch, a savepoint per mail.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session

from relaybot.app.logs import event
from relaybot.app.service import Arrival, prefetch, process_in
from relaybot.club.key_rotation import note_rotation
from relaybot.config import Config
from relaybot.mail.imap import Mailbox
from relaybot.pipeline.effects import Mail, emit, to_td
from relaybot.store.claims import claim_uids, mailbox_key, release_uid
from relaybot.store.db import Store
from relaybot.store.faults import crash_point
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
    """Persist UIDVALIDITY; a change is logged and handled by the Message-ID ledger (G8).

    Two instances starting on a new database may both insert the folder's row: the
    loser's insert fails on the primary key and it reads the winner's row (G9).
    """
    try:
        _store_uidvalidity(store, folder, uidvalidity)
    except IntegrityError:
        _store_uidvalidity(store, folder, uidvalidity)


def _store_uidvalidity(store: Store, folder: str, uidvalidity: int) -> None:
    with store.session() as session:
        state = session.get(ImapState, folder)
        if state is None:
            session.add(ImapState(folder=folder, uidvalidity=uidvalidity))
        elif state.uidvalidity != uidvalidity:
            log.warning("UIDVALIDITY of %s changed %s -> %s; re-syncing by Message-ID",
                        folder, state.uidvalidity, uidvalidity)
            state.uidvalidity = uidvalidity


def _failure(session: Session, arrival: Arrival, error: str) -> int:
    """Count one failed attempt at a mail (G3), in the batch's transaction."""
    row = session.scalar(select(InboundFailure).where(
        InboundFailure.folder == arrival.folder,
        InboundFailure.uidvalidity == arrival.uidvalidity, InboundFailure.uid == arrival.uid))
    if row is None:
        row = InboundFailure(folder=arrival.folder, uidvalidity=arrival.uidvalidity,
                             uid=arrival.uid, attempts=0, last_error="", quarantined=0)
        session.add(row)
    row.attempts += 1
    row.last_error = error[:2000]
    return row.attempts


def _quarantine_alert(session: Session, cfg: Config, folder: str, uidvalidity: int, uid: int,
                      error: str, now: datetime) -> None:
    emit(session, cfg, Mail(
        kind="quarantine", audience="operator", to=to_td(cfg), lang=cfg.bot.language,
        context={"folder": folder, "uid": uid, "error": error[:2000]},
        dedupe_key=f"quarantine:{folder}:{uidvalidity}:{uid}"), now)


def poll_once(
    store: Store, cfg: Config, mailbox: Mailbox, now: Callable[[], datetime],
    committed: Callable[[], None] | None = None,
) -> PollCounts:
    """Process every mail now in the folder, in UID order.

    Mail is fetched, processed and committed in batches (one transaction for the batch,
    a savepoint per mail), then moved out of the folder with one MOVE per batch: the
    durable commit and the IMAP round trips are paid per batch, not per mail, and G1
    still holds, since nothing moves before the commit that records it.

    ``committed``: called right after each batch's commit, before its MOVE (the service
    wakes its outbox sender there, so the forward leaves while the MOVE is on the wire).
    """
    counts = PollCounts()
    folder = cfg.imap.folder
    uidvalidity = mailbox.uidvalidity
    _note_uidvalidity(store, folder, uidvalidity)
    if cfg.bot.secret_previous:  # the old key's 30 days start with its first poll
        note_rotation(store, cfg, now())
    uids, heads = mailbox.pending_heads()  # every UID and size first, in one round trip
    for batch in _batches(uids, heads):
        crash_point("after_search")
        bodies = mailbox.fetch_many(batch, heads)
        arrivals: list[Arrival] = []
        for uid in batch:
            fetched = bodies.get(uid) or mailbox.fetch(uid, heads.get(uid))
            if fetched is None:
                counts.vanished += 1  # RELIABILITY T5: another client expunged it
                continue
            counts.fetched += 1
            crash_point("after_fetch")
            if fetched.too_big or fetched.raw is None:
                # G13: never download a huge mail; keep it, out of the way, for the operator
                _quarantine(store, cfg, mailbox, folder, uidvalidity, uid,
                            f"mail of {fetched.size} bytes is over the size cap", now(), counts)
                continue
            arrivals.append(Arrival(raw=fetched.raw, internaldate=fetched.internaldate,
                                    folder=folder, uidvalidity=uidvalidity, uid=uid))
        if arrivals:
            done = _process_retrying(store, cfg, arrivals, now)
            if committed is not None:
                committed()
            _settle(mailbox, counts, done)
    return counts


BATCH_MAILS = 50
BATCH_BYTES = 8 * 1024 * 1024  # bodies held in memory at once (G13: bounded)


def _batches(uids: list[int], heads: dict[int, dict[bytes, Any]]) -> list[list[int]]:
    """UIDs in order, cut into batches of at most BATCH_MAILS mails and BATCH_BYTES."""
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for uid in uids:
        head = heads.get(uid)
        mail_size = int(head[b"RFC822.SIZE"]) if head is not None else 0
        if current and (len(current) >= BATCH_MAILS or size + mail_size > BATCH_BYTES):
            batches.append(current)
            current, size = [], 0
        current.append(uid)
        size += mail_size
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class _Done:
    """What became of one mail of a committed batch."""

    uid: int
    outcome: str | None  # None: processing raised
    quarantine: bool = False


def _settle(mailbox: Mailbox, counts: PollCounts, done: list[_Done]) -> None:
    """After the commit: count, then move the batch out of the folder (G1)."""
    processed = [d.uid for d in done if d.outcome is not None]
    quarantined = [d.uid for d in done if d.quarantine]
    for d in done:
        if d.outcome is not None:
            counts.processed += 1
            counts.count(d.outcome)
        else:
            counts.failed += 1
    counts.quarantined += len(quarantined)
    mailbox.move_many(processed, PROCESSED)
    mailbox.move_many(quarantined, QUARANTINE)
    if processed or quarantined:
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


def _process_retrying(store: Store, cfg: Config, arrivals: list[Arrival],
                      now: Callable[[], datetime]) -> list[_Done]:
    """A batch, retried whole after a rolled-back transaction on a transient error (T7)."""
    for pause in (*STORE_RETRIES, None):
        try:
            return _process_batch(store, cfg, arrivals, now)
        except Exception as exc:
            if pause is None or not transient(exc):
                raise
            log.warning("uids %s-%s: database busy or gone (%s); rolled back, retrying in "
                        "%.1f s", arrivals[0].uid, arrivals[-1].uid, type(exc).__name__, pause)
            time.sleep(pause)
    raise AssertionError("unreachable")


def _process_batch(store: Store, cfg: Config, arrivals: list[Arrival],
                   now: Callable[[], datetime]) -> list[_Done]:
    """One transaction for the batch; each mail in a savepoint, so a mail that raises
    (G3) takes back only its own work and is counted, and the rest commit."""
    done: list[_Done] = []
    lines: list[tuple[int, dict[str, Any]]] = []
    first = arrivals[0]
    with store.session() as session:
        # A write first: the transaction (and on SQLite the write lock) starts here, so
        # the savepoints below nest inside it and no other writer slips in between.
        session.execute(update(ImapState).where(ImapState.folder == first.folder)
                        .values(uidvalidity=first.uidvalidity))
        # G2/G9: claim the batch's UIDs before reading the ledger; a UID another instance
        # (or an earlier run) committed is skipped as a duplicate
        mailbox = mailbox_key(cfg.imap.user, cfg.imap.host)
        claimed = claim_uids(session, mailbox, first.folder, first.uidvalidity,
                             [a.uid for a in arrivals], datetime.now(UTC))
        batch = prefetch(session, cfg, arrivals)
        batch.seen_uids |= {a.uid for a in arrivals} - claimed
        for arrival in arrivals:
            started = time.monotonic()
            try:
                with session.begin_nested():
                    crash_point("process", arrival.raw)
                    outcome = process_in(session, cfg, arrival, now(), batch)
            except Exception as exc:  # G3: one bad mail must never block the rest
                if transient(exc):
                    raise  # T7: the database, not the mail: the whole batch again, uncounted
                batch.release(arrival.uid)
                if arrival.uid in claimed:  # tried again later, here or by another instance
                    release_uid(session, mailbox, arrival.folder, arrival.uidvalidity,
                                arrival.uid)
                log.exception("processing uid %s failed", arrival.uid)
                error = f"{type(exc).__name__}: {exc}"
                attempts = _failure(session, arrival, error)
                if attempts >= MAX_ATTEMPTS:
                    _quarantine_alert(session, cfg, arrival.folder, arrival.uidvalidity,
                                      arrival.uid, error, now())
                sender, game = batch.logged.pop(arrival.uid, (None, None))
                lines.append((logging.WARNING, {
                    "uid": arrival.uid,
                    "outcome": "quarantined" if attempts >= MAX_ATTEMPTS else "failed",
                    "game": game, "sender": sender, "attempts": attempts,
                    "ms": _ms(started), "error": error[:300]}))
                done.append(_Done(arrival.uid, None, quarantine=attempts >= MAX_ATTEMPTS))
                continue
            sender, game = batch.logged.pop(arrival.uid, (None, None))
            lines.append((logging.INFO, {"uid": arrival.uid, "outcome": outcome, "game": game,
                                         "sender": sender, "ms": _ms(started)}))
            done.append(_Done(arrival.uid, outcome))
        crash_point("before_commit")
    crash_point("after_commit")
    # one line per mail, once its work is committed (a batch retried after a transient
    # error is not logged twice)
    for level, fields in lines:
        event(log, "inbound", level, **fields)
    return done


def _ms(started: float) -> float:
    """Milliseconds since ``started`` (time.monotonic), for the log line."""
    return round((time.monotonic() - started) * 1000, 1)


def _quarantine(store: Store, cfg: Config, mailbox: Mailbox, folder: str, uidvalidity: int,
                uid: int, error: str, now: datetime, counts: PollCounts) -> None:
    with store.session() as session:
        _quarantine_alert(session, cfg, folder, uidvalidity, uid, error, now)
    mailbox.move(uid, QUARANTINE)
    event(log, "inbound", logging.WARNING, uid=uid, outcome="quarantined", game=None,
          sender=None, error=error)
    counts.quarantined += 1
