"""Bounces (issue 12 item 7, G6): a delivery report counts against a member only when it
comes back to a VERP envelope sender the bot issued (``relay+b.<token>``, a token distinct
from the Message-ID) and has the shape of a delivery report; flufl.bounce reads it.

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.mail.inbound import verp_id
from relaybot.pipeline.bounces import BOUNCE_ESCALATE
from relaybot.store.models import Game, Outbox
from tests.integration.relay_harness import RELAY, TD, Club, Player
from tests.servers.smtp_sink import Captured

pytestmark = pytest.mark.integration

SATO = "sato@example.jp"
BROWN = "brown@example.org"


def dsn(to: str, n: int, *, final: str = BROWN, action: str = "failed",
        status: str = "5.1.1") -> bytes:
    """A delivery status notification as Postfix writes one (RFC 3464)."""
    return (
        "Return-Path: <>\r\n"
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {to}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <dsn{n}.{abs(hash(to))}@mx.example.org>\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n"
        "--b\r\nContent-Type: text/plain\r\n\r\n"
        "This is the mail system. Your message could not be delivered.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {final}\r\nAction: {action}\r\nStatus: {status}\r\n"
        "--b--\r\n").encode()


def out_of_office(to: str, n: int) -> bytes:
    """An RFC 3834 vacation reply: to the envelope sender, with a null return path."""
    return (
        "Return-Path: <>\r\n"
        f"From: Tom Brown <{BROWN}>\r\nTo: {to}\r\n"
        f"Subject: Automatic reply: Out of office\r\nMessage-ID: <ooo{n}@example.org>\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        "I am out of the office until Monday and cannot deliver your message to anyone.\r\n"
        "Undelivered? No: I will read it when I am back.\r\n").encode()


def arrive(club: Club, raw: bytes) -> None:
    """Delivered a minute after the last mail (no reminder falls due meanwhile)."""
    club.deliver(raw, club.clock + timedelta(minutes=1))


def two_players(club: Club) -> tuple[Player, Player, str]:
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    return sato, brown, club.game(sato, brown)


def to_brown(club: Club) -> list[Captured]:
    return [c for c in club.sink.captured if c.rcpt_tos == [BROWN]]


def more_mail_to_brown(club: Club, sato: Player, brown: Player, gid: str) -> None:
    """A few moves: Brown gets BOUNCE_ESCALATE or more mails, each with its own VERP."""
    sato.send("1. e4")
    club.cycle()
    brown.send("1. e4 e5")
    club.cycle()
    sato.send("1. e4 e5 2. Nf3")
    club.cycle()
    assert len(to_brown(club)) >= BOUNCE_ESCALATE


def bounced(club: Club) -> list[Outbox]:
    with club.store.session() as s:
        return list(s.scalars(select(Outbox).where(Outbox.status == "bounced")))


def td_bounce_notices(club: Club) -> int:
    return sum(c.parsed["X-Relaybot-Kind"] == "td_bounces" for c in club.mails_to(TD))


def test_forged_bounce_is_not_counted(club: Club) -> None:
    """forged bounce (a DSN-shaped mail not at a VERP address the bot issued) -> not counted

    The forger has seen the Message-IDs of Brown's mails (they are quoted in every
    thread) and sends perfect delivery reports to the old VERP form built from them, to a
    well-formed VERP address nobody was given, and to the game's address. Nothing counts:
    no row bounced, no TD notice, no reply to anyone."""
    sato, brown, gid = two_players(club)
    more_mail_to_brown(club, sato, brown, gid)
    sent_before = len(club.sink.captured)
    forged = []
    for n, c in enumerate(to_brown(club)):
        token = c.parsed["Message-ID"].strip("<>").split("@")[0]
        forged.append(dsn(f"relay+bounce-{token}@club.example", n))
        forged.append(dsn(f"relay+{token}@club.example", 100 + n))
    forged += [dsn(f"relay+b.{'a' * 16}@club.example", 200 + n) for n in range(BOUNCE_ESCALATE)]
    forged += [dsn(club.cfg.bot.game_address(gid), 300 + n) for n in range(BOUNCE_ESCALATE)]
    for raw in forged:
        arrive(club, raw)
    report = club.cycle()
    assert sum(report.poll.outcomes.values()) == len(forged)
    assert "bounce" not in report.poll.outcomes
    assert report.poll.outcomes.get("bounce_unknown") == BOUNCE_ESCALATE
    assert bounced(club) == [] and td_bounce_notices(club) == 0
    assert len(club.sink.captured) == sent_before  # G7: nobody is answered
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.status == "active"


def test_out_of_office_to_the_verp_address_is_never_a_bounce(club: Club) -> None:
    """out-of-office reply to the VERP address -> not a bounce, not answered

    RFC 3834 vacation replies go to the envelope sender, so they do reach the VERP
    address, with a null return path like a real report. flufl.bounce finds no failed
    recipient in them: nothing is counted, nobody is answered."""
    sato, brown, gid = two_players(club)
    more_mail_to_brown(club, sato, brown, gid)
    sent_before = len(club.sink.captured)
    replies = [out_of_office(c.mail_from, n) for n, c in enumerate(to_brown(club))]
    assert all(verp_id(c.mail_from, RELAY) for c in to_brown(club))
    for raw in replies:
        arrive(club, raw)
    report = club.cycle()
    assert report.poll.outcomes == {"not_a_bounce": len(replies)}
    assert bounced(club) == [] and td_bounce_notices(club) == 0
    assert len(club.sink.captured) == sent_before


def test_delayed_delivery_report_is_not_a_bounce(club: Club) -> None:
    """"delivery delayed" report at the VERP address -> not counted, not answered

    Only permanent failures count against a member (G6)."""
    sato, brown, gid = two_players(club)
    more_mail_to_brown(club, sato, brown, gid)
    for n, c in enumerate(to_brown(club)):
        arrive(club, dsn(c.mail_from, n, action="delayed", status="4.4.1"))
    report = club.cycle()
    assert set(report.poll.outcomes) == {"bounce_delayed"}
    assert bounced(club) == [] and td_bounce_notices(club) == 0


def test_genuine_delivery_report_at_the_verp_address_is_counted(club: Club) -> None:
    """genuine path: a real DSN at an issued VERP address -> counted, TD told once

    Counted against the member; the TD is told once; no game is forfeited."""
    sato, brown, gid = two_players(club)
    more_mail_to_brown(club, sato, brown, gid)
    mails = to_brown(club)[:BOUNCE_ESCALATE]
    for n, c in enumerate(mails):
        arrive(club, dsn(c.mail_from, n))
    report = club.cycle()
    assert report.poll.outcomes == {"bounce": BOUNCE_ESCALATE}
    rows = bounced(club)
    assert {r.envelope_from for r in rows} == {c.mail_from for c in mails}
    assert {r.recipient for r in rows} == {BROWN}
    assert all(BROWN in r.last_error for r in rows)  # what flufl.bounce read
    assert td_bounce_notices(club) == 1
    # the same report again (a redelivery) counts nothing more
    arrive(club, dsn(mails[0].mail_from, 0).replace(b"<dsn0.", b"<again0."))
    club.cycle()
    assert len(bounced(club)) == BOUNCE_ESCALATE and td_bounce_notices(club) == 1
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.status == "active"
