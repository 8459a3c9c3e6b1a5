"""The transactional outbox (G4, G5): queue with the state change, send afterwards.

A row's Message-ID is fixed when it is queued, so a resend after a crash between
the SMTP 250 and marking the row sent is recognisably the same mail.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import aiosmtplib
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.faults import crash_point
from relaybot.logs import event
from relaybot.mail.smtp import SendResult, SmtpSender
from relaybot.pipeline.effects import Mail, emit, to_td
from relaybot.store.db import Store
from relaybot.store.models import Outbox

log = logging.getLogger(__name__)

GIVE_UP_AFTER = timedelta(days=5)  # G5
MARK_BATCH = 20
FIRST_RETRY = timedelta(minutes=2)
MAX_RETRY = timedelta(hours=4)
BOUNCE_WINDOW = timedelta(days=30)  # G6: permanent bounces per member counted over this
BOUNCE_ESCALATE = 3  # ... and every this many the TD is told (never a forfeit)


def _backoff(attempts: int) -> timedelta:
    return min(FIRST_RETRY * (1 << max(0, attempts - 1)), MAX_RETRY)


# (row id, envelope sender, recipient, raw message, kind, game id)
_Work = tuple[int, str, str, bytes, str, str | None]


@dataclass
class SendCounts:
    sent: int = 0
    retried: int = 0
    bounced: int = 0
    failed: int = 0
    unreachable: int = 0  # connections to the SMTP server that failed (run --once exit code)
    error: str = ""  # the last such failure, for the operator


# One sender per process at a time: the service's periodic outbox job and its send after
# a poll run in different threads and could otherwise pick the same pending rows (G4).
_SENDING = threading.Lock()


def send_pending(store: Store, cfg: Config, now: datetime, *, limit: int = 500,
                 progress: Callable[[int, int], None] | None = None) -> SendCounts:
    """Send every due outbox row once; record retries, bounces and give-ups.

    ``progress(done, total)``: called after each row is tried (for a progress bar).
    """
    with _SENDING:
        return asyncio.run(_send_pending(store, cfg, now, limit, progress))


async def _send_pending(store: Store, cfg: Config, now: datetime, limit: int,
                        progress: Callable[[int, int], None] | None = None) -> SendCounts:
    counts = SendCounts()
    with store.session() as session:
        work: list[_Work] = [tuple(r) for r in session.execute(  # type: ignore[misc]
            select(Outbox.id, Outbox.envelope_from, Outbox.recipient, Outbox.raw, Outbox.kind,
                   Outbox.game_id)
            # never tried: due at once, whatever clock queued it; retries wait their backoff
            .where(Outbox.status == "pending",
                   or_(Outbox.attempts == 0, Outbox.next_attempt_at <= now))
            .order_by(Outbox.id)
            .limit(limit)
        )]
    if not work:
        return counts
    # Several connections at once: the server's round trips overlap. A recipient's mail
    # always takes the same lane, so each member still gets their mail in queue order.
    lanes: list[list[_Work]] = [[] for _ in range(max(1, min(cfg.smtp.connections, len(work))))]
    for item in work:
        lanes[zlib.crc32(item[2].lower().encode()) % len(lanes)].append(item)
    marks = _Marks(store, now, counts)
    if progress is not None:
        total, tried = len(work), [0]

        def step() -> None:
            tried[0] += 1
            progress(tried[0], total)

        marks.step = step
    try:
        results = await asyncio.gather(
            *(_send_lane(store, cfg, now, lane, marks) for lane in lanes if lane),
            return_exceptions=True)
    finally:
        # G4: a crash before this point resends these rows, with the same Message-IDs
        await marks.drain()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return counts


class _Marks:
    """Rows the server accepted, marked sent MARK_BATCH at a time in a worker thread:
    the lanes keep sending while a mark waits for the database (another writer)."""

    def __init__(self, store: Store, now: datetime, counts: SendCounts) -> None:
        self.store, self.now, self.counts = store, now, counts
        self.rows: list[int] = []
        self.task: asyncio.Future[None] | None = None
        self.step: Callable[[], None] = lambda: None  # one row tried (progress)

    def note(self, row_id: int) -> None:
        self.rows.append(row_id)
        if len(self.rows) >= MARK_BATCH and (self.task is None or self.task.done()):
            if self.task is not None:
                self.task.result()  # a failed mark surfaces here, not silently
            batch, self.rows = self.rows, []
            self.task = asyncio.ensure_future(
                asyncio.to_thread(_mark_sent, self.store, batch, self.now, self.counts))

    async def drain(self) -> None:
        """Wait for the mark in flight, then mark the rest."""
        if self.task is not None:
            await self.task
            self.task = None
        _mark_sent(self.store, self.rows, self.now, self.counts)


async def _send_lane(store: Store, cfg: Config, now: datetime, work: list[_Work],
                     marks: _Marks) -> None:
    """Send one lane's rows in order over one connection, reconnecting after a drop."""
    sender: SmtpSender | None = None
    try:
        for row_id, envelope_from, recipient, raw, kind, game_id in work:
            marks.step()
            started = time.monotonic()
            try:
                if sender is None:
                    try:
                        sender = await SmtpSender(cfg.smtp).__aenter__()
                    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                        marks.counts.unreachable += 1
                        marks.counts.error = f"{type(exc).__name__}: {exc}"
                        raise
                result = await sender.send(envelope_from, recipient, raw)
            except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                result = SendResult("temporary", f"{type(exc).__name__}: {exc}")
                if sender is not None:
                    await _drop(sender)
                    sender = None
            if result.status != "ok" and sender is not None and not sender.connected:
                await _drop(sender)  # 421 hung up: the next row gets a new connection
                sender = None
            if result.status == "ok":
                crash_point("after_smtp_250")
                marks.note(row_id)
                event(log, "outbound", id=row_id, status="sent", kind=kind, game=game_id,
                      to=recipient, ms=round((time.monotonic() - started) * 1000, 1))
                continue
            status = _record(store, cfg, row_id, result, now, marks.counts)
            event(log, "outbound", logging.WARNING, id=row_id, status=status, kind=kind,
                  game=game_id, to=recipient, ms=round((time.monotonic() - started) * 1000, 1),
                  reply=result.detail[:300])
    finally:
        if sender is not None:
            await _drop(sender)


