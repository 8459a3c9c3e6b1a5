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
from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import Session

from relaybot.app.logs import event
from relaybot.config import Config
from relaybot.mail.smtp import SendResult, SmtpSender
from relaybot.pipeline.bounces import BOUNCE_WINDOW, note_bounce
from relaybot.pipeline.effects import Mail, emit, to_td
from relaybot.store.db import Store
from relaybot.store.faults import crash_point
from relaybot.store.models import Outbox

log = logging.getLogger(__name__)

GIVE_UP_AFTER = timedelta(days=5)  # G5
MARK_BATCH = 20  # rows claimed, sent and marked per transaction
FIRST_RETRY = timedelta(minutes=2)
MAX_RETRY = timedelta(hours=4)

KEEP_SECONDS = 30.0
"""``relaybot run`` closes an SMTP connection unused this long (a server drops an idle
one after a few minutes; mail comes in bursts: a forward and a receipt, a round)."""
WARM_PAUSE = 60.0
"""After a warm-up could not connect, warm-ups wait this long (sends do not)."""
CHECK_AFTER = 2.0
"""A kept connection unused longer than this is checked (NOOP) before it carries mail, so
one the server closed meanwhile is replaced instead of failing a send."""
QUIT_SECONDS = 5.0
"""How long a QUIT may wait for its answer: a connection being thrown away (after a
failure, idle, at a stop) never holds the sender up for the whole SMTP timeout."""


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
# Between processes (several instances on one PostgreSQL, G9) the row claims do it.
_SENDING = threading.Lock()


def send_pending(store: Store, cfg: Config, now: datetime, *, limit: int = 500,
                 progress: Callable[[int, int], None] | None = None) -> SendCounts:
    """Send every due outbox row once; record retries, bounces and give-ups.

    ``progress(done, total)``: called after each row is tried (for a progress bar).
    """
    with _SENDING:
        return asyncio.run(_send_pending(store, cfg, now, limit, progress))


def _due(now: datetime) -> ColumnElement[bool]:
    # never tried: due at once, whatever clock queued it; retries wait their backoff
    return and_(Outbox.status == "pending",
                or_(Outbox.attempts == 0, Outbox.next_attempt_at <= now))


async def _send_pending(store: Store, cfg: Config, now: datetime, limit: int,
                        progress: Callable[[int, int], None] | None = None,
                        kept: _Lanes | None = None) -> SendCounts:
    """Claim due rows MARK_BATCH at a time, send them, record the outcome, commit.

    ``kept``: connections kept open by the caller (:class:`KeptConnections`), used and
    left open; without it the connections are opened here and closed at the end.

    The claim is ``SELECT ... FOR UPDATE SKIP LOCKED`` (G9): on PostgreSQL the rows stay
    locked by this transaction while they are sent and until they are marked, so another
    instance takes the next free rows instead; if this process dies, its connection
    closes, the locks go with it and the rows are free again (resent with the same
    Message-ID: G4 allows that only between the SMTP 250 and this commit). SQLite has
    one instance and no row locks; nothing is written there while mail is on the wire,
    so the poller is never kept waiting for the write lock.
    """
    counts = SendCounts()
    total = 0
    with store.session() as session:
        # the rows queued so far: what this call's own notices queue waits for the next
        last = session.scalar(select(func.max(Outbox.id))) or 0
        if progress is not None:
            total = min(limit, session.scalar(
                select(func.count()).select_from(Outbox).where(_due(now))) or 0)
    lanes = kept or _Lanes(cfg)
    lanes.begin(counts, progress, total)
    tried = 0
    try:
        while tried < limit:
            with store.session() as session:
                work: list[_Work] = [tuple(r) for r in session.execute(  # type: ignore[misc]
                    select(Outbox.id, Outbox.envelope_from, Outbox.recipient, Outbox.raw,
                           Outbox.kind, Outbox.game_id)
                    .where(_due(now), Outbox.id <= last)
                    .order_by(Outbox.id)
                    .limit(min(MARK_BATCH, limit - tried))
                    .with_for_update(skip_locked=True)
                )]
                if not work:
                    break
                results = await lanes.send(work)
                sent = [item[0] for item, result, _ms in results if result.status == "ok"]
                if sent:
                    session.execute(
                        update(Outbox).where(Outbox.id.in_(sent))
                        .values(status="sent", sent_at=now, attempts=Outbox.attempts + 1,
                                last_error=""))
                statuses = {item[0]: _record_in(session, cfg, item[0], result, now, counts)
                            for item, result, _ms in results if result.status != "ok"}
            # committed: G4, a crash before this point resends these rows, same Message-IDs
            counts.sent += len(sent)
            tried += len(work)
            for (row_id, _env, recipient, _raw, kind, game_id), result, ms in results:
                if result.status == "ok":
                    event(log, "outbound", id=row_id, status="sent", kind=kind, game=game_id,
                          to=recipient, ms=ms)
                else:
                    event(log, "outbound", logging.WARNING, id=row_id,
                          status=statuses[row_id], kind=kind, game=game_id, to=recipient,
                          ms=ms, reply=result.detail[:300])
            if sent:
                crash_point("after_mark_sent")
    finally:
        if kept is None:
            await lanes.close()
    return counts


