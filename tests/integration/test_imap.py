"""relaybot.mail.imap against a real Dovecot (G8, G13, T3, T4, T5)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest

from relaybot.mail.imap import (
    PROCESSED,
    QUARANTINE,
    ImapAuthError,
    ImapError,
    ImapSettings,
    Mailbox,
)
from tests.servers.dovecot import Account, Dovecot, free_port

pytestmark = pytest.mark.integration

JST = timezone(timedelta(hours=9))


def mail(n: int = 1, body: str = "1. e4") -> bytes:
    return (
        f"From: alice@example.org\r\nTo: relay@example.net\r\n"
        f"Subject: game 42 move {n}\r\nMessage-ID: <m{n}@example.org>\r\n\r\n{body}\r\n"
    ).encode()


def settings(account: Account, **kw: object) -> ImapSettings:
    return ImapSettings(
        host=account.host,
        port=account.port,
        user=account.user,
        password=account.password,
        timeout=10,
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def box(imap_account: Account) -> Iterator[Mailbox]:
    with Mailbox(settings(imap_account)) as mailbox:
        yield mailbox


def test_internaldate_round_trip_is_exact_and_utc(imap_account: Account, box: Mailbox) -> None:
    sent = datetime(2024, 3, 1, 21, 34, 56, tzinfo=JST)
    raw = mail()
    uid = imap_account.append(raw, sent)

    got = box.fetch(uid)

    assert got is not None
    assert got.uid == uid
    assert got.raw == raw
    assert got.size == len(raw)
    assert got.too_big is False
    assert got.internaldate == sent
    assert got.internaldate.utcoffset() == timedelta(0)
    assert got.internaldate == datetime(2024, 3, 1, 12, 34, 56, tzinfo=UTC)


def test_fetch_uses_peek_and_leaves_seen_unset(imap_account: Account, box: Mailbox) -> None:
    uid = imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
    assert box.fetch(uid) is not None
    assert b"\\Seen" not in imap_account.flags(uid)


def test_pending_uids_ascending_and_only_what_is_left(imap_account: Account, box: Mailbox) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    uids = [imap_account.append(mail(n), when) for n in range(1, 5)]
    # \Seen set by another client does not make mail processed (G8).
    imap_account.append(mail(9), when, flags=[b"\\Seen"])
    assert box.pending_uids() == sorted(box.pending_uids())
    assert box.pending_uids()[:4] == uids

    box.move(uids[1], PROCESSED)
    left = box.pending_uids()
    assert uids[1] not in left
    assert left == sorted(left)
    assert len(left) == 4


def _commands(box: Mailbox) -> list[str]:
    """The IMAP commands the box sends from now on, as they leave on the socket (imaplib's
    ``send``, which imapclient's own commands use too)."""
    imap = box._client._imap
    sent: list[str] = []
    send = imap.send

    def counting(data: bytes) -> None:
        words = data.decode("ascii", "replace").split()
        if words and words[0].startswith(imap.tagpre.decode()):  # a command, by its tag
            sent.append(" ".join(words[1:3] if words[1] == "UID" else words[1:2]))
        send(data)

    imap.send = counting
    return sent


def test_pending_heads_is_pending_uids_and_heads_in_one_round_trip(
        imap_account: Account, box: Mailbox) -> None:
    sent = _commands(box)
    assert box.pending_heads() == ([], {})  # an empty folder: OK and nothing (Dovecot)
    assert sent == ["NOOP", "UID FETCH"]
    when = datetime(2024, 1, 1, tzinfo=UTC)
    uids = [imap_account.append(mail(n), when + timedelta(minutes=n)) for n in range(1, 5)]
    imap_account.append(mail(9), when, flags=[b"\\Seen"])
    box.move(uids[0], PROCESSED)  # the others keep their old UIDs: all of them are seen
    sent.clear()
    found, heads = box.pending_heads()
    assert sent == ["NOOP", "UID FETCH"]  # not NOOP, UID SEARCH, UID FETCH
    sent.clear()
    assert found == box.pending_uids() == sorted(heads) and uids[0] not in found
    assert heads == box.heads(found)
    assert sent == ["NOOP", "UID SEARCH", "UID FETCH"]
    assert [box.fetch(uid, heads[uid]) for uid in found] == [box.fetch(uid) for uid in found]


def test_pending_heads_falls_back_to_search_where_the_fetch_is_refused(
        imap_account: Account, box: Mailbox, monkeypatch: pytest.MonkeyPatch) -> None:
    when = datetime(2024, 1, 1, tzinfo=UTC)
    uids = [imap_account.append(mail(n), when) for n in range(1, 4)]
    expected = box.pending_heads()
    imap = box._client._imap
    real = imap.uid

    def refusing(command: str, *args: object) -> tuple[str, list[bytes]]:
        if command == "FETCH" and args[0] == "1:*":
            return "NO", [b"[SERVERBUG] not today"]
        return real(command, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(imap, "uid", refusing)
    sent = _commands(box)
    assert box.pending_heads() == expected and expected[0] == uids
    # the view synced once, not twice (imapclient asks CAPABILITY once per connection)
    assert [c for c in sent if c != "CAPABILITY"] == ["NOOP", "UID SEARCH", "UID FETCH"]

    def bad(command: str, *args: object) -> tuple[str, list[bytes]]:
        if command == "FETCH" and args[0] == "1:*":
            raise imap.error("BAD Error in IMAP command UID FETCH: Invalid messageset")
        return real(command, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(imap, "uid", bad)
    assert box.pending_heads() == expected
    assert box.connected


def test_connect_creates_folders_and_move_targets_them(imap_account: Account, box: Mailbox) -> None:
    assert {PROCESSED, QUARANTINE} <= set(imap_account.folders())
    when = datetime(2024, 1, 1, tzinfo=UTC)
    good = imap_account.append(mail(1), when)
    bad = imap_account.append(mail(2, "poison"), when)

    box.move(good, PROCESSED)
    box.move(bad, QUARANTINE)

    assert imap_account.uids("INBOX") == []
    assert imap_account.messages(PROCESSED) == [mail(1)]
    assert imap_account.messages(QUARANTINE) == [mail(2, "poison")]
    assert box.pending_uids() == []


def test_move_of_vanished_uid_and_to_missing_folder(imap_account: Account, box: Mailbox) -> None:
    uid = imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
    imap_account.expunge(uid)
    box.move(uid, PROCESSED)  # not an error
    box.move(999_999, PROCESSED)  # never existed: not an error either

    uid2 = imap_account.append(mail(2), datetime(2024, 1, 1, tzinfo=UTC))
    box.move(uid2, "Archive")  # TRYCREATE -> created
    assert imap_account.messages("Archive") == [mail(2)]


def test_fetch_after_another_client_expunged_returns_none(
    imap_account: Account, box: Mailbox
) -> None:
    """T5: SEARCH, then another client expunges / moves, then FETCH."""
    when = datetime(2024, 1, 1, tzinfo=UTC)
    first, second, third = (imap_account.append(mail(n), when) for n in (1, 2, 3))
    assert box.pending_uids() == [first, second, third]

    imap_account.expunge(first)
    with imap_account.client() as other:
        other.create_folder("Elsewhere")
        other.move([second], "Elsewhere")
        other.add_flags([third], [b"\\Seen"])

    assert box.fetch(first) is None
    assert box.fetch(second) is None
    got = box.fetch(third)
    assert got is not None and got.raw == mail(3)
    assert box.pending_uids() == [third]


def test_too_big_mail_is_not_downloaded(imap_account: Account) -> None:
    small = mail(1)
    big = mail(2, "x" * 5000)
    when = datetime(2024, 1, 1, tzinfo=UTC)
    small_uid = imap_account.append(small, when)
    big_uid = imap_account.append(big, when)

    with Mailbox(settings(imap_account), max_size=1000) as box:
        got_big = box.fetch(big_uid)
        got_small = box.fetch(small_uid)

    assert got_big is not None
    assert got_big.too_big is True
    assert got_big.raw is None
    assert got_big.size == len(big)
    assert got_big.internaldate == when
    assert got_small is not None and got_small.raw == small and not got_small.too_big


def test_wait_true_when_mail_arrives_during_idle(imap_account: Account, box: Mailbox) -> None:
    timer = threading.Timer(
        0.3, imap_account.append, args=(mail(), datetime(2024, 1, 1, tzinfo=UTC))
    )
    start = time.monotonic()
    timer.start()
    try:
        assert box.wait(5) is True
    finally:
        timer.join()
    assert time.monotonic() - start < 3
    assert len(box.pending_uids()) == 1


def test_wait_false_on_timeout(box: Mailbox) -> None:
    start = time.monotonic()
    assert box.wait(1.0) is False
    assert 0.9 <= time.monotonic() - start < 3
    box.pending_uids()  # connection still usable after IDLE/DONE


def test_wait_reports_mail_that_arrived_before_it_was_called(
    imap_account: Account, box: Mailbox
) -> None:
    box.pending_uids()
    imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
    start = time.monotonic()
    assert box.wait(5) is True
    assert time.monotonic() - start < 2


def test_watch_ends_at_once_on_an_interrupt_and_keeps_the_connection(
    imap_account: Account, box: Mailbox
) -> None:
    """The mail server's push (relaybot.app.wake) ends a wait, before or during IDLE; the
    connection is ready for the poll; without it, mail is still reported by IDLE."""
    from relaybot.app.wake import Wakeup

    wakeup = Wakeup()
    try:
        wakeup.set()
        assert box.watch(30, wakeup) == "interrupt"  # raised before: no IDLE at all
        assert wakeup.take()
        timer = threading.Timer(0.3, wakeup.set)
        timer.start()
        try:
            assert box.watch(30, wakeup) == "interrupt"  # raised during IDLE
        finally:
            timer.join()
        assert wakeup.take()
        uid = imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
        assert box.pending_uids() == [uid]  # IDLE ended with DONE: the session goes on
        timer = threading.Timer(
            0.3, imap_account.append, args=(mail(2), datetime(2024, 1, 1, tzinfo=UTC)))
        timer.start()
        try:
            assert box.watch(30, wakeup) == "news"  # no push: IDLE's notice, as before
        finally:
            timer.join()
        assert box.watch(0.2, wakeup) == "timeout"
        assert len(box.pending_uids()) == 2
    finally:
        wakeup.close()


def test_reconnect_after_dovecot_restart(imap_account: Account, dovecot: Dovecot) -> None:
    """RELIABILITY T3: the server goes away under an open connection and under IDLE;
    reconnect works."""
    when = datetime(2024, 1, 1, tzinfo=UTC)
    first = imap_account.append(mail(1), when)
    box = Mailbox(settings(imap_account))
    box.connect()
    assert box.pending_uids() == [first]
    validity = box.uidvalidity

    dovecot.restart()
    with pytest.raises(ImapError):
        box.pending_uids()
    assert not box.connected

    box.connect()
    second = imap_account.append(mail(2), when)
    assert box.pending_uids() == [first, second]
    assert box.uidvalidity == validity

    # mid-IDLE: the restart kills the connection; wait() raises instead of hanging.
    timer = threading.Timer(0.3, dovecot.restart)
    timer.start()
    try:
        with pytest.raises(ImapError):
            box.wait(10)
    finally:
        timer.join()
    box.connect()
    assert box.pending_uids() == [first, second]
    box.close()


def test_killed_connection_mid_idle_raises_then_reconnects(
    imap_account: Account, dovecot: Dovecot
) -> None:
    """RELIABILITY T3: the server drops just this session (doveadm kick) while it IDLEs."""
    with Mailbox(settings(imap_account)) as box:
        timer = threading.Timer(0.3, dovecot.kick, args=(imap_account.user,))
        timer.start()
        try:
            with pytest.raises(ImapError):
                box.wait(10)
        finally:
            timer.join()
        assert not box.connected
        box.connect()
        uid = imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
        assert box.pending_uids() == [uid]


def test_uidvalidity_changes_when_bumped(imap_account: Account) -> None:
    """RELIABILITY T4 support: Dovecot drops a session whose folder got a new UIDVALIDITY; the next
    connect reports the new value (the same mail is still there, now under it)."""
    uid = imap_account.append(mail(), datetime(2024, 1, 1, tzinfo=UTC))
    box = Mailbox(settings(imap_account))
    box.connect()
    before = box.uidvalidity
    assert before == imap_account.uidvalidity()
    assert box.pending_uids() == [uid]

    after = imap_account.bump_uidvalidity()

    assert after != before
    with pytest.raises(ImapError):
        box.pending_uids()  # "index reset, view is now inconsistent": disconnected
    box.connect()
    assert box.uidvalidity == after == imap_account.uidvalidity()
    assert box.pending_uids() == [uid]
    box.close()


def test_errors_are_oserrors(imap_account: Account) -> None:
    assert issubclass(ImapError, OSError)
    wrong = ImapSettings(imap_account.host, imap_account.port, imap_account.user, "nope")
    with pytest.raises(ImapAuthError):
        Mailbox(wrong).connect()
    closed = ImapSettings("127.0.0.1", free_port(), "u", "p", timeout=2)
    with pytest.raises(ImapError):
        Mailbox(closed).connect()
    with pytest.raises(ImapError):
        Mailbox(closed).pending_uids()  # not connected


def test_folder_names_with_crlf_are_refused(box: Mailbox) -> None:
    with pytest.raises(ValueError):
        ImapSettings("h", 143, "u", "p", folder="INBOX\r\nA1 DELETE INBOX")
    with pytest.raises(ValueError):
        box.move(1, "Processed\r\nA1 LOGOUT")
    with pytest.raises(ValueError):
        box.fetch(0)
