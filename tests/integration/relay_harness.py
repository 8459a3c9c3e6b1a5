"""A club on loopback for end-to-end tests: real Dovecot, the aiosmtpd sink, a real store.

Players write mail the way a mail client does (reply to the bot's newest mail,
threading headers, a quoted copy below) and the mail arrives in Dovecot by
APPEND with an INTERNALDATE; ``cycle()`` runs one ``relaybot run --once``.
"""

from __future__ import annotations

import email
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from sqlalchemy import select

from relaybot.app.runner import CycleReport, run_once
from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig
from relaybot.core import tokens
from relaybot.store.db import Store, migrate
from relaybot.store.models import Member
from tests.servers.dovecot import Account
from tests.servers.smtp_sink import Captured, SmtpSink

RELAY = "relay@club.example"
TD = "td@club.example"
# the key of the club's reply tokens (issue 12); a real club's comes from `relaybot init`
SECRET = "harness-secret-for-tests-only"
# the authserv-id of the club's own MTA ([bot] authserv_id): a test that plays the MTA
# adds "Authentication-Results: mx.club.example; dmarc=pass ..." (see authenticated_by_mta)
OUR_MTA = "mx.club.example"


def authenticated_by_mta(raw: bytes, domain: str) -> bytes:
    """``raw`` with our MTA's ``dmarc=pass`` for ``domain`` on top, as the club's own
    mail server adds it to a mail that passed DMARC."""
    return f"Authentication-Results: {OUR_MTA}; dmarc=pass header.from={domain}\r\n".encode() \
        + raw


