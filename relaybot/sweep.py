"""Scheduled work found in the database (G10). Reminders, escalations and digests
come with the clocks and events issues; today the sweep has nothing to queue."""

from __future__ import annotations

from datetime import datetime

from relaybot.config import Config
from relaybot.store.db import Store


def sweep(store: Store, cfg: Config, now: datetime) -> int:
    """Queue every scheduled mail due at ``now``; returns how many rows were queued."""
    del store, cfg, now
    return 0
