"""Write the hand-made inbound mail corpus (T12, T13) as ``*.eml`` files next to this script.

Run ``python tests/data/mail/make_corpus.py`` after editing; the unit tests check that the
files on disk equal what this script produces. Large or pathological mails (30 MB
attachment, 10,000 parts, nesting 200) are built by the tests themselves instead of being
stored. Every mail is built from explicit bytes so that the encodings are exactly what real
clients send (CRLF line ends, ISO-2022-JP escapes, Shift_JIS, QP soft breaks...).
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _jis(text: str) -> bytes:
    return text.encode("iso2022_jp")


def _b_word(text: str, charset: str, codec: str) -> str:
    data = base64.b64encode(text.encode(codec)).decode("ascii")
    return f"=?{charset}?B?{data}?="


BASE_HEADERS = (
    "From: Alice Example <alice@x.org>\n"
    "To: relay+g7k2@club.example\n"
    "Date: Fri, 20 Nov 2026 09:30:00 +0900\n"
    "Message-ID: <reply-1@x.org>\n"
    "In-Reply-To: <relay-7@club.example>\n"
    "References: <relay-1@club.example> <relay-7@club.example>\n"
    "MIME-Version: 1.0\n"
)


def plain_utf8() -> bytes:
    """A plain UTF-8 reply with a quoted English reply wrapped over two lines."""
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2] Your move\n"
        "Content-Type: text/plain; charset=utf-8; format=flowed\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
        "Hi Bob, nice opening — café time.\n"
        "\n"
        "1. e4 e5 2. Nf3\n"
        "\n"
        "On Fri, Nov 20, 2026 at 9:15 AM Relay Bot <relay+g7k2@club.example>\n"
        "wrote:\n"
        "> 1. e4 e5\n"
        "> Your move, Alice.\n"
    ).encode("utf-8")


def iso2022jp_thunderbird() -> bytes:
    """Thunderbird (ja) style: ISO-2022-JP body and B-encoded subject, quoted reply."""
    subject = "Re: [g7k2] " + _b_word("あなたの番です", "ISO-2022-JP", "iso2022_jp")
    head = _crlf(
        BASE_HEADERS.replace("Alice Example", _b_word("山田 花子", "ISO-2022-JP", "iso2022_jp"))
        + f"Subject: {subject}\n"
        "User-Agent: Mozilla/5.0 Thunderbird/115.0\n"
        "Content-Type: text/plain; charset=ISO-2022-JP\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
    ).encode("ascii")
    body = _crlf(
        "ボブさん、こんにちは。\n"
        "\n"
        "1. e4 e5 2. Nf3\n"
        "\n"
        "よろしくお願いします。\n"
        "\n"
        "2026/11/20 9:15 に Relay Bot さんは書きました:\n"
        "> 1. e4 e5\n"
        "> あなたの番です。\n"
    )
    return head + _jis(body)


def iso2022jp_gmail() -> bytes:
    """Gmail (ja) style quote header "2026年11月20日(金) 9:15 Name <addr>:" in ISO-2022-JP."""
    head = _crlf(
        BASE_HEADERS + "Subject: =?ISO-2022-JP?B?UmU6IFtnN2syXSAbJEIkIiRKJD8kTkhWJEckORsoQg==?=\n"
        'Content-Type: text/plain; charset="ISO-2022-JP"\n'
        "\n"
    ).encode("ascii")
    body = _crlf(
        "こんばんは\n"
        "1. e4 e5 2. Nf3 Nc6 3. Bb5\n"
        "\n"
        "2026年11月20日(金) 9:15 Relay Bot <relay+g7k2@club.example>:\n"
        "\n"
        "> 1. e4 e5 2. Nf3 Nc6\n"
        "> あなたの番です。\n"
    )
    return head + _jis(body)


def iso2022jp_outlook() -> bytes:
    """Outlook (ja) style: ISO-2022-JP with NEC ① and half-width kana, 差出人 block."""
    head = _crlf(
        BASE_HEADERS + "Subject: =?iso-2022-jp?B?UkU6IFtnN2syXQ==?=\n"
        "X-Mailer: Microsoft Outlook 16.0\n"
        'Content-Type: text/plain; charset="iso-2022-jp"\n'
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
    ).encode("ascii")
    circled_one = b"\x1b$B\x2d\x21\x1b(B"  # NEC row 13: not in strict JIS X 0208
    half_kana = b"\x1b(I\x36\x1e\x1b(B"  # ｶ then junk byte, read leniently
    body = (
        _jis("お世話になります。\r\n")
        + circled_one
        + b" 1. e4 e5 2. Nf3 "
        + half_kana
        + b"\r\n\r\n"
        + b"________________________________\r\n"
        + _jis("差出人: Relay Bot <relay+g7k2@club.example>\r\n")
        + _jis("送信日時: 2026年11月20日 9:15\r\n")
        + _jis("宛先: 山田 花子\r\n")
        + b"\r\n"
        + _jis("1. e4 e5\r\nあなたの番です。\r\n")
    )
    return head + body


def shift_jis() -> bytes:
    """Shift_JIS declared, written by a Windows client (cp932 characters ① and ～)."""
    head = _crlf(
        BASE_HEADERS
        + "Subject: =?Shift_JIS?B?"
        + base64.b64encode("Re: [g7k2] 次の手".encode("cp932")).decode()
        + "?=\n"
        "Content-Type: text/plain; charset=Shift_JIS\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
    ).encode("ascii")
    return head + _crlf("よろしく～\n① 1. e4 e5 2. Nf3\n").encode("cp932")


def euc_jp() -> bytes:
    """EUC-JP body (old Unix mailers)."""
    head = _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\nContent-Type: text/plain; charset=EUC-JP\n\n"
    ).encode("ascii")
    return head + _crlf("投了します。\n").encode("euc_jp")


def qp_soft_break() -> bytes:
    """Quoted-printable with a soft line break inside ``Nf3`` (T12)."""
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2] move\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n"
        "Caf=C3=A9 break.\n"
        "1. e4 e5 2. N=\n"
        "f3 Nc6\n"
    ).encode("ascii")


def base64_body() -> bytes:
    """A base64 text/plain body."""
    body = base64.encodebytes(b"Bonjour\n1. e4 e5 2. Nf3\n").decode()
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: base64\n"
        "\n" + body
    ).encode("ascii")


def html_only() -> bytes:
    """HTML-only mail: moves in <div>/<br>, quoted blockquote and gmail_quote dropped."""
    html = (
        "<html><head><style>p { color: red } /* 1. d4 */</style>"
        "<script>var x = '1. d4';</script></head><body>"
        '<div dir="ltr">Hello Bob,<br>1. e4 e5<br>2. Nf3</div>'
        "<p>Cheers</p>"
        '<div class="gmail_quote"><div class="gmail_attr">On Fri, Relay Bot wrote:<br></div>'
        '<blockquote class="gmail_quote">1. d4 d5<br>Your move</blockquote></div>'
        '<blockquote type="cite">2. c4</blockquote>'
        "</body></html>"
    )
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\n"
        "Content-Type: text/html; charset=utf-8\n"
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + html.replace("=", "=3D") + "\n"
    ).encode("ascii")


def html_outlook() -> bytes:
    """Outlook HTML: everything from ``divRplyFwdMsg`` on is the quoted message."""
    html = (
        "<html><body><div>Thanks!</div><div>1. e4 e5 2. Nf3</div>"
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
        '<hr style="display:inline-block;width:98%" tabindex="-1">'
        '<div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Relay Bot<br><b>Sent:</b> Friday</div>'
        "<div>1. d4 d5</div><p>Your move</p>"
        "</body></html>"
    )
    return _crlf(
        BASE_HEADERS + "Subject: RE: [g7k2]\n"
        'Content-Type: text/html; charset="us-ascii"\n'
        "\n" + html + "\n"
    ).encode("ascii")


def alternative() -> bytes:
    """multipart/alternative: the text/plain part wins over HTML."""
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\n"
        'Content-Type: multipart/alternative; boundary="alt-boundary"\n'
        "\n"
        "This is a multi-part message in MIME format.\n"
        "--alt-boundary\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "plain: 1. e4 e5 2. Nf3\n"
        "--alt-boundary\n"
        "Content-Type: text/html; charset=utf-8\n"
        "\n"
        "<div>html: 1. d4</div>\n"
        "--alt-boundary--\n"
    ).encode("ascii")


def mixed_with_attachment() -> bytes:
    """multipart/mixed: a text/plain attachment is ignored; the HTML body is used."""
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\n"
        'Content-Type: multipart/mixed; boundary="mix"\n'
        "\n"
        "--mix\n"
        "Content-Type: text/plain; charset=utf-8\n"
        'Content-Disposition: attachment; filename="game.pgn"\n'
        "\n"
        "1. d4 d5 (attachment)\n"
        "--mix\n"
        "Content-Type: text/html; charset=utf-8\n"
        "\n"
        "<p>1. e4</p>\n"
        "--mix--\n"
    ).encode("ascii")


def quoted_original_message() -> bytes:
    """Plain Outlook reply with ``-----Original Message-----`` and a ``-- `` signature."""
    return _crlf(
        BASE_HEADERS + "Subject: RE: [g7k2]\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "Good evening,\n"
        "1. e4 e5 2. Nf3\n"
        "-- \n"
        "Alice Example\n"
        "Chess Club Secretary, 1. d4 fan\n"
        "\n"
        "-----Original Message-----\n"
        "From: Relay Bot <relay+g7k2@club.example>\n"
        "Sent: Friday, November 20, 2026 9:15 AM\n"
        "1. e4 e5\n"
    ).encode("utf-8")


def quoted_ja_original() -> bytes:
    """Japanese client with ``----- 元のメッセージ -----`` (UTF-8)."""
    return (
        _crlf(
            BASE_HEADERS + "Subject: Re: [g7k2]\n"
            "Content-Type: text/plain; charset=UTF-8\n"
            "Content-Transfer-Encoding: 8bit\n"
            "\n"
            "お疲れさまです。\n"
            "2... Nc6\n"
            "\n"
            "----- 元のメッセージ -----\n"
            "差出人: Relay Bot\n"
            "1. e4 e5 2. Nf3\n"
        )
    ).encode("utf-8")


def bottom_post() -> bytes:
    """Bottom-posted reply: header and quote first, the player's text after it."""
    return _crlf(
        BASE_HEADERS + "Subject: Re: [g7k2]\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "On 20/11/2026 09:15, Relay Bot wrote:\n"
        "> 1. e4 e5\n"
        "> Your move\n"
        "\n"
        "1. e4 e5 2. Nf3\n"
        "\n"
        "--\n"
        "Alice\n"
    ).encode("utf-8")