def body_of(captured: Captured) -> str:
    """The text of a captured mail, decoded."""
    msg = email.message_from_bytes(captured.raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


@dataclass
class Player:
    name: str
    address: str
    club: Club
    lang: str = "en"

    def game_address(self, game_id: str) -> str:
        """The game's token address issued to this player: what the Reply-To of the
        bot's mail about that game says (a reply there is authenticated, issue 12)."""
        return self.club.token_address(self.address, game_id)

    def member_address(self) -> str:
        """The ``m.`` token address issued to this player (or TD): the Reply-To of the
        bot's mail that is not about one game (digests, TD mail)."""
        return self.club.token_address(self.address)

    def inbox(self) -> list[Captured]:
        """Mail the bot sent this player about games (weekly digests left out)."""
        return [c for c in self.club.sink.captured if self.address in c.rcpt_tos
                and c.parsed["X-Relaybot-Kind"] != "digest"]

    def last(self) -> EmailMessage:
        mails = self.inbox()
        assert mails, f"{self.address} has no mail"
        msg = email.message_from_bytes(mails[-1].raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        return msg

    def compose(self, text: str, *, to: str | None = None, subject: str | None = None,
                quote: bool = True) -> EmailMessage:
        """A reply to the newest bot mail, as a mail client writes it."""
        msg = EmailMessage()
        msg["From"] = Address(display_name=self.name, addr_spec=self.address)
        if to is None or subject is None:
            last = self.last()
            to = to or str(last.get("Reply-To") or last["From"])
            subject = subject or "Re: " + str(last["Subject"])
            msg["In-Reply-To"] = str(last["Message-ID"])
            msg["References"] = str(last["Message-ID"])
            if quote:
                old = last.get_body(preferencelist=("plain",))
                quoted = "\n".join("> " + line for line in str(
                    old.get_content() if old else "").splitlines()[:30])
                text = f"{text}\n\nOn Mon, relaybot <{RELAY}> wrote:\n{quoted}\n"
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = format_datetime(self.club.clock)
        msg["Message-ID"] = make_msgid(domain=self.address.split("@")[1])
        msg.set_content(text)
        return msg

    def send(self, text: str, *, at: datetime | None = None, **kw: object) -> bytes:
        """Compose and deliver one mail (arriving ``at``, default 20 hours on)."""
        raw = self.compose(text, **kw).as_bytes()  # type: ignore[arg-type]
        self.club.deliver(raw, at)
        return raw


@dataclass
class Club:
    account: Account
    sink: SmtpSink
    db_url: str
    workdir: Path
    # Dovecot replaces an INTERNALDATE far in the future with the real time: keep the
    # club clock in the past.
    clock: datetime = field(default_factory=lambda: datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    players: dict[str, Player] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cfg = Config(
            database=DatabaseConfig(url=self.db_url),
            bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="en", td=TD,
                          secret=SECRET, authserv_id=OUR_MTA),
            imap=ImapConfig(host=self.account.host, port=self.account.port,
                            user=self.account.user, password=self.account.password,
                            tls="none", folder="INBOX", poll_seconds=1),
            smtp=SmtpConfig(host=self.sink.host, port=self.sink.port, user="", password="",
                            tls="none", timeout=5),
        )
        self.store = Store.open(self.db_url)
        migrate(self.store.engine)

    def env(self) -> dict[str, str]:
        """Environment for a ``relaybot`` subprocess on this club."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
        env.update({
            "RELAYBOT_DATABASE_URL": self.db_url,
            "RELAYBOT_BOT_ADDRESS": RELAY, "RELAYBOT_BOT_TD": TD,
            "RELAYBOT_BOT_LANGUAGE": "en", "RELAYBOT_BOT_TIMEZONE": "Asia/Tokyo",
            "RELAYBOT_BOT_SECRET": SECRET, "RELAYBOT_BOT_AUTHSERV_ID": self.cfg.bot.authserv_id,
            "RELAYBOT_IMAP_HOST": self.account.host,
            "RELAYBOT_IMAP_PORT": str(self.account.port),
            "RELAYBOT_IMAP_USER": self.account.user,
            "RELAYBOT_IMAP_PASSWORD": self.account.password,
            "RELAYBOT_SMTP_HOST": self.sink.host, "RELAYBOT_SMTP_PORT": str(self.sink.port),
            "RELAYBOT_CONFIG": str(self.workdir / "relaybot.toml"),
        })
        return env

    def cli(self, *args: str, extra_env: dict[str, str] | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run the real ``relaybot`` command against this club."""
        (self.workdir / "relaybot.toml").touch()
        proc = subprocess.run(
            [sys.executable, "-m", "relaybot.cli", *args], cwd=self.workdir,
            env={**self.env(), **(extra_env or {})}, capture_output=True, text=True,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"relaybot {' '.join(args)} failed: {proc.stderr}")
        return proc

    def member(self, name: str, address: str, *, lang: str = "en", tz: str = "Asia/Tokyo",
               notation: str | None = None) -> Player:
        with self.store.session() as session:
            add_member(session, self.cfg, MemberInput(name, address, lang=lang, tz=tz,
                                                      notation=notation), self.clock)
        player = Player(name, address, self, lang)
        self.players[address] = player
        return player

    def game(self, white: Player, black: Player, **kw: object) -> str:
        with self.store.session() as session:
            game = create_game(session, self.cfg, GameInput(
                white=white.address, black=black.address, **kw), self.clock)  # type: ignore[arg-type]
            start_mails(session, self.cfg, game, self.clock)
            game_id = game.id
        self.cycle()
        return game_id

    def deliver(self, raw: bytes, when: datetime | None = None) -> int:
        """Mail arrives at our server now (INTERNALDATE = the club clock)."""
        self.clock = when or self.clock + timedelta(hours=20)
        return self.account.append(raw, self.clock)

    def cycle(self) -> CycleReport:
        return run_once(self.store, self.cfg, self.clock)

    def token_address(self, address: str, game_id: str | None = None) -> str:
        """The token address the bot issues to member (or TD) ``address`` (about
        ``game_id``, or ``m.`` for other mail)."""
        scope = game_id or tokens.MEMBER_SCOPE
        with self.store.session() as session:
            member = session.scalar(select(Member).where(Member.email == address))
            # not a member: a TD, whose tokens are issued to "td" ([bot] td) or "td:<addr>"
            recipient = (str(member.id) if member is not None
                         else tokens.td_recipient(self.cfg.bot.td, address))
            token = tokens.issue(SECRET, scope, recipient)
        return tokens.format_address("relay", "club.example", scope, token)

    def mails_to(self, address: str) -> list[Captured]:
        return [c for c in self.sink.captured if address in c.rcpt_tos]
