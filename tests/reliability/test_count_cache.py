"""The day's reply counts (G7, issue 12 item 8) read once per batch and then kept in the
transaction: a savepoint rolled back takes its counting back with it, as the query per
reply did."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from relaybot.pipeline.effects import _count, prefetch_counts
from relaybot.store.models import ReplyCount
from tests.reliability.fuzzkit import FuzzClub

pytestmark = [pytest.mark.reliability]

A = "a@example.org"
B = "b@example.org"


def _rows(fc: FuzzClub) -> dict[tuple[str, date], int]:
    with fc.store.session() as s:
        return {(r.address, r.day): r.replies for r in s.scalars(select(ReplyCount))}


def test_counts_known_to_the_batch_follow_savepoints() -> None:
    fc = FuzzClub()
    cfg, now = fc.cfg, fc.now
    with fc.store.session() as s:
        _count(s, cfg, B, now, "replies", 10)  # a row before the batch
    with fc.store.session() as s:
        prefetch_counts(s, cfg, [A, B.upper()], now)  # A: none yet; B: one
        with s.begin_nested():
            assert _count(s, cfg, A, now, "replies", 10)  # the row added here
            assert _count(s, cfg, B, now, "replies", 10)
        try:
            with s.begin_nested():  # a mail whose work is rolled back
                assert _count(s, cfg, A, now, "replies", 10)
                assert _count(s, cfg, " A@example.org ", now, "replies", 10)
                assert _count(s, cfg, B, now, "replies", 10)
                raise RuntimeError
        except RuntimeError:
            pass
        with s.begin_nested():
            assert _count(s, cfg, A, now, "replies", 10)
        try:
            with s.begin_nested():  # C's row added, then rolled back: added again later
                _count(s, cfg, "c@example.org", now, "replies", 10)
                s.flush()
                raise RuntimeError
        except RuntimeError:
            pass
        with s.begin_nested():
            assert _count(s, cfg, "c@example.org", now, "replies", 10)
            assert not _count(s, cfg, "c@example.org", now, "replies", 1)  # the cap
    day = next(iter(_rows(fc)))[1]
    assert _rows(fc) == {(A, day): 2, (B, day): 2, ("c@example.org", day): 1}