def dsn_report() -> bytes:
    """A delivery status notification (multipart/report), From MAILER-DAEMON."""
    return _crlf(
        "From: Mail Delivery System <MAILER-DAEMON@mx.x.org>\n"
        "To: relay+b.abcdefghijklmnop@club.example\n"
        "Subject: Undelivered Mail Returned to Sender\n"
        "Message-ID: <dsn-1@mx.x.org>\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn"\n'
        "\n"
        "--dsn\n"
        "Content-Type: text/plain\n"
        "\n"
        "This is the mail system. 1. e4\n"
        "--dsn\n"
        "Content-Type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; mx.x.org\n"
        "\n"
        "Final-Recipient: rfc822; bob@x.org\n"
        "Action: failed\n"
        "Status: 5.1.1\n"
        "--dsn\n"
        "Content-Type: message/rfc822\n"
        "\n"
        "From: relay+g7k2@club.example\n"
        "Subject: [g7k2]\n"
        "\n"
        "1. d4\n"
        "--dsn--\n"
    ).encode("ascii")


def subject_injection() -> bytes:
    """Subject whose encoded words hide CR/LF and a ``Bcc:`` header (T13)."""
    word = base64.b64encode(b"Re: [g7k2] hi\r\nBcc: victim@evil.example\r\n\r\nbody").decode()
    return _crlf(
        "From: Alice <alice@x.org>\n"
        "To: relay+g7k2@club.example\n"
        f"Subject: =?utf-8?B?{word}?= =?utf-8?Q?x=0Ay=0D=09z?=\n"
        "Message-ID: <inj-1@x.org>\n"
        "\n"
        "1. e4\n"
    ).encode("ascii")


