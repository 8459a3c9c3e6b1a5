"""A throwaway schema on the test PostgreSQL (127.0.0.1:5432, database test), for the store
tests and the benchmarks alike: every test runs against its own empty search_path."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text

PG_URL = os.environ.get("RELAYBOT_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@contextmanager
def pg_schema_url(prefix: str = "t") -> Iterator[str]:
    """A URL whose search_path is a fresh schema; the schema is dropped afterwards.

    Raises the driver's error when no server answers (callers decide how to report it).
    """
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        sep = "&" if "?" in PG_URL else "?"
        try:
            yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()
