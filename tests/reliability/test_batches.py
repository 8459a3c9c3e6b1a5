"""The poller's batches change nothing but speed (G1-G3, T12): the same fuzzed mail
processed one mail per transaction and in batches (one transaction, a savepoint per
mail, a prefetch for the batch) leaves the very same store behind."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from relaybot.app.poller import _note_uidvalidity, _process_batch
from relaybot.app.service import Arrival
from relaybot.store.db import Store
from relaybot.store.models import Game, GameEvent, Inbound, InboundFailure, Outbox
from tests.reliability.fuzzkit import FuzzClub, random_mail

pytestmark = [pytest.mark.reliability]

MAILS = 400
BATCH = 50


def _state(store: Store) -> dict[str, Any]:
    """Everything a mail can change, without the random parts (Message-IDs, row ids)."""
    with store.session() as s:
        return {
            "games": {g.id: (g.plies, g.status, g.result, g.draw_offer_by, g.proposals,
                             g.due_at) for g in s.scalars(select(Game))},
            "inbound": sorted((i.uid, i.outcome, i.game_id) for i in s.scalars(select(Inbound))),
            "outbox": Counter((o.kind, o.recipient, o.game_id, o.dedupe_key)
                              for o in s.scalars(select(Outbox))),
            "events": Counter((e.game_id, e.kind, e.colour, e.ply, e.days)
                              for e in s.scalars(select(GameEvent))),
            "failures": len(s.scalars(select(InboundFailure.id)).all()),
        }


@pytest.mark.parametrize("seed", [3, 11])
def test_batches_leave_the_store_as_one_mail_at_a_time_does(tmp_path: Path, seed: int) -> None:
    one = tmp_path / "one.db"
    fc = FuzzClub(f"sqlite:///{one}")
    fc.store.dispose()
    shutil.copy(one, tmp_path / "batched.db")  # the same club, the same game ids
    batched = Store.open(f"sqlite:///{tmp_path / 'batched.db'}")

    rng = random.Random(seed)
    arrivals: list[Arrival] = []
    findings = []
    for i in range(MAILS):
        raw = random_mail(rng, fc.state, i)
        if i % 37 == 5 and arrivals:
            raw = arrivals[-1].raw  # the same mail again (G2), now and then
        findings += fc.check(raw, i)  # one transaction per mail, as before batches
        arrivals.append(Arrival(raw, fc.now, "INBOX", 1, fc.uid))
    assert findings == []
    assert fc.legal_moves > 0  # the fuzz reached real games, not only junk

    _note_uidvalidity(batched, "INBOX", 1)
    for start in range(0, MAILS, BATCH):
        chunk = arrivals[start:start + BATCH]
        # "now" is each mail's arrival here too, as in FuzzClub.check
        done = _process_batch(batched, fc.cfg, chunk,
                              iter(a.internaldate for a in chunk).__next__)
        assert [d.uid for d in done] == [a.uid for a in chunk]
        assert all(d.outcome is not None for d in done)
    assert _state(batched) == _state(fc.store)
    batched.dispose()
