"""A small club with an event, games in progress and finished games, built through the
real pipeline (members, an event, move mails to the reply-token addresses) on SQLite.

Shared by the web page tests, the browser test and the scripts that regenerate
``docs/screens/`` and ``docs/mails/`` (issue 15), so what a reviewer sees is what the
tests check.
"""

from __future__ import annotations

import base64
import dataclasses
import random
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from relaybot.app.service import Arrival, process_mail, start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.tournaments import EventInput, create_event
from relaybot.config import (
    BotConfig,
    Config,
    DatabaseConfig,
    ImapConfig,
    SmtpConfig,
    WebConfig,
)
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import reply_address
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
                      secret="sample-club-secret-0123456789abcdef",
                      authserv_id="mx.club.example"),
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

    def member_address(self, sender: str) -> str:
        """The ``m.`` token address issued to member ``sender``."""
        with self.store.session() as session:
            member = session.get(Member, self.members[sender])
            assert member is not None
            address = reply_address(self.cfg, Recipient(member.name, member.email, member.id),
                                    None)
        assert address is not None
        return address

    def deliver(self, sender: str, to: str, text: str, days: float = 1.0,
                subject: str = "Re:", dmarc: str = "") -> str:
        """A mail from ``sender`` to ``to`` (any address), ``days`` after the last mail;
        ``dmarc`` ``pass`` or ``fail``: our MTA's verdict for the From: domain."""
        self.now += timedelta(days=days)
        self.uid += 1
        msg = EmailMessage()
        if dmarc:
            domain = sender.rsplit("@", 1)[-1]
            msg["Authentication-Results"] = (f"mx.club.example; dmarc={dmarc} "
                                             f"header.from={domain}")
        msg["From"] = sender
        msg["To"] = to
        msg["Subject"] = subject
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
    """The rest of what the bot writes, every kind in ``relaybot.mail.kinds`` (after
    :func:`build`): help, status, a wrong move, a record that differs, a move out of
    turn, a leave, a long think, a question and its answer, a draw offer, digest off
    (and on again), a mail for two games (J17), a held mail cancelled, confirmed too late
    and a forged one, a reminder and the TD's escalations (more than the day's cap: the next day's
    summary), the weekly digest, an overrun report, the 24-month report, the
    operator's quarantine alert, mail that could not be delivered, a shogi and a go
    game (a disputed go result goes to the TD), and the TD's commands by mail with
    their confirmation and a corrected result."""
    from relaybot.app.poller import _quarantine_alert
    from relaybot.app.runner import run_scheduled
    from relaybot.pipeline.td import run_commands
    from relaybot.store.models import Question

    _undeliverable(club)
    first = club.games[0]
    white, black = club.sides(first)
    club.send(black, first, "help", days=0.1)
    club.send(black, first, "status", days=0.1)
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5 O-O", days=0.1)  # illegal: J5
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6", days=0.1)  # J1: sync error
    assert club.send(white, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4",
                     days=0.1) == "not_your_turn"
    club.send(black, first, "long think", days=0.1)
    club.send(black, first, "td: May I claim a draw by repetition later?", days=0.1)
    with club.store.session() as session:
        question = session.scalars(select(Question).order_by(Question.id.desc())).first()
        assert question is not None
        run_commands(session, club.cfg, f"answer {question.id} Yes, when it happens.",
                     club.now)
    club.send(black, first, "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\ndraw?", days=0.5)
    offered = next(g for g in club.games[4:] if set(club.sides(g)) == {EMAILS[1], EMAILS[3]})
    w, b = club.sides(offered)
    club.send(w, offered, "1. e4", days=0.1)
    assert club.send(b, offered, "draw?", days=0.1) == "draw_offer"  # an offer, no move
    fifth = club.games[4]
    w5, _ = club.sides(fifth)
    leave_from = (club.now + timedelta(days=3)).date()
    # a leave and digest off concern the member, not one game: to the m. address
    club.deliver(w5, club.member_address(w5),
                 f"leave {leave_from} {leave_from + timedelta(days=4)}", days=0.1)
    club.deliver(EMAILS[3], club.member_address(EMAILS[3]), "digest off", days=0.1)
    # J17: two games against the same opponent (A and B), one mail with both sections
    pair = [g for g in club.games if set(club.sides(g)) == {EMAILS[0], EMAILS[2]}]
    game_a = next(g for g in pair if club.sides(g)[0] == EMAILS[2])
    club.send(EMAILS[2], game_a, "1. e4", days=0.1)
    club.send(EMAILS[0], game_a, "よろしくお願いします。\n\nA\n1. e4 e5\n\nB\n1. d4",
              days=0.1)
    held = next(g for g in club.games[4:] if EMAILS[2] in club.sides(g))
    club.send(EMAILS[2], held, "resign", days=0.1, token=False)  # not proven: held
    confirm = _reply_to(club, "hold_request")
    club.deliver(EMAILS[2], confirm, "what is this?", days=0.1)  # asked once more
    club.deliver(EMAILS[2], confirm, "cancel", days=0.1)
    club.deliver(EMAILS[2], confirm, "confirm", days=0.1)  # nothing left to confirm
    club.deliver(EMAILS[2], club.cfg.bot.game_address(held), "resign", days=0.1,
                 subject=f"Re: [{held}]", dmarc="fail")  # forged: nothing acts
    # silence: the reminder after 10 days, the TD 10 days after it (J11); the digests on
    # Monday.
    # More escalations in a day than the TD's cap lets through: the rest wait for the
    # next day's summary (issue 12 item 8)
    capped = dataclasses.replace(club.cfg, mail=dataclasses.replace(club.cfg.mail,
                                                                     td_alert_cap=2))
    for days in (11, 21, 22):
        run_scheduled(club.store, capped, club.now + timedelta(days=days))
    run_scheduled(club.store, club.cfg, club.now + timedelta(days=23))
    # J9: white answers 35 days later, and at the 10th move is over 30 days: the TD's
    # overrun report
    white, black = club.sides(first)
    record = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"
    for number, moves in enumerate(("Ba4 Nf6", "O-O Be7", "Re1 b5", "Bb3 d6", "c3 O-O",
                                    "h3 Nb8", "d4"), start=4):
        w, *b = moves.split()
        record += f" {number}. {w}"
        club.send(white, first, record, days=35 if number == 4 else 0.1)
        if b:
            record += f" {b[0]}"
            club.send(black, first, record, days=0.1)
    # J14: unfinished after 24 months: to the TD for adjudication
    club.now += timedelta(days=2 * 366)
    run_scheduled(club.store, club.cfg, club.now)
    # G3: a mail that fails again and again is quarantined; the operator is told
    with club.store.session() as session:
        _quarantine_alert(session, club.cfg, "INBOX", 1, club.uid + 1,
                          "ValueError: sample failure", club.now)
    go = _go_and_shogi(club)
    _shogi_ending(club)
    # the TD's commands by mail (DMARC passes for the TD's domain): one done, a disputed
    # go result decided in Japanese, a finished game's result corrected (both players
    # told), and two refused; one confirmation says what each did
    corrected, drawn = club.games[1], club.games[3]
    club.deliver(club.cfg.bot.td, club.cfg.bot.address,
                 f"result {corrected} 0-1\n裁定 {go} B+4.5\nadjudicate {drawn} 1-0\n"
                 f"forfeit {corrected}", days=0.1, subject="rulings", dmarc="pass")
    go_points_notice(club)
    salon_league(club)
    _season(club)
    _books(club)
    # the member who stopped the digest has it again (D1)
    club.deliver(EMAILS[3], club.member_address(EMAILS[3]), "digest on", days=0.1)


