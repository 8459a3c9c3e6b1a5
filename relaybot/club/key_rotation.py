"""The old key's 30 days (INTERFACE "Configuration": ``secret_previous`` is the key before
a rotation, and its tokens stay valid for 30 days).

The days count from the first poll that ran with that ``secret_previous`` (its SHA-256 is
kept in ``key_rotations``; the key never is). After them the old key proves nothing, even
while the operator has not yet cleared the setting: a mail answering with an old token is
held and its sender asked, as any unproven mail.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.store.db import Store
from relaybot.store.models import KeyRotation

PREVIOUS_KEY_DAYS = 30
"""How long tokens of ``secret_previous`` verify after relaybot first ran with it."""


def _fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def note_rotation(store: Store, cfg: Config, now: datetime) -> None:
    """Record when relaybot first ran with this ``secret_previous`` (nothing without one;
    a second instance recording it at the same moment is no error)."""
    previous = cfg.bot.secret_previous
    if not previous:
        return
    fingerprint = _fingerprint(previous)
    try:
        with store.session() as session:
            if session.get(KeyRotation, fingerprint) is None:
                session.add(KeyRotation(fingerprint=fingerprint, first_seen=now))
    except IntegrityError:
        pass  # another instance recorded it first: its moment stands


def previous_key_until(session: Session, cfg: Config) -> datetime | None:
    """The moment the old key's tokens stop proving anything; None without an old key
    or before relaybot has run with it."""
    previous = cfg.bot.secret_previous
    if not previous:
        return None
    row = session.get(KeyRotation, _fingerprint(previous))
    return row.first_seen + timedelta(days=PREVIOUS_KEY_DAYS) if row is not None else None


def live_keys(session: Session, cfg: Config, now: datetime) -> Config:
    """``cfg`` as tokens are checked with at ``now``: without ``secret_previous`` once its
    30 days are over."""
    until = previous_key_until(session, cfg)
    if until is None or now < until:
        return cfg
    return replace(cfg, bot=replace(cfg.bot, secret_previous=""))