class _Lanes:
    """Several SMTP connections at once, kept open from one claimed batch to the next:
    the server's round trips overlap. A recipient's mail always takes the same lane, so
    each member still gets their mail in queue order."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.senders: list[SmtpSender | None] = [None] * max(1, cfg.smtp.connections)
        # when each lane's connection was last known to work (time.monotonic)
        self.used: list[float] = [0.0] * len(self.senders)
        self.warm_failed = -WARM_PAUSE  # when a warm-up last could not connect
        self.begin(SendCounts(), None, 0)

    def begin(self, counts: SendCounts, progress: Callable[[int, int], None] | None,
              total: int) -> None:
        """Count into ``counts`` from now on (one ``send_pending`` call)."""
        self.counts, self.progress, self.total, self.tried = counts, progress, total, 0

    async def send(self, work: list[_Work]) -> list[tuple[_Work, SendResult, float]]:
        """Send a claimed batch; returns each row with its result and milliseconds."""
        lanes: list[list[_Work]] = [[] for _ in self.senders]
        for item in work:
            lanes[zlib.crc32(item[2].lower().encode()) % len(lanes)].append(item)
        done = await asyncio.gather(*(self._lane(i, lane) for i, lane in enumerate(lanes)))
        results = [r for lane_results in done for r in lane_results]
        return sorted(results, key=lambda r: r[0][0])

    async def _lane(self, index: int, work: list[_Work]) -> list[tuple[_Work, SendResult,
                                                                       float]]:
        """One lane's rows in order over its connection, reconnecting after a drop."""
        results: list[tuple[_Work, SendResult, float]] = []
        for item in work:
            self.tried += 1
            if self.progress is not None:
                self.progress(self.tried, max(self.total, self.tried))
            started = time.monotonic()
            sender = await self._checked(index)
            try:
                if sender is None:
                    try:
                        sender = await SmtpSender(self.cfg.smtp).__aenter__()
                    except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                        self.counts.unreachable += 1
                        self.counts.error = f"{type(exc).__name__}: {exc}"
                        raise
                    self.senders[index] = sender
                result = await sender.send(item[1], item[2], item[3])
            except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
                result = SendResult("temporary", f"{type(exc).__name__}: {exc}")
                await self._drop(index)
            if result.status != "ok" and sender is not None and not sender.connected:
                await self._drop(index)  # 421 hung up: the next row gets a new connection
            if result.status == "ok":
                crash_point("after_smtp_250")
            if self.senders[index] is not None:
                self.used[index] = time.monotonic()
            results.append((item, result, round((time.monotonic() - started) * 1000, 1)))
        return results

    async def warm(self) -> None:
        """Every lane connected and known to work: connect the missing ones, check (NOOP)
        the ones idle for more than :data:`CHECK_AFTER`. Failures are left for the send
        to meet, count and report."""
        if time.monotonic() - self.warm_failed < WARM_PAUSE:
            return
        await asyncio.gather(*(self._warm(i) for i in range(len(self.senders))))

    async def _checked(self, index: int) -> SmtpSender | None:
        """The lane's open connection if it still works: one unused for more than
        :data:`CHECK_AFTER` is checked with NOOP first, and dropped when it does not
        answer (kept open, then closed by the server); None when there is none."""
        sender = self.senders[index]
        if sender is not None and time.monotonic() - self.used[index] > CHECK_AFTER \
                and not await sender.alive():
            await self._drop(index)
            return None
        return sender

    async def _warm(self, index: int) -> None:
        if await self._checked(index) is not None:
            self.used[index] = time.monotonic()
            return
        try:
            self.senders[index] = await SmtpSender(self.cfg.smtp).__aenter__()
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            # the send will meet it again, and count it; no more warm-ups for a while,
            # so a server that is away does not cost each mail two connection attempts
            self.warm_failed = time.monotonic()
            log.debug("SMTP warm-up: %s: %s", type(exc).__name__, exc)
            return
        self.used[index] = time.monotonic()

    def idle_for(self) -> float | None:
        """Seconds since the lane used longest ago was used; None when none is open."""
        times = [u for s, u in zip(self.senders, self.used, strict=True) if s is not None]
        return time.monotonic() - min(times) if times else None

    async def close_idle(self, seconds: float) -> None:
        """Close the connections unused for ``seconds`` or more."""
        now = time.monotonic()
        for index, sender in enumerate(self.senders):
            if sender is not None and now - self.used[index] >= seconds:
                await self._drop(index)

    async def _drop(self, index: int) -> None:
        sender, self.senders[index] = self.senders[index], None
        if sender is not None:
            await _drop(sender)

    async def close(self) -> None:
        """Close every connection still open."""
        for index in range(len(self.senders)):
            await self._drop(index)


