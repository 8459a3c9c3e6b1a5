"""Small holes (issue 12 item 11): UTF-7 and lone surrogates never reach the database;
strangers' and automated mail is not kept raw for ever (``[mail] retention_days``).

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.mail.inbound import parse_mail
from relaybot.store.models import Inbound, Question, ReplyCount
from tests.integration.relay_harness import RELAY, Club

pytestmark = pytest.mark.integration

SATO = "sato@example.jp"
BROWN = "brown@example.org"
SURROGATE = re.compile("[\ud800-\udfff]")


def utf7_mail(to: str, sender: str = SATO) -> bytes:
    """A mail whose subject and body are declared UTF-7 and decode to lone surrogates
    (``+2AA-`` is U+D800) and hidden markup (``+ADw-`` is ``<``)."""
    subject = base64.b64encode(b"+2AA-+ADw-script+AD4-").decode()
    return (
        f"From: Sato <{sender}>\r\nTo: {to}\r\nSubject: =?utf-7?B?{subject}?=\r\n"
        "Message-ID: <utf7-1@example.jp>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-7\r\n\r\n"
        "td: why +2AA-+ADw-script+AD4-?\r\n").encode()


def test_utf7_and_lone_surrogates_never_reach_the_database(pg_club: Club) -> None:
    """UTF-7 mail decoding to lone surrogates (PostgreSQL) -> stored as plain text

    The mail is processed once and never quarantined."""
    club = pg_club
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    club.game(sato, brown)
    raw = utf7_mail(str(sato.last()["Reply-To"]))
    mail = parse_mail(raw, own_addresses=[RELAY])
    for text in (mail.subject, mail.text, mail.full_text):
        assert not SURROGATE.search(text) and "<script" not in text
    club.deliver(raw)
    report = club.cycle()
    assert report.poll.outcomes == {"question": 1}
    with club.store.session() as s:
        question = s.scalars(select(Question)).one()
        subject = s.scalars(select(Inbound.subject).where(
            Inbound.message_id == "utf7-1@example.jp")).one()
    assert "+2AA-" in question.text and "+2AA-" in subject  # read as undeclared text
    assert not SURROGATE.search(question.text + subject)


@pytest.mark.parametrize("database", ["club", "pg_club"])
def test_strangers_and_automated_mail_is_forgotten_after_retention_days(
        database: str, request: pytest.FixtureRequest) -> None:
    """strangers' and automated mail kept raw for ever -> blanked after retention_days

    The sweep blanks it after [mail] retention_days (30); members' mail is kept (J19)."""
    club: Club = request.getfixturevalue(database)
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    start = club.clock
    stranger = (f"From: someone@else.example\r\nTo: {club.cfg.bot.game_address(gid)}\r\n"
                "Subject: hello\r\nMessage-ID: <stranger@else.example>\r\n\r\n"
                "buy now\r\n").encode()
    vacation = (f"From: {BROWN}\r\nTo: {RELAY}\r\nSubject: Out of office\r\n"
                "Auto-Submitted: auto-replied\r\nMessage-ID: <away@example.org>\r\n\r\n"
                "Away.\r\n").encode()
    club.deliver(stranger, start + timedelta(minutes=1))
    club.deliver(vacation, start + timedelta(minutes=2))
    sato.send("1. e4", at=start + timedelta(minutes=3))
    report = club.cycle()
    assert report.poll.outcomes == {"stranger": 1, "automated": 1, "move": 1}

    def raw_sizes() -> dict[str, int]:
        with club.store.session() as s:
            return {row.outcome: len(row.raw) for row in s.scalars(select(Inbound))}

    club.clock = start + timedelta(days=29)
    club.cycle()
    assert all(size > 0 for size in raw_sizes().values())
    club.clock = start + timedelta(days=31)
    club.cycle()
    sizes = raw_sizes()
    assert sizes["stranger"] == 0 and sizes["automated"] == 0
    assert sizes["move"] > 0  # a game's mail stays raw: it is in the game's export (J19)
    with club.store.session() as s:  # the ledger line stays: a redelivery is still a no-op
        assert s.scalars(select(Inbound.subject).where(
            Inbound.message_id == "stranger@else.example")).one() == "hello"
        # the caps' day counters of a month ago are gone too
        days = s.scalars(select(ReplyCount.day)).all()
        assert days and min(days) > (start + timedelta(days=20)).date()
