"""A property of the one reading (issue 22): a mail that is not authenticated never changes
a game, a hold, a member's settings, a leave or a question, whatever it holds.

The mails are built at random from the pieces the earlier readers disagreed on: keyword
lines (every registered keyword, in both languages), TD command lines, section labels in
their written forms, quoted lines, moves and prose, sent from a member's or a TD's
address to the plain game address, the bare address, the one-click unsubscribe token's
address or a made-up token. ``process_mail`` runs on an in-memory SQLite store: the
pipeline needs no IMAP or SMTP server to be tested.

Every test's docstring starts with "attack -> outcome": docs/security.md is generated
from them (scripts/security_table.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from relaybot.app.service import Arrival, process_mail, start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig
from relaybot.core import intent as keywords
from relaybot.core.tokens import UNSUBSCRIBE_SCOPE, issue
from relaybot.pipeline.td import COMMANDS
from relaybot.store.db import Store, migrate
from relaybot.store.models import Game, Hold, Leave, Member, Question

pytestmark = [pytest.mark.reliability]

RELAY, TD, MTA = "relay@club.example", "td@club.example", "mx.club.example"
SECRET = "property-secret-for-tests-only"
WHITE, BLACK, OTHER = "white@example.jp", "black@example.org", "other@example.net"


class PropertyClub:
    """Three members, two games (one with a move and a draw offer), one held mail."""

    def __init__(self) -> None:
        self.cfg = Config(
            database=DatabaseConfig(url="sqlite://"),
            bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="en", td=TD,
                          secret=SECRET, authserv_id=MTA),
            imap=ImapConfig(host="127.0.0.1", port=1, user="x", password="x", tls="none",
                            folder="INBOX", poll_seconds=1),
            smtp=SmtpConfig(host="127.0.0.1", port=1, user="", password="", tls="none",
                            timeout=5),
        )
        self.store = Store.open("sqlite://")
        migrate(self.store.engine)
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        self.uid = 0
        with self.store.session() as s:
            for name, addr in (("White, W", WHITE), ("Black, B", BLACK), ("Other, O", OTHER)):
                add_member(s, self.cfg, MemberInput(name, addr), self.now)
            self.games = []
            for w, b in ((WHITE, BLACK), (OTHER, WHITE)):
                game = create_game(s, self.cfg, GameInput(w, b), self.now)
                start_mails(s, self.cfg, game, self.now)
                self.games.append(game.id)
            self.ids = {m.email: m.id for m in s.scalars(select(Member))}
        # a genuine move with a draw offer (authenticated by our MTA), and a held mail
        self.send(self.mail(WHITE, "1. e4\ndraw?", f"relay+{self.games[0]}@club.example",
                            dmarc=True))
        self.send(self.mail(BLACK, "1. e4 e5", f"relay+{self.games[0]}@club.example"))
        with self.store.session() as s:
            game = s.get(Game, self.games[0])
            assert game is not None and game.plies == "e2e4" and game.draw_offer_by == 0
            assert s.scalars(select(Hold)).all()

    def mail(self, sender: str, text: str, to: str, subject: str = "move",
             dmarc: bool = False) -> bytes:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = format_datetime(self.now)
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content(text)
        raw = msg.as_bytes()
        if dmarc:
            domain = sender.split("@")[1]
            raw = f"Authentication-Results: {MTA}; dmarc=pass header.from={domain}\r\n" \
                .encode() + raw
        return raw

    def send(self, raw: bytes) -> str:
        self.uid += 1
        self.now += timedelta(minutes=7)
        return process_mail(self.store, self.cfg,
                            Arrival(raw, self.now, "INBOX", 1, self.uid), self.now)

    def snapshot(self) -> dict[str, Any]:
        """Everything an unauthenticated mail must leave alone."""
        with self.store.session() as s:
            return {
                "games": {g.id: (g.plies, g.status, g.result, g.draw_offer_by,
                                 repr(g.proposals), g.proposals_by, g.due_at)
                          for g in s.scalars(select(Game))},
                "members": {m.id: (m.name, m.lang, m.digest, m.tz, m.notation, m.letters)
                            for m in s.scalars(select(Member))},
                "holds": {h.id: (h.status, h.games) for h in s.scalars(select(Hold))},
                "leaves": len(s.scalars(select(Leave)).all()),
                "questions": len(s.scalars(select(Question)).all()),
            }


_CLUB: list[PropertyClub] = []


def the_club() -> PropertyClub:
    if not _CLUB:
        _CLUB.append(PropertyClub())
    return _CLUB[0]


KEYWORD_LINES = [
    *sorted({w for k in keywords._BY_WORD.values() for w in k.words}),
    "leave 2026-04-01 2026-04-05", "休戦 2026-04-01〜2026-04-05", "td: is this legal?",
    "TD：質問です", "leave soon"]
COMMAND_LINES = [f"{name} {{gid}} white" for name in sorted(COMMANDS)] + [
    "withdraw white@example.jp lost", "answer {gid}", "approve leave 1"]
LABELS = ["{gid}:", "[{gid}]", "Game {gid}:", "#{gid}", "{gid}局", "A:", "A局", "【A】", ""]
MOVES = ["1. e4", "1. e4 e5", "1. e4 e5 2. Nf3", "2. Nf3", "1. d4", "e5", "Nf3",
         "if 2... Nc6 then 3. Bb5", "もし 2... Nc6 なら 3. Bb5", "1-0", "0-1"]
PROSE = ["Hello!", "Thanks for the game.", "I will not resign", "よろしくお願いします",
         "Answer to your question: fine", "> resign", "> 1. e4 e5", "", "P.S. status?"]

line = st.one_of(
    st.sampled_from(KEYWORD_LINES), st.sampled_from(COMMAND_LINES), st.sampled_from(PROSE),
    st.tuples(st.sampled_from(LABELS), st.sampled_from(KEYWORD_LINES + MOVES)).map(
        lambda t: f"{t[0]} {t[1]}".strip()),
    st.sampled_from(MOVES),
)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(line, min_size=1, max_size=8),
       sender=st.sampled_from([WHITE, BLACK, OTHER, TD]),
       game=st.integers(0, 1), to=st.integers(0, 4), foreign_header=st.booleans())
def test_an_unauthenticated_mail_changes_nothing(lines: list[str], sender: str, game: int,
                                                 to: int, foreign_header: bool) -> None:
    """any mail from a member's or the TD's address without a token of theirs or our MTA's
    dmarc=pass (keywords, commands, labels, quotes, moves, prose at random) -> no game, hold,
    member setting, leave or question changes"""
    club = the_club()
    gid = club.games[game]
    victim = club.ids.get(sender, 0)
    addresses = [
        RELAY, f"relay+{gid}@club.example",
        f"relay+{UNSUBSCRIBE_SCOPE}.{issue(SECRET, UNSUBSCRIBE_SCOPE, str(victim))}"
        "@club.example",
        f"relay+{gid}.{issue(SECRET, gid, str(victim + 1))}@club.example",  # someone else's
        f"relay+m.{issue('another-clubs-secret', 'm', str(victim))}@club.example",
    ]
    text = "\n".join(lines).replace("{gid}", gid)
    raw = club.mail(sender, text, addresses[to], f"[{gid}]" if to == 0 else "Re: move")
    if foreign_header:  # another server's verdict is not ours
        raw = b"Authentication-Results: mx.evil.example; dmarc=pass header.from=" \
              + sender.split("@")[1].encode() + b"\r\n" + raw
    before = club.snapshot()
    outcome = club.send(raw)
    after = club.snapshot()
    new_holds = set(after["holds"]) - set(before["holds"])
    assert {h: after["holds"][h] for h in before["holds"]} == before["holds"], outcome
    for key in ("games", "members", "leaves", "questions"):
        assert after[key] == before[key], (key, outcome, text)
    assert len(new_holds) <= 1
