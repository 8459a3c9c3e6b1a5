"""The one reading (issue 22, G13) on the edges of MIME and text: what the gate, the holds
and the referee read is the player's own new text, wherever a keyword hides (a quote, a
signature, an HTML-only mail, an attached mail, an encoded part, odd line ends, full-width
forms); each case asserts what the reading finds, never a second reader's view.
"""

from __future__ import annotations

import base64

import pytest

from relaybot.core.reading import Reading, read_mail
from relaybot.games import rules_for
from relaybot.mail.inbound import parse_mail
from relaybot.pipeline.td import command_at

HEAD = ("From: Sato <sato@example.jp>\r\nTo: relay+g1@club.example\r\nSubject: [g1]\r\n"
        "Message-ID: <x@example.jp>\r\nMIME-Version: 1.0\r\n")


def mail(body: bytes, ctype: str = "text/plain; charset=utf-8", extra: str = "") -> bytes:
    return (HEAD + extra + f"Content-Type: {ctype}\r\n\r\n").encode() + body


def reading(raw: bytes, kind: str = "chess") -> Reading:
    rules = rules_for(kind)
    text = parse_mail(raw, own_addresses=["relay@club.example"]).text
    return read_mail(text, named=["g1"], rules_of={"g1": rules}, any_rules=[rules],
                     game_words=dict(rules.keywords), command_at=command_at)


def names(r: Reading) -> list[str]:
    return [f.name for f in r.found]


@pytest.mark.parametrize("eol", ["\u0085", "\u2028", "\u2029", "\r", "\r\n"])
def test_g13_a_signature_after_any_line_end_is_no_keyword(eol: str) -> None:
    body = f"1. e4{eol}-- {eol}resign{eol}".encode()
    r = reading(mail(body))
    assert names(r) == []
    assert "resign" not in r.text


def test_g13_a_quoted_keyword_after_a_next_line_is_no_keyword() -> None:
    r = reading(mail("1. e4\u0085> resign\n".encode()))
    assert names(r) == []


def test_g13_an_html_only_mail_quoting_a_resignation_in_a_blockquote_resigns_nothing(
) -> None:
    html = (b"<html><body><div>1. e4</div><blockquote>resign<br>draw</blockquote>"
            b"<div class=\"gmail_quote\">resign</div></body></html>")
    r = reading(mail(html, "text/html; charset=utf-8"))
    assert names(r) == [] and r.has_moves


def test_g13_alternative_parts_are_read_from_the_plain_part_only() -> None:
    body = (b"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1. e4\r\n"
            b"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>resign</p>\r\n--b--\r\n")
    r = reading(mail(body, 'multipart/alternative; boundary="b"'))
    assert names(r) == []


def test_g13_an_attached_mail_is_never_read() -> None:
    inner = (b"From: Brown <brown@example.org>\r\nSubject: x\r\n\r\nresign\r\n")
    body = (b"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1. e4\r\n"
            b"--b\r\nContent-Type: message/rfc822\r\n\r\n" + inner +
            b"--b\r\nContent-Type: text/plain; name=\"fwd.eml\"\r\n"
            b"Content-Disposition: attachment; filename=\"fwd.eml\"\r\n\r\nresign\r\n--b--\r\n")
    r = reading(mail(body, 'multipart/mixed; boundary="b"'))
    assert names(r) == [] and r.has_moves


def test_g13_a_base64_part_is_read_once_decoded() -> None:
    body = base64.b64encode("投了\n".encode())
    r = reading(mail(body, extra="Content-Transfer-Encoding: base64\r\n"), "shogi")
    assert names(r) == ["resign"]


@pytest.mark.parametrize("line", ["ｒｅｓｉｇｎ", "\u00a0resign\u00a0", "投了。", "　投了"])
def test_g13_full_width_and_nbsp_forms_are_the_keyword(line: str) -> None:
    r = reading(mail(f"{line}\n".encode()), "shogi")
    assert names(r) == ["resign"]


@pytest.mark.parametrize(("body", "params"), [
    (b"My position is difficult, but I am not going to \r\nresign\r\n\r\n1. e4\r\n", ""),
    (b"I am not going to\r\n resign, nor to offer a \r\ndraw\r\n", ""),
    (b"I am not going to \r\nresign\r\n", "; delsp=yes"),
    (b"Thanks for the offer, but no \r\ndraw\r\n", ""),
])
def test_g13_a_word_a_flowed_mail_wrapped_onto_its_own_line_is_no_keyword(
        body: bytes, params: str) -> None:
    """RFC 3676: the sender's client shows one line; so does the reading."""
    r = reading(mail(body, f"text/plain; charset=utf-8; format=flowed{params}"))
    assert names(r) == []


def test_g13_flowed_keeps_hard_lines_quotes_and_the_signature() -> None:
    body = (b"Hello, \r\nthanks.\r\nresign\r\n\r\n> I will \r\n> win\r\n-- \r\ndraw\r\n")
    raw = mail(body, "text/plain; charset=utf-8; format=flowed")
    parsed = parse_mail(raw, own_addresses=["relay@club.example"])
    assert parsed.text == "Hello, thanks.\nresign"
    assert "> I will win" in parsed.full_text
    assert names(reading(raw)) == ["resign"]


def test_g13_a_mail_that_is_not_flowed_keeps_its_line_breaks() -> None:
    r = reading(mail(b"I am not going to \r\nresign\r\n"))
    assert names(r) == ["resign"]


@pytest.mark.parametrize("html", [
    b"<div>1. e4</div><div>My position is hard, but I am not going to\r\nresign</div>",
    b"<p>Thanks for the offer, but no\n  draw</p>",
    b"<html><body>I am not going to\nresign<br></body></html>",
])
def test_g13_a_line_break_in_html_source_is_a_space_as_the_browser_shows_it(
        html: bytes) -> None:
    r = reading(mail(html, "text/html; charset=utf-8"))
    assert names(r) == []


def test_g13_html_lines_from_br_blocks_and_pre_stay_lines() -> None:
    html = b"<div>hello</div><div>resign</div><pre>1. e4\n draw?</pre>x<br>help"
    r = reading(mail(html, "text/html; charset=utf-8"))
    assert names(r) == ["resign", "draw_offer", "help"]