LEAGUE = [  # four more shogi players: with the club's four, a class S of eight
    # a member registered in Latin letters with the name in Japanese script (issue 26):
    # 鈴木一郎 to a Japanese reader, Ichiro Suzuki to an English one
    MemberInput("Suzuki, Ichiro", "suzuki@example.jp", lang="ja", name_ja="鈴木一郎"),
    MemberInput("Jones, Kate", "jones@example.org", lang="en", tz="Europe/London"),
    MemberInput("高橋, 次郎", "takahashi@example.jp", lang="ja"),
    MemberInput("Green, Sam", "green@example.org", lang="en", tz="America/New_York"),
]


def _season(club: SampleClub) -> None:
    """A season of the shogi net league (seed 002) with one class of eight, Ann Smith
    its secretary: a game won in the first month, the month's progress report to her and
    the TD, then the season's end (the rest unfinished: both lose) and every player's
    final standings."""
    from relaybot.app.runner import run_scheduled
    from relaybot.club.season_book import SeasonInput, create_season, season_games

    swap = any(m.email == EMAILS[0] and m.lang == "en" for m in _members(club))
    with club.store.session() as session:
        for m in LEAGUE:
            person = dataclasses.replace(m, lang="en" if m.lang == "ja" else "ja") \
                if swap else m
            club.members[m.email] = add_member(session, club.cfg, person, club.now).id
        start = (club.now.date().replace(day=1) + timedelta(days=32)).replace(day=1)
        season, games = create_season(session, club.cfg, SeasonInput(
            "第2期", start, [("S", EMAILS + [m.email for m in LEAGUE])],
            secretaries={"S": EMAILS[1]}), club.now)
        for game in games:
            start_mails(session, club.cfg, game, club.now)
        first = season_games(session, season)[0].id
    club.now = datetime(start.year, start.month, 10, 1, tzinfo=UTC)
    sente, gote = club.sides(first)
    club.send(sente, first, "1 ▲７六歩", days=0.1)
    club.send(gote, first, "投了", days=0.1)
    month_end = (start + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    run_scheduled(club.store, club.cfg, datetime(month_end.year, month_end.month,
                                                 month_end.day, 3, tzinfo=UTC))
    club.now = datetime(start.year, start.month, 1, tzinfo=UTC) + timedelta(days=200)
    run_scheduled(club.store, club.cfg, club.now)


def _members(club: SampleClub) -> list[Member]:
    with club.store.session() as session:
        return list(session.scalars(select(Member)))


def _books(club: SampleClub) -> None:
    """Issue 30 (seed 000 会費切れにご注意): one membership running out within the month
    (the digest warns), one lapsed with a family member's that follows it (no digest;
    the TD is told once of each); a tutorial game whose pupil tries to end it (only the
    tutor may: the pupil's refusal)."""
    from relaybot.app.runner import run_scheduled
    from relaybot.club.memberships import set_membership
    from relaybot.club.new_games import GameInput, create_game
    from relaybot.store.models import Tutorial

    club.now += timedelta(days=7)
    with club.store.session() as session:
        for email, days in ((EMAILS[0], 10), (EMAILS[1], -20)):
            member = session.scalars(select(Member).where(Member.email == email)).one()
            set_membership(session, member, kind="regular",
                           paid_until=(club.now + timedelta(days=days)).date())
        family = session.scalars(select(Member).where(Member.email == EMAILS[3])).one()
        set_membership(session, family, kind="family", family_of=EMAILS[1])
        tutor, pupil = (session.scalars(select(Member).where(Member.email == e)).one()
                        for e in (EMAILS[0], EMAILS[2]))
        game = create_game(session, club.cfg, GameInput(EMAILS[0], EMAILS[2]), club.now)
        session.add(Tutorial(game_id=game.id, tutor_id=tutor.id, student_id=pupil.id))
        start_mails(session, club.cfg, game, club.now)
        tutorial = game.id
    run_scheduled(club.store, club.cfg, club.now)
    club.send(EMAILS[0], tutorial, "1. e4", days=0.1)
    club.send(EMAILS[2], tutorial, "1. e4 e5", days=0.1)
    assert club.send(EMAILS[2], tutorial, "指導終了", days=0.1) == "tutorial_end_refused"


def _undeliverable(club: SampleClub) -> None:
    """G5, G6: a member's address refuses mail for good: the TD is told of each mail,
    and of the member once the bounces add up."""
    from relaybot.app.outbox import SendCounts, _record
    from relaybot.mail.smtp import SendResult
    from relaybot.pipeline.bounces import BOUNCE_ESCALATE
    from relaybot.store.models import Outbox

    with club.store.session() as session:
        rows = session.scalars(select(Outbox.id).where(Outbox.recipient == EMAILS[3])
                               .order_by(Outbox.id).limit(BOUNCE_ESCALATE)).all()
    refused = SendResult("permanent", f"550 5.1.1 <{EMAILS[3]}>: Recipient address rejected: "
                                      "User unknown in virtual mailbox table")
    for row_id in rows:
        _record(club.store, club.cfg, row_id, refused, club.now, SendCounts())


def board_games(club: SampleClub) -> tuple[str, str]:
    """The club's shogi and go games (made, with a few moves, if it has none yet)."""
    from relaybot.store.models import Game

    def find(kind: str) -> str | None:
        with club.store.session() as session:
            return session.scalar(select(Game.id).where(Game.kind == kind).limit(1))

    if find("go") is None:
        _go_and_shogi(club)
    shogi, go = find("shogi"), find("go")
    assert shogi is not None and go is not None
    return shogi, go


def _go_and_shogi(club: SampleClub) -> str:
    """A shogi game and a 9x9 go game with a few moves each (their move mails), the go
    game passed out and its result disputed (the TD decides); returns the go game."""
    from relaybot.club.new_games import GameInput, create_game

    with club.store.session() as session:
        shogi = create_game(session, club.cfg, GameInput(EMAILS[0], EMAILS[1], kind="shogi"),
                            club.now)
        go = create_game(session, club.cfg, GameInput(EMAILS[3], EMAILS[2], kind="go",
                                                      options=(("size", "9"),)), club.now)
        for game in (shogi, go):
            start_mails(session, club.cfg, game, club.now)
        ids = shogi.id, go.id
    sente, gote = club.sides(ids[0])
    club.send(sente, ids[0], "1 ▲７六歩", days=0.1)
    club.send(gote, ids[0], "2 △３四歩", days=0.1)
    black, white = club.sides(ids[1])
    for player, text in ((black, "1 E5"), (white, "2 C3"), (black, "3 pass"),
                         (white, "4 pass"), (black, "result B+4.5"),
                         (white, "result W+0.5")):
        club.send(player, ids[1], text, days=0.1)
    return ids[1]


SHOGI_EVENT = "将棋例会 2026"


def _shogi_ending(club: SampleClub) -> None:
    """A shogi match game of the club's, won by 先手 when 後手 resigns: its game-over mail
    in shogi's own words (先手の勝ち（投了）, the score line's 引き分け; issue 26)."""
    with club.store.session() as session:
        games = create_event(session, club.cfg, EventInput(
            name=SHOGI_EVENT, kind="match", players=[EMAILS[0], EMAILS[2]],
            start=club.now.date(), game="shogi"), club.now)
        for game in games:
            start_mails(session, club.cfg, game, club.now)
        gid = games[0].id
    sente, gote = club.sides(gid)
    club.send(sente, gid, "1 ▲７六歩", days=0.1)
    club.send(gote, gid, "投了", days=0.1)


def _reply_to(club: SampleClub, kind: str) -> str:
    """The Reply-To of the latest mail of ``kind`` (a hold's ``c.`` token address)."""
    import email
    from email import policy

    from relaybot.store.models import Outbox

    with club.store.session() as session:
        raw = session.scalars(select(Outbox.raw).where(Outbox.kind == kind)
                              .order_by(Outbox.id.desc())).first()
    assert raw is not None
    return str(email.message_from_bytes(raw, policy=policy.default)["Reply-To"])


def repeatable(seed: str) -> None:
    """Seeded stand-ins for the random game ids and tokens of this script's own run, so
    that a regeneration changes only the files whose mail changed (never in the bot)."""
    rng = random.Random(seed)
    secrets.choice = rng.choice  # type: ignore[assignment]
    secrets.token_bytes = rng.randbytes  # type: ignore[assignment]
    secrets.token_urlsafe = (  # type: ignore[assignment]
        lambda n=32: base64.urlsafe_b64encode(rng.randbytes(n)).rstrip(b"=").decode())
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)  # Message-IDs


