"""Reply tokens end to end (INTERFACE.md "Who may act", issue 12, items 1, 2 and 6):
every mail to a member or the TD carries a Reply-To token address issued to that
recipient; a player who simply replies is relayed as before and identified as
authenticated; the same address used by anyone else, or the plain game address, is not.
What is held for confirmation is in tests/security/."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import timedelta
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from relaybot.core.tokens import issue
from relaybot.mail.inbound import parse_mail
from relaybot.pipeline.identify import identify
from relaybot.store.models import Game, KeyRotation, Member, Question
from tests.integration.relay_harness import RELAY, SECRET, TD, Club, Player, body_of

pytestmark = pytest.mark.integration

OUR_MTA = "mx.club.example"


def member_id(club: Club, address: str) -> int:
    with club.store.session() as s:
        found = s.scalar(select(Member.id).where(Member.email == address))
        assert found is not None
        return found


@dataclass(frozen=True)
class Who:
    kind: str
    email: str | None
    authenticated: bool


def who(club: Club, msg: EmailMessage) -> Who:
    """What the identify stage makes of a mail (read only: no bounce, no state)."""
    mail = parse_mail(msg.as_bytes(), own_addresses=[RELAY],
                      trusted_authserv=club.cfg.bot.authserv_id)
    with club.store.session() as s:
        sender = identify(s, club.cfg, mail, club.clock)
        found = Who(sender.kind, sender.member.email if sender.member else None,
                    sender.td_authenticated if sender.kind == "td" else sender.authenticated)
        s.rollback()
    return found


def test_game_mail_carries_the_game_token_address_of_its_recipient(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    for player in (white, black):
        start = player.last()
        token = issue(SECRET, gid, str(member_id(club, player.address)))
        assert start["Reply-To"].addresses[0].addr_spec == f"relay+{gid}.{token}@club.example"
        assert start["From"].addresses[0].addr_spec == f"relay+{gid}@club.example"  # as before
    assert white.last()["Reply-To"] != black.last()["Reply-To"]

    # White simply replies: relayed as before, and authenticated
    reply = white.compose("1. e4")
    assert who(club, reply) == Who("member", white.address, True)
    club.deliver(reply.as_bytes())
    assert club.cycle().poll.outcomes == {"move": 1}
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies.split() == ["e2e4"]
    relayed = black.last()
    assert "1. e4" in body_of(black.inbox()[-1])
    black_token = issue(SECRET, gid, str(member_id(club, black.address)))
    assert relayed["Reply-To"].addresses[0].addr_spec == f"relay+{gid}.{black_token}@club.example"
    # ... and Black's reply to the relayed move likewise
    black_reply = black.compose("1. e4 e5")
    assert who(club, black_reply).authenticated
    club.deliver(black_reply.as_bytes())
    assert club.cycle().poll.outcomes == {"move": 1}


def test_a_token_used_by_anyone_else_or_no_token_does_not_authenticate(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    whites_reply_to = str(white.last()["Reply-To"])
    # Black writes in White's thread to White's token address: Black is not White
    stolen = black.compose("resign", to=whites_reply_to, subject=f"Re: [{gid}]")
    assert who(club, stolen) == Who("member", black.address, False)
    plain = white.compose("1. e4", to=f"relay+{gid}@club.example", subject=f"Re: [{gid}]")
    assert not who(club, plain).authenticated  # the plain game address proves nothing
    tagged = white.compose("1. e4", to=RELAY, subject=f"[{gid}] move")
    assert not who(club, tagged).authenticated
    other_game = white.compose(
        "1. e4", to=f"relay+zzzzzz.{issue(SECRET, gid, str(member_id(club, white.address)))}"
                    "@club.example", subject="x")
    assert not who(club, other_game).authenticated  # the token is for another game
    # the member form, issued to White, proves White wherever it is among the recipients
    m_token = issue(SECRET, "m", str(member_id(club, white.address)))
    member_form = white.compose("status", to=f"relay+{gid}@club.example", subject="x")
    member_form["Cc"] = f"relay+m.{m_token}@club.example"
    assert who(club, member_form).authenticated
    # the previous key, during a rotation
    rotated = replace(club.cfg, bot=replace(club.cfg.bot, secret="new-key",
                                            secret_previous=SECRET))
    club.cfg = rotated
    assert who(club, white.compose("1. e4")).authenticated
    club.cfg = replace(rotated, bot=replace(rotated.bot, secret_previous=""))
    assert not who(club, white.compose("1. e4")).authenticated


def test_the_previous_keys_tokens_act_for_30_days_after_the_rotation(club: Club) -> None:
    """INTERFACE "Configuration": ``secret_previous`` is the key before a rotation and its
    tokens stay valid for 30 days, counted from the first poll with it, even if the
    operator never clears it; after them a reply to an old token address is held and its
    sender asked. The key itself is never stored (only its SHA-256)."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    old_reply_to = str(white.last()["Reply-To"])  # issued with the old key
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, secret="new-key",
                                             secret_previous=SECRET))
    club.cycle()  # the first poll with the old key as secret_previous: day 0
    white.send("1. e4", to=old_reply_to, subject=f"Re: [{gid}]",
               at=club.clock + timedelta(days=29))
    club.cycle()
    assert "1. e4" in body_of(black.inbox()[-1])  # within the 30 days: it acts
    before = len(white.inbox())
    black.send("1. e4 e5", to=str(black.last()["Reply-To"]))  # new key: acts
    club.cycle()
    assert len(white.inbox()) == before + 1
    white.send("1. e4 e5 2. Nf3", to=old_reply_to, subject=f"Re: [{gid}]",
               at=club.clock + timedelta(days=2))  # day 31 or later
    club.cycle()
    asked = white.inbox()[-1]
    assert "c." in str(asked.parsed["Reply-To"])  # held: a confirmation request
    assert "2. Nf3" not in body_of(black.inbox()[-1])
    with club.store.session() as s:
        stored = s.scalars(select(KeyRotation.fingerprint)).all()
    assert stored == [hashlib.sha256(SECRET.encode()).hexdigest()]


