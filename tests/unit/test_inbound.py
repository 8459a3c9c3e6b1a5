"""Unit tests for :mod:`relaybot.mail.inbound` (RELIABILITY.md G7, G12, G13, T10, T12, T13).

Small mails live in ``tests/data/mail/*.eml`` (written by ``make_corpus.py`` there); the
pathological ones (30 MB attachment, 10,000 parts, nesting 200) are built here.
"""

from __future__ import annotations

import base64
import importlib.util
import time
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from relaybot.mail.inbound import (
    MAX_PARTS,
    MAX_TEXT_CHARS,
    InboundMail,
    parse_mail,
    tagged_ids,
    verp_id,
)

CORPUS_DIR = Path(__file__).resolve().parent.parent / "data" / "mail"
BOT = "relay@club.example"
OWN = ("relay@club.example", "td@club.example")


def load(name: str) -> bytes:
    """A corpus mail by stem."""
    return (CORPUS_DIR / f"{name}.eml").read_bytes()


def parse(name: str, **kw: object) -> InboundMail:
    """Parse a corpus mail with the bot's own addresses."""
    return parse_mail(load(name), own_addresses=OWN, **kw)  # type: ignore[arg-type]


def simple(headers: str, body: str = "1. e4\n") -> bytes:
    """A small mail from header lines (LF) and a body; CRLF line ends."""
    text = headers.strip("\n") + "\n\n" + body
    return text.replace("\n", "\r\n").encode("utf-8")


ALICE = "From: Alice <alice@x.org>\nTo: relay+g7k2@club.example\nMessage-ID: <m1@x.org>\n"


def _corpus_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_corpus", CORPUS_DIR / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ corpus sanity


def test_corpus_files_match_generator() -> None:
    """The stored .eml files are exactly what make_corpus.py writes (T12 corpus)."""
    built: dict[str, bytes] = _corpus_module().build()
    assert built
    for name, data in built.items():
        assert (CORPUS_DIR / name).read_bytes() == data, f"regenerate {name}"


def test_whole_corpus_parses() -> None:
    """G13/T12: every corpus mail parses without raising and keeps its size."""
    for path in sorted(CORPUS_DIR.glob("*.eml")):
        raw = path.read_bytes()
        mail = parse_mail(raw, own_addresses=OWN, trusted_authserv="mx.club.example")
        assert mail.size == len(raw)
        assert mail.message_id
        assert "\n" not in mail.subject and "\r" not in mail.subject


# ------------------------------------------------------------------ decoding (G13)


def test_plain_utf8() -> None:
    """UTF-8 body; the wrapped "On ... <addr>\\nwrote:" quote is cut."""
    mail = parse("plain_utf8")
    assert mail.from_addr == "alice@x.org"
    assert mail.from_name == "Alice Example"
    assert mail.subject == "Re: [g7k2] Your move"
    assert mail.text == "Hi Bob, nice opening — café time.\n\n1. e4 e5 2. Nf3"
    assert "> 1. e4 e5" in mail.full_text
    assert mail.message_id == "reply-1@x.org"
    assert mail.in_reply_to == "relay-7@club.example"
    assert mail.references == ["relay-1@club.example", "relay-7@club.example"]
    assert mail.recipients == ["relay+g7k2@club.example"]
    assert mail.automated is None
    assert mail.language_hint is None
    assert mail.problems == []


def test_iso2022jp_thunderbird() -> None:
    """ISO-2022-JP body, =?ISO-2022-JP?B?...?= subject and name, さんは書きました quote."""
    mail = parse("iso2022jp_thunderbird")
    assert mail.subject == "Re: [g7k2] あなたの番です"
    assert mail.from_name == "山田 花子"
    assert mail.text == "ボブさん、こんにちは。\n\n1. e4 e5 2. Nf3\n\nよろしくお願いします。"
    assert "さんは書きました" in mail.full_text
    assert mail.language_hint == "ja"
    assert tagged_ids(mail, BOT) == ["g7k2"]


def test_iso2022jp_gmail_date_header() -> None:
    """Gmail ja quote header "2026年11月20日(金) 9:15 Name <addr>:" cuts the quote."""
    mail = parse("iso2022jp_gmail")
    assert mail.subject == "Re: [g7k2] あなたの番です"
    assert mail.text == "こんばんは\n1. e4 e5 2. Nf3 Nc6 3. Bb5"


def test_iso2022jp_outlook_extensions() -> None:
    """NEC ① and half-width kana inside ISO-2022-JP decode; 差出人 block is cut."""
    mail = parse("iso2022jp_outlook")
    assert mail.text == "お世話になります。\n① 1. e4 e5 2. Nf3 ｶ"
    assert "差出人" in mail.full_text
    assert "\x1b" not in mail.full_text


