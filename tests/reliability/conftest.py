"""Fixtures for RELIABILITY.md T1-T14: the integration club on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.integration.conftest import club, db_url, pg_club  # noqa: F401  (fixtures)
