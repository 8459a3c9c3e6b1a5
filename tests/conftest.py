"""Shared pytest fixtures: real servers on loopback (DESIGN.md "Real parts, not mocks")."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.servers.dovecot import Account, Dovecot, DovecotError
from tests.servers.smtp_sink import SmtpSink

# The compose stack (tests/stack/) is run by scripts/stack_test.sh, which the test command
# starts beside pytest with its Docker daemon: not collected twice, never a skip.
collect_ignore = [] if os.environ.get("RELAYBOT_STACK_TEST") == "1" else ["stack"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``pytest -n`` (scripts/test.sh, ``--dist loadfile``): the files holding a test
    marked ``slow`` come first, in their own order, so that the workers start on the long
    ones and the run does not end with one worker alone on a long file. Each file stays
    whole and in order; a plain ``pytest`` keeps the usual order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)  # stable: the rest as collected


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
