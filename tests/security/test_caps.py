"""Caps on everything a mail triggers (issue 12 item 8, G7): every reply an inbound mail
causes counts against its address's ``[mail] reply_cap`` for the day; alerts to the TD
against ``[mail] td_alert_cap``, the rest of the day's summarised in one mail.

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from sqlalchemy import select

from relaybot.config import MailConfig
from relaybot.store.models import Game, Outbox, Question
from tests.integration.relay_harness import TD, Club, body_of

pytestmark = pytest.mark.integration

SATO = "sato@example.jp"
BROWN = "brown@example.org"


def kinds_to(club: Club, address: str, since: int = 0) -> list[str]:
    return [str(c.parsed["X-Relaybot-Kind"]) for c in club.sink.captured[since:]
            if c.rcpt_tos == [address]]


def test_fifty_forged_status_mails_get_at_most_the_daily_cap(club: Club) -> None:
    """50 forged `status` mails in a member's name -> at most reply_cap replies, none applied

    Nothing is applied and the opponent hears nothing.

    Someone writes 50 mails `From: brown@...` to the game's address (no reply token), each
    asking for `status`, to make the bot flood Brown's mailbox. Whatever the bot answers
    (status replies, or confirmation requests once unproven mail is held), Brown gets no
    more than the day's cap."""
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    cap = club.cfg.mail.reply_cap
    assert cap < 50
    before = len(club.sink.captured)
    for n in range(50):
        forged = brown.compose("status", to=club.cfg.bot.game_address(gid),
                               subject=f"[{gid}] status {n}")
        club.deliver(forged.as_bytes(), club.clock + timedelta(minutes=1))
    report = club.cycle()
    assert sum(report.poll.outcomes.values()) == 50
    to_brown = kinds_to(club, BROWN, before)
    assert 0 < len(to_brown) <= cap
    assert kinds_to(club, SATO, before) == []  # the opponent hears nothing
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies == "" and game.status == "active"
    # the next day's cap is a new one: one more forged mail is answered again (once)
    again = before + len(club.sink.captured[before:])
    club.deliver(brown.compose("status", to=club.cfg.bot.game_address(gid),
                               subject=f"[{gid}] status").as_bytes(),
                 club.clock + timedelta(days=1))
    club.cycle()
    assert len(kinds_to(club, BROWN, again)) <= 1


def test_genuine_player_over_the_cap_still_moves(club: Club) -> None:
    """a player's move after the day's replies are used up -> applied and relayed

    Only the sender's acknowledgement is left out."""
    club.cfg = dataclasses.replace(club.cfg, mail=MailConfig(reply_cap=2))
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    start = club.clock
    for n in range(3):
        sato.send("status", at=start + timedelta(minutes=n + 1))
    club.cycle()
    before = len(club.sink.captured)
    sato.send("1. e4", at=start + timedelta(minutes=10))
    report = club.cycle()
    assert report.poll.outcomes == {"move": 1}
    assert kinds_to(club, BROWN, before) == ["move"]  # relayed: never capped
    assert kinds_to(club, SATO, before) == []  # the ack is over Sato's cap
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies == "e2e4"


def test_td_alerts_over_the_cap_come_in_one_summary(club: Club) -> None:
    """a player floods the TD with questions -> td_alert_cap alerts a day, one summary

    The rest are listed in one summary mail the next day; the player's acknowledgements
    stay within reply_cap."""
    club.cfg = dataclasses.replace(club.cfg, mail=MailConfig(td_alert_cap=3, reply_cap=4))
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    before = len(club.sink.captured)
    start = club.clock
    for n in range(6):
        sato.send(f"td: question number {n}?", at=start + timedelta(minutes=n + 1))
    report = club.cycle()
    assert report.poll.outcomes == {"question": 6}
    with club.store.session() as s:
        assert len(s.scalars(select(Question)).all()) == 6  # every question is asked
        held = s.scalars(select(Outbox).where(Outbox.status == "summary")).all()
        assert len(held) == 3 and {r.kind for r in held} == {"td_question"}
    assert kinds_to(club, TD, before) == ["td_question"] * 3
    assert len(kinds_to(club, SATO, before)) == 4  # question_ack, within reply_cap
    # the next day: one summary names the three held back; later sweeps send no more
    club.clock = start + timedelta(days=1)
    club.cycle()
    club.clock += timedelta(hours=1)
    club.cycle()
    summaries = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_summary"]
    assert len(summaries) == 1
    text = body_of(summaries[0])
    assert text.count("question from a player") == 3 and gid in text  # kind_name
    with club.store.session() as s:
        statuses = {r.status for r in s.scalars(select(Outbox).where(
            Outbox.kind == "td_question"))}
        assert statuses == {"sent", "summarised"}


