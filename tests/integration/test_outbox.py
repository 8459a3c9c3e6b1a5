"""The outbox against the scripted SMTP sink (G4, G5, T2)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.app.outbox import send_pending
from relaybot.mail.inbound import verp_id
from relaybot.store.models import Outbox
from tests.integration.relay_harness import RELAY, TD, Club
from tests.servers.dovecot import free_port

pytestmark = pytest.mark.integration


def queued_game(club: Club) -> None:
    """Two members and a game: two start mails queued (not yet sent)."""
    club.member("Sato, Hanako", "sato@example.jp")
    club.member("Brown, Tom", "brown@example.org")
    from relaybot.app.service import start_mails
    from relaybot.club.new_games import GameInput, create_game

    with club.store.session() as s:
        game = create_game(s, club.cfg, GameInput("sato@example.jp", "brown@example.org"),
                           club.clock)
        start_mails(s, club.cfg, game, club.clock)


def rows(club: Club) -> list[Outbox]:
    with club.store.session() as s:
        return list(s.scalars(select(Outbox).order_by(Outbox.id)))


@pytest.mark.parametrize("failure", ["421", "451-rcpt", "drop"])
def test_temporary_failures_retry_with_the_same_message_id(club: Club, failure: str) -> None:
    queued_game(club)
    if failure == "421":
        club.sink.fail_next("mail", "421 4.3.2 shutting down")
    elif failure == "451-rcpt":
        club.sink.fail_next("rcpt", "451 4.3.0 try again")
    else:
        club.sink.drop_after_data()
    ids = {r.id: r.message_id for r in rows(club)}
    counts = send_pending(club.store, club.cfg, club.clock)
    assert counts.retried >= 1
    first = rows(club)
    assert any(r.status == "pending" and r.attempts == 1 for r in first)
    # not due yet: nothing is sent before the backoff
    assert send_pending(club.store, club.cfg, club.clock).sent == 0
    later = send_pending(club.store, club.cfg, club.clock + timedelta(hours=1))
    assert later.sent >= 1
    final = rows(club)
    assert all(r.status == "sent" for r in final)
    assert {r.id: r.message_id for r in final} == ids  # G4: the Message-ID never changes
    got = [c.parsed["Message-ID"].strip("<>") for c in club.sink.captured]
    assert sorted(got) == sorted(ids.values())


def test_permanent_failure_is_a_bounce_and_the_td_is_told(club: Club) -> None:
    queued_game(club)
    club.sink.fail_next("rcpt", "550 5.1.1 no such user")
    counts = send_pending(club.store, club.cfg, club.clock)
    assert counts.bounced == 1
    statuses = [r.status for r in rows(club)]
    assert statuses.count("bounced") == 1
    send_pending(club.store, club.cfg, club.clock)
    notices = club.mails_to(TD)
    assert len(notices) == 1
    assert "550" in notices[0].parsed.get_body(preferencelist=("plain",)).get_content()


def test_gives_up_after_five_days_and_tells_the_td(club: Club) -> None:
    queued_game(club)
    club.sink.fail_next("mail", "451 4.3.0 try again", times=2)
    send_pending(club.store, club.cfg, club.clock)
    late = club.clock + timedelta(days=5, hours=1)
    club.sink.fail_next("mail", "451 4.3.0 try again", times=2)
    counts = send_pending(club.store, club.cfg, late)
    assert counts.failed >= 1
    send_pending(club.store, club.cfg, late)
    assert len(club.mails_to(TD)) >= 1


def test_envelope_sender_is_verp(club: Club) -> None:
    queued_game(club)
    send_pending(club.store, club.cfg, club.clock)
    envelopes = {r.message_id: r.envelope_from for r in rows(club)}
    for captured in club.sink.captured:
        message_id = captured.parsed["Message-ID"].strip("<>")
        token = verp_id(captured.mail_from, RELAY)
        # G6, issue 12 item 7: relay+b.<token>, a token of its own (not the Message-ID's)
        assert token is not None and token not in message_id
        assert captured.mail_from == envelopes[message_id]
    assert len({c.mail_from for c in club.sink.captured}) == len(club.sink.captured)


def test_g6_verp_delivery_reports_are_counted_and_escalate_to_the_td(club: Club) -> None:
    queued_game(club)
    send_pending(club.store, club.cfg, club.clock)
    from relaybot.app.service import start_mails
    from relaybot.club.new_games import GameInput, create_game

    with club.store.session() as s:  # two more games: more mail to Brown
        for _ in range(2):
            game = create_game(s, club.cfg, GameInput("sato@example.jp", "brown@example.org"),
                               club.clock)
            start_mails(s, club.cfg, game, club.clock)
    send_pending(club.store, club.cfg, club.clock)
    to_brown = [c for c in club.sink.captured if c.rcpt_tos == ["brown@example.org"]]
    assert len(to_brown) == 3
    for n, captured in enumerate(to_brown):
        dsn = (
            f"From: MAILER-DAEMON@mx.example.org\r\nTo: {captured.mail_from}\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <dsn{n}@mx>\r\n"
            "Auto-Submitted: auto-replied\r\nContent-Type: multipart/report; "
            "report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain"
            "\r\n\r\nMailbox full\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\n"
            "Reporting-MTA: dns; mx.example.org\r\n\r\n"
            "Final-Recipient: rfc822; brown@example.org\r\nAction: failed\r\n"
            "Status: 5.2.2\r\n--b--\r\n").encode()
        club.deliver(dsn)
    report = club.cycle()
    assert report.poll.outcomes == {"bounce": 3}
    assert all(r.status == "bounced" for r in rows(club)
               if r.recipient == "brown@example.org" and r.kind == "start")
    notices = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_bounces"]
    assert len(notices) == 1  # G6: escalated to the TD once, no game forfeited
    with club.store.session() as s:
        from relaybot.store.models import Game

        assert {g.status for g in s.scalars(select(Game))} == {"active"}


def test_many_rows_over_several_connections_each_member_in_queue_order(club: Club) -> None:
    """G4 with ``smtp.connections`` > 1: every row sent exactly once, marked sent, and a
    member's mails still arrive in the order they were queued (a forward before the next)."""
    import dataclasses

    from relaybot.mail.queue import Recipient, queue_mail

    cfg = dataclasses.replace(club.cfg, smtp=dataclasses.replace(club.cfg.smtp, connections=4))
    people = [f"m{i}@example.org" for i in range(5)]
    with club.store.session() as s:
        for n in range(40):
            to = people[n % len(people)]
            queue_mail(s, cfg, kind="notice", to=Recipient(to, to), subject=f"n{n:02d}",
                       body=f"mail {n}\n", now=club.clock)
    counts = send_pending(club.store, cfg, club.clock)
    assert counts.sent == 40
    assert all(r.status == "sent" and r.attempts == 1 for r in rows(club))
    got = club.sink.wait_for(40)
    assert sorted(str(c.parsed["Subject"]) for c in got) == [f"n{n:02d}" for n in range(40)]
    for person in people:
        mine = [int(str(c.parsed["Subject"])[1:]) for c in got if c.rcpt_tos == [person]]
        assert mine == sorted(mine) and len(mine) == 8