def from_trick() -> bytes:
    """From with a stray ``)`` hiding a second address (T13)."""
    return _crlf(
        "From: alice@x.org)<bob@x.org>\n"
        "To: relay+g7k2@club.example\n"
        "Subject: [g7k2]\n"
        "Message-ID: <trick-1@x.org>\n"
        "\n"
        "1. e4\n"
    ).encode("ascii")


def reply_to_victim() -> bytes:
    """Reply-To and Sender name someone else; identity still comes from From (G12)."""
    return _crlf(
        "From: Mallory <mallory@evil.example>\n"
        "Sender: alice@x.org\n"
        "Reply-To: alice@x.org\n"
        "To: relay+g7k2@club.example\n"
        "Subject: [g7k2]\n"
        "Message-ID: <rt-1@evil.example>\n"
        "\n"
        "1. e4\n"
    ).encode("ascii")


def missing_message_id() -> bytes:
    """No Message-ID header at all."""
    return _crlf("From: alice@x.org\nTo: relay@club.example\nSubject: hi\n\n1. e4\n").encode()


def missing_boundary() -> bytes:
    """multipart/mixed without a boundary parameter."""
    return _crlf(
        "From: alice@x.org\n"
        "To: relay+g7k2@club.example\n"
        "Subject: [g7k2]\n"
        "Message-ID: <nb-1@x.org>\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/mixed\n"
        "\n"
        "--lost\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "1. e4 e5 2. Nf3\n"
        "--lost--\n"
    ).encode("ascii")