def _mark_sent(store: Store, row_ids: list[int], now: datetime, counts: SendCounts) -> None:
    """Mark accepted rows sent, a batch per commit (one commit per mail was the bottleneck)."""
    if not row_ids:
        return
    with store.session() as session:
        session.execute(
            update(Outbox).where(Outbox.id.in_(row_ids))
            .values(status="sent", sent_at=now, attempts=Outbox.attempts + 1, last_error="")
        )
    counts.sent += len(row_ids)
    row_ids.clear()
    crash_point("after_mark_sent")


async def _drop(sender: SmtpSender) -> None:
    try:
        await sender.__aexit__(None, None, None)
    except Exception:  # the connection is being thrown away either way
        log.debug("closing SMTP connection failed", exc_info=True)


def _record(
    store: Store, cfg: Config, row_id: int, result: SendResult, now: datetime, counts: SendCounts
) -> str:
    """A failed attempt recorded; returns what became of the row: bounced, failed
    (given up) or retry."""
    with store.session() as session:
        row = session.get(Outbox, row_id)
        if row is None:
            return "gone"
        row.attempts += 1
        row.last_error = result.detail[:1000]
        if result.status == "permanent":
            row.status = "bounced"
            counts.bounced += 1
            _tell_td(session, cfg, row, now, "bounced")
            note_bounce(session, cfg, row, now)
            return "bounced"
        if now - row.created_at >= GIVE_UP_AFTER:
            row.status = "failed"
            counts.failed += 1
            _tell_td(session, cfg, row, now, "gave_up")
            return "failed"
        row.next_attempt_at = now + _backoff(row.attempts)
        counts.retried += 1
        return "retry"


def _tell_td(session: Session, cfg: Config, row: Outbox, now: datetime, why: str) -> None:
    """One notice to the TD about mail that could not be delivered (G5)."""
    if row.kind == "td_delivery" or row.recipient == cfg.bot.td:
        return  # never notify about the notices themselves
    emit(session, cfg, Mail(
        kind="td_delivery", template="delivery", audience="td", to=to_td(cfg),
        lang=cfg.bot.language, game_id=row.game_id, dedupe_key=f"delivery:{row.id}",
        context={"why": why, "recipient": row.recipient, "kind": row.kind,
                 "game_id": row.game_id, "message_id": row.message_id,
                 "detail": row.last_error, "bounces": 0, "window": BOUNCE_WINDOW.days}), now)


def note_bounce(session: Session, cfg: Config, row: Outbox, now: datetime) -> int:
    """Count a permanent bounce against the row's member (G6); escalate to the TD.

    Call after setting ``row.status = "bounced"`` (SMTP 5xx here; a VERP delivery
    report in service._bounce). Every ``BOUNCE_ESCALATE`` bounces within
    ``BOUNCE_WINDOW`` the TD gets one notice; a game is never forfeited for it.
    Returns the member's count (0 for mail to no member).
    """
    if row.member_id is None:
        return 0
    session.flush()
    count = len(session.scalars(select(Outbox.id).where(
        Outbox.member_id == row.member_id, Outbox.status == "bounced",
        Outbox.created_at >= now - BOUNCE_WINDOW)).all())
    if count < BOUNCE_ESCALATE or count % BOUNCE_ESCALATE:
        return count
    emit(session, cfg, Mail(
        kind="td_bounces", template="delivery", audience="td", to=to_td(cfg),
        lang=cfg.bot.language, dedupe_key=f"bounces:{row.member_id}:{count // BOUNCE_ESCALATE}",
        context={"why": "bounced", "recipient": row.recipient, "kind": row.kind,
                 "game_id": row.game_id, "message_id": row.message_id,
                 "detail": row.last_error, "bounces": count,
                 "window": BOUNCE_WINDOW.days}), now)
    return count
