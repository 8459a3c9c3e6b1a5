"""Small holes (issue 12 item 11): UTF-7 and lone surrogates never reach the database;
strangers' and automated mail is not kept raw for ever (``[mail] retention_days``).
Issue 22: a database password is hidden whatever characters it holds; members' names
cannot break the PGN, KIF, CSA, SGF and iCalendar files they are written into; a player
id out of range is a 404; a game's export carries no reply token that still acts.

Each test's docstring starts with "attack -> outcome" (docs/security.md is made from them).
"""

from __future__ import annotations

import base64
import email
import email.policy
import io
import mailbox
import os
import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import chess.pgn
import pytest
import shogi.CSA
import shogi.KIF
from icalendar import Calendar
from sgfmill import sgf
from sqlalchemy import select
from starlette.testclient import TestClient

from relaybot.config import redact_url
from relaybot.core import tokens
from relaybot.core.game import RecordInfo
from relaybot.games.registry import rules_for
from relaybot.mail.inbound import parse_mail
from relaybot.mail.redact import MARKER, redact_mail
from relaybot.store.db import Store, migrate
from relaybot.store.models import Game, Hold, Inbound, Member, Question, ReplyCount
from relaybot.web import create_app
from relaybot.web.calendar import feed
from tests.integration.relay_harness import RELAY, SECRET, TD, Club
from tests.sample_club import config as sample_config

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
    sato.send("status", at=club.clock)  # its answer counts on the caps' day counter today
    club.cycle()
    sizes = raw_sizes()
    assert sizes["stranger"] == 0 and sizes["automated"] == 0
    assert sizes["move"] > 0  # a game's mail stays raw: it is in the game's export (J19)
    with club.store.session() as s:  # the ledger line stays: a redelivery is still a no-op
        assert s.scalars(select(Inbound.subject).where(
            Inbound.message_id == "stranger@else.example")).one() == "hello"
        # the caps' day counters of a month ago are gone too; today's stays
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


# names a member may be registered under (member add --name): each tries to close the
# value it is written into and add a header, a tag or a property of its own
NASTY_NAMES = [
    'Mallory"] [Result "1-0"',
    "Back\\slash\\",
    'Quote " and back\\" slash',
    "Line\nbreak 終局：先手の勝ち",
    "CR\r\n[Result \"0-1\"]",
    "Sep\u2028arator\x85NEL\tTab",
    "Close] bracket\\] AB[dd]",
]
_PGN_TAG = re.compile(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\.)*)"\]')


def _record_info(names: tuple[str, str], event: str = "Club") -> RecordInfo:
    return RecordInfo(event=event, site="Site", start=date(2026, 3, 2), round="-",
                      players=names, ratings=(None, None), result="", end=None, moves=[])


