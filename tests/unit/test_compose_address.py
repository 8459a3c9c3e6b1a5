"""Address headers folded by compose itself (issue 29): the same mailbox reads back, in
lines a mail client accepts, for every kind of name the club has."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.header import decode_header, make_header

import pytest

from relaybot.mail.compose import POLICY, compose, flatten, fold_address

NAMES = [
    "関東通信チェス",
    "山田太郎",
    "山田太郎 長い名前の方でございます" * 3,  # several encoded-words, the address on its own line
    "Tom Brown",
    "Tom 山田",
    "",
]


def _mail(name: str, addr: str = "m1@example.org") -> bytes:
    msg = compose(from_name="関東通信チェス", from_addr="relay@club.example", to_name=name,
                  to_addr=addr, subject="x", body="hello\n", message_id="a@club.example",
                  date=datetime(2026, 11, 2, tzinfo=UTC),
                  reply_to="relay+u.0123456789abcdef0123456789abcdef@club.example")
    raw = flatten(msg)
    assert raw == msg.as_bytes()  # the generator folds through the same policy
    return raw


def _header_lines(raw: bytes, name: str) -> list[str]:
    head = raw.split(b"\r\n\r\n")[0].decode("ascii")
    lines = head.split("\r\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name}: "))
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    return lines[start:end]


@pytest.mark.parametrize("name", NAMES)
def test_to_reads_back_as_the_member_and_their_address(name: str) -> None:
    raw = _mail(name)
    lines = _header_lines(raw, "To")
    assert all(len(line) <= 78 for line in lines)
    folded = "".join(lines)[len("To: "):]
    display, _, rest = folded.rpartition("<")
    if name:
        # an RFC 2047 decoder joins adjacent encoded-words without the folding space
        assert str(make_header(decode_header(display.strip()))) == name
        assert rest == "m1@example.org>"
    else:
        assert folded == "m1@example.org"
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["To"].addresses[0].addr_spec == "m1@example.org"
    assert parsed["Reply-To"].addresses[0].addr_spec == (
        "relay+u.0123456789abcdef0123456789abcdef@club.example")
    assert parsed["Reply-To"].addresses[0].display_name == "関東通信チェス"


def test_names_that_need_quoting_are_left_to_the_policy() -> None:
    header = POLICY.header_factory("To", '"Brown, Tom" <m1@example.org>')
    assert fold_address("To", header) is None
    parsed = message_from_bytes(_mail("Brown, Tom"), policy=policy.default)
    assert parsed["To"].addresses[0].display_name == "Brown, Tom"
    quoted = POLICY.header_factory("To", '"tom brown"@example.org')
    assert fold_address("To", quoted) is None  # a local part that needs quoting


def test_a_long_japanese_name_puts_the_address_on_its_own_line() -> None:
    lines = _header_lines(_mail(NAMES[2]), "To")
    assert len(lines) > 2
    assert lines[-1] == " <m1@example.org>" or lines[-1].endswith("?= <m1@example.org>")