class KeptConnections:
    """The outbox sender of ``relaybot run``: one event loop of its own and the SMTP
    connections kept open between sends (issue 29: connect and EHLO, and on a real server
    TLS and AUTH, were paid for every forward).

    Used from one thread (the service's sender thread). :meth:`warm` connects ahead of a
    send, while the poller is still processing the mail; :meth:`close_idle` closes what
    has not been used for :data:`KEEP_SECONDS`. What is sent, retried and counted is
    exactly :func:`send_pending`'s.
    """

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self._loop = asyncio.new_event_loop()
        self._lanes = _Lanes(cfg)

    def send_pending(self, store: Store, now: datetime, *, limit: int = 500) -> SendCounts:
        """As :func:`send_pending`, over the kept connections."""
        with _SENDING:
            return self._loop.run_until_complete(
                _send_pending(store, self.cfg, now, limit, None, self._lanes))

    def warm(self) -> None:
        """Open (or check) every lane's connection now, so the next send need not."""
        with _SENDING:
            self._loop.run_until_complete(self._lanes.warm())

    def close_in(self) -> float | None:
        """Seconds until an idle connection is due to be closed; None when none is open."""
        idle = self._lanes.idle_for()
        return None if idle is None else max(0.0, KEEP_SECONDS - idle)

    def close_idle(self) -> None:
        """Close the connections unused for :data:`KEEP_SECONDS`."""
        with _SENDING:
            self._loop.run_until_complete(self._lanes.close_idle(KEEP_SECONDS))

    def close(self) -> None:
        """Close every connection (QUIT) and the event loop."""
        with _SENDING:
            try:
                self._loop.run_until_complete(self._lanes.close())
            finally:
                self._loop.close()


async def _drop(sender: SmtpSender) -> None:
    try:
        await sender.quit(QUIT_SECONDS)
    except Exception:  # the connection is being thrown away either way
        log.debug("closing SMTP connection failed", exc_info=True)


def _record(
    store: Store, cfg: Config, row_id: int, result: SendResult, now: datetime, counts: SendCounts
) -> str:
    """A failed attempt recorded in a transaction of its own (see :func:`_record_in`)."""
    with store.session() as session:
        return _record_in(session, cfg, row_id, result, now, counts)


def _record_in(
    session: Session, cfg: Config, row_id: int, result: SendResult, now: datetime,
    counts: SendCounts,
) -> str:
    """A failed attempt recorded in the claim's transaction; returns what became of the
    row: bounced, failed (given up) or retry."""
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
