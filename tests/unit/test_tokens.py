"""Reply tokens (core/tokens.py; INTERFACE.md "Who may act", issue 12): issued to one
recipient in one scope, verified with the current or the previous key, read back from
the three address forms."""

from __future__ import annotations

import re

import pytest

from relaybot.core import tokens
from relaybot.core.tokens import TokenAddress, format_address, issue, parse_address, verify

KEY = "current-key"
OLD = "previous-key"


def test_a_token_is_ten_lower_case_base32_characters_and_stable() -> None:
    token = issue(KEY, "k7m2qx", "17")
    assert re.fullmatch(r"[a-z2-7]{10}", token)
    assert issue(KEY, "k7m2qx", "17") == token  # the same reply address every mail
    assert issue(KEY.encode(), "k7m2qx", "17") == token
    assert tokens.is_token(token) and not tokens.is_token(token.upper())


def test_issued_token_verifies_for_its_recipient_and_scope_only() -> None:
    token = issue(KEY, "k7m2qx", "17")
    assert verify([KEY], "k7m2qx", "17", token)
    assert not verify([KEY], "k7m2qx", "18", token)  # the opponent's own id: refused
    assert not verify([KEY], "zz9aaa", "17", token)  # another game: refused
    assert not verify([KEY], tokens.MEMBER_SCOPE, "17", token)  # game token is not "m"
    assert not verify([KEY], "k7m2qx", tokens.TD_RECIPIENT, token)
    assert not verify(["another-club"], "k7m2qx", "17", token)
    assert not verify([KEY], "k7m2qx", "17", token[:-1] + ("a" if token[-1] != "a" else "b"))
    assert not verify([KEY], "k7m2qx", "17", "not a token")
    assert not verify([], "k7m2qx", "17", token)


def test_the_separator_keeps_scope_and_recipient_apart() -> None:
    # "ab" + "\0" + "1c" differs from "ab1" + "\0" + "c": no token serves two pairs
    assert issue(KEY, "ab", "1c") != issue(KEY, "ab1", "c")


def test_rotation_keeps_the_previous_key_valid() -> None:
    before = issue(OLD, "k7m2qx", "17")
    after = issue(KEY, "k7m2qx", "17")
    assert before != after
    # during the grace period: secret = KEY, secret_previous = OLD
    assert verify([KEY, OLD], "k7m2qx", "17", before)
    assert verify([KEY, OLD], "k7m2qx", "17", after)
    assert verify([KEY, ""], "k7m2qx", "17", after)  # an empty previous key is skipped
    # once the operator clears secret_previous, the old tokens stop working
    assert not verify([KEY], "k7m2qx", "17", before)


def test_member_and_confirmation_scopes() -> None:
    m_token = issue(KEY, tokens.MEMBER_SCOPE, tokens.TD_RECIPIENT)
    assert verify([KEY], "m", "td", m_token)
    assert tokens.confirmation_scope(42) == "c:42"
    c_token = issue(KEY, tokens.confirmation_scope(42), "17")
    assert verify([KEY], "c:42", "17", c_token)
    assert not verify([KEY], "c:43", "17", c_token)


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ValueError, match="secret"):
        issue("", "k7m2qx", "17")


@pytest.mark.parametrize(
    ("tag", "expected_kind", "game_id"),
    [("k7m2qx", "game", "k7m2qx"), ("m", "m", None), ("c", "c", None)],
)
def test_address_round_trip(tag: str, expected_kind: str, game_id: str | None) -> None:
    token = issue(KEY, tag, "17")
    address = format_address("relay", "club.example", tag, token)
    assert address == f"relay+{tag}.{token}@club.example"
    found = parse_address(address, "relay", "club.example")
    assert found == TokenAddress(expected_kind, game_id, token)  # type: ignore[arg-type]
    assert found is not None and found.scope == (game_id or ("m" if tag == "m" else None))
    # mail software may change the case, and add angle brackets
    assert parse_address(f"<{address.upper()}>", "relay", "Club.Example") == found


@pytest.mark.parametrize(
    "address",
    [
        "relay+k7m2qx@club.example",  # the plain game address: no token
        "relay+k7m2qx.abcdefghi@club.example",  # nine characters
        "relay+k7m2qx.abcdefghij1@club.example",  # eleven
        "relay+k7m2qx.abcdefgh01@club.example",  # 0 and 1 are not base32
        "relay+x.abcdefghij@club.example",  # one letter other than m / c
        "relay+m.abcdefghij@other.example",
        "other+m.abcdefghij@club.example",
        "relay+bounce-abc.abcdefghij@club.example",
        "relay@club.example",
        "not an address",
    ],
)
def test_other_addresses_are_not_token_addresses(address: str) -> None:
    assert parse_address(address, "relay", "club.example") is None
