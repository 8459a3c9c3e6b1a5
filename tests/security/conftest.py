"""The security suite runs on the same club as the integration tests: real Dovecot, the
SMTP sink, a real store (tests/integration/conftest.py), on SQLite and, where what reaches
the database matters, on PostgreSQL."""

from __future__ import annotations

from tests.integration.conftest import club, db_url, pg_club  # noqa: F401  (fixtures)
