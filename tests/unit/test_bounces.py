"""Delivery reports (G6, issue 12 item 7): the VERP form, the report's shape, and what
flufl.bounce reads out of it; an out-of-office reply is never a report."""

from __future__ import annotations

import pytest

from relaybot.mail.compose import new_verp_token, verp_address
from relaybot.mail.inbound import parse_mail, verp_id
from relaybot.mail.inbound.bounces import verp_form, verp_token

BOT = "relay@club.example"
VERP = "relay+b.abcdefghijklmnop@club.example"


def mail(headers: str, body: str = "Hello.\n") -> bytes:
    return (headers.replace("\n", "\r\n") + "\r\n" + body.replace("\n", "\r\n")).encode()


def dsn(to: str = VERP, action: str = "failed", status: str = "5.1.1",
        return_path: str = "Return-Path: <>\n") -> bytes:
    return mail(
        f"{return_path}From: MAILER-DAEMON@mx.example.org\nTo: {to}\n"
        "Subject: Undelivered Mail Returned to Sender\nMessage-ID: <d@mx>\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=delivery-status; boundary=b\n",
        "--b\nContent-Type: text/plain\n\nCould not deliver.\n"
        "--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.org\n\n"
        f"Final-Recipient: rfc822; Brown@Example.org\nAction: {action}\nStatus: {status}\n"
        "--b--\n")


def test_a_new_verp_token_is_its_own_and_reads_back() -> None:
    """Each mail gets a random token (not its Message-ID's) that verp_id reads back."""
    tokens = {new_verp_token() for _ in range(100)}
    assert len(tokens) == 100
    for token in tokens:
        address = verp_address("relay", "club.example", token)
        assert address == verp_form("relay", "club.example", token)
        assert verp_id(address, BOT) == token == verp_token(address.upper(), BOT)


def test_a_dsn_at_a_verp_address_is_read_by_flufl_bounce() -> None:
    got = parse_mail(dsn(), own_addresses=[BOT])
    assert got.report_shaped and got.automated is not None
    assert got.delivery_report is not None
    assert got.delivery_report.permanent == ("brown@example.org",)
    assert got.delivery_report.failed


def test_a_delayed_dsn_is_temporary_only() -> None:
    got = parse_mail(dsn(action="delayed", status="4.4.1"), own_addresses=[BOT])
    assert got.delivery_report is not None and not got.delivery_report.failed
    assert got.delivery_report.temporary == ("brown@example.org",)


def test_a_report_not_sent_to_a_verp_address_is_not_read() -> None:
    """flufl.bounce runs only for mail to one of our VERP addresses (nobody else's mail
    pays for the detectors)."""
    got = parse_mail(dsn(to="relay+g7k2@club.example"), own_addresses=[BOT])
    assert got.report_shaped and got.delivery_report is None


@pytest.mark.parametrize("return_path", ["Return-Path: <>\n", ""])
def test_an_out_of_office_reply_is_never_a_report(return_path: str) -> None:
    """RFC 3834 vacation replies go to the envelope sender, often with a null return path:
    never a delivery report, whatever their words."""
    raw = mail(f"{return_path}From: brown@example.org\nTo: {VERP}\n"
               "Subject: Out of office\nAuto-Submitted: auto-replied\nMessage-ID: <o@x>\n",
               "I am away. Your mail could not be delivered to me before Monday.\n"
               "Final-Recipient: rfc822; brown@example.org\nAction: failed\n")
    got = parse_mail(raw, own_addresses=[BOT])
    assert got.report_shaped == bool(return_path)
    assert got.delivery_report is None


def test_shape_is_a_null_return_path_or_multipart_report() -> None:
    assert parse_mail(dsn(return_path=""), own_addresses=[BOT]).report_shaped
    plain = mail(f"Return-Path: <x@y.org>\nFrom: x@y.org\nTo: {VERP}\nMessage-ID: <p@x>\n")
    assert not parse_mail(plain, own_addresses=[BOT]).report_shaped


def test_utf7_is_read_as_undeclared_and_no_surrogate_survives() -> None:
    """issue 12 item 11: UTF-7 (which decodes to lone surrogates and hides markup) is not
    decoded; nothing in the parsed mail holds a lone surrogate."""
    raw = mail("From: a@x.org\nTo: relay@club.example\nMessage-ID: <u@x>\n"
               "Subject: =?utf-7?Q?+2AA-+ADw-b+AD4-?=\n"
               "Content-Type: text/plain; charset=utf-7\n", "+2AA- and +ADw-b+AD4-\n")
    got = parse_mail(raw)
    for text in (got.subject, got.text, got.full_text, *got.problems):
        assert not any("\ud800" <= ch <= "\udfff" for ch in text)
    assert "<b>" not in got.text and "+ADw-b+AD4-" in got.text