def test_iso2022jp_kana_via_codec() -> None:
    """JIS X 0201 kana (ESC ( I) decodes through iso2022_jp_ext."""
    body = b"\x1b(I\x36\x1b(B 1. e4\r\n"
    raw = simple(ALICE + "Content-Type: text/plain; charset=iso-2022-jp\n", "") + body
    assert parse_mail(raw).text == "ｶ 1. e4"


def test_shift_jis_means_cp932() -> None:
    """Shift_JIS is decoded as cp932: ① and ～ (U+FF5E) survive."""
    mail = parse("shift_jis")
    assert mail.subject == "Re: [g7k2] 次の手"
    assert mail.text == "よろしく～\n① 1. e4 e5 2. Nf3"
    assert mail.problems == []


def test_euc_jp() -> None:
    """EUC-JP body."""
    assert parse("euc_jp").text == "投了します。"


def test_qp_soft_break_inside_move() -> None:
    """T12: ``N=\\r\\nf3`` is ``Nf3``."""
    mail = parse("qp_soft_break")
    assert mail.text == "Café break.\n1. e4 e5 2. Nf3 Nc6"


def test_base64_body() -> None:
    """Base64 text/plain."""
    assert parse("base64_body").text == "Bonjour\n1. e4 e5 2. Nf3"


def test_html_only() -> None:
    """HTML-only: moves from <div>/<br>, blockquote/gmail_quote/style/script dropped."""
    mail = parse("html_only")
    assert mail.text == "Hello Bob,\n1. e4 e5\n2. Nf3\n\nCheers"
    for gone in ("d4", "c4", "color", "var x", "wrote"):
        assert gone not in mail.full_text


def test_html_bottom_post() -> None:
    """Thunderbird HTML bottom-post: the text after the removed blockquote is kept."""
    html = (
        '<div class="moz-cite-prefix">On 20/11/2026 09:15, Bob wrote:<br></div>'
        '<blockquote type="cite">1. d4</blockquote><p>2. Nf3</p>'
    )
    mail = parse_mail(simple(ALICE + "Content-Type: text/html; charset=utf-8\n", html))
    assert mail.text == "2. Nf3"


def test_html_outlook_reply_marker() -> None:
    """Outlook HTML: divRplyFwdMsg and everything after it is quoted text."""
    mail = parse("html_outlook")
    assert "1. e4 e5 2. Nf3" in mail.text
    assert "d4" not in mail.full_text and "Your move" not in mail.full_text
    assert mail.text.startswith("Thanks!")


def test_alternative_plain_wins() -> None:
    """multipart/alternative: text/plain is preferred over text/html."""
    assert parse("alternative").text == "plain: 1. e4 e5 2. Nf3"


def test_attachment_ignored() -> None:
    """A text/plain attachment is never read; the HTML body is used instead."""
    mail = parse("mixed_with_attachment")
    assert mail.text == "1. e4"


def test_unknown_and_wrong_charsets() -> None:
    """G13: unknown charset -> UTF-8; invalid bytes -> replacement; both noted."""
    mail = parse("bad_charset")
    assert mail.text == "Très bien. 1. e4"
    assert mail.subject == "café [g7k2]"
    assert any("unknown charset" in p for p in mail.problems)
    wrong = parse("wrong_charset")
    assert wrong.text == "Tr\ufffds bien. 1. e4"
    assert "undecodable bytes replaced" in wrong.problems


def test_missing_boundary_recovered() -> None:
    """multipart/mixed without boundary: the boundary is guessed, the text found."""
    mail = parse("missing_boundary")
    assert mail.text == "1. e4 e5 2. Nf3"
    assert "multipart without boundary" in mail.problems


def test_missing_boundary_unrecoverable() -> None:
    """Without any ``--boundary`` line the payload is read as text."""
    raw = simple(ALICE + "Content-Type: multipart/mixed\n", "1. e4 e5\n")
    mail = parse_mail(raw)
    assert mail.text == "1. e4 e5"


def test_nul_bytes() -> None:
    """NUL bytes are removed from text and subject."""
    mail = parse("nul_bytes")
    assert mail.text == "1. e4 e5\n2. Nf3"
    assert "\x00" not in mail.subject and "\x00" not in mail.full_text
    assert "NUL bytes removed" in mail.problems


def test_newlines_normalised() -> None:
    """CRLF and lone CR become LF."""
    raw = simple(ALICE, "") + b"a\r\nb\rc\n"
    assert parse_mail(raw).full_text == "a\nb\nc\n"


