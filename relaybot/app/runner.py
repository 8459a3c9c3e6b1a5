"""The service loop: IMAP (IDLE with a polling backstop), the outbox and the scheduler.

``run_once`` is one full cycle (fetch and process all new mail, run scheduled
work due as of ``now``, send the outbox). ``run`` repeats it until SIGTERM,
waking on IMAP IDLE, with APScheduler triggering the periodic sweep.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from relaybot.app.digest import send_digests
from relaybot.app.logs import event
from relaybot.app.outbox import KeptConnections, SendCounts, send_pending
from relaybot.app.poller import PollCounts, poll_once, transient
from relaybot.app.sweep import sweep
from relaybot.app.wake import PushBudget, WakeListener, Wakeup
from relaybot.app.warmup import start_warm_up
from relaybot.config import Config, ConfigError
from relaybot.mail.imap import ImapError, ImapSettings, Mailbox
from relaybot.store.db import Store
from relaybot.store.locks import InstanceLock, LockHeld

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


def imap_settings(cfg: Config) -> ImapSettings:
    i = cfg.imap
    return ImapSettings(host=i.host, port=i.port, user=i.user, password=i.password, tls=i.tls,
                        folder=i.folder, timeout=60.0, oauth2_command=i.oauth2_command)


@dataclass
class CycleReport:
    poll: PollCounts = field(default_factory=PollCounts)
    send: SendCounts = field(default_factory=SendCounts)
    scheduled: int = 0


def run_scheduled(store: Store, cfg: Config, now: datetime) -> int:
    """Scheduled work due at ``now`` (reminders, escalations, digests); returns rows queued."""
    return sweep(store, cfg, now) + send_digests(store, cfg, now)


def run_once(store: Store, cfg: Config, now: datetime | None = None,
             mailbox: Mailbox | None = None, *, scheduled: bool = True) -> CycleReport:
    """One full cycle. ``now`` replaces the clock for the whole run: the mail processed
    (what its replies count), the scheduled work and the retry backoff; arrival times
    always come from INTERNALDATE (INTERFACE.md).

    ``scheduled=False``: leave the scheduled work to the leader (another instance on the
    same PostgreSQL, G9)."""
    report = CycleReport()
    own = mailbox is None
    box = mailbox or Mailbox(imap_settings(cfg), max_size=cfg.imap.max_size)
    clock = utcnow if now is None else (lambda: now)
    try:
        if own:
            box.connect()
        report.poll = poll_once(store, cfg, box, clock)
    finally:
        if own:
            box.close()
    if scheduled:
        report.scheduled = run_scheduled(store, cfg, now or utcnow())
    report.send = send_pending(store, cfg, now or utcnow())
    return report


class _Stopped(Exception):
    """Raised by the signal handler to end an IDLE at once."""


class Service:
    """``relaybot run``: until SIGTERM/SIGINT."""

    def __init__(self, store: Store, cfg: Config, alive_file: Path | None = None) -> None:
        self.store = store
        self.cfg = cfg
        # touched with every good heartbeat: a container health check reads its age
        self.alive_file = alive_file
        self.stop = threading.Event()
        self.wake = threading.Event()
        # set when a transaction that queued mail has committed: the sender thread sends
        # at once (issue 29: the forward leaves while the poller moves the mail away)
        self.outgoing = threading.Event()
        # set with ``outgoing`` when a poll starts on news of mail: the sender thread
        # opens its SMTP connections while the mail is processed
        self.warm = threading.Event()
        # the mail server's push ([imap] wake_listen): raised by the listener's thread,
        # watched beside IDLE; None when no listener is configured
        self.wakeup: Wakeup | None = None
        self._listener: WakeListener | None = None
        self._budget = PushBudget()
        self._idling = False
        self._lock: InstanceLock | None = None
        self._scheduler: Any = None

    def listen(self) -> None:
        """Bind the wake listener of ``[imap] wake_listen``, if set (before the service
        says it serves, so a port in use is one line and exit 2, not a silent loss).

        Raises :class:`ConfigError` when the address cannot be listened on.
        """
        address = self.cfg.imap.wake_address()
        if address is None or self._listener is not None:
            return
        wakeup = Wakeup()
        try:
            self._listener = WakeListener(address, wakeup.set)
        except OSError as exc:
            wakeup.close()
            raise ConfigError(f"imap.wake_listen = {self.cfg.imap.wake_listen}: cannot listen "
                              f"there: {exc.strerror or exc}") from None
        self.wakeup = wakeup
        host, port = self._listener.address
        log.info("listening for the mail server's wake-up on %s:%s (POST /wake)", host, port)

    def _signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("signal %s: stopping", signum)
        self.stop.set()
        self.wake.set()
        self.outgoing.set()
        if self._idling:
            # The main thread sits in IDLE's select(), which PEP 475 restarts after a
            # signal: without this, SIGTERM would wait out the whole poll interval.
            # Raised only while idling, never in the middle of a transaction.
            self._idling = False
            raise _Stopped

    def install_signals(self) -> None:
        """Take SIGTERM and SIGINT as "stop" from now on (main thread only). The command
        line calls it before it says it serves: a supervisor that stops the service as
        soon as it reads that line must find the handler in place."""
        signal.signal(signal.SIGTERM, self._signal)
        signal.signal(signal.SIGINT, self._signal)

    def run(self, lock: InstanceLock) -> None:
        """Serve until stopped; the caller holds ``lock``."""
        self.install_signals()
        from apscheduler.schedulers.background import BackgroundScheduler  # type: ignore[import-untyped]

        self._lock = lock
        scheduler = self._scheduler = BackgroundScheduler(timezone="UTC")
        # G10: APScheduler only triggers; deadlines and keys live in the database.
        opts = {"coalesce": True, "max_instances": 1, "misfire_grace_time": None}
        # G9: only the leader runs it; a new leader runs it at once (catching up)
        first = utcnow() if lock.leader else None
        scheduler.add_job(self._scheduled, "interval", minutes=5, id="sweep",
                          next_run_time=first, **opts)
        # mail left pending by a stop or a crash goes out at once, not 30 s later; the job
        # only wakes the sender thread, so one thread of this process sends the outbox
        # (two at once could both claim SQLite's rows, which have no row locks)
        scheduler.add_job(self.outgoing.set, "interval", seconds=30, id="outbox",
                          next_run_time=utcnow(), **opts)
        scheduler.add_job(self._heartbeat, "interval", seconds=30, id="heartbeat",
                          args=[lock], **opts)
        # G9: a follower tries to take the leadership over once per poll interval
        scheduler.add_job(self._lead, "interval", id="lead",
                          seconds=max(1, min(self.cfg.imap.poll_seconds, 290)), **opts)
        scheduler.start()
        self._alive()
        start_warm_up()  # templates and pictures made ready while IDLE waits for mail
        sender = threading.Thread(target=self._sender, name="relaybot-sender")
        sender.start()
        try:
            self.listen()
            if self._listener is not None:
                self._listener.start()
            self._imap_loop()
        finally:
            self.stop.set()
            self.outgoing.set()
            if self._listener is not None:
                self._listener.close()
            if self.wakeup is not None:
                self.wakeup.close()
            sender.join()
            scheduler.shutdown(wait=True)

    def _sender(self) -> None:
        """Send the outbox each time a commit queued mail (``outgoing``), until stopped.

        The event is cleared before sending, so a commit during a send is sent right
        after it: nothing waits for the 30-second outbox job. The SMTP connections stay
        open between sends for a while (:class:`KeptConnections`) and are opened ahead
        of a send when a poll starts on news of mail (``warm``)."""
        connections = KeptConnections(self.cfg)
        try:
            while True:
                if not self.outgoing.wait(connections.close_in()):
                    connections.close_idle()  # nothing to send for a while
                    continue
                self.outgoing.clear()
                if self.stop.is_set():
                    return
                if self.warm.is_set():
                    self.warm.clear()
                    self._guarded(connections.warm, "opening the SMTP connections")
                self._send(connections)
        finally:
            self._guarded(connections.close, "closing the SMTP connections")

    def _heartbeat(self, lock: InstanceLock) -> None:
        try:
            lock.heartbeat()
        except LockHeld as exc:  # G9: never run on without the lock
            log.error("%s", exc)
            self.stop.set()
            self.wake.set()
            return
        except Exception as exc:  # the database is away: not alive, but keep trying
            log.warning("heartbeat: %s", type(exc).__name__)
            return
        self._alive()

    def _alive(self) -> None:
        """Touch the alive file (``relaybot run --alive-file``), if any."""
        if self.alive_file is None:
            return
        try:
            self.alive_file.touch()
        except OSError as exc:
            log.warning("cannot touch %s: %s", self.alive_file, exc.strerror)

    def _lead(self) -> None:
        """Take the leadership over if it is free; the new leader sweeps at once."""
        if self._lock is None or self._lock.leader:
            return
        if self._lock.lead() and self._scheduler is not None:
            self._scheduler.modify_job("sweep", next_run_time=utcnow())

    def _scheduled(self) -> None:
        if self._lock is not None and not self._lock.lead():
            return  # G9: another instance leads and runs it
        try:
            if run_scheduled(self.store, self.cfg, utcnow()):
                self.outgoing.set()
        except Exception:
            log.exception("scheduled sweep failed")

    def _send(self, connections: KeptConnections) -> None:
        try:
            connections.send_pending(self.store, utcnow())
        except Exception:
            log.exception("sending the outbox failed")

    @staticmethod
    def _guarded(action: Callable[[], None], what: str) -> None:
        """``action()``; a failure is logged, never the end of the sender thread."""
        try:
            action()
        except Exception:
            log.exception("%s failed", what)

    def _wait(self, box: Mailbox, seconds: float) -> str:
        """IDLE until new mail is reported (``news``), the mail server's push wakes the
        service (``push``) or ``seconds`` pass (``timeout``): what starts the next poll.

        A push over :class:`PushBudget` waits for its turn, IDLE-ing without the wake
        meanwhile: a flood of wakes is held to the budget's polls a second, and the wake
        that is pending is served, never dropped.
        """
        if self.wakeup is None:
            return "news" if box.wait(seconds) else "timeout"
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            hold = self._budget.delay()
            if hold > 0 and self.wakeup.is_set():
                # over the budget: IDLE without the wake until a poll may start (news of
                # mail meanwhile starts the waiting push's poll at once)
                if box.watch(min(hold, left)) != "news":
                    continue
            else:
                woke = box.watch(left, self.wakeup)
                if woke != "interrupt":
                    return woke
            self._budget.spend()
            return "push"
        return "timeout"

    def _imap_loop(self) -> None:
        backoff = 1.0
        while not self.stop.is_set():
            box = Mailbox(imap_settings(self.cfg), max_size=self.cfg.imap.max_size)
            try:
                box.connect()
                backoff = 1.0
                woke = "connect"
                while not self.stop.is_set():
                    # when the bot starts looking (bench.latency splits a move's latency
                    # here: the server's notice before it, the bot's own work after it)
                    event(log, "poll", logging.DEBUG, after=woke)
                    if self.wakeup is not None:
                        # wakes so far are for mail this poll's look will see: one poll
                        self.wakeup.take()
                    counts = poll_once(self.store, self.cfg, box, utcnow,
                                       committed=self.outgoing.set)
                    if counts.quarantined:  # a quarantine alert commits on its own
                        self.outgoing.set()
                    # IDLE, renewed by the poll interval: the poll is the backstop
                    self._idling = not self.stop.is_set()
                    try:
                        if self._idling:
                            woke = self._wait(box, min(float(self.cfg.imap.poll_seconds),
                                                       290.0))
                    finally:
                        self._idling = False
                    if woke in ("push", "news"):
                        # mail is (most likely) in: SMTP connects while it is processed
                        self.warm.set()
                        self.outgoing.set()
            except _Stopped:
                log.info("IDLE ended by the stop signal")
            except ImapError as exc:
                log.warning("IMAP: %s; reconnecting in %.0f s", exc, backoff)
                self.stop.wait(backoff)
                backoff = min(backoff * 2, 300.0)
            except Exception as exc:
                if not transient(exc):
                    raise
                # T7: the database is away (restart, lock); the mail stays in INBOX
                log.warning("database: %s; retrying in %.0f s", type(exc).__name__, backoff)
                self.stop.wait(backoff)
                backoff = min(backoff * 2, 300.0)
            finally:
                box.close()
