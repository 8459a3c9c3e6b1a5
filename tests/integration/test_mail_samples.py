"""Issue 15: every kind of mail the bot can send (``relaybot.mail.kinds``), produced by a
small club through the real pipeline and read as its reader gets it, in both languages,
with a sample of each in docs/mails/. No English word of the bot's in a Japanese mail
(results, terminations, "plies", TD command outcomes, kind names), names as each
language writes them, and the game-over mail carries the record file."""

from __future__ import annotations

import email
import re
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from relaybot.mail.kinds import ERROR_PREFIX, ERRORS, KINDS
from relaybot.store.models import Game, Member, Outbox
from tests.sample_club import EVENT, LEAGUE, MEMBERS, build, every_kind

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mails"
ERROR_SAMPLES = 3  # error replies are one family: a few of its reasons are sampled

# what a Japanese mail may carry in Latin letters: data, not the bot's words. Links and
# addresses, zones, a command the reader types (`relaybot game show ID`) and a setting's
# name ([mail] td_alert_cap)
URL = re.compile(r"https?://\S+|[\w.+-]+@[\w.-]+|\b[A-Z][a-z]+/[A-Za-z_/]+|`[^`\n]+`"
                 r"|\[[a-z]+\] [a-z_]+")
SAN = re.compile(r"(?:[KQRBN]?[a-h]?[1-8]?[x-]?[a-h][1-8](?:=?[QRBN])?|O-O(?:-O)?"
                 r"|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?")  # SAN, long algebraic, UCI
SGF = re.compile(r"\(;|[A-Z]{1,2}\[")  # an SGF record's lines (the go game's record)
WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9+#=-]*")  # not inside an id
# the players' and the TD's own words, names, the event, the site and the zone
THEIRS = ("May I claim a draw by repetition later?", "Yes, when it happens.", EVENT,
          "Kanto CC", "Ann Smith", "Tom Brown", "Smith, Ann", "Brown, Tom",
          "iCalendar",  # ... and a format's name, as PGN or FEN
          "Quarantine", "ValueError: sample failure",  # an IMAP folder, an error
          # the remote SMTP server's answer to an undeliverable mail
          "Recipient address rejected: User unknown in virtual mailbox table",
          # the league's players (a season of the shogi net league)
          *(m.name for m in LEAGUE), "Kate Jones", "Sam Green")


def english_words(text: str, game_ids: set[str]) -> list[str]:
    """Latin-letter words in ``text`` that are not data (record, board, FEN, PGN tags,
    links, acronyms such as TD or SAN, game ids, the ``td:`` keyword)."""
    found = []
    for line in text.splitlines():
        if line.startswith(("[", "FEN:", "SFEN:", ">", "#KIF ")) or SGF.match(line):
            continue  # PGN tags, SGF, KIF's header and the position string are formats;
            # ">" quotes a mail
        line = line.replace("Re: [", "[")  # a quoted mail's subject
        line = URL.sub(" ", line)
        for phrase in THEIRS:
            line = line.replace(phrase, " ")
        for token in WORD.findall(line):
            if sum(ch.isalpha() for ch in token) < 2 or token.isupper():
                continue
            if SAN.fullmatch(token) or token in game_ids or token == "td":
                continue
            found.append(token)
    return found


GAME_IDS: set[str] = set()  # every game of the clubs: an id is data


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory,
          ) -> Iterator[list[tuple[str, str, EmailMessage]]]:
    """(kind, reader's language, mail) of two club runs: the bot in Japanese, then in
    English with every member reading the other language."""
    out = []
    for language, swap in (("ja", False), ("en", True)):
        club = build(Path(tmp_path_factory.mktemp(language)), language=language, swap=swap)
        every_kind(club)
        with club.store.session() as session:
            GAME_IDS.update(session.scalars(select(Game.id)))
            langs = {m.id: m.lang for m in session.scalars(select(Member))}
            for kind, member_id, raw in session.execute(
                    select(Outbox.kind, Outbox.member_id, Outbox.raw).order_by(Outbox.id)):
                msg = email.message_from_bytes(raw, policy=policy.default)
                assert isinstance(msg, EmailMessage)
                out.append((kind, langs[member_id] if member_id else language, msg))
        club.store.dispose()
    yield out


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_every_kind_comes_in_both_languages(mails: list[tuple[str, str, EmailMessage]]) -> None:
    kinds = {(k, lang) for k, lang, _ in mails}
    for kind in {k for k, _ in kinds}:
        assert {(kind, "ja"), (kind, "en")} <= kinds, kind


def test_every_kind_the_bot_can_send_is_sampled(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    """The list of kinds is the code's own (``Mail`` refuses any other): a kind added
    there without a way to it in tests/sample_club.py fails here; error replies need a
    few of their reasons, bad_move among them."""
    sent = {k for k, _, _ in mails}
    missing = sorted(set(KINDS) - sent)
    assert not missing, f"no sample of {missing}: add them to tests/sample_club.py"
    errors = {k for k in sent if k.startswith(ERROR_PREFIX)}
    assert {ERROR_PREFIX + reason for reason in ERRORS} >= errors
    assert "error_bad_move" in errors and len(errors) >= ERROR_SAMPLES, errors


def test_docs_mails_has_a_sample_of_every_kind() -> None:
    """docs/mails/ is regenerated after a kind is added (scripts/sample_mails.py)."""
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for kind in KINDS:
        for lang in ("ja", "en"):
            assert (DOCS / f"{kind}.{lang}.txt").is_file(), (kind, lang)
        assert f"| {kind} |" in index, kind
    errors = [p for p in DOCS.glob(f"{ERROR_PREFIX}*.ja.txt")]
    assert len(errors) >= ERROR_SAMPLES


def test_no_english_word_of_the_bots_in_a_japanese_mail(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    for kind, lang, msg in mails:
        if lang != "ja":
            continue
        words = english_words(str(msg["Subject"]) + "\n" + _text(msg), GAME_IDS)
        assert not words, f"{kind}: {words}"


def test_names_as_each_language_writes_them(mails: list[tuple[str, str, EmailMessage]]) -> None:
    """And the greeting opens the body (a subject line never swallows it)."""
    for kind, lang, msg in mails:
        text = _text(msg)
        if msg["To"].addresses[0].addr_spec == "td@club.example":
            continue
        first = text.splitlines()[0]
        assert text.splitlines()[1] == "", (kind, text[:80])  # a blank line after it
        if lang == "ja":
            assert first.endswith("様") and " 様" not in first, (kind, first)
        else:
            assert first.startswith("Dear ") and "," not in first[5:-1], (kind, first)
        for member in (*MEMBERS, *LEAGUE):
            assert f"Dear {member.name}" not in text


def test_the_game_over_mail_carries_the_record_file(
        mails: list[tuple[str, str, EmailMessage]]) -> None:
    ends = [msg for kind, _, msg in mails if kind == "game_end"]
    assert ends
    for msg in ends:
        files = [p for p in msg.iter_attachments() if p.get_filename()
                 and p.get_content_maintype() != "image"]
        assert len(files) == 1
        if not str(files[0].get_filename()).endswith(".pgn"):
            continue  # a shogi or go game's own record (KIF, SGF)
        pgn = files[0].get_content()
        assert b'[TimeControl "10/2592000"]' in pgn and b"[Termination" in pgn
        html = msg.get_body(preferencelist=("html",))
        assert html is not None and "https://chess.club.example/games/" in html.get_content()
