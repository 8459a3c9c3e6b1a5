"""Who may run at once (G9).

SQLite: one relaybot per database. A row with the holder's host, pid and a heartbeat;
a holder whose process is gone (same host) or whose heartbeat is stale is taken over,
and a second instance refuses to start.

PostgreSQL: any number of instances; each polls the mailbox (the inbound claims make
every mail count once) and sends the outbox (rows claimed with SKIP LOCKED), and one of
them, the leader, runs the scheduled work (sweep, digests, reports). Leadership is a
session-level advisory lock held on a dedicated connection: it goes away by itself when
the holder dies (its connection closes), and every other instance tries to take it at
each poll interval.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import text

from relaybot.store.db import Store
from relaybot.store.models import Lock

ADVISORY_KEY = 0x72656C61  # "rela"
# The lock is per schema, not per database: clubs (or test runs) may share one PostgreSQL
# database in separate schemas, and each is its own relaybot.
_TRY_LOCK = text("SELECT pg_try_advisory_lock(:k, hashtext(current_schema()))")
_UNLOCK = text("SELECT pg_advisory_unlock(:k, hashtext(current_schema()))")
STALE_AFTER = timedelta(minutes=3)
log = logging.getLogger(__name__)


class LockHeld(RuntimeError):
    """Another instance is running (SQLite); the message says which, and why only one."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


LEADER = "leader"
"""The ``locks`` row naming the current leader on PostgreSQL (for the operator's eyes only:
the advisory lock decides)."""


class InstanceLock:
    """``acquire()`` at start; ``lead()`` before scheduled work; ``heartbeat()`` now and
    then; ``release()`` at exit."""

    def __init__(self, store: Store, name: str = "relaybot") -> None:
        self.store = store
        self.name = name
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._conn: Any = None
        self._guard = threading.Lock()  # the dedicated connection serves one thread at once
        self._leader = False

    @property
    def _postgres(self) -> bool:
        return self.store.engine.dialect.name == "postgresql"

    @property
    def leader(self) -> bool:
        """True while this instance runs the scheduled work (always, on SQLite)."""
        return self._leader

    def acquire(self) -> None:
        """Start as an instance: on SQLite take the lock or raise LockHeld; on PostgreSQL
        never refused, leading if no one else does."""
        if self._postgres:
            self.lead(quiet=True)  # the caller's "serving ... leader" line says it
            return
        now = datetime.now(UTC)
        with self.store.session() as session:
            row = session.get(Lock, self.name, with_for_update=True)
            if row is not None and row.holder != self.holder and not self._dead(row, now):
                seen = f"{row.heartbeat:%Y-%m-%d %H:%M:%S}"
                raise LockHeld(f"another relaybot is already running on this database "
                               f"(holder {row.holder}, last seen {seen} UTC); SQLite serves "
                               f"one instance at a time, several need PostgreSQL")
            if row is None:
                session.add(Lock(name=self.name, holder=self.holder, heartbeat=now))
            else:
                row.holder, row.heartbeat = self.holder, now
        self._leader = True

    def _dead(self, row: Lock, now: datetime) -> bool:
        host, _, rest = row.holder.partition(":")
        pid_text = rest.partition(":")[0]
        if host == socket.gethostname() and pid_text.isdigit():
            return not _pid_alive(int(pid_text))
        return now - row.heartbeat > STALE_AFTER

    def lead(self, *, quiet: bool = False) -> bool:
        """Check we still lead, or try to become the leader; True when we lead.

        PostgreSQL only does anything here: a leader whose lock was lost (its connection
        killed) is a follower from now on, and tries again like any other.
        """
        if not self._postgres:
            return self._leader
        with self._guard:
            if self._leader and self._still_held():
                return True
            if self._leader:
                log.warning("the leader's PostgreSQL advisory lock was lost: following")
                self._leader = False
            got = self._try_lock()
        if got:
            self._leader = True
            if not quiet:
                log.info("leading: the scheduled work runs here (%s)", self.holder)
            self._note_leader()
        return self._leader

    def _still_held(self) -> bool:
        try:
            held = bool(self._conn is not None and self._conn.execute(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                "AND pid = pg_backend_pid() AND granted"
            )).scalar())
            if self._conn is not None:
                self._conn.commit()
        except Exception:
            held = False
        if not held:
            self._drop_conn()
        return held

    def _try_lock(self) -> bool:
        try:
            if self._conn is None:
                self._conn = self.store.engine.connect()
            got = bool(self._conn.execute(_TRY_LOCK, {"k": ADVISORY_KEY}).scalar())
            self._conn.commit()
        except Exception as exc:  # the database is away: not leading, try again later
            log.warning("leadership: %s", type(exc).__name__)
            self._drop_conn()
            return False
        return got

    def _drop_conn(self) -> None:
        if self._conn is not None:
            try:
                self._conn.invalidate()
                self._conn.close()
            except Exception:  # thrown away either way
                log.debug("closing the lock connection failed", exc_info=True)
            self._conn = None

    def _note_leader(self) -> None:
        """Name the leader in the ``locks`` table (what `SELECT * FROM locks` shows)."""
        try:
            with self.store.session() as session:
                row = session.get(Lock, LEADER, with_for_update=True)
                now = datetime.now(UTC)
                if row is None:
                    session.add(Lock(name=LEADER, holder=self.holder, heartbeat=now))
                else:
                    row.holder, row.heartbeat = self.holder, now
        except Exception as exc:  # informational only; two new leaders cannot both insert
            log.debug("noting the leader failed: %s", type(exc).__name__)

    def heartbeat(self) -> None:
        """Show we are alive (SQLite); on PostgreSQL, check a leader still leads (a
        follower takes the leadership in ``lead``, called once per poll interval).

        Raises LockHeld when an SQLite lock was taken over: the caller must stop (G9);
        raises the database's error when it does not answer (the caller is not alive).
        """
        if self._postgres:
            if self._leader and self.lead():
                self._note_leader()
            with self.store.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return
        with self.store.session() as session:
            row = session.get(Lock, self.name)
            if row is not None and row.holder == self.holder:
                row.heartbeat = datetime.now(UTC)

    def release(self) -> None:
        """Give the lock (or the leadership) up."""
        if self._postgres:
            with self._guard:
                if self._conn is not None:
                    try:
                        if self._leader:
                            self._conn.execute(_UNLOCK, {"k": ADVISORY_KEY})
                            self._conn.commit()
                        self._conn.close()
                    except Exception:  # the connection is gone, and the lock with it
                        self._conn.invalidate()
                    self._conn = None
                self._leader = False
            return
        with self.store.session() as session:
            row = session.get(Lock, self.name)
            if row is not None and row.holder == self.holder:
                session.delete(row)
        self._leader = False
