"""Trusted Authentication-Results (mail/inbound/auth_results.py; INTERFACE.md "Who may
act", issue 12): only our MTA's authserv-id, the topmost such header for a pass, a pass
only for the From: domain, a fail reported, malformed headers giving nothing; and the
reply tokens a mail was sent to (mail/inbound/tags.py)."""

from __future__ import annotations

import pytest

from relaybot.core.tokens import TokenAddress, issue
from relaybot.mail.inbound import parse_mail, reply_tokens, tagged_ids

OURS = "mx.club.example"
RELAY = "relay@club.example"


def mail(*auth_results: str, from_addr: str = "alice@x.org", to: str = "relay+g7k2@club.example",
         extra: str = "") -> bytes:
    lines = [f"Authentication-Results: {value}" for value in auth_results]
    head = "\n".join([*lines, f"From: Alice <{from_addr}>", f"To: {to}",
                      "Message-ID: <m1@x.org>", "Subject: move"]) + "\n" + extra
    return (head.strip("\n") + "\n\n1. e4\n").replace("\n", "\r\n").encode("utf-8")


def dmarc(raw: bytes, trusted: str | None = OURS) -> tuple[bool, bool]:
    parsed = parse_mail(raw, own_addresses=[RELAY], trusted_authserv=trusted)
    return parsed.dmarc_pass, parsed.dmarc_fail


def test_pass_from_our_mta_for_the_from_domain() -> None:
    raw = mail(f"{OURS}; spf=pass smtp.mailfrom=x.org;\n dkim=pass header.d=x.org;"
               " dmarc=pass (p=reject dis=none) header.from=x.org")
    assert dmarc(raw) == (True, False)
    assert dmarc(raw, trusted="MX.Club.Example") == (True, False)  # ids ignore case


@pytest.mark.parametrize("trusted", ["", None, "mx.other.example"])
def test_nothing_is_trusted_without_our_id(trusted: str | None) -> None:
    raw = mail(f"{OURS}; dmarc=pass header.from=x.org")
    assert dmarc(raw, trusted) == (False, False)
    failing = mail(f"{OURS}; dmarc=fail header.from=x.org")
    assert dmarc(failing, trusted) == (False, False)


def test_another_authserv_id_is_ignored() -> None:
    assert dmarc(mail("evil.example; dmarc=pass header.from=x.org")) == (False, False)
    assert dmarc(mail("evil.example; dmarc=fail header.from=x.org")) == (False, False)
    # ours says none; a forged pass under another id changes nothing
    assert dmarc(mail(f"{OURS}; dmarc=none header.from=x.org",
                      "evil.example; dmarc=pass header.from=x.org")) == (False, False)


def test_the_topmost_of_ours_decides_a_pass() -> None:
    # our MTA's header is on top; a pass written below with our id is the sender's own
    forged_below = mail(f"{OURS}; dmarc=none header.from=x.org",
                        f"{OURS}; dmarc=pass header.from=x.org")
    assert dmarc(forged_below) == (False, False)
    # headers of other ids above ours do not make ours less topmost
    assert dmarc(mail("relay.isp.example; dmarc=none",
                      f"{OURS}; dmarc=pass header.from=x.org")) == (True, False)


def test_a_fail_is_reported_and_never_authenticates() -> None:
    assert dmarc(mail(f"{OURS}; dmarc=fail (p=reject) header.from=x.org")) == (False, True)
    # a fail in any header with our id: reported, and the pass above it does not count
    both = mail(f"{OURS}; dmarc=pass header.from=x.org", f"{OURS}; dmarc=fail header.from=x.org")
    assert dmarc(both) == (False, True)


def test_a_pass_for_another_domain_or_none_does_not_authenticate() -> None:
    assert dmarc(mail(f"{OURS}; dmarc=pass header.from=evil.example")) == (False, False)
    assert dmarc(mail(f"{OURS}; dmarc=pass")) == (False, False)  # no header.from
    assert dmarc(mail(f"{OURS}; dmarc=none header.from=x.org")) == (False, False)
    assert dmarc(mail(f"{OURS}; none")) == (False, False)
    assert dmarc(mail(f"{OURS}; spf=pass smtp.mailfrom=x.org")) == (False, False)
    # the From: domain's case does not matter
    assert dmarc(mail(f"{OURS}; dmarc=pass header.from=X.ORG",
                      from_addr="alice@X.org")) == (True, False)


@pytest.mark.parametrize(
    "header",
    [
        f"{OURS}; ;;; ==",
        f"{OURS}; dmarc=",
        f"{OURS}; dmarc=pass header.from=x.org (unclosed",
        "=?utf-8?B?5bGx?=; dmarc=pass header.from=x.org",
        "",
        "\x00\x01",
    ],
)
def test_a_malformed_header_gives_nothing(header: str) -> None:
    assert dmarc(mail(header)) == (False, False)
    if header.startswith(OURS) or not header:
        # ours (or of no id) and unreadable, on top: nothing below is trusted in its place
        assert dmarc(mail(header, f"{OURS}; dmarc=pass header.from=x.org")) == (False, False)


def test_an_unreadable_header_of_another_id_is_skipped() -> None:
    raw = mail("relay.isp.example; ;;; ==", f"{OURS}; dmarc=pass header.from=x.org")
    assert dmarc(raw) == (True, False)


# ------------------------------------------------------------------ reply tokens


def test_token_addresses_name_their_game_and_are_found_in_every_recipient_header() -> None:
    game_token = issue("k", "g7k2", "3")
    m_token = issue("k", "m", "3")
    raw = mail(to=f"Relay <relay+g7k2.{game_token}@club.example>",
               extra=f"Cc: relay+m.{m_token}@club.example\n"
                     f"Delivered-To: relay+c.{m_token}@club.example\n"
                     f"X-Original-To: relay+zz99.{game_token}@club.example\n")
    parsed = parse_mail(raw, own_addresses=[RELAY])
    assert tagged_ids(parsed, RELAY) == ["g7k2", "zz99"]  # m. and c. name no game
    assert reply_tokens(parsed, RELAY) == [
        TokenAddress("game", "g7k2", game_token), TokenAddress("m", None, m_token),
        TokenAddress("c", None, m_token), TokenAddress("game", "zz99", game_token)]


def test_plain_game_addresses_still_name_their_game_and_carry_no_token() -> None:
    parsed = parse_mail(mail(), own_addresses=[RELAY])
    assert tagged_ids(parsed, RELAY) == ["g7k2"]
    assert reply_tokens(parsed, RELAY) == []
