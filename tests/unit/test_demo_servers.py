"""Tests for relaybot.app.demo_servers: in-process IMAP (pymap) + SMTP (aiosmtpd) on loopback."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage

import aiosmtplib
import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from relaybot.app.demo_servers import Delivered, DemoMailServers


def _mail(
    to: str, subject: str, body: str = "1. e4 e5\n", sender: str = "bob@example.org"
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(body)
    return msg


def _send(servers: DemoMailServers, msg: EmailMessage, recipients: list[str] | None = None) -> None:
    asyncio.run(
        aiosmtplib.send(
            msg,
            hostname=servers.smtp_host,
            port=servers.smtp_port,
            recipients=recipients,
            start_tls=False,
            use_tls=False,
            timeout=5,
        )
    )


def _imap(servers: DemoMailServers) -> IMAPClient:
    client = IMAPClient(servers.imap_host, port=servers.imap_port, ssl=False, timeout=5)
    client.normalise_times = False
    client.login(servers.imap_user, servers.imap_password)
    return client


@pytest.fixture
def got() -> list[Delivered]:
    return []


@pytest.fixture
def servers(got: list[Delivered]) -> Iterator[DemoMailServers]:
    with DemoMailServers("relay@club.example", on_delivery=got.append) as s:
        yield s


def test_start_is_fast_and_stop_leaves_no_threads() -> None:
    before = set(threading.enumerate())
    began = time.monotonic()
    s = DemoMailServers()
    s.start()
    assert time.monotonic() - began < 2.0
    assert s.running
    assert s.imap_host == s.smtp_host == "127.0.0.1"
    assert s.imap_port > 0 and s.smtp_port > 0 and s.imap_port != s.smtp_port
    client = _imap(s)  # an open connection must not keep the thread alive
    client.select_folder("INBOX")
    s.stop()
    assert not s.running
    assert set(threading.enumerate()) - before == set()
    client.shutdown()
    s.stop()  # idempotent


def test_inbox_starts_empty_and_capabilities(servers: DemoMailServers) -> None:
    with _imap(servers) as client:
        caps = set(client.capabilities())
        assert {b"IDLE", b"MOVE", b"UIDPLUS"} <= caps
        info = client.select_folder("INBOX")
        assert info[b"EXISTS"] == 0
        assert client.search("ALL") == []
        assert [name for _, _, name in client.list_folders()] == ["INBOX"]


def test_bad_password_is_rejected(servers: DemoMailServers) -> None:
    client = IMAPClient(servers.imap_host, port=servers.imap_port, ssl=False, timeout=5)
    with pytest.raises(LoginError):
        client.login(servers.imap_user, servers.imap_password + "x")
    client.shutdown()


def test_smtp_routes_relay_mail_to_imap_and_other_mail_to_delivered(
    servers: DemoMailServers, got: list[Delivered]
) -> None:
    _send(servers, _mail("relay+g1@club.example", "[g1] move"))
    _send(servers, _mail("alice@example.org", "hello alice"))
    assert servers.wait_for_delivered(1)

    assert len(servers.delivered) == 1
    item = servers.delivered[0]
    assert item.mail_from == "bob@example.org"
    assert item.rcpt_tos == ["alice@example.org"]
    assert b"Subject: hello alice" in item.raw
    assert got == [item]

    with _imap(servers) as client:
        client.select_folder("INBOX")
        uids = client.search("ALL")
        assert len(uids) == 1
        data = client.fetch(uids, ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]", "UID"])
        row = data[uids[0]]
        raw = row[b"BODY[]"]
        assert b"Subject: [g1] move" in raw
        assert b"Delivered-To: relay+g1@club.example" in raw
        assert b"\r\n\r\n1. e4 e5\r\n" in raw
        assert row[b"RFC822.SIZE"] == len(raw)
        internal = row[b"INTERNALDATE"]
        assert internal.tzinfo is not None
        assert abs((datetime.now(UTC) - internal).total_seconds()) < 60
        # BODY.PEEK must not have set \Seen
        assert b"\\Seen" not in client.get_flags(uids)[uids[0]]

        client.create_folder("Processed")
        client.move(uids, "Processed")
        assert client.search("ALL") == []
        client.select_folder("Processed")
        assert len(client.search("ALL")) == 1


def test_copy_store_expunge_and_append(servers: DemoMailServers) -> None:
    servers.deliver_to_relay(b"Subject: one\n\nbody\n")
    servers.deliver_to_relay(b"Subject: two\n\nbody\n")
    with _imap(servers) as client:
        client.select_folder("INBOX")
        first, second = client.search("ALL")
        client.create_folder("Processed")
        client.copy([first], "Processed")
        client.add_flags([first], [b"\\Deleted"])
        client.uid_expunge([first])
        assert client.search("ALL") == [second]
        client.add_flags([second], [b"\\Deleted"])
        client.expunge()
        assert client.search("ALL") == []
        when = datetime(2025, 5, 5, 12, 0, tzinfo=UTC)
        client.append("INBOX", b"Subject: appended\r\n\r\nx\r\n", msg_time=when)
        client.noop()
        (uid,) = client.search("ALL")
        assert client.fetch([uid], ["INTERNALDATE"])[uid][b"INTERNALDATE"] == when
        client.select_folder("Processed", readonly=True)
        assert len(client.search("ALL")) == 1


def test_deliver_to_relay_keeps_given_internaldate(servers: DemoMailServers) -> None:
    when = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    servers.deliver_to_relay(b"Subject: late\n\nbody\n", internaldate=when)
    servers.deliver_to_relay(b"Subject: naive\n\nbody\n", internaldate=datetime(2024, 1, 3))
    with _imap(servers) as client:
        client.select_folder("INBOX")
        uids = client.search("ALL")
        data = client.fetch(uids, ["INTERNALDATE", "BODY.PEEK[]"])
        dates = [data[u][b"INTERNALDATE"] for u in uids]
        assert dates == [when, datetime(2024, 1, 3, tzinfo=UTC)]
        assert data[uids[0]][b"BODY[]"] == b"Subject: late\r\n\r\nbody\r\n"


def test_idle_wakes_on_new_mail(servers: DemoMailServers) -> None:
    with _imap(servers) as client:
        client.select_folder("INBOX")
        client.idle()
        try:
            timer = threading.Timer(
                0.2, _send, args=(servers, _mail("RELAY+g7@Club.Example", "[g7] idle"))
            )
            timer.start()
            began = time.monotonic()
            responses = client.idle_check(timeout=5)
            timer.join()
        finally:
            client.idle_done()
        assert time.monotonic() - began < 4
        assert (1, b"EXISTS") in responses
        assert len(client.search("ALL")) == 1


def test_mixed_recipients_one_copy_each_way(servers: DemoMailServers) -> None:
    msg = _mail("relay+g2@club.example, alice@example.org", "[g2] both")
    _send(servers, msg, ["relay+g2@club.example", "relay@club.example", "alice@example.org"])
    assert servers.wait_for_delivered(1)
    assert servers.delivered[0].rcpt_tos == ["alice@example.org"]
    with _imap(servers) as client:
        client.select_folder("INBOX")
        uids = client.search("ALL")
        assert len(uids) == 1
        raw = client.fetch(uids, ["BODY.PEEK[]"])[uids[0]][b"BODY[]"]
        assert raw.count(b"Delivered-To:") == 2


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("relay@club.example", True),
        ("Relay@CLUB.example", True),
        ("relay+g1@club.example", True),
        ("<RELAY+abc-123@club.example>", True),
        ("relayx@club.example", False),
        ("relay@other.example", False),
        ("alice@example.org", False),
        ("relay", False),
    ],
)
def test_is_relay_address(address: str, expected: bool) -> None:
    assert DemoMailServers().is_relay_address(address) is expected


def test_deliver_requires_running_servers() -> None:
    with pytest.raises(RuntimeError):
        DemoMailServers().deliver_to_relay(b"Subject: x\r\n\r\n")


def test_bad_relay_address() -> None:
    with pytest.raises(ValueError):
        DemoMailServers("not-an-address")
