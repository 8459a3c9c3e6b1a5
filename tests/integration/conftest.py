"""Store and club fixtures: every store test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from relaybot.store.db import Store, migrate
from tests.integration.relay_harness import Club
from tests.servers.dovecot import Account
from tests.servers.postgres import PG_URL, pg_schema_url
from tests.servers.smtp_sink import SmtpSink


def _pg_schema_url() -> Iterator[str]:
    """A fresh schema on the test PostgreSQL, dropped afterwards; no server is a failure."""
    try:
        with pg_schema_url() as url:
            yield url
    except OperationalError as exc:  # a missing server is a failure, never a skip
        pytest.fail(f"PostgreSQL at {PG_URL} is not reachable ({exc}); "
                    "run scripts/start-postgres.sh", pytrace=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated-on-demand empty database: SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'relaybot.db'}"
    else:
        yield from _pg_schema_url()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A store on ``db_url``, migrated to the head (SQLite, then PostgreSQL)."""
    s = Store.open(db_url)
    migrate(s.engine)
    yield s
    s.dispose()


@pytest.fixture
def club(imap_account: Account, smtp_sink: SmtpSink, tmp_path: Path) -> Iterator[Club]:
    """A club on SQLite with a fresh mailbox and the SMTP sink."""
    c = Club(imap_account, smtp_sink, f"sqlite:///{tmp_path / 'club.db'}", tmp_path)
    yield c
    c.store.dispose()


@pytest.fixture
def pg_club(imap_account: Account, smtp_sink: SmtpSink, tmp_path: Path) -> Iterator[Club]:
    """The same club on PostgreSQL."""
    for url in _pg_schema_url():
        c = Club(imap_account, smtp_sink, url, tmp_path)
        yield c
        c.store.dispose()
