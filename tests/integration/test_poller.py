"""The IMAP loop's promises (G1, G3, G8) with Dovecot."""

from __future__ import annotations

import pytest

import relaybot.app.poller as poller
from relaybot.app.service import Arrival
from tests.integration.relay_harness import TD, Club

pytestmark = pytest.mark.integration


def test_g3_poison_mail_is_quarantined_after_three_tries_and_later_mail_flows(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    real = poller.process_in

    def explode(session, cfg, arrival: Arrival, now, batch=None):  # type: ignore[no-untyped-def]
        if b"POISON" in arrival.raw:
            raise RuntimeError("boom")
        return real(session, cfg, arrival, now, batch)

    monkeypatch.setattr(poller, "process_in", explode)
    white.send("POISON 1. e4")
    for attempt in range(1, 4):
        report = club.cycle()
        assert report.poll.failed == 1
        if attempt < 3:
            assert len(club.account.uids("INBOX")) == 1  # G1: stays until it can commit
    assert club.account.uids("INBOX") == []
    assert len(club.account.uids("Quarantine")) == 1
    alerts = [c for c in club.mails_to(TD) if "uarantin" in str(c.parsed["Subject"])]
    assert len(alerts) == 1
    # later mail keeps flowing
    white.send("1. e4")
    report = club.cycle()
    assert report.poll.outcomes == {"move": 1}
    assert gid


def test_g8_bodies_are_fetched_with_peek(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    club.game(white, black)
    # a message that we must not process (a stranger), to check \Seen is not our marker
    uid = club.deliver(
        b"From: x@y.example\r\nSubject: hi\r\nMessage-ID: <a@y.example>\r\n\r\nhi\r\n")
    club.cycle()
    processed = club.account.uids("Processed")
    assert len(processed) == 1
    assert b"\\Seen" not in club.account.flags(processed[0], "Processed")
    assert uid


def test_g1_g2_g3_batches_commit_then_move_and_a_bad_mail_takes_back_only_its_own_work(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mail is processed in batches (one commit, then one MOVE per batch). Across batch
    boundaries, in UID order: every move applied once, the same mail delivered twice in
    one batch applied once (G2), a mail that raises rolls back only itself and stays in
    INBOX (G1, G3) while the mails before and after it in its batch go through."""
    from sqlalchemy import select

    from relaybot.store.models import Game, Inbound

    monkeypatch.setattr(poller, "BATCH_MAILS", 3)
    players = [club.member(f"Player {i}, Test", f"p{i}@example.org") for i in range(6)]
    gids = [club.game(players[2 * g], players[2 * g + 1]) for g in range(3)]
    real = poller.process_in

    def explode(session, cfg, arrival: Arrival, now, batch=None):  # type: ignore[no-untyped-def]
        result = real(session, cfg, arrival, now, batch)
        if b"POISON" in arrival.raw:
            session.flush()  # its rows are written, then taken back with its savepoint
            raise RuntimeError("boom")
        return result

    monkeypatch.setattr(poller, "process_in", explode)
    twice = players[0].send("1. e4")
    club.deliver(twice)  # the very same mail again, in the same batch
    players[2].send("1. d4")
    players[1].send("1. e4 e5")  # second batch: before the bad mail ...
    players[4].send("1. c4 POISON")
    players[3].send("1. d4 d5")  # ... and after it
    report = club.cycle()
    assert report.poll.fetched == 6
    assert report.poll.outcomes == {"move": 4, "duplicate": 1}
    assert report.poll.failed == 1
    assert len(club.account.uids("INBOX")) == 1  # only the poison mail, for another try
    assert len(club.account.uids("Processed")) == 5
    with club.store.session() as s:
        plies = {g.id: g.plies for g in s.scalars(select(Game))}
        assert plies == {gids[0]: "e2e4 e7e5", gids[1]: "d2d4 d7d5", gids[2]: ""}
        assert len(s.scalars(select(Inbound.id)).all()) == 4