def _one_line(name: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", name)


@pytest.mark.parametrize("name", NASTY_NAMES)
@pytest.mark.parametrize("standard", [False, True])
def test_a_quote_or_backslash_in_a_name_cannot_add_pgn_tags(name: str, standard: bool) -> None:
    """a " or \\ or line break in a member's name ([White "..."] closed early) ->
    escaped as the PGN standard says; the tags are the bot's

    Every header line is one tag whose value, unescaped, is the name (line breaks as
    spaces); python-chess reads the same names back."""
    info = _record_info((name, "Brown, Tom"), event=name)
    info = RecordInfo(**{**info.__dict__, "standard": standard})
    text = rules_for("chess").write_record(info)
    head = text.split("\n\n", 1)[0].splitlines()
    tags = {}
    for line in head:
        match = _PGN_TAG.fullmatch(line)
        assert match, line
        tags[match[1]] = re.sub(r"\\(.)", r"\1", match[2])
    assert len(tags) == len(head)
    assert tags["White"] == tags["Event"] == _one_line(name) and tags["Result"] == "*"
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and game.headers["Result"] == "*"
    assert set(game.headers) == set(tags)


@pytest.mark.parametrize("name", NASTY_NAMES)
def test_a_line_break_in_a_name_cannot_add_kif_or_csa_lines(name: str) -> None:
    """a line break in a member's name (a KIF header or CSA statement of its own) ->
    the name stays on its header line

    KIF and CSA as python-shogi reads them back: the same names, no ending."""
    rules = rules_for("shogi")
    info = _record_info((name, "藤井猛"), event=name)
    kif = rules.write_record(info, "kif")
    lines = kif.splitlines()
    # a player's name is written as a reader writes it (core/names.py): its runs of
    # white space, the line break's replacement among them, are one space
    player = " ".join(_one_line(name).split())
    assert f"先手：{player}" in lines and f"棋戦：{_one_line(name)}" in lines
    assert [line.partition("：")[0] for line in lines[1:6]] == [
        "開始日時", "棋戦", "手合割", "先手", "後手"]
    assert "終局" not in kif.replace(_one_line(name), "").replace(player, "")
    parsed = shogi.KIF.Parser.parse_str(kif)[0]
    assert parsed["names"][0] == player and parsed["win"] is None
    csa = rules.write_record(info, "csa")
    assert csa.splitlines()[:3] == ["V2.2", f"N+{player}", "N-藤井猛"]
    assert shogi.CSA.Parser.parse_str(csa)[0]["names"][0] == player


@pytest.mark.parametrize("name", NASTY_NAMES)
def test_a_bracket_or_backslash_in_a_name_cannot_add_sgf_properties(name: str) -> None:
    """a ] or \\ in a member's name (PB[...] closed early, AB[dd] added) -> escaped as
    SGF says (sgfmill); the properties are the bot's"""
    rules = rules_for("go")
    board = rules.setup({"size": "9"})
    info = RecordInfo(**{**_record_info((name, "Shiro"), event=name).__dict__,
                         "position": rules.save(board)})
    root = sgf.Sgf_game.from_string(rules.write_record(info)).get_root()
    # the same words (SimpleText, PB, reads any white space as a space; Text, EV, keeps
    # line breaks)
    assert root.get("PB").split() == root.get("EV").split() == name.split()
    assert not root.has_property("AB") and not root.has_property("RE")


CALENDAR_NAMES = [
    "Semi;colon, Comma\\Back",
    "Mallory\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\nSUMMARY:free win",
    "寿限無寿限無五劫の擦り切れ海砂利水魚の水行末雲来末風来末食う寝る処に住む処やぶら小路の藪柑子",
]
_ICAL_TEXT_UNESCAPE = re.compile(r"\\([\\;,nN])")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_members_name_cannot_break_the_calendar_feed(lang: str) -> None:
    """a ; , \\ or line break, or a long Japanese name, in the calendar's name line ->
    TEXT-escaped and folded at 75 octets (RFC 5545): one property a line, the bot's own

    The name is in X-WR-CALNAME (the feed's title) and in each event's SUMMARY (the
    opponent's name)."""
    cfg = sample_config("sqlite://")
    moment = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for name in CALENDAR_NAMES:
        rows = [{"game_id": "g1", "ply": 3, "day": date(2026, 3, 5), "mine": False,
                 "opponent": name, "move": 2}]
        body = feed(cfg, name, lang, rows, moment)
        assert body.endswith(b"\r\n") and b"\n" not in body.replace(b"\r\n", b"")
        physical = body[:-2].split(b"\r\n")
        assert all(len(line) <= 75 for line in physical)  # octets, CRLF not counted
        text = body.decode("utf-8")  # folds never split a character
        unfolded = re.sub(r"\r\n[ \t]", "", text)[:-2].split("\r\n")
        names = [line.split(":", 1)[0].split(";", 1)[0] for line in unfolded]
        assert names == ["BEGIN", "VERSION", "PRODID", "X-WR-CALNAME", "BEGIN", "SUMMARY",
                         "DTSTART", "DTEND", "DTSTAMP", "UID", "URL", "END", "END"], names
        values = dict(line.split(":", 1) for line in unfolded)

        def unescape(value: str) -> str:
            return _ICAL_TEXT_UNESCAPE.sub(
                lambda m: "\n" if m[1] in "nN" else m[1], value)

        title = unescape(values["X-WR-CALNAME"])
        assert title.endswith(name.replace("\r\n", "\n")), title
        assert name.replace("\r\n", "\n") in unescape(values["SUMMARY"])
        parsed = Calendar.from_ical(body)  # and a calendar library reads one event
        assert [str(e["summary"]) for e in parsed.walk("VEVENT")] == [
            unescape(values["SUMMARY"])]


OUT_OF_RANGE = ["18446744073709551616", "9223372036854775808", "2147483648",
                "99999999999999999999999999999999", "-1", "0", "+1", "1_0", "%EF%BC%91",
                "%D9%A1"]  # the last two: a full-width and an Arabic-Indic digit one


def test_a_player_id_out_of_range_is_a_404(db_url: str) -> None:
    """/players/ID with an ID over 64 (or 32) bits, or not an ASCII number -> 404, not
    a 500, on SQLite and PostgreSQL

    The same for the calendar feed and the unsubscribe link, and a NUL in a game id or
    event name (PostgreSQL refuses it in text)."""
    store = Store.open(db_url)
    try:
        migrate(store.engine)
        web = TestClient(create_app(sample_config(db_url), store), raise_server_exceptions=False)
        for number in OUT_OF_RANGE:
            for path in (f"/players/{number}", f"/players/{number}/calendar.ics",
                         f"/unsubscribe/{number}/aaaaaaaaaa"):
                assert web.get(path).status_code == 404, path
            assert web.post(f"/unsubscribe/{number}/aaaaaaaaaa").status_code == 404
        for path in ("/games/a%00b", "/games/a%00b/record", "/games/a%00b/board/0",
                     "/events/a%00b"):
            assert web.get(path).status_code == 404, path
    finally:
        store.dispose()


_ANY_ADDRESS = re.compile(r"[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9.-]+")


def _texts(raw: bytes) -> list[str]:
    """Everything a reader (or a program) finds in a mail: its raw bytes, every header
    decoded (RFC 2047) and every part decoded (base64, quoted-printable), lower case."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    found = [raw.decode("utf-8", "replace")]
    for part in msg.walk():
        found += [str(value) for value in part.values()]
        data = part.get_payload(decode=True)
        if isinstance(data, bytes):
            found.append(data.decode("utf-8", "replace"))
    return [text.lower() for text in found]


def _live_tokens(raw: bytes, recipients: list[str], scopes: list[str]) -> list[str]:
    """The tokens issued under SECRET to ``recipients`` in ``scopes`` found anywhere in
    ``raw``, and the token addresses in it that still verify for one of them."""
    issued = {tokens.issue(SECRET, scope, who) for scope in scopes for who in recipients}
    live = []
    for text in _texts(raw):
        live += [token for token in issued if token in text]
        for address in _ANY_ADDRESS.findall(text.replace("%2b", "+").replace("%40", "@")):
            parsed = tokens.parse_address(address, "relay", "club.example")
            if parsed is not None and any(
                    tokens.verify([SECRET], parsed.scope or scope, who, parsed.token)
                    for who in recipients for scope in scopes):
                live.append(address)
    return live


def _token_mail() -> tuple[bytes, list[str]]:
    """A mail with the club's tokens in every place a mail carries them: plain headers,
    an encoded word, a mailto and a one-click link, a quoted-printable part whose soft
    line break splits the token, a base64 HTML part and an 8bit part."""
    game, member = tokens.issue(SECRET, "g1", "1"), tokens.issue(SECRET, "m", "1")
    confirm, unsub = tokens.issue(SECRET, "c:7", "1"), tokens.issue(SECRET, "unsubscribe", "1")
    td = tokens.issue(SECRET, "g1", "td")
    addr = f"relay+g1.{game}@club.example"
    subject = base64.b64encode(f"Re: write to {addr}".encode()).decode()
    html = base64.b64encode(f'<a href="mailto:relay+m.{member}@club.example">reply</a>'
                            .encode()).decode()
    qp = f"Confirm at relay+c.{confirm[:4]}=\r\n{confirm[4:]}@club.example =E7=A2=BA=E8=AA=8D"
    raw = (
        f"Delivered-To: {addr}\r\nX-Original-To: RELAY+G1.{game.upper()}@CLUB.EXAMPLE\r\n"
        f"From: Sato <sato@example.jp>\r\nTo: <{addr}>\r\n"
        f"Cc: TD <relay+g1.{td}@club.example>\r\n"
        f"Reply-To: relay+m.{member}@club.example\r\nSubject: =?utf-8?b?{subject}?=\r\n"
        f"List-Unsubscribe: <https://chess.club.example/unsubscribe/1/{unsub}>,\r\n"
        f" <mailto:relay%2Bm.{member}%40club.example?subject=digest%20off>\r\n"
        "Message-ID: <t1@example.jp>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/alternative; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: quoted-printable\r\n\r\n{qp}\r\n"
        "--b\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: base64\r\n\r\n{html}\r\n"
        "--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: 8bit\r\n\r\n"
        f"> 返信は <{addr}> へ\r\n> /unsubscribe/1/{unsub}\r\n--b--\r\n").encode()
    return raw, [game, member, confirm, unsub, td]


def test_the_exports_redaction_leaves_no_token_in_any_encoding() -> None:
    """a reply token in an exported mail's headers, encoded words, links, base64 or
    quoted-printable text -> replaced by redacted-0, which is no token's shape

    A mail without a token is written byte for byte as it came."""
    raw, issued = _token_mail()
    recipients, scopes = ["1", "td"], ["g1", "m", "c:7", "unsubscribe"]
    assert set(_live_tokens(raw, recipients, scopes)) >= set(issued)  # the test sees them
    clean = redact_mail(raw)
    assert _live_tokens(clean, recipients, scopes) == []
    assert not tokens.is_token(MARKER) and not tokens.is_token(MARKER.upper().lower())
    assert tokens.parse_address(f"relay+g1.{MARKER}@club.example", "relay",
                                "club.example") is None
    msg = email.message_from_bytes(clean, policy=email.policy.default)
    assert str(msg["To"]) == f"relay+g1.{MARKER}@club.example"
    assert str(msg["Subject"]) == f"Re: write to relay+g1.{MARKER}@club.example"
    assert f"/unsubscribe/1/{MARKER}>" in str(msg["List-Unsubscribe"])
    parts = [p.get_content() for p in msg.walk() if not p.is_multipart()]
    assert parts[0].startswith(f"Confirm at relay+c.{MARKER}@club.example 確認")
    assert f"mailto:relay+m.{MARKER}@club.example" in parts[1] and "返信は" in parts[2]
    plain = (b"From: sato@example.jp\r\nTo: relay+g1@club.example\r\n"
             b"Subject: [g1]\r\n\r\n1. e4 e5\r\n")
    assert redact_mail(plain) == plain


def test_a_games_export_carries_no_token_that_still_acts(club: Club) -> None:
    """the TD's export (game export) read for reply tokens and written back to the bot ->
    no token in it verifies; a mail to its addresses is held, not applied

    The game's mails: the start, moves to the token addresses (quoting the bot's mail),
    a question to the TD and its relay, a forged move (held)."""
    sato = club.member("Sato, Hanako", SATO)
    brown = club.member("Brown, Tom", BROWN)
    gid = club.game(sato, brown)
    sato.send("1. e4")
    club.cycle()
    brown.send("1. e4 e5")
    club.cycle()
    brown.send("td: may I take back a misprint?")
    club.cycle()
    forged = sato.compose("1. e4 e5 2. Nf3", to=f"relay+{gid}@club.example",
                          subject=f"[{gid}]").as_bytes()
    club.deliver(forged)
    assert club.cycle().poll.outcomes == {"held": 1}
    path = club.workdir / f"{gid}.mbox"
    club.cli("game", "export", gid, "--out", str(path))
    exported = [m.as_bytes() for m in mailbox.mbox(str(path))]
    with club.store.session() as s:
        recipients = [str(i) for i in s.scalars(select(Member.id))]
        recipients += ["td", tokens.td_recipient(club.cfg.bot.td, TD)]
        scopes = [gid, "m", "unsubscribe"] + [tokens.confirmation_scope(h)
                                              for h in s.scalars(select(Hold.id))]
    assert len(scopes) == 4 and len(exported) >= 8
    for raw in exported:
        assert _live_tokens(raw, recipients, scopes) == [], raw[:300]
    assert sum(raw.count(f"+{gid}.{MARKER}@".encode()) for raw in exported) >= 6
    # someone holding the export writes to the addresses in it, as Sato and as Brown
    bot_mails = [email.message_from_bytes(raw, policy=email.policy.default)
                 for raw in exported]
    reply_to = {str(m["To"]): str(m["Reply-To"]) for m in bot_mails
                if m["X-Relaybot-Kind"] and m["Reply-To"]}
    to_sato = next(v for k, v in reply_to.items() if SATO in k)
    to_brown = next(v for k, v in reply_to.items() if BROWN in k)
    assert MARKER in to_sato and MARKER in to_brown
    for player, to, text in ((sato, to_sato, "1. e4 e5 2. Nf3"),
                             (brown, to_brown, "resign")):
        msg = player.compose(text, to=to, subject=f"Re: [{gid}]")
        club.deliver(msg.as_bytes())
        assert club.cycle().poll.outcomes == {"held": 1}, to
    # the players' exported mails themselves, redelivered under new Message-IDs: each
    # is held, none acts
    again = 0
    for raw in exported:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        if msg["X-Relaybot-Kind"] is None and "2. Nf3" not in raw.decode():
            del msg["Message-ID"]
            again += 1
            msg["Message-ID"] = f"<again-{again}@example.jp>"
            club.deliver(msg.as_bytes())
    assert again == 3  # 1. e4, 1... e5 and the question
    assert club.cycle().poll.outcomes == {"held": 3}
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies.split() == ["e2e4", "e7e5"], game.plies
        assert game.result in ("", None)
