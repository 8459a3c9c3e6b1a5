"""The old key's 30 days (INTERFACE "Configuration", ``secret_previous``), counted from
the first poll that ran with it; on SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from relaybot.club.key_rotation import live_keys, note_rotation, previous_key_until
from relaybot.store.db import Store
from relaybot.store.models import KeyRotation
from tests.integration.test_store import cfg_for

pytestmark = pytest.mark.integration
T0 = datetime(2027, 4, 1, 9, 0, tzinfo=UTC)


def test_the_old_key_counts_30_days_from_its_first_poll(store: Store, db_url: str) -> None:
    base = cfg_for(db_url)
    plain = replace(base, bot=replace(base.bot, secret="new", secret_previous=""))
    note_rotation(store, plain, T0)  # no old key: nothing to record
    with store.session() as s:
        assert s.query(KeyRotation).count() == 0
        assert live_keys(s, plain, T0) is plain
    rotated = replace(plain, bot=replace(plain.bot, secret_previous="old"))
    note_rotation(store, rotated, T0)
    note_rotation(store, rotated, T0 + timedelta(days=5))  # later polls keep day 0
    with store.session() as s:
        assert previous_key_until(s, rotated) == T0 + timedelta(days=30)
        assert live_keys(s, rotated, T0 + timedelta(days=29, hours=23)).bot.verify_keys() \
            == ("new", "old")
        assert live_keys(s, rotated, T0 + timedelta(days=30)).bot.verify_keys() == ("new",)
        assert "old" not in {r.fingerprint for r in s.query(KeyRotation)}  # never the key
    # a second rotation starts its own 30 days
    again = replace(plain, bot=replace(plain.bot, secret="newer", secret_previous="new"))
    with store.session() as s:
        assert previous_key_until(s, again) is None  # not yet polled with it: no end yet
    note_rotation(store, again, T0 + timedelta(days=40))
    with store.session() as s:
        assert live_keys(s, again, T0 + timedelta(days=60)).bot.verify_keys() \
            == ("newer", "new")
