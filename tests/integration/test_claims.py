"""G2/G9 claims between instances (issue 31), on the store alone: an inbound claim that
meets another transaction's waits for it and then fails cleanly or wins; outbox rows
claimed by one sender are skipped by another."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from relaybot.app.outbox import send_pending
from relaybot.store.claims import claim_uids, release_uid
from relaybot.store.db import Store
from relaybot.store.models import Outbox
from tests.integration.relay_harness import Club

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_a_claim_is_taken_once_and_given_back(store: Store) -> None:
    """SQLite and PostgreSQL: what a committed claim holds is not claimed again; a
    released one is."""
    with store.session() as s:
        assert claim_uids(s, "relay@imap", "INBOX", 7, [3, 1, 2], NOW) == {1, 2, 3}
    with store.session() as s:
        assert claim_uids(s, "relay@imap", "INBOX", 7, [2, 3, 4], NOW) == {4}
        # another mailbox, another UIDVALIDITY: other messages
        assert claim_uids(s, "other@imap", "INBOX", 7, [2], NOW) == {2}
        assert claim_uids(s, "relay@imap", "INBOX", 8, [2], NOW) == {2}
        release_uid(s, "relay@imap", "INBOX", 7, 3)  # its mail raised: tried again
    with store.session() as s:
        assert claim_uids(s, "relay@imap", "INBOX", 7, [3], NOW) == {3}


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_a_second_instance_waits_for_the_first_then_skips_or_takes_over(
    pg_club: Club, outcome: str,
) -> None:
    """PostgreSQL only: on SQLite one instance serves, its writers never overlap."""
    store = pg_club.store
    got: list[set[int]] = []
    first = Session(store.engine)
    try:
        assert claim_uids(first, "relay@imap", "INBOX", 1, [1, 2, 3], NOW) == {1, 2, 3}

        def second() -> None:
            with store.session() as s:
                got.append(claim_uids(s, "relay@imap", "INBOX", 1, [2, 3, 4], NOW))

        thread = threading.Thread(target=second)
        thread.start()
        thread.join(1.0)
        assert thread.is_alive() and got == []  # it waits for the first transaction
        first.commit() if outcome == "commit" else first.rollback()
        thread.join(30)
    finally:
        first.close()
    # committed: the first one handled 2 and 3, the second skips them; rolled back (a
    # crash): the second one handles them itself
    assert got == [{4}] if outcome == "commit" else got == [{2, 3, 4}]


def test_outbox_rows_claimed_by_one_sender_are_left_to_it(pg_club: Club) -> None:
    """G9: a row locked by another instance's claim (FOR UPDATE) is skipped, not sent
    twice; once that claim ends, the row is free again."""
    club = pg_club
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.game(white, black)
    with club.store.session() as s:  # queue the start mails again, as new rows
        s.execute(update(Outbox).values(status="pending", attempts=0))
    before = len(club.sink.captured)
    holder = Session(club.store.engine)
    try:
        ids = holder.scalars(select(Outbox.id).order_by(Outbox.id).limit(1)
                             .with_for_update()).all()
        counts = send_pending(club.store, club.cfg, club.clock)
        with club.store.session() as s:
            pending = s.scalars(select(Outbox.id).where(Outbox.status == "pending")).all()
        assert pending == ids  # the other instance's row alone is left
        assert counts.sent == len(club.sink.captured) - before
    finally:
        holder.rollback()  # that instance died: its claim ends with its transaction
        holder.close()
    assert send_pending(club.store, club.cfg, club.clock).sent == 1
