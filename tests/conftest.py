"""Shared pytest fixtures: real servers on loopback (DESIGN.md "Real parts, not mocks")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.dovecot import Account, Dovecot, DovecotError
from tests.servers.smtp_sink import SmtpSink


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """One Dovecot for the session; never skipped: a missing Dovecot fails loudly."""
    try:
        server = Dovecot()
        server.start()
    except DovecotError as exc:
        pytest.fail(f"cannot start the test Dovecot: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def imap_account(dovecot: Dovecot) -> Account:
    """A fresh, empty mailbox on the session Dovecot (restarted first if a test stopped it)."""
    if not dovecot.running:
        dovecot.start()
    return dovecot.new_account()


@pytest.fixture
def smtp_sink() -> Iterator[SmtpSink]:
    """An aiosmtpd capture sink on a free loopback port, for one test."""
    with SmtpSink() as sink:
        yield sink