# ------------------------------------------------------------------ quotes and signatures


def test_quoted_original_message_and_signature() -> None:
    """``-- `` signature and ``-----Original Message-----`` block are removed."""
    mail = parse("quoted_original_message")
    assert mail.text == "Good evening,\n1. e4 e5 2. Nf3"


def test_quoted_japanese_original() -> None:
    """``----- 元のメッセージ -----`` cuts the rest."""
    assert parse("quoted_ja_original").text == "お疲れさまです。\n2... Nc6"


def test_bottom_post_keeps_new_text() -> None:
    """A header followed by ``>`` lines and then new text keeps the new text."""
    assert parse("bottom_post").text == "1. e4 e5 2. Nf3"


@pytest.mark.parametrize(
    "body",
    [
        "1. e4\n\nOn Fri, 20 Nov 2026, Bob wrote:\n1. d4\n",
        "1. e4\n\nOn Fri, 20 Nov 2026 at 09:15, Relay Bot <relay@club.example>\nwrote:\n1. d4\n",
        "1. e4\n\nBob wrote:\n> 1. d4\n",
        "1. e4\n\n2026/11/20 9:15 に Bob さんは書きました：\n> 1. d4\n",
        "1. e4\n\n2026年11月20日(金) 9:15 Bob <bob@x.org>:\n> 1. d4\n",
        "1. e4\n\n2026年11月20日(金) 9:15 Bob Smith <\nbob@x.org>:\n> 1. d4\n",
        "1. e4\n\n2026/11/20 9:15、Bob <bob@x.org>のメール:\n1. d4\n",
        "1. e4\n\n-----Original Message-----\nFrom: Bob\n1. d4\n",
        "1. e4\n\n________________________________\nFrom: Bob\nSent: Friday\n1. d4\n",
        "1. e4\n\n________________________________\n差出人: Bob\n送信日時: 2026年11月20日\n1. d4\n",
        "1. e4\n\nFrom: Bob <bob@x.org>\nSent: Friday\nTo: Alice\n\n1. d4\n",
        "1. e4\n> 1. d4\n   > 1. c4\n＞ 1. b3\n",
        "1. e4\n-- \nAlice\n1. d4\n",
        "1. e4\n--\nAlice\n1. d4\n",
    ],
)
def test_quote_forms_removed(body: str) -> None:
    """Every reply-header and quote form leaves only ``1. e4``."""
    mail = parse_mail(simple(ALICE, body))
    assert mail.text == "1. e4", mail.full_text


def test_greeting_and_own_words_kept() -> None:
    """Greetings and free text are the sender's words and stay."""
    body = "Dear Bob,\n\nThanks for the game.\n1. e4\n\nBest, Alice\n"
    assert parse_mail(simple(ALICE, body)).text == body.strip("\n")


def test_nested_quote_header_does_not_cut_bottom_post() -> None:
    """A quoted "> On ... wrote:" is just quoted text, not a cut point."""
    body = "On Fri, Bob wrote:\n> On Thu, Alice wrote:\n>> 1. e4\n> 1... e5\n\n2. Nf3\n"
    assert parse_mail(simple(ALICE, body)).text == "2. Nf3"


# ------------------------------------------------------------------ automated (G7, T10)


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ("Auto-Submitted: auto-replied\n", "auto-submitted: auto-replied"),
        ("Auto-Submitted: auto-generated (vacation)\n", "auto-submitted: auto-generated"),
        ("Auto-Submitted: Auto-Notified\n", "auto-submitted: auto-notified"),
        ("Auto-Submitted:\n", "auto-submitted: empty"),
        ("Return-Path: <>\n", "null return path"),
        ("Return-Path: <MAILER-DAEMON@mx.x.org>\n", "mailer-daemon return path"),
        ("Return-Path: <postmaster@x.org>\n", "mailer-daemon return path"),
        ("Return-Path: <MAILER-DAEMON>\n", "mailer-daemon return path"),
        ("List-Id: Chess club <chess.lists.x.org>\n", "list header: list-id"),
        ("List-Unsubscribe: <mailto:leave@x.org>\n", "list header: list-unsubscribe"),
        ("Precedence: bulk\n", "precedence: bulk"),
        ("Precedence: junk\n", "precedence: junk"),
        ("Precedence: list\n", "precedence: list"),
        ("Precedence: auto_reply\n", "precedence: auto_reply"),
        ("X-Autoreply: yes\n", "x-autoreply"),
        ("X-Autorespond: vacation\n", "x-autorespond"),
        ("X-Auto-Response-Suppress: All\n", "x-auto-response-suppress"),
        ("X-Auto-Response-Suppress: OOF, AutoReply\n", "x-auto-response-suppress"),
        (
            "Content-Type: multipart/report; report-type=delivery-status; boundary=b\n",
            "multipart/report",
        ),
        (
            "Content-Type: multipart/report; report-type=disposition-notification; boundary=b\n",
            "multipart/report",
        ),
        ("X-Loop: relay@club.example\n", "x-loop"),
    ],
)
def test_automated_reasons(extra: str, reason: str) -> None:
    """G7/T10: every RFC 3834 signal gives a reason never to reply."""
    mail = parse_mail(simple(ALICE + extra), own_addresses=OWN)
    assert mail.automated == reason


