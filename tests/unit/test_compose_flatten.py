"""``compose.flatten`` writes exactly the bytes the stdlib's generator writes (issue 29):
every outbox row is flattened by it, so a difference would change what members get."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from relaybot.mail.compose import Alternative, Part, compose, flatten

PNG = bytes(range(256)) * 40  # any bytes: base64 in lines of 76
BODY = ("Dear 山田太郎,\n\nYour move: 12... Nf6\n\n" + "x" * 300 + "\n  trailing  \n"
        "=3D and a line\r\nwith CRLF and a lone\rCR\n")


def _mail(**kw: object) -> EmailMessage:
    args: dict[str, object] = {
        "from_name": "Relay Bot", "from_addr": "relay@club.example",
        "to_name": "Yamada, Taro 山田", "to_addr": "taro@example.jp",
        "subject": "[abc123] 山田太郎 - Brown 先手の勝ち", "body": BODY,
        "message_id": "a1b2@club.example", "date": datetime(2026, 11, 2, 9, 0, tzinfo=UTC),
        "reply_to": "relay+abc123.tok@club.example", "in_reply_to": "x@players.example",
        "references": ["w@players.example", "x@players.example"],
        "extra": {"X-Relaybot-Kind": "move", "X-Relaybot-Game": "abc123",
                  "List-Unsubscribe": "<mailto:relay+u.t@club.example>, "
                                      "<https://club.example/unsubscribe/" + "t" * 60 + ">"},
    }
    args.update(kw)
    return compose(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize("alternative", [
    None,
    Alternative(html="<p>盤面</p>\n<img src=\"cid:board.x@club.example\">"),
    Alternative(html="<p>board</p>", images=(Part("board.png", "image", "png", PNG,
                                                   "board.x@club.example"),)),
    Alternative(html="<p>board</p>",
                images=(Part("board.png", "image", "png", PNG, "board.x@club.example"),),
                attachments=(Part("game.pgn", "application", "vnd.chess-pgn",
                                  b"1. e4 e5 *\n"),
                             Part("game.kif", "text", "plain", "先手：山田\n".encode()))),
    Alternative(attachments=(Part("game.sgf", "application", "x-go-sgf", b"(;GM[1])"),)),
], ids=["plain", "html", "html+picture", "html+picture+files", "files only"])
def test_flatten_is_the_generators_bytes(alternative: Alternative | None) -> None:
    msg = _mail(alternative=alternative)
    assert flatten(msg) == msg.as_bytes()


def test_flatten_ascii_names_and_no_threading() -> None:
    msg = _mail(to_name="Tom Brown", subject="[abc123] Your move", in_reply_to=None,
                references=[], reply_to=None, body="short\n")
    assert flatten(msg) == msg.as_bytes()


def test_flatten_falls_back_for_a_message_it_does_not_write() -> None:
    msg = _mail()
    msg.preamble = "This is a MIME message.\n"
    assert flatten(msg) == msg.as_bytes()