def nul_bytes() -> bytes:
    """NUL bytes in headers and body."""
    return (
        b"From: alice@x.org\r\nTo: relay+g7k2@club.example\r\nSubject: [g7k2]\x00 hi\r\n"
        b"Message-ID: <nul-1@x.org>\r\n\r\n1. e4\x00 e5\r\n2. Nf3\x00\r\n"
    )


def bad_charset() -> bytes:
    """Unknown charset name over UTF-8 text."""
    return _crlf(
        "From: alice@x.org\n"
        "To: relay+g7k2@club.example\n"
        "Subject: =?x-unknown?Q?caf=C3=A9?= [g7k2]\n"
        "Message-ID: <bc-1@x.org>\n"
        'Content-Type: text/plain; charset="x-no-such-charset"\n'
        "\n"
        "Très bien. 1. e4\n"
    ).encode("utf-8")


def wrong_charset() -> bytes:
    """Declared utf-8 but the body is Latin-1: replacement, never an exception."""
    head = _crlf(
        "From: alice@x.org\nTo: relay+g7k2@club.example\nSubject: [g7k2]\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
    ).encode("ascii")
    return head + "Très bien. 1. e4\r\n".encode("latin-1")


CORPUS = {
    "plain_utf8": plain_utf8,
    "iso2022jp_thunderbird": iso2022jp_thunderbird,
    "iso2022jp_gmail": iso2022jp_gmail,
    "iso2022jp_outlook": iso2022jp_outlook,
    "shift_jis": shift_jis,
    "euc_jp": euc_jp,
    "qp_soft_break": qp_soft_break,
    "base64_body": base64_body,
    "html_only": html_only,
    "html_outlook": html_outlook,
    "alternative": alternative,
    "mixed_with_attachment": mixed_with_attachment,
    "quoted_original_message": quoted_original_message,
    "quoted_ja_original": quoted_ja_original,
    "bottom_post": bottom_post,
    "dsn_report": dsn_report,
    "subject_injection": subject_injection,
    "from_trick": from_trick,
    "reply_to_victim": reply_to_victim,
    "missing_message_id": missing_message_id,
    "missing_boundary": missing_boundary,
    "nul_bytes": nul_bytes,
    "bad_charset": bad_charset,
    "wrong_charset": wrong_charset,
}


def build() -> dict[str, bytes]:
    """Every corpus mail by file name."""
    return {f"{name}.eml": make() for name, make in CORPUS.items()}


def main() -> int:
    """Write the corpus next to this script."""
    for name, data in build().items():
        (HERE / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