@pytest.mark.parametrize(
    "extra",
    [
        "Auto-Submitted: no\n",
        "Auto-Submitted: No (a person)\n",
        "Precedence: first-class\n",
        "Return-Path: <alice@x.org>\n",
        "X-Auto-Response-Suppress: None\n",
        "X-Autoreply: no\n",
        "",
    ],
)
def test_not_automated(extra: str) -> None:
    """A person's mail (including Auto-Submitted: no) may be answered."""
    assert parse_mail(simple(ALICE + extra), own_addresses=OWN).automated is None


@pytest.mark.parametrize(
    "sender",
    [
        "From: MAILER-DAEMON@mx.x.org\n",
        "From: Mail System <mailer-daemon@mx.x.org>\n",
        "From: postmaster@x.org\n",
        "From: MAILER-DAEMON (Mail Delivery System)\n",
    ],
)
def test_mailer_daemon_from(sender: str) -> None:
    """G7: MAILER-DAEMON / postmaster senders are automated."""
    raw = simple(sender + "To: relay@club.example\nMessage-ID: <d@x>\n")
    assert parse_mail(raw).automated == "mailer-daemon sender"


@pytest.mark.parametrize(
    "sender",
    [
        "From: relay@club.example\n",
        "From: Relay <RELAY+g7k2@Club.Example>\n",
        "From: relay+bounce-12@club.example\n",
        "From: td+x@club.example\n",
    ],
)
def test_own_address(sender: str) -> None:
    """G7: mail from our own addresses (any +tag, any case) is never answered."""
    raw = simple(sender + "To: relay@club.example\nMessage-ID: <o@x>\n")
    assert parse_mail(raw, own_addresses=OWN).automated == "own address"


@pytest.mark.parametrize("sender", ["From: <>\n", "From:\n", "From: (nobody) <>\n"])
def test_empty_from(sender: str) -> None:
    """G7: an empty sender is automated (and has no identity)."""
    mail = parse_mail(simple(sender + "To: relay@club.example\nMessage-ID: <e@x>\n"))
    assert (mail.automated, mail.from_addr) == ("empty sender", None)


def test_own_address_hidden_in_malformed_from() -> None:
    """Even when From is rejected as malformed, our address in it means automated."""
    raw = simple("From: x@y.org)<relay@club.example>\nMessage-ID: <o@x>\n")
    mail = parse_mail(raw, own_addresses=OWN)
    assert mail.from_addr is None
    assert mail.automated == "own address"


def test_dsn_report() -> None:
    """A DSN is automated; the returned message inside is not read as body text."""
    mail = parse("dsn_report")
    assert mail.automated is not None
    assert "1. d4" not in mail.full_text
    assert verp_id(mail.recipients[0], BOT) == "abcdefghijklmnop"
    # G6: sent to a VERP address and report-shaped: flufl.bounce reads the failure
    assert mail.report_shaped and mail.delivery_report is not None
    assert mail.delivery_report.permanent == ("bob@x.org",)


def test_dsn_without_auto_submitted() -> None:
    """multipart/report alone suffices (G7)."""
    raw = load("dsn_report").replace(b"Auto-Submitted: auto-replied\r\n", b"")
    raw = raw.replace(b"MAILER-DAEMON@mx.x.org", b"alice@x.org")
    assert parse_mail(raw).automated == "multipart/report"


# ------------------------------------------------------------------ identity (G12, T13)


def test_from_trick_rejected() -> None:
    """T13: ``alice@x.org)<bob@x.org>`` gives no identity at all."""
    mail = parse("from_trick")
    assert mail.from_addr is None
    assert "From rejected" in mail.problems


