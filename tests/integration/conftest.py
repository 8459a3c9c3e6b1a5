"""Store and club fixtures: every store test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.integration.relay_harness import Club
from tests.servers.dovecot import Account
from tests.servers.smtp_sink import SmtpSink

PG_URL = os.environ.get("RELAYBOT_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _pg_schema_url() -> Iterator[str]:
    """A fresh schema on the test PostgreSQL, dropped afterwards."""
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:  # a missing server is a failure, never a skip
        pytest.fail(f"PostgreSQL at {PG_URL} is not reachable ({exc}); "
                    "run scripts/start-postgres.sh", pytrace=False)
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated-on-demand empty database: SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'relaybot.db'}"
    else:
        yield from _pg_schema_url()


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