def go_points_notice(club: SampleClub) -> None:
    """Seed 004 section 3: a member on provisional go points reaches 10 counted games;
    the club's TD is told once (td_go_points)."""
    from relaybot.club.rating_book import RatingInput, set_rating
    from relaybot.pipeline.effects import emit_all
    from relaybot.pipeline.lifecycle import go_points_notices
    from relaybot.store.models import Game, Member

    _, go = board_games(club)
    with club.store.session() as session:
        game = session.get(Game, go)
        assert game is not None
        member = session.get(Member, game.side0_id)
        assert member is not None
        row = set_rating(session, member, RatingInput("go", 85, provisional=True))
        row.rated_games, row.rb_wins, row.rb_losses, row.draws = 10, 7, 2, 1
        row.rating = 90
        session.flush()
        emit_all(session, club.cfg, go_points_notices(session, club.cfg, game), club.now)


def salon_league(club: SampleClub) -> None:
    """Seed 004 sections 5, 6: a salon league of three, decided by the TD; at its end
    every player is told the standings and the next secretaries (salon_end)."""
    from relaybot.club.rating_book import RatingInput, set_rating
    from relaybot.pipeline.lifecycle import start_mails
    from relaybot.pipeline.td import run_commands
    from relaybot.store.models import Member

    players = EMAILS[:3]
    with club.store.session() as session:
        for points, address in zip((100, 108, 116), players, strict=True):
            member = session.scalar(select(Member).where(Member.email == address))
            assert member is not None
            set_rating(session, member, RatingInput("go", points, provisional=False))
        session.flush()
        games = create_event(session, club.cfg, EventInput("碁会所リーグ", "salon", players),
                             club.now)
        for game in games:
            start_mails(session, club.cfg, game, club.now)
        commands = "\n".join(f"adjudicate {g.id} {r}"
                             for g, r in zip(games, ("B+5.5", "W+R", "jigo"), strict=True))
        run_commands(session, club.cfg, commands, club.now)
