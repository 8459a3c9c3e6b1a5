"""Engine, sessions and migrations. Nothing connects at import time."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from relaybot.resources import package_dir

# Alembic's script folder, shipped as package data (env.py, script.py.mako, versions/).
MIGRATIONS: Path = package_dir("migrations")


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets a busy timeout, foreign keys on and WAL mode.

    The SQLite busy timeout is 30 s unless the URL says otherwise (``?timeout=2``).
    WAL (write-ahead log, issue 29): a commit appends to one file and syncs it once, where
    the rollback journal synced three times (4-15 ms a commit here, on the path of every
    move), and readers (``relaybot web``, the CLI, the poller while the sender marks rows
    sent) no longer wait for a writer's commit. ``synchronous`` stays FULL: a committed
    transaction survives a power loss, so mail moved out of INBOX after its commit is
    never lost (G1). The mode is kept in the file; setting it again is a no-op.
    """
    if url.startswith("sqlite"):
        _create_private(make_url(url).database)
        try:
            timeout = float(make_url(url).query.get("timeout", 30))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            timeout = 30.0
        engine = create_engine(url, connect_args={"timeout": timeout})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def _create_private(database: str | None) -> None:
    """Create a new SQLite file readable by its owner alone (0600): it holds every mail
    and address. SQLite gives its -wal and -shm files the same mode. An existing file is
    left as it is."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    try:
        fd = os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError:
        return  # a missing folder, say: SQLite's own error says it better when it connects
    os.close(fd)


# ``revision = "0020"`` / ``down_revision = "0019"`` (or None), one a line, as
# script.py.mako writes them; a line saying it any other way does not match
_REVISION_LINE = re.compile(
    r"^(revision|down_revision)[ \t]*=[ \t]*(?:(?P<q>['\"])(?P<id>[\w-]+)(?P=q)|None)"
    r"[ \t]*(?:#.*)?$", re.MULTILINE)


def head_revision() -> str | None:
    """The newest revision of the shipped migrations, read from their files without
    importing Alembic; None when the files do not say it plainly (a file without one
    ``revision`` and one ``down_revision`` line of plain text, a merge, two heads), and
    then only Alembic can tell."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        if path.name.startswith(("__", ".#")):  # the files Alembic itself skips
            continue
        found = list(_REVISION_LINE.finditer(path.read_text(encoding="utf-8")))
        if sorted(m[1] for m in found) != ["down_revision", "revision"]:
            return None  # not said plainly, once each: Alembic decides
        values = {m[1]: m["id"] for m in found}
        revision, down = values["revision"], values["down_revision"]
        if revision is None:
            return None
        revisions.add(revision)
        if down is not None:
            parents.add(down)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def stamped_revisions(engine: Engine) -> set[str]:
    """The revisions the database says its schema is at (Alembic's ``alembic_version``);
    empty for a new database."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return set()
        return set(conn.scalars(text("SELECT version_num FROM alembic_version")))


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest Alembic revision (safe to repeat).

    A database already at the newest revision, as it is for nearly every command, is left
    as it is without loading Alembic, which takes longer to import than most commands
    take to run (issue 29); any other state is Alembic's to judge and upgrade.
    """
    head = head_revision()
    if head is not None and stamped_revisions(engine) == {head}:
        return
    from alembic import command
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def is_migrated(engine: Engine) -> bool:
    """True when the schema exists (``relaybot init`` has run)."""
    return inspect(engine).has_table("games")


class Store:
    """Sessions on one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._factory = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str) -> Store:
        """A store on ``url`` (no connection until first use)."""
        return cls(make_engine(url))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One unit of work: commit on success, roll back on any exception."""
        session = self._factory()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def dispose(self) -> None:
        self.engine.dispose()
