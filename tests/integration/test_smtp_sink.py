"""The aiosmtpd capture sink: capture, and each scripted failure as aiosmtplib sees it (T2)."""

from __future__ import annotations

import asyncio
import time
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import pytest

from tests.servers.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def message(n: int = 1) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "relay@relay.example"
    msg["To"] = "bob@example.org"
    msg["Subject"] = f"game 42: white played 1. e4 ({n})"
    msg["Message-ID"] = f"<out-{n}@relay.example>"
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content("1. e4\n")
    return msg


def send(sink: SmtpSink, n: int = 1, timeout: float = 5.0) -> tuple[dict[str, Any], str]:
    return asyncio.run(
        aiosmtplib.send(
            message(n),
            hostname=sink.host,
            port=sink.port,
            sender="relay+bounce-7@relay.example",
            timeout=timeout,
        )
    )


def test_sent_mail_is_captured(smtp_sink: SmtpSink) -> None:
    refused, reply = send(smtp_sink)
    assert refused == {}
    assert reply.startswith("2.0.0")

    [got] = smtp_sink.wait_for(1, timeout=5)
    assert got.mail_from == "relay+bounce-7@relay.example"
    assert got.rcpt_tos == ["bob@example.org"]
    assert got.parsed["Message-ID"] == "<out-1@relay.example>"
    assert got.parsed["Auto-Submitted"] == "auto-generated"
    assert b"\r\n\r\n1. e4\r\n" in got.raw

    smtp_sink.clear()
    assert smtp_sink.captured == []
    with pytest.raises(TimeoutError):
        smtp_sink.wait_for(1, timeout=0.2)


@pytest.mark.parametrize(
    ("stage", "reply", "error", "code"),
    [
        ("mail", "421 4.3.2 shutting down", aiosmtplib.SMTPSenderRefused, 421),
        ("mail", "451 4.3.0 try again", aiosmtplib.SMTPSenderRefused, 451),
        ("data", "451 4.3.0 try again", aiosmtplib.SMTPDataError, 451),
        ("data", "550 5.7.1 rejected", aiosmtplib.SMTPDataError, 550),
    ],
)
def test_scripted_reply_raises_with_code(
    smtp_sink: SmtpSink,
    stage: str,
    reply: str,
    error: type[aiosmtplib.SMTPResponseException],
    code: int,
) -> None:
    smtp_sink.fail_next(stage, reply)  # type: ignore[arg-type]
    with pytest.raises(error) as info:
        send(smtp_sink)
    assert info.value.code == code
    assert smtp_sink.captured == []
    send(smtp_sink, 2)  # only the next one fails
    assert len(smtp_sink.wait_for(1)) == 1


@pytest.mark.parametrize(
    ("reply", "code"), [("451 4.3.0 try again", 451), ("550 5.1.1 no such user", 550)]
)
def test_rcpt_refused(smtp_sink: SmtpSink, reply: str, code: int) -> None:
    smtp_sink.fail_next("rcpt", reply)
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as info:
        send(smtp_sink)
    [refused] = info.value.recipients
    assert refused.code == code
    assert refused.recipient == "bob@example.org"
    assert smtp_sink.captured == []


def test_fail_times_and_order(smtp_sink: SmtpSink) -> None:
    smtp_sink.fail_next("data", "451 4.3.0 try again", times=2)
    smtp_sink.fail_next("mail", "550 5.7.1 go away")
    with pytest.raises(aiosmtplib.SMTPSenderRefused):
        send(smtp_sink, 1)
    for n in (2, 3):
        with pytest.raises(aiosmtplib.SMTPDataError):
            send(smtp_sink, n)
    send(smtp_sink, 4)
    [got] = smtp_sink.wait_for(1)
    assert got.parsed["Message-ID"] == "<out-4@relay.example>"


def test_drop_after_data(smtp_sink: SmtpSink) -> None:
    smtp_sink.drop_after_data()
    with pytest.raises(aiosmtplib.SMTPServerDisconnected):
        send(smtp_sink)
    assert smtp_sink.captured == []
    send(smtp_sink, 2)
    assert len(smtp_sink.wait_for(1)) == 1


def test_stall_past_client_timeout(smtp_sink: SmtpSink) -> None:
    smtp_sink.stall(3)
    start = time.monotonic()
    with pytest.raises(aiosmtplib.SMTPTimeoutError):
        send(smtp_sink, timeout=0.5)
    assert time.monotonic() - start < 2
    send(smtp_sink, 2)
    [got] = smtp_sink.wait_for(1)
    assert got.parsed["Message-ID"] == "<out-2@relay.example>"  # the stalled one was lost


def test_stall_accepted_is_delivered_without_250(smtp_sink: SmtpSink) -> None:
    smtp_sink.stall(2, accept=True)
    with pytest.raises(aiosmtplib.SMTPTimeoutError):
        send(smtp_sink, timeout=0.5)
    [got] = smtp_sink.wait_for(1)  # delivered although the client saw no 250
    assert got.parsed["Message-ID"] == "<out-1@relay.example>"


def test_bad_script_is_refused(smtp_sink: SmtpSink) -> None:
    with pytest.raises(ValueError):
        smtp_sink.fail_next("helo", "421 4.3.2 x")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        smtp_sink.fail_next("mail", "250 OK")
    with pytest.raises(ValueError):
        smtp_sink.stall(1, times=0)
