"""``relaybot demo``: a whole game by mail on this machine, with nothing configured.

Mail servers run on loopback inside the process (demo_servers), the database is
a throwaway SQLite file, and two players - one writing in Japanese, one in
English - play a short game by replying to the bot's mails, including one
illegal move and its correction. Every mail is printed as it goes. ``--game shogi``
plays a short shogi game instead (an ambiguous move and its correction, a
conditional move, a resignation) and prints its KIF record.
"""

from __future__ import annotations

import email
import smtplib
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from relaybot.app.demo_servers import Delivered, DemoMailServers
from relaybot.app.runner import run_once
from relaybot.app.service import start_mails
from relaybot.club.gamefile import GameFile
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.club.views import game_record
from relaybot.config import (
    BotConfig,
    Config,
    DatabaseConfig,
    ImapConfig,
    SmtpConfig,
    new_secret,
)
from relaybot.mail.wording import result_text
from relaybot.store.db import Store, migrate
from relaybot.store.models import Game

RELAY = "relay@club.example"
WHITE = ("Hayakawa, Satoru", "hayakawa@example.jp", "ja")
BLACK = ("Horie, Takahiro", "horie@example.org", "en")

# (who: the first or the second player, text); chess: Hayakawa has White
CHESS_SCRIPT = [
    (0, "よろしくお願いします。\n\n1. e4\n"),
    (1, "Hello and good luck!\n\n1. e4 e5\n"),
    (0, "1. e4 e5 2. Bc4\n"),
    (1, "1. e4 e5 2. Bc4 Nc6\n"),
    (0, "1. e4 e5 2. Bc4 Nc6 3. Qh5\n"),
    (1, "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf7\n"),  # illegal: no knight reaches f7
    (1, "Sorry, I meant:\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6\n"),
    (0, "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#\n\nありがとうございました。\n"),
]
# shogi: Hayakawa is 先手 (--black, moves first), Horie 後手; each writes moves their way
SHOGI_SCRIPT = [
    (0, "よろしくお願いします。\n\n1 ▲７六歩\n"),
    (1, "Hello and good luck!\n\n2 3c3d\n"),  # USI
    (0, "3 ▲５八金\n"),  # ambiguous: two golds can go to 5h; the reply names both
    (0, "失礼しました。\n\n3 ▲５八金右\n"),
    (1, "4 △8四歩\n"),
    (0, "5 ▲２二角成\nもし △同銀 なら ▲５五角打\n"),  # a conditional move (seed 002 rule 16)
    (1, "6 △同　銀\n"),
    (0, "7 ▲５五角打\n"),
    (1, "投了\n\nThank you for the game.\n"),
]


def _print_mail(title: str, raw: bytes, out: Callable[[str], None]) -> None:
    msg = email.message_from_bytes(raw, policy=policy.default)
    out("=" * 72)
    out(title)
    for name in ("From", "To", "Subject"):
        out(f"{name}: {msg.get(name, '')}")
    out("-" * 72)
    part = msg.get_body(preferencelist=("plain",)) if isinstance(msg, EmailMessage) else None
    body = part.get_content() if part is not None else ""
    out(str(body).rstrip())


class _Player:
    def __init__(self, name: str, address: str, servers: DemoMailServers) -> None:
        self.name, self.address, self.servers = name, address, servers
        self.inbox: list[EmailMessage] = []

    def last(self) -> EmailMessage:
        return self.inbox[-1]

    def reply(self, text: str, out: Callable[[str], None]) -> None:
        """Answer the newest bot mail, as a mail client's Reply would."""
        last = self.last()
        msg = EmailMessage()
        msg["From"] = Address(display_name=self.name, addr_spec=self.address)
        msg["To"] = str(last.get("Reply-To") or last["From"])
        msg["Subject"] = "Re: " + str(last["Subject"])
        msg["Message-ID"] = make_msgid(domain=self.address.split("@")[1])
        msg["In-Reply-To"] = str(last["Message-ID"])
        msg.set_content(text)
        raw = msg.as_bytes()
        _print_mail(f"{self.name} -> relaybot", raw, out)
        with smtplib.SMTP(self.servers.smtp_host, self.servers.smtp_port, timeout=10) as smtp:
            smtp.send_message(msg)