@pytest.mark.parametrize(
    "value",
    [
        "alice@x.org)<bob@x.org>",
        "alice@x.org, bob@x.org",
        "Alice <alice@x.org>, Bob <bob@x.org>",
        "alice@x.org <bob@x.org>",
        "<alice@x.org> <bob@x.org>",
        "Alice <alice@x.org",
        "alice@x.org>",
        "(alice@x.org",
        '"Alice <alice@x.org>',
        "group: alice@x.org;",
        "Undisclosed recipients:;",
        "alice",
        "",
        "<@route.example:alice@x.org>",
        "alice@x.org\\",
        '"alice"@x.org',
        "alice@@x.org",
        "alice@x.org@y.org",
    ],
)
def test_from_malformed(value: str) -> None:
    """G12: anything but one plain mailbox yields None."""
    raw = simple(f"From: {value}\nTo: relay@club.example\nMessage-ID: <f@x>\n")
    assert parse_mail(raw).from_addr is None


@pytest.mark.parametrize(
    ("value", "addr", "name"),
    [
        ("alice@x.org", "alice@x.org", ""),
        ("Alice <ALICE@X.Org>", "alice@x.org", "Alice"),
        ('"Smith, Alice" <alice@x.org>', "alice@x.org", "Smith, Alice"),
        ('"alice@x.org" <bob@x.org>', "bob@x.org", "alice@x.org"),
        ("alice@x.org (Alice in comment)", "alice@x.org", ""),
        ("=?UTF-8?B?5bGx55Sw?= <yamada@x.jp>", "yamada@x.jp", "山田"),
        ("  Alice\n  <alice@x.org>", "alice@x.org", "Alice"),
    ],
)
def test_from_valid(value: str, addr: str, name: str) -> None:
    """Well-formed single mailboxes parse; addr-spec lower-cased, name decoded."""
    raw = simple(f"From: {value}\nTo: relay@club.example\nMessage-ID: <f@x>\n")
    mail = parse_mail(raw)
    assert (mail.from_addr, mail.from_name) == (addr, name)


def test_two_from_headers_rejected() -> None:
    """Two From header fields: no identity."""
    raw = simple("From: alice@x.org\nFrom: bob@x.org\nMessage-ID: <f@x>\n")
    assert parse_mail(raw).from_addr is None


def test_missing_from() -> None:
    """No From: no identity, noted."""
    mail = parse_mail(simple("To: relay@club.example\nMessage-ID: <f@x>\n"))
    assert mail.from_addr is None
    assert "missing From" in mail.problems


def test_reply_to_and_sender_ignored() -> None:
    """G12/T13: Reply-To and Sender never decide identity."""
    mail = parse("reply_to_victim")
    assert mail.from_addr == "mallory@evil.example"


def test_subject_injection_sanitised() -> None:
    """T13: encoded CR/LF and a smuggled ``Bcc:`` stay inside one subject line."""
    mail = parse("subject_injection")
    assert "\r" not in mail.subject and "\n" not in mail.subject and "\t" not in mail.subject
    assert mail.subject.startswith("Re: [g7k2] hi")
    assert "Bcc: victim@evil.example" in mail.subject
    assert all(ord(c) >= 0x20 for c in mail.subject)
    assert mail.recipients == ["relay+g7k2@club.example"]


def test_dmarc_fail_only_from_trusted_authserv() -> None:
    """G12: only our MTA's Authentication-Results count."""
    ours = (
        "Authentication-Results: mx.club.example; spf=pass;\n"
        " dmarc=fail (p=reject) header.from=x.org\n"
    )
    theirs = "Authentication-Results: evil.example; dmarc=fail header.from=x.org\n"
    passing = "Authentication-Results: mx.club.example 1; dmarc=pass header.from=x.org\n"
    kw = {"trusted_authserv": "MX.club.example"}
    assert parse_mail(simple(ALICE + ours), **kw).dmarc_fail  # type: ignore[arg-type]
    assert not parse_mail(simple(ALICE + theirs), **kw).dmarc_fail  # type: ignore[arg-type]
    assert not parse_mail(simple(ALICE + passing), **kw).dmarc_fail  # type: ignore[arg-type]
    assert not parse_mail(simple(ALICE + ours)).dmarc_fail
    both = simple(ALICE + passing + ours)
    assert parse_mail(both, **kw).dmarc_fail  # type: ignore[arg-type]


# ------------------------------------------------------------------ ids and recipients


def test_missing_message_id() -> None:
    """No Message-ID: a stable ``missing-<sha256>`` id from the raw bytes."""
    raw = load("missing_message_id")
    mail = parse_mail(raw)
    assert mail.message_id.startswith("missing-") and len(mail.message_id) == 8 + 32
    assert parse_mail(raw).message_id == mail.message_id
    assert parse_mail(raw + b"x").message_id != mail.message_id


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<ABC.def@Example.COM>", "ABC.def@example.com"),
        ("  <abc@x.org>  (comment)", "abc@x.org"),
        ("abc@X.ORG", "abc@x.org"),
        ("<abc@x.org\n >", "abc@x.org"),
        ("<>", None),
    ],
)
def test_message_id_normalised(value: str, expected: str | None) -> None:
    """Message-ID: angle brackets and space removed, domain lower-cased."""
    raw = simple(f"From: alice@x.org\nMessage-ID: {value}\n")
    mail = parse_mail(raw)
    if expected is None:
        assert mail.message_id.startswith("missing-")
    else:
        assert mail.message_id == expected


