"""Outgoing mail as composed (G11, T13, T14): what a mail client reads back from it."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest

from relaybot.mail.compose import compose

WHEN = datetime(2026, 6, 3, 9, 0, tzinfo=UTC)


def _mail(**over: object) -> bytes:
    kw: dict[str, object] = dict(
        from_name="関東通信チェス", from_addr="relay+g0001@club.example", to_name="Horie, Ken",
        to_addr="horie@example.jp", subject="[g0001] 早川 - 堀江: 12... Nf6",
        body="こんにちは。\n1. e4 e5 2. Nf3\n", message_id="t1@club.example", date=WHEN,
        reply_to="relay+g0001@club.example", in_reply_to="a@x", references=["a@x", "b@x"],
        extra={"X-Relaybot-Kind": "move"})
    kw.update(over)
    return compose(**kw).as_bytes()  # type: ignore[arg-type]


def _read(raw: bytes):  # type: ignore[no-untyped-def]
    return message_from_bytes(raw, policy=policy.default)


def test_body_and_headers_read_back_exactly() -> None:
    """G11: what the member's client shows is what the template wrote, in both languages."""
    body = ("trailing spaces   \n= signs = and =3D\n" + "長い行" * 200 + "\n" + "x" * 1500
            + "\n.\nFrom the TD\n")
    msg = _read(_mail(body=body))
    assert msg.get_content().replace("\r\n", "\n") == body  # CRLF on the wire
    assert str(msg["Subject"]) == "[g0001] 早川 - 堀江: 12... Nf6"
    assert msg["From"].addresses[0].display_name == "関東通信チェス"
    assert msg["To"].addresses[0].display_name == "Horie, Ken"
    assert msg["To"].addresses[0].addr_spec == "horie@example.jp"
    assert msg["Date"].datetime == WHEN
    assert msg["Message-ID"] == "<t1@club.example>"
    assert msg["References"] == "<a@x> <b@x>"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["Content-Transfer-Encoding"] == "quoted-printable"
    assert msg.get_content_charset() == "utf-8"


def test_lines_stay_short_and_ascii() -> None:
    """T14: no line over 998 bytes (quoted-printable keeps them under 80), 7-bit on the wire."""
    raw = _mail(body="x" * 5000 + "\n" + "字" * 3000 + "\n", subject="件名" * 100)
    lines = raw.split(b"\r\n")
    assert max(len(line) for line in lines) <= 78
    assert raw.isascii()


def test_repeated_headers_are_identical_and_per_mail_ones_are_not() -> None:
    """Cached header forms must not leak one mail's values into the next."""
    one = _read(_mail(message_id="m1@club.example", subject="one"))
    two = _read(_mail(message_id="m2@club.example", subject="two", to_name="Hayakawa, Taro",
                      to_addr="hayakawa@example.jp"))
    assert one["From"] == two["From"]
    assert (one["Message-ID"], two["Message-ID"]) == ("<m1@club.example>", "<m2@club.example>")
    assert (str(one["Subject"]), str(two["Subject"])) == ("one", "two")
    assert two["To"].addresses[0].addr_spec == "hayakawa@example.jp"
    assert one["To"].addresses[0].addr_spec == "horie@example.jp"


def test_no_header_injection() -> None:
    """T13: CR/LF in a subject or name can never start a new header."""
    raw = _mail(subject="hello\r\nBcc: victim@example.org")
    msg = _read(raw)
    assert msg["Bcc"] is None
    assert str(msg["Subject"]) == "hello Bcc: victim@example.org"
    with pytest.raises(ValueError):
        _mail(to_name="Eve\r\nBcc: victim@example.org")


def test_multipart_reads_back_and_stays_short_and_ascii() -> None:
    """Issue 15's HTML part, built from encoded parts: each part reads back exactly, the
    picture inline in the HTML's multipart/related, the record file attached, every line
    short and 7-bit (T14), a second mail built alike."""
    from relaybot.mail.compose import Alternative, Part

    html = "<p>盤面 = " + "長い行" * 200 + "</p>\n<p>--=_relaybot_mixed</p>\n"
    png = bytes(range(256)) * 40
    alt = Alternative(html, (Part("board.png", "image", "png", png, "board.x@club.example"),),
                      (Part("棋譜.kif", "text", "plain", "まで91手で先手の勝ち\n".encode()),))
    body = "こんにちは。\n" + "x" * 1500 + "\n"
    for _ in range(2):
        raw = _mail(body=body, alternative=alt)
        assert raw.isascii() and max(len(line) for line in raw.split(b"\r\n")) <= 78
        msg = _read(raw)
        assert msg.get_content_type() == "multipart/mixed"
        assert [p.get_content_type() for p in msg.walk()] == [
            "multipart/mixed", "multipart/alternative", "text/plain", "multipart/related",
            "text/html", "image/png", "text/plain"]
        assert msg.get_body(preferencelist=("plain",)).get_content().replace(
            "\r\n", "\n") == body
        assert msg.get_body(preferencelist=("html",)).get_content().replace(
            "\r\n", "\n") == html
        image = next(p for p in msg.walk() if p.get_content_type() == "image/png")
        assert image.get_content() == png and image["Content-ID"] == "<board.x@club.example>"
        assert image.get_content_disposition() == "inline"
        (record,) = msg.iter_attachments()
        assert record.get_filename() == "棋譜.kif"
        assert record.get_payload(decode=True) == "まで91手で先手の勝ち\n".encode()
        assert record.get_content_charset() == "utf-8"  # the client need not guess
        assert record.get_content() == "まで91手で先手の勝ち\n"
    only_html = _read(_mail(alternative=Alternative("<p>x</p>")))
    assert [p.get_content_type() for p in only_html.walk()] == [
        "multipart/alternative", "text/plain", "text/html"]
    only_file = _read(_mail(alternative=Alternative(attachments=alt.attachments)))
    assert [p.get_content_type() for p in only_file.walk()] == [
        "multipart/mixed", "text/plain", "text/plain"]
