"""Small holes (issue 12 item 11): UTF-7 and lone surrogates never reach the database;
strangers' and automated mail is not kept raw for ever (``[mail] retention_days``).
Issue 22: a database password is hidden whatever characters it holds; members' names
cannot break the PGN, KIF, CSA, SGF and iCalendar files they are written into; a player
id out of range is a 404; a game's export carries no reply token that still acts.

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.config import redact_url
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


# passwords as an operator may type them into [database] url: urlparse cuts the userinfo
# at the first "/", "?" or "#", and "@" unencoded is not even a valid URL
PASSWORDS = ["secret/slash", "secret?query", "secret#fragment", "abc/def?ghi#jkl:mno",
             "with space/and", "atsign@inside/w?x#y", "::@#?/"]


@pytest.mark.parametrize("password", PASSWORDS)
def test_a_database_password_with_url_characters_is_never_printed(
        password: str, tmp_path: Path) -> None:
    """database password holding / ? # : @ or a space -> shown as *** in every message,
    including the CLI's one-line error when the database cannot be reached"""
    url = f"postgresql+psycopg://relay:{password}@127.0.0.1:1/relaybot?sslmode=disable"
    shown = "postgresql+psycopg://relay:***@127.0.0.1:1/relaybot?sslmode=disable"
    assert redact_url(url) == shown
    assert redact_url(f"cannot open {url} now") == f"cannot open {shown} now"
    assert redact_url(f"{url}\n{url}") == f"{shown}\n{shown}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELAYBOT_")}
    env.update({"RELAYBOT_DATABASE_URL": url, "RELAYBOT_BOT_SECRET": "k"})
    (tmp_path / "relaybot.toml").touch()
    proc = subprocess.run([sys.executable, "-m", "relaybot.cli", "member", "list"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr  # the database cannot be reached: one line
    assert len(proc.stderr.splitlines()) == 1 and f"database {shown}: " in proc.stderr
    # nor any piece of it (the driver would name "inside" as the host it cannot find)
    for piece in re.split(r"[/?#:@ ]", password):
        if len(piece) > 2:
            assert piece not in proc.stdout + proc.stderr.replace(shown, ""), piece