def test_td_mail_carries_the_member_form_issued_to_the_td(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    white.send("td: may I take back a move?")
    club.cycle()
    question = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_question"]
    assert len(question) == 1
    token = issue(SECRET, "m", "td")
    assert f"<relay+m.{token}@club.example>" in str(question[0].parsed["Reply-To"])
    td = Player("TD", TD, club)
    with club.store.session() as s:
        qid = s.scalars(select(Question.id)).one()
    answer = td.compose(f"answer {qid}\nNo.", to=str(question[0].parsed["Reply-To"]),
                        subject="Re: question")  # a reply to the question
    assert who(club, answer) == Who("td", None, True)
    club.deliver(answer.as_bytes())
    club.cycle()
    assert "No." in body_of(white.inbox()[-1])
    # the receipt of the question is about its game: its game token carries a move
    ack = next(c for c in club.mails_to("sato@example.jp")
               if c.parsed["X-Relaybot-Kind"] == "question_ack")
    reply_to = str(ack.parsed["Reply-To"])
    assert f"relay+{gid}." in reply_to
    white.send("1. e4", to=reply_to.split("<")[-1].rstrip(">"), subject="Re: question")
    club.cycle()
    assert "1. e4" in body_of(black.inbox()[-1])  # relayed at once, not held
    # the same words to the bot's plain address: still the TD, not authenticated
    assert who(club, td.compose("answer 1 No.", to=RELAY, subject="x")) == Who("td", None, False)


def test_trusted_dmarc_authenticates_and_a_forged_td_is_still_refused(club: Club) -> None:
    club.cfg = replace(club.cfg, bot=replace(club.cfg.bot, authserv_id=OUR_MTA))
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    passing = white.compose("1. e4", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    passing["Authentication-Results"] = f"{OUR_MTA}; dmarc=pass header.from=example.jp"
    assert who(club, passing).authenticated
    theirs = white.compose("1. e4", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    theirs["Authentication-Results"] = "mx.evil.example; dmarc=pass header.from=example.jp"
    assert not who(club, theirs).authenticated
    # receive reads our MTA's verdict ([bot] authserv_id): a forged TD is refused (G12)
    td = Player("TD", TD, club)
    forged = td.compose(f"forfeit {gid} white", to=RELAY, subject="x")
    forged["Authentication-Results"] = f"{OUR_MTA}; dmarc=fail header.from=club.example"
    club.deliver(forged.as_bytes())
    assert club.cycle().poll.outcomes == {"td_forged": 1}
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.status == "active"
