"""The IMAP loop's promises (G1, G3, G8) with Dovecot."""

from __future__ import annotations

import pytest

import relaybot.poller as poller
from relaybot.service import Arrival
from tests.integration.relay_harness import TD, Club

pytestmark = pytest.mark.integration


def test_g3_poison_mail_is_quarantined_after_three_tries_and_later_mail_flows(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    real = poller.process_in

    def explode(session, cfg, arrival: Arrival, now):  # type: ignore[no-untyped-def]
        if b"POISON" in arrival.raw:
            raise RuntimeError("boom")
        return real(session, cfg, arrival, now)

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
