"""A small club with an event, games in progress and finished games, built through the
real pipeline (members, an event, move mails to the reply-token addresses) on SQLite.

Shared by the web page tests, the browser test and the scripts that regenerate
``docs/screens/`` and ``docs/mails/`` (issue 15), so what a reviewer sees is what the
tests check.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from relaybot.admin import MemberInput, add_member
from relaybot.config import (
    BotConfig,
    Config,
    DatabaseConfig,
    ImapConfig,
    SmtpConfig,
    WebConfig,
)
from relaybot.events import EventInput, create_event
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import reply_address
from relaybot.service import Arrival, process_mail, start_mails
from relaybot.store.db import Store, migrate
from relaybot.store.models import Announcement, Game, Member

T0 = datetime(2026, 11, 2, 0, 30, tzinfo=UTC)  # a Monday, 09:30 in Tokyo
EVENT = "Kanto Cup 2026/A"  # a space and a slash: the page's URL encodes them
MEMBERS = [
    MemberInput("山田, 太郎", "yamada@example.jp", lang="ja", rating=1850),
    MemberInput("Smith, Ann", "smith@example.org", lang="en", tz="Europe/London", rating=1720),
    MemberInput("佐藤, 花子", "sato@example.jp", lang="ja", rating=1600),
    MemberInput("Brown, Tom", "brown@example.org", lang="en", tz="America/New_York"),
]
EMAILS = [m.email for m in MEMBERS]


def config(db_url: str, base_url: str = "https://chess.club.example",
           language: str = "ja") -> Config:
    """The sample club's settings: a secret for reply tokens and a web address;
    ``language`` is the bot's (the TD's mails)."""
    return Config(
        database=DatabaseConfig(url=db_url),
        bot=BotConfig(address="relay@club.example", timezone="Asia/Tokyo", language=language,
                      td="td@club.example", name="関東通信チェス", site="Kanto CC",
                      secret="sample-club-secret-0123456789abcdef"),
        imap=ImapConfig("127.0.0.1", 1, "u", "p", "none", "INBOX"),
        smtp=SmtpConfig("127.0.0.1", 1, "", "", "none"),
        web=WebConfig(base_url=base_url))


@dataclass
class SampleClub:
    cfg: Config
    store: Store
    games: list[str]
    now: datetime
    members: dict[str, int] = field(default_factory=dict)
    uid: int = 0

    def send(self, sender: str, gid: str, text: str, days: float = 1.0,
             token: bool = True) -> str:
        """``sender`` replies in game ``gid`` to their reply-token address (``token``
        False: to the game's plain address), ``days`` after the last mail; returns what
        the bot made of it."""
        self.now += timedelta(days=days)
        self.uid += 1
        with self.store.session() as session:
            member = session.get(Member, self.members[sender])
            assert member is not None
            to = reply_address(self.cfg, Recipient(member.name, member.email, member.id), gid)
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = (to if token else None) or self.cfg.bot.game_address(gid)
        msg["Subject"] = f"Re: [{gid}]"
        msg["Message-ID"] = f"<sample{self.uid}@example.org>"
        msg.set_content(text)
        return process_mail(self.store, self.cfg,
                            Arrival(msg.as_bytes(), self.now, "INBOX", 1, self.uid), self.now)

    def sides(self, gid: str) -> tuple[str, str]:
        """The addresses of a game's side 0 and side 1."""
        with self.store.session() as session:
            game = session.get(Game, gid)
            assert game is not None
            emails = {v: k for k, v in self.members.items()}
            return emails[game.side0_id], emails[game.side1_id]


def build(directory: Path, base_url: str = "https://chess.club.example",
          language: str = "ja", swap: bool = False) -> SampleClub:
    """The sample club in ``directory/club.db``: an event of four (12 games), one game
    with a few moves, three decided games, and an announcement. ``language`` is the
    bot's; ``swap`` gives every member the other language."""
    store = Store.open(f"sqlite:///{directory / 'club.db'}")
    migrate(store.engine)
    cfg = config(f"sqlite:///{directory / 'club.db'}", base_url, language)
    people = [dataclasses.replace(m, lang="en" if m.lang == "ja" else "ja") if swap else m
              for m in MEMBERS]  # ``swap``: every member reads the other language
    with store.session() as session:
        members = {m.email: add_member(session, cfg, m, T0).id for m in people}
        games = create_event(session, cfg, EventInput(
            name=EVENT, kind="group", players=EMAILS, start=date(2026, 11, 2)), T0)
        for game in games:
            start_mails(session, cfg, game, T0)
        ids = [g.id for g in games]
        session.add(Announcement(text="12月の例会は 12/6（日）です。", created_at=T0))
    club = SampleClub(cfg, store, ids, T0, members)
    play(club)
    return club


def play(club: SampleClub) -> None:
    """A game in progress (the Ruy Lopez), two resignations and a draw."""
    first = club.games[0]
    white, black = club.sides(first)
    assert club.send(white, first, "よろしくお願いします。\n\n1. e4") == "move"
    club.send(black, first, "1. e4 e5")
    club.send(white, first, "1. e4 e5 2. Nf3")
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6", days=0.2)
    club.send(white, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5")
    for gid, loser in ((club.games[1], 1), (club.games[2], 0)):
        w, b = club.sides(gid)
        club.send(w, gid, "1. d4")
        club.send(b, gid, "1. d4 d5")
        club.send(b if loser else w, gid, "resign")
    gid = club.games[3]
    w, b = club.sides(gid)
    club.send(w, gid, "1. c4\ndraw?")
    club.send(b, gid, "draw")


def every_kind(club: SampleClub) -> None:
    """The rest of what the bot writes: help, status, a wrong move, a leave, a long
    think, a question and its answer, a draw offer, digest off, a reminder and the TD's
    escalation, the weekly digest (after :func:`build`)."""
    from relaybot.pipeline.td import run_commands
    from relaybot.runner import run_scheduled
    from relaybot.store.models import Question

    first = club.games[0]
    _, black = club.sides(first)
    club.send(black, first, "help", days=0.1)
    club.send(black, first, "status", days=0.1)
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5 O-O", days=0.1)  # illegal: J5
    club.send(black, first, "long think", days=0.1)
    club.send(black, first, "td: May I claim a draw by repetition later?", days=0.1)
    with club.store.session() as session:
        question = session.scalars(select(Question).order_by(Question.id.desc())).first()
        assert question is not None
        run_commands(session, club.cfg, f"answer {question.id} Yes, when it happens.",
                     club.now)
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\ndraw?", days=0.5)
    fifth = club.games[4]
    w5, _ = club.sides(fifth)
    leave_from = (club.now + timedelta(days=3)).date()
    club.send(w5, fifth, f"leave {leave_from} {leave_from + timedelta(days=4)}", days=0.1)
    club.send(EMAILS[3], club.games[5], "digest off", days=0.1)
    held = next(g for g in club.games[4:] if EMAILS[2] in club.sides(g))
    club.send(EMAILS[2], held, "resign", days=0.1, token=False)  # not proven: held
    # silence: the reminder after 10 days, the TD after 20 (J11); the digests on Monday
    for days in (11, 21, 22):
        run_scheduled(club.store, club.cfg, club.now + timedelta(days=days))