def test_threading_headers() -> None:
    """In-Reply-To and References normalised like Message-ID."""
    raw = simple(
        "From: alice@x.org\nMessage-ID: <a@x>\nIn-Reply-To: <Out-1@Club.Example> (ours)\n"
        "References: <a@X.org>\n <b@Y.org><c@z.org> <a@x.org>\n"
    )
    mail = parse_mail(raw)
    assert mail.in_reply_to == "Out-1@club.example"
    assert mail.references == ["a@x.org", "b@y.org", "c@z.org"]


def test_recipients_order_and_dedup() -> None:
    """To, Cc, Delivered-To, X-Original-To in order, lower-cased, deduplicated."""
    raw = simple(
        "From: alice@x.org\n"
        'To: "Relay, Bot" <Relay+G7K2@Club.Example>, bob@x.org\n'
        "Cc: Carol <carol@x.org>, relay+g7k2@club.example\n"
        "Delivered-To: relay@club.example\n"
        "X-Original-To: relay+h1@club.example\n"
    )
    assert parse_mail(raw).recipients == [
        "relay+g7k2@club.example",
        "bob@x.org",
        "carol@x.org",
        "relay@club.example",
        "relay+h1@club.example",
    ]


def test_tagged_ids() -> None:
    """Plus-address ids first, then subject tags; bounce ids and other domains excluded."""
    raw = simple(
        "From: alice@x.org\n"
        "To: relay+G7K2@CLUB.example, relay+bounce-77@club.example, relay+zz9@other.example\n"
        "Cc: other+q1@club.example, relay+x@club.example, relay+bad_id@club.example\n"
        "Subject: Re: Re: 【ｈ１ｋ９】 [g7k2] [Ab-12] [x] [toolong-" + "a" * 50 + "] ［f3f3］\n"
    )
    mail = parse_mail(raw)
    assert tagged_ids(mail, "Relay@Club.Example") == ["g7k2", "h1k9", "ab-12", "f3f3"]


def test_tagged_ids_subject_only() -> None:
    """Clients that drop the plus address still name the game by subject."""
    raw = simple("From: alice@x.org\nTo: relay@club.example\nSubject: Re: [g7k2] Your move\n")
    assert tagged_ids(parse_mail(raw), BOT) == ["g7k2"]
    assert tagged_ids(parse_mail(simple("From: a@x.org\n")), BOT) == []


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("relay+b.abcdefghijklmnop@club.example", "abcdefghijklmnop"),
        ("RELAY+B.ABCDEFGHIJKLMNOP@Club.Example", "abcdefghijklmnop"),
        ("<relay+b.abcdefghij234567@club.example>", "abcdefghij234567"),
        ("relay+b.@club.example", None),
        ("relay+b.abcdefghij@club.example", None),  # a reply token's length: too short
        ("relay+b.abcdefghijklmno1@club.example", None),  # not base32
        ("relay+g7k2@club.example", None),
        ("relay+b.abcdefghijklmnop@other.example", None),
        ("other+b.abcdefghijklmnop@club.example", None),
        ("relay@club.example", None),
        # the old form named the Message-ID, which the opponent sees: never a VERP now
        ("relay+bounce-42@club.example", None),
        ("relay+b.abcdefgh ijklmnop@club.example", None),
        ("", None),
    ],
)
def test_verp_id(address: str, expected: str | None) -> None:
    """G6, issue 12 item 7: VERP addresses ``relay+b.<token>`` decode to their token."""
    assert verp_id(address, BOT) == expected


def test_language_hint() -> None:
    """``ja`` when the new text holds Japanese characters."""
    assert parse_mail(simple(ALICE, "投了\n")).language_hint == "ja"
    assert parse_mail(simple(ALICE, "ｶ\n")).language_hint == "ja"
    assert parse_mail(simple(ALICE, "resign\n")).language_hint is None
    quoted_only = "resign\n> 投了\n"
    assert parse_mail(simple(ALICE, quoted_only)).language_hint is None


# ------------------------------------------------------------------ bounds (G13, T12)