# -- relaybot run's kept connections (issue 29) ---------------------------------------------


def _more_mail(club: Club) -> None:
    """Two more start mails queued (a second game between the same members)."""
    from relaybot.app.service import start_mails
    from relaybot.club.new_games import GameInput, create_game

    with club.store.session() as s:
        game = create_game(s, club.cfg, GameInput("brown@example.org", "sato@example.jp"),
                           club.clock)
        start_mails(s, club.cfg, game, club.clock)


def _peers(club: Club) -> set[tuple[str, int] | None]:
    """The SMTP connections the captured mail came over."""
    return {c.peer for c in club.sink.captured}


def test_kept_connections_carry_the_next_sends_and_close_when_idle(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    from relaybot.app import outbox

    queued_game(club)
    kept = outbox.KeptConnections(club.cfg)
    try:
        assert kept.close_in() is None  # nothing open yet
        assert kept.send_pending(club.store, club.clock).sent == 2
        first = _peers(club)
        assert len(first) <= club.cfg.smtp.connections
        assert kept.close_in() is not None  # open, to be closed when idle
        _more_mail(club)
        assert kept.send_pending(club.store, club.clock).sent == 2
        assert _peers(club) == first  # the same connections: no connect, no EHLO
        monkeypatch.setattr(outbox, "KEEP_SECONDS", 0.0)
        kept.close_idle()
        assert kept.close_in() is None
        _more_mail(club)
        assert kept.send_pending(club.store, club.clock).sent == 2
        assert _peers(club) - first  # new ones
    finally:
        kept.close()
    assert all(r.status == "sent" for r in rows(club))


def test_a_kept_connection_the_server_closed_is_replaced_not_a_retry(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two sends the server went away and came back (or dropped the idle
    connection): the next mail goes out at once on a new connection, no backoff."""
    from relaybot.app import outbox

    queued_game(club)
    kept = outbox.KeptConnections(club.cfg)
    try:
        assert kept.send_pending(club.store, club.clock).sent == 2
        first = _peers(club)
        club.sink.drop_connections()  # the server closes the idle connections
        monkeypatch.setattr(outbox, "CHECK_AFTER", 0.0)  # check before each reuse
        _more_mail(club)
        counts = kept.send_pending(club.store, club.clock)
        assert (counts.sent, counts.retried, counts.unreachable) == (2, 0, 0)
        assert _peers(club) - first  # over new connections
    finally:
        kept.close()
    assert all(r.status == "sent" and r.attempts == 1 for r in rows(club))


def test_warm_up_connects_ahead_and_a_server_away_costs_no_second_try(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    from relaybot.app import outbox

    queued_game(club)
    kept = outbox.KeptConnections(club.cfg)
    try:
        kept.warm()
        assert kept.close_in() is not None  # connected before any mail was due
        assert kept.send_pending(club.store, club.clock).sent == 2
        assert len(_peers(club)) <= club.cfg.smtp.connections
        kept.close_idle()
        monkeypatch.setattr(outbox, "KEEP_SECONDS", 0.0)
        kept.close_idle()
        # nobody answers on the SMTP port: the warm-up says nothing, the send meets it
        # and counts it; and no warm-up tries again for a while
        away = replace(club.cfg, smtp=replace(club.cfg.smtp, port=free_port()))
        gone = outbox.KeptConnections(away)
        try:
            gone.warm()
            assert gone.close_in() is None
            _more_mail(club)
            counts = gone.send_pending(club.store, club.clock)
            assert counts.unreachable >= 1 and counts.retried == 2
            assert gone._lanes.warm_failed > 0
        finally:
            gone.close()
    finally:
        kept.close()
