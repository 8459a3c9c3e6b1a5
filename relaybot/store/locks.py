"""One running relaybot per database (G9).

PostgreSQL: a session-level advisory lock held on a dedicated connection; it
goes away by itself when the holder dies. SQLite: a row with the holder's host,
pid and a heartbeat; a holder whose process is gone (same host) or whose
heartbeat is stale is taken over.
"""

from __future__ import annotations

import os
import socket
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


class LockHeld(RuntimeError):
    """Another instance is running; the message says which."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class InstanceLock:
    """Hold with ``acquire()``; call ``heartbeat()`` now and then; ``release()`` at exit."""

    def __init__(self, store: Store, name: str = "relaybot") -> None:
        self.store = store
        self.name = name
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._conn: Any = None

    @property
    def _postgres(self) -> bool:
        return self.store.engine.dialect.name == "postgresql"

    def acquire(self) -> None:
        """Take the lock or raise LockHeld."""
        if self._postgres:
            conn = self.store.engine.connect()
            got = conn.execute(
                _TRY_LOCK, {"k": ADVISORY_KEY}
            ).scalar()
            conn.commit()
            if not got:
                conn.close()
                raise LockHeld("another relaybot is already running on this database "
                               "(PostgreSQL advisory lock on this schema is held)")
            self._conn = conn
            return
        now = datetime.now(UTC)
        with self.store.session() as session:
            row = session.get(Lock, self.name, with_for_update=True)
            if row is not None and row.holder != self.holder and not self._dead(row, now):
                seen = f"{row.heartbeat:%Y-%m-%d %H:%M:%S}"
                raise LockHeld(f"another relaybot is already running on this database "
                               f"(holder {row.holder}, last seen {seen} UTC)")
            if row is None:
                session.add(Lock(name=self.name, holder=self.holder, heartbeat=now))
            else:
                row.holder, row.heartbeat = self.holder, now

    def _dead(self, row: Lock, now: datetime) -> bool:
        host, _, rest = row.holder.partition(":")
        pid_text = rest.partition(":")[0]
        if host == socket.gethostname() and pid_text.isdigit():
            return not _pid_alive(int(pid_text))
        return now - row.heartbeat > STALE_AFTER

    def heartbeat(self) -> None:
        """Show we are alive (SQLite); on PostgreSQL, check the lock is still ours.

        Raises LockHeld when the lock was lost (its connection killed): the caller must
        stop, since another instance may hold it now (G9).
        """
        if self._postgres:
            try:
                held = self._conn is not None and self._conn.execute(text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                    "AND pid = pg_backend_pid() AND granted"
                )).scalar()
                if self._conn is not None:
                    self._conn.commit()
            except Exception:
                held = False
            if not held:
                raise LockHeld("the PostgreSQL advisory lock was lost; stopping")
            return
        with self.store.session() as session:
            row = session.get(Lock, self.name)
            if row is not None and row.holder == self.holder:
                row.heartbeat = datetime.now(UTC)

    def release(self) -> None:
        """Give the lock up."""
        if self._postgres:
            if self._conn is not None:
                try:
                    self._conn.execute(_UNLOCK, {"k": ADVISORY_KEY})
                    self._conn.commit()
                    self._conn.close()
                except Exception:  # the connection is gone, and the lock with it
                    self._conn.invalidate()
                self._conn = None
            return
        with self.store.session() as session:
            row = session.get(Lock, self.name)
            if row is not None and row.holder == self.holder:
                session.delete(row)
