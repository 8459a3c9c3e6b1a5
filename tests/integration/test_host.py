"""Several clubs on one host (issue 31): ``relaybot host`` runs one service per club,
each with its own mailbox, bot address, TD, language, zone, secret and database."""

from __future__ import annotations

import email
import re
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from relaybot.app.host import load_host
from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import ConfigError, load_config
from relaybot.store.db import Store, migrate
from tests.reliability.harness import wait_until
from tests.servers.dovecot import Account, Dovecot
from tests.servers.smtp_sink import SmtpSink

CLUBS = {
    # name: (bot address, TD, language, zone)
    "chess": ("chess@clubs.example", "td-chess@clubs.example", "en", "Europe/London"),
    "shogi": ("shogi@clubs.example", "td-shogi@clubs.example", "ja", "Asia/Tokyo"),
}


def _club_toml(root: Path, name: str, account: Account | None, sink: SmtpSink | None,
               db: str | None = None) -> Path:
    address, td, lang, tz = CLUBS[name]
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "relaybot.toml"
    url = db or f"sqlite:///{folder / 'club.db'}"
    path.write_text(
        f'[database]\nurl = "{url}"\n'
        f'[bot]\naddress = "{address}"\ntd = "{td}"\nlanguage = "{lang}"\n'
        f'timezone = "{tz}"\nname = "{name} club"\nsecret = "secret-of-the-{name}-club"\n'
        f'[imap]\nhost = "{account.host if account else "127.0.0.1"}"\n'
        f'port = {account.port if account else 143}\n'
        f'user = "{account.user if account else name}"\n'
        f'password = "{account.password if account else ""}"\npoll_seconds = 1\n'
        f'[smtp]\nhost = "{sink.host if sink else "127.0.0.1"}"\n'
        f'port = {sink.port if sink else 25}\ntimeout = 5\n', encoding="utf-8")
    return path


def _host_toml(root: Path, configs: dict[str, Path], instances: int = 1) -> Path:
    path = root / "host.toml"
    path.write_text("".join(
        f'[[club]]\nname = "{name}"\nconfig = "{cfg}"\ninstances = {instances}\n\n'
        for name, cfg in configs.items()), encoding="utf-8")
    return path


def test_a_host_file_keeps_clubs_apart(tmp_path: Path) -> None:
    chess = _club_toml(tmp_path, "chess", None, None)
    shogi = _club_toml(tmp_path, "shogi", None, None)
    entries = load_host(_host_toml(tmp_path, {"chess": chess, "shogi": shogi}))
    assert [(e.name, e.cfg.bot.address, e.cfg.bot.language) for e in entries] == [
        ("chess", "chess@clubs.example", "en"), ("shogi", "shogi@clubs.example", "ja")]
    # two clubs on one database: refused, whatever else differs
    chess_db = f"sqlite:///{tmp_path / 'chess' / 'club.db'}"
    shared = _club_toml(tmp_path, "shogi", None, None, db=chess_db)
    with pytest.raises(ConfigError, match="share a database"):
        load_host(_host_toml(tmp_path, {"chess": chess, "shogi": shared}))
    # several instances of a club need PostgreSQL (G9)
    shogi = _club_toml(tmp_path, "shogi", None, None)
    with pytest.raises(ConfigError, match="need PostgreSQL"):
        load_host(_host_toml(tmp_path, {"chess": chess, "shogi": shogi}, instances=2))
    # one wake listener address per club, and per instance ([imap] wake_listen)
    for path in (chess, shogi):
        _listening(path, "127.0.0.1:8025")
    with pytest.raises(ConfigError, match=r"share a wake listener address"):
        load_host(_host_toml(tmp_path, {"chess": chess, "shogi": shogi}))
    _listening(shogi, "127.0.0.1:8026")
    assert len(load_host(_host_toml(tmp_path, {"chess": chess, "shogi": shogi}))) == 2
    on_pg = _listening(_club_toml(tmp_path, "chess", None, None,
                                  db="postgresql+psycopg://x@127.0.0.1/x"), "127.0.0.1:8027")
    with pytest.raises(ConfigError, match=r"cannot all listen on imap\.wake_listen"):
        load_host(_host_toml(tmp_path, {"chess": on_pg}, instances=2))


def _listening(path: Path, address: str) -> Path:
    """The club config at ``path`` with ``[imap] wake_listen = address`` (replaced)."""
    text = re.sub(r'wake_listen = "[^"]*"\n', "", path.read_text(encoding="utf-8"))
    path.write_text(text.replace("poll_seconds = 1\n",
                                 f'poll_seconds = 1\nwake_listen = "{address}"\n'),
                    encoding="utf-8")
    return path


def _reply(start_mail: EmailMessage, sender: str, text: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(start_mail["Reply-To"])
    msg["Subject"] = "Re: " + str(start_mail["Subject"])
    msg["In-Reply-To"] = msg["References"] = str(start_mail["Message-ID"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content(text)
    return msg.as_bytes()


@pytest.mark.integration
def test_two_clubs_on_one_host_each_relays_its_own_mail(
    dovecot: Dovecot, smtp_sink: SmtpSink, tmp_path: Path,
) -> None:
    accounts = {name: dovecot.new_account(name) for name in CLUBS}
    configs = {name: _club_toml(tmp_path, name, accounts[name], smtp_sink) for name in CLUBS}
    now = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    players: dict[str, tuple[str, str]] = {}
    for name, path in configs.items():
        cfg = load_config(path, {})
        store = Store.open(cfg.database.url)
        migrate(store.engine)
        white, black = f"white@{name}.example", f"black@{name}.example"
        with store.session() as session:
            for who in (white, black):
                add_member(session, cfg, MemberInput(who.split("@")[0].title() + ", " + name,
                                                     who), now)
            game = create_game(session, cfg, GameInput(white=white, black=black), now)
            start_mails(session, cfg, game, now)
        store.dispose()
        players[name] = (white, black)
    host = subprocess.Popen([sys.executable, "-m", "relaybot.cli", "host", "run",
                             str(_host_toml(tmp_path, configs))], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        def mails_to(address: str) -> list[EmailMessage]:
            return [email.message_from_bytes(c.raw, policy=policy.default)  # type: ignore[misc]
                    for c in smtp_sink.captured if address in c.rcpt_tos]

        # each club's start mails, from its own bot address to its own members
        assert wait_until(lambda: all(mails_to(p) for pair in players.values() for p in pair),
                          40), "the start mails never went out"
        # a move in each club's own mailbox is relayed by that club alone
        for name, (white, _black) in players.items():
            accounts[name].append(_reply(mails_to(white)[-1], white, "1. e4"), now)
        assert wait_until(lambda: all(len(mails_to(black)) >= 2
                                      for _white, black in players.values()), 40)
    finally:
        host.send_signal(signal.SIGTERM)
        out, _ = host.communicate(timeout=60)
    assert host.returncode == 0, out
    for name, (white, black) in players.items():
        address = CLUBS[name][0]
        for who in (white, black):
            senders = {str(m["From"]).split("<")[-1].rstrip(">") for m in mails_to(who)}
            # the club's bot address, or its game address (<local>+<game>@<domain>)
            assert {s.split("+")[0].split("@")[0] + "@" + s.split("@")[1]
                    for s in senders} == {address}, (name, who, senders)
        assert "e4" in mails_to(black)[-1].get_body(("plain",)).get_content()  # type: ignore[union-attr]