def _nested(depth: int) -> bytes:
    head = "From: alice@x.org\r\nMessage-ID: <deep@x.org>\r\n"
    parts = "".join(
        f"Content-Type: multipart/mixed; boundary=b{i}\r\n\r\n--b{i}\r\n" for i in range(depth)
    )
    tail = "Content-Type: text/plain\r\n\r\n1. e4\r\n"
    closes = "".join(f"--b{i}--\r\n" for i in reversed(range(depth)))
    return (head + parts + tail + closes).encode("ascii")


def test_nesting_200() -> None:
    """T12: nesting 200 deep finishes; depth past the cap is ignored and noted."""
    start = time.monotonic()
    mail = parse_mail(_nested(200))
    assert time.monotonic() - start < 5
    assert mail.text == ""
    assert any("nesting" in p for p in mail.problems)


def test_nesting_within_cap() -> None:
    """A modestly nested body is still found."""
    assert parse_mail(_nested(5)).text == "1. e4"


def test_ten_thousand_parts() -> None:
    """T12: 10,000 parts finish fast; only the first MAX_PARTS are examined."""
    parts = "".join(
        f"--XX\r\nContent-Type: application/octet-stream\r\n\r\npart {i}\r\n" for i in range(10_000)
    )
    parts += "--XX\r\nContent-Type: text/plain\r\n\r\n1. e4\r\n"
    raw = (
        "From: alice@x.org\r\nMessage-ID: <many@x.org>\r\n"
        "Content-Type: multipart/mixed; boundary=XX\r\n\r\n" + parts + "--XX--\r\n"
    ).encode("ascii")
    start = time.monotonic()
    mail = parse_mail(raw)
    assert time.monotonic() - start < 5
    assert mail.text == ""
    assert f"more than {MAX_PARTS} MIME parts, rest ignored" in mail.problems


def test_thirty_megabyte_attachment() -> None:
    """T12: a 30 MB attachment is skipped undecoded, quickly."""
    line = base64.b64encode(bytes(range(57))) + b"\r\n"
    blob = line * (30_000_000 // len(line))
    raw = (
        b"From: alice@x.org\r\nMessage-ID: <big@x.org>\r\n"
        b"Content-Type: multipart/mixed; boundary=XX\r\n\r\n"
        b"--XX\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1. e4 e5\r\n"
        b"--XX\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
        b"Content-Disposition: attachment; filename=big.pdf\r\n\r\n" + blob + b"--XX--\r\n"
    )
    assert len(raw) > 30_000_000
    start = time.monotonic()
    mail = parse_mail(raw)
    assert time.monotonic() - start < 10
    assert mail.text == "1. e4 e5"
    assert mail.size == len(raw)


def test_huge_text_part_capped() -> None:
    """G13: decoded text is cut at MAX_TEXT_CHARS and the cut is noted."""
    raw = simple(ALICE, "") + b"1. e4 " * 400_000
    mail = parse_mail(raw)
    assert len(mail.full_text) <= MAX_TEXT_CHARS
    assert any("truncated" in p for p in mail.problems)


def test_deep_html() -> None:
    """Deeply nested HTML does not break the HTML converter."""
    html = "<div>" * 5000 + "1. e4" + "</div>" * 5000
    raw = simple(ALICE + "Content-Type: text/html\n", html)
    assert "1. e4" in parse_mail(raw).text


def test_huge_header() -> None:
    """Very long header values are bounded."""
    raw = simple(
        ALICE + "Subject: " + "=?utf-8?q?a?= " * 20_000 + "\n" + "Cc: " + "a@b.c, " * 20_000 + "\n"
    )
    start = time.monotonic()
    mail = parse_mail(raw)
    assert time.monotonic() - start < 5
    assert len(mail.subject) <= 2000
    assert len(mail.recipients) <= 200


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00" * 100,
        b"\r\n\r\n",
        b"From:\r\n\r\n",
        b'Content-Type: text/plain; charset="\r\n\r\nx',
        b"Content-Type: text/plain; charset=utf-16\r\n\r\n\xff\xfe1\x00.\x00",
        b"Content-Type: text/plain; charset=unicode_escape\r\n\r\n\\N{BLACK",
        b"Content-Type: text/plain; charset=rot13\r\n\r\nx",
        b"Content-Type: text/plain; charset=base64\r\n\r\nx",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n====a",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\nbegin",
        b"Content-Type: message/rfc822\r\n\r\nFrom: x\r\n\r\nhi",
        b"Subject: =?utf-8?B?####?= =?bogus?Q?=ZZ?= =??B??=\r\n\r\n",
        b"Subject: \xff\xfe\xe3\x81\r\nFrom: \xe5\xb1\xb1 <a@b.c>\r\n\r\n",
        b'Content-Type: multipart/alternative; boundary=""\r\n\r\n--\r\n\r\n',
        b"Content-Type: text/html\r\n\r\n<blockquote><blockquote>x</blockquote></blockquote>",
    ],
)
def test_odd_inputs_never_raise(raw: bytes) -> None:
    """G13: odd inputs parse without raising."""
    mail = parse_mail(raw)
    assert mail.size == len(raw)