# ``relaybot demo --game go``: a 9x9 game (Horie, --black, is Black and moves first; 0 is
# Hayakawa, 1 Horie as in the other scripts), one move onto a stone and its correction,
# two passes and agreed results
GO_OPTIONS = (("size", "9"),)
GO_SCRIPT = [
    (1, "Hello and good luck!\n\n1 E5\n"),
    (0, "よろしくお願いします。\n\n2 C5\n"),
    (1, "3 E3\n"),
    (0, "4 c3\n"),
    (1, "5 ec\n"),  # an SGF point: E7
    (0, "6 E5\n"),  # occupied: refused politely, in Japanese
    (0, "失礼しました。\n\n6 C7\n"),
    (1, "7 pass\n"),
    (0, "8 パス\n"),
    (1, "result B+5.5\n"),
    (0, "結果 黒5目半勝ち\n\nありがとうございました。\n"),
]


def run_demo(out: Callable[[str], None] = print, game: str = "chess") -> int:
    """Play the demo game (``chess``, ``shogi``, or ``go`` on 9x9); returns the exit
    status."""
    script = {"shogi": SHOGI_SCRIPT, "go": GO_SCRIPT}.get(game, CHESS_SCRIPT)

    players: dict[str, _Player] = {}

    def delivered(d: Delivered) -> None:
        msg = email.message_from_bytes(d.raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        for rcpt in d.rcpt_tos:
            if rcpt in players:
                players[rcpt].inbox.append(msg)
        _print_mail("relaybot -> " + ", ".join(d.rcpt_tos), d.raw, out)

    with tempfile.TemporaryDirectory(prefix="relaybot-demo-") as tmp, DemoMailServers(
        RELAY, on_delivery=delivered
    ) as servers:
        cfg = Config(
            database=DatabaseConfig(url=f"sqlite:///{Path(tmp) / 'demo.db'}"),
            bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="ja",
                          td="td@club.example", secret=new_secret()),
            imap=ImapConfig(host=servers.imap_host, port=servers.imap_port,
                            user=servers.imap_user, password=servers.imap_password,
                            tls="none", folder="INBOX", poll_seconds=1),
            smtp=SmtpConfig(host=servers.smtp_host, port=servers.smtp_port, user="",
                            password="", tls="none", timeout=10),
            source="demo",
        )
        store = Store.open(cfg.database.url)
        migrate(store.engine)
        now = datetime.now(UTC)
        for name, address, _lang in (WHITE, BLACK):
            players[address] = _Player(name, address, servers)
        with store.session() as session:
            for member in (
                add_member(session, cfg, MemberInput(WHITE[0], WHITE[1], lang=WHITE[2]), now),
                add_member(session, cfg, MemberInput(BLACK[0], BLACK[1], lang=BLACK[2],
                                                     tz="Europe/London"), now),
            ):
                member.digest = "off"  # the tour shows one game; no weekly digest
            # shogi: --black is 先手 and moves first, so Hayakawa plays Black there
            first, second = WHITE[1], BLACK[1]
            colours = (second, first) if game == "shogi" else (first, second)
            game_row = create_game(session, cfg, GameInput(
                white=colours[0], black=colours[1], event="relaybot demo", kind=game,
                options=GO_OPTIONS if game == "go" else ()), now)
            start_mails(session, cfg, game_row, now)
            game_id = game_row.id
        out(f"relaybot demo: game {game_id} at {cfg.bot.game_address(game_id)}")

        def cycle() -> None:
            # SMTP hands mail over before answering 250, so one cycle sees it all
            run_once(store, cfg)

        people = (players[WHITE[1]], players[BLACK[1]])
        cycle()  # the start mails
        for who, text in script:
            people[who].reply(text, out)
            cycle()
        with store.session() as session:
            final = session.get(Game, game_id)
            assert final is not None
            out("=" * 72)
            gf = GameFile.load(session, final)
            words = result_text(final.kind, final.result or "", final.termination or "", "en")
            said = f"{final.result}, {words}" if words != final.result else words
            out(f"Game {game_id} ended {said} ({final.termination}). "
                f"{gf.rules.record_format.upper()}:")
            out(game_record(cfg, gf))
        store.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(run_demo())