def test_forty_forged_td_command_mails_get_at_most_the_daily_cap(club: Club) -> None:
    """40 forged TD command mails -> at most reply_cap mails to the TD, then one summary

    The rest are named in one summary the next day.

    Someone writes `From: <the TD>` mails with a command, to make the bot flood the TD
    (with command confirmations, or confirmation requests once unproven commands are
    held)."""
    club.cfg = dataclasses.replace(club.cfg, mail=MailConfig(reply_cap=3))
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    club.game(sato, brown)
    before = len(club.sink.captured)
    start = club.clock
    for n in range(40):
        raw = (f"From: TD <{TD}>\r\nTo: relay@club.example\r\nSubject: commands {n}\r\n"
               f"Message-ID: <td-forged-{n}@evil.example>\r\n\r\nanswer 999 hello\r\n")
        club.deliver(raw.encode(), start + timedelta(minutes=n + 1))
    club.cycle()
    first_day = len(kinds_to(club, TD, before))
    assert 0 < first_day <= 3
    club.clock = start + timedelta(days=1)
    club.cycle()
    club.clock += timedelta(hours=1)
    club.cycle()
    assert kinds_to(club, TD, before)[first_day:] == ["td_summary"]


def test_a_stranger_forging_every_member_gets_the_club_wide_cap(club: Club) -> None:
    """a stranger forges mail from every member, many times a day -> at most
    unproven_address_cap requests to each address and unproven_cap in all; the TD's next
    summary lists the rest

    Issue 22 item 6: with the per-address cap alone, a club of 300 members could be made
    to send 3,000 confirmation requests a day."""
    club.cfg = dataclasses.replace(club.cfg, mail=MailConfig(unproven_address_cap=2,
                                                             unproven_cap=5))
    members = [club.member(f"Member{n}, M", f"m{n}@example.jp") for n in range(4)]
    gid = club.game(members[0], members[1])
    before = len(club.sink.captured)
    start = club.clock
    minute = 0
    for _round in range(3):
        for member in members:
            minute += 1
            msg = member.compose("resign", to=f"relay+{gid}@club.example",
                                 subject=f"[{gid}]")
            club.deliver(msg.as_bytes(), start + timedelta(minutes=minute))
    report = club.cycle()
    assert report.poll.outcomes == {"held": 12}
    sent = [c for c in club.sink.captured[before:]
            if c.parsed["X-Relaybot-Kind"] == "hold_request"]
    per_address = {m.address: sum(c.rcpt_tos == [m.address] for c in sent) for m in members}
    assert all(n <= 2 for n in per_address.values()), per_address
    assert len(sent) == 5
    with club.store.session() as s:
        held_back = s.scalars(select(Outbox).where(Outbox.status == "unproven")).all()
        assert len(held_back) == 12 - 5  # 4 over the per-address cap, 3 over the total
    # the next day: one summary to the TD names the ones not sent
    club.clock = start + timedelta(days=1)
    club.cycle()
    summaries = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_summary"]
    assert len(summaries) == 1
    text = body_of(summaries[0])
    assert "proved no sender" in text and text.count("confirmation request") >= 3
    assert game_state(club, gid) == "active"


def game_state(club: Club, gid: str) -> str:
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        return game.status