def test_non_bytes_input() -> None:
    """A caller bug (str instead of bytes) still returns a value, automated."""
    mail = parse_mail("From: a@b.c\n\nhi")  # type: ignore[arg-type]
    assert mail.automated == "unparseable"


# ------------------------------------------------------------------ fuzz (T12)


def _check(mail: InboundMail, raw: bytes) -> None:
    assert isinstance(mail, InboundMail)
    assert mail.size == len(raw)
    assert mail.message_id
    assert not any(c in mail.subject for c in "\r\n\x00")
    assert not any(c in mail.from_name for c in "\r\n\x00")
    assert mail.from_addr is None or mail.from_addr == mail.from_addr.lower()
    assert "\r" not in mail.full_text and "\x00" not in mail.full_text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_fuzz_random_bytes(raw: bytes) -> None:
    """T12: random bytes never raise."""
    _check(parse_mail(raw, own_addresses=OWN, trusted_authserv="mx"), raw)


_HEADER_NAMES = st.sampled_from(
    [
        "From",
        "To",
        "Cc",
        "Subject",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Content-Disposition",
        "Auto-Submitted",
        "Return-Path",
        "List-Id",
        "Precedence",
        "Authentication-Results",
        "Reply-To",
        "Delivered-To",
        "X-Original-To",
        "MIME-Version",
        "X-Auto-Response-Suppress",
    ]
)
_TOKENS = st.sampled_from(
    [
        "alice@x.org",
        "<bob@x.org>",
        "relay+g7k2@club.example",
        "(",
        ")",
        "<",
        ">",
        '"',
        ",",
        ";",
        ":",
        "=?utf-8?B?5bGx?=",
        "=?iso-2022-jp?B?GyRCJCIbKEI=?=",
        "=?x?Q?=ZZ?=",
        "multipart/mixed; boundary=B",
        'multipart/alternative; boundary="B"',
        "text/plain; charset=iso-2022-jp",
        "text/html; charset=shift_jis",
        "text/plain; charset=utf-8",
        "multipart/report",
        "base64",
        "quoted-printable",
        "attachment; filename=a.txt",
        "auto-replied",
        "no",
        "bulk",
        "[g7k2]",
        "【g7k2】",
        "mx; dmarc=fail",
        " ",
        "\t",
        "\r\n ",
        "\x00",
        "é",
        "山",
        "\x1b$B",
        "=\r\n",
    ]
)
_BODY_LINES = st.sampled_from(
    [
        "--B",
        "--B--",
        "Content-Type: text/plain",
        "Content-Type: text/html",
        "Content-Type: multipart/mixed; boundary=B",
        "Content-Transfer-Encoding: base64",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        "1. e4 e5 2. N=",
        "f3",
        "> quoted",
        "On Fri, Bob wrote:",
        "-- ",
        "--",
        "<blockquote>q</blockquote>",
        "<div id=divRplyFwdMsg>x</div>",
        "<br><p>1. d4",
        "5bGx55Sw",
        "=E5=B1=B1",
        '\x1b$B$"\x1b(B',
        "2026年11月20日(金) 9:15 Bob <b@x>:",
        "________________",
        "From: x",
        "Sent: y",
        "\x00",
        "\xff\xfe",
    ]
)


@st.composite
def structured_mails(draw: st.DrawFn) -> bytes:
    """Mails assembled from plausible and hostile header and body pieces."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        name = draw(_HEADER_NAMES)
        value = "".join(draw(st.lists(_TOKENS, max_size=8)))
        lines.append(f"{name}: {value}")
    body = draw(st.lists(_BODY_LINES | st.text(max_size=40), max_size=40))
    text = "\r\n".join(lines) + "\r\n\r\n" + "\r\n".join(body)
    codec = draw(st.sampled_from(["utf-8", "latin-1", "cp932", "iso2022_jp", "euc_jp"]))
    return text.encode(codec, "replace")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structured_mails())
def test_fuzz_structured_mails(raw: bytes) -> None:
    """T12: structured random mails never raise and keep the invariants."""
    mail = parse_mail(raw, own_addresses=OWN, trusted_authserv="mx")
    _check(mail, raw)
    tagged_ids(mail, BOT)
    for rcpt in mail.recipients:
        verp_id(rcpt, BOT)
