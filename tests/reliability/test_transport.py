"""T2 SMTP failures, T3 IMAP connection killed and Dovecot restarted, T4 UIDVALIDITY
change, T5 another client between finding the new mail and fetching it (RELIABILITY.md:
"between SEARCH and FETCH"; the poller finds new mail with one UID FETCH of sizes)."""

from __future__ import annotations

import signal
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from relaybot.app.runner import imap_settings, run_once
from relaybot.mail.imap import Mailbox
from relaybot.store.models import Game, ImapState, Inbound, Member, Outbox
from tests.integration.relay_harness import TD, Club
from tests.reliability.harness import (
    assert_lint,
    assert_sound,
    captured_ids,
    end_state,
    folder_ids,
    kinds,
    marked,
    message_id,
    outbox,
    plies,
    restart,
    start_service,
    wait_until,
)
from tests.reliability.test_crash import OPENING, UCI, record, two_players
from tests.servers.dovecot import Dovecot

pytestmark = [pytest.mark.integration, pytest.mark.reliability]


@pytest.mark.slow
def test_t02_smtp_421_451_550_drop_and_stall(club: Club) -> None:
    white, black, gid = two_players(club)
    env = {"RELAYBOT_SMTP_TIMEOUT": "2"}
    failures = [
        ("421", lambda: club.sink.fail_next("mail", "421 4.3.2 shutting down")),
        ("451-rcpt", lambda: club.sink.fail_next("rcpt", "451 4.3.0 try again")),
        ("drop", lambda: club.sink.drop_after_data()),
        ("stall", lambda: club.sink.stall(4, accept=True)),
        ("550", lambda: club.sink.fail_next("rcpt", "550 5.1.1 no such user")),
    ]
    delivered: list[bytes] = []
    retried = 0
    for i, (name, script) in enumerate(failures):
        mover = white if i % 2 == 0 else black
        delivered.append(mover.send(record(OPENING[: i + 1])))
        script()
        restart(club, env=env)
        with club.store.session() as s:
            retry = s.scalars(select(Outbox).where(Outbox.status == "pending")).all()
        if name == "550":
            assert [r.kind for r in retry] == ["td_delivery"]  # no retry; the TD's notice
        else:
            assert len(retry) == 1 and retry[0].attempts == 1, name
            retried += 1
        ids = {r.id: r.message_id for r in outbox(club)}
        restart(club, now=club.clock + timedelta(hours=1), env=env)  # after the backoff
        assert {r.id: r.message_id for r in outbox(club)} == ids  # G4: ids never change
    restart(club, now=club.clock + timedelta(days=1), env=env)
    rows = outbox(club)
    bounced = [r for r in rows if r.status == "bounced"]
    assert len(bounced) == 1 and "550" in bounced[0].last_error
    assert kinds(club, TD).count("td_delivery") == 1  # the TD is told, once
    assert all(r.status in ("sent", "bounced") for r in rows)  # no row lost
    assert plies(club, gid) == UCI[:5]
    state = end_state(club, delivered)
    # the stalled DATA was delivered but its 250 never came: resent, same Message-ID
    assert_sound(state, duplicates=1)
    assert_lint(club)
    state.report("T2", retried=retried, bounced=len(bounced))


def test_t03_imap_killed_mid_fetch_and_mid_idle_and_dovecot_restarted(
    club: Club, dovecot: Dovecot, tmp_path: Path
) -> None:
    white, black, gid = two_players(club)
    mark = tmp_path / "mark"
    proc = start_service(club, env={"RELAYBOT_IMAP_POLL_SECONDS": "30",
                                    "RELAYBOT_FAULT_AT": "mid_fetch:sleep:2",
                                    "RELAYBOT_FAULT_MARK": str(mark)})
    delivered: list[bytes] = []
    try:
        # 1. the connection dies between the size FETCH and the body FETCH
        delivered.append(white.send("1. e4"))
        assert wait_until(lambda: marked(mark, "mid_fetch"), 30)
        dovecot.kick(club.account.user)
        delivered.append(black.send("1. e4 e5"))  # arrives while the bot reconnects
        assert wait_until(lambda: len(plies(club, gid)) == 2, 40), plies(club, gid)
        # 2. killed while in IDLE
        wait_until(lambda: False, 1.5)
        dovecot.kick(club.account.user)
        delivered.append(white.send(record(OPENING[:3])))
        assert wait_until(lambda: len(plies(club, gid)) == 3, 40)
        # 3. Dovecot restarted under it
        wait_until(lambda: False, 1.0)
        dovecot.restart()
        delivered.append(black.send(record(OPENING[:4])))
        assert wait_until(lambda: len(plies(club, gid)) == 4, 60)
        assert wait_until(lambda: all(r.status == "sent" for r in outbox(club)), 30)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    log = (club.workdir / "service.log").read_text()
    assert proc.returncode == 0, log
    assert plies(club, gid) == UCI[:4]
    with club.store.session() as s:
        assert len(s.scalars(select(Inbound.id)).all()) == 4  # each exactly once
    state = end_state(club, delivered)
    assert_sound(state)
    assert_lint(club)
    state.report("T3", reconnects=log.count("reconnecting"))


def test_t04_uidvalidity_change_and_redelivery_reapply_nothing(club: Club) -> None:
    white, black, gid = two_players(club)
    first = white.send("1. e4")
    restart(club)
    assert plies(club, gid) == ["e2e4"]
    out_before = len(club.sink.captured)
    second = black.send("1. e4 e5")  # waiting in INBOX when UIDVALIDITY changes
    old = club.account.uidvalidity()
    new = club.account.bump_uidvalidity()
    assert new != old
    club.deliver(first)  # the same mail again, under the new UIDVALIDITY
    restart(club)
    assert plies(club, gid) == ["e2e4", "e7e5"]  # the new mail once, the old one not again
    with club.store.session() as s:
        assert s.get(ImapState, "INBOX").uidvalidity == new  # type: ignore[union-attr]
        outcomes = s.scalars(select(Inbound.outcome).order_by(Inbound.id)).all()
    assert outcomes == ["move", "move"]
    assert len(club.sink.captured) - out_before == 2  # forward and ack for e5 only
    assert folder_ids(club, "INBOX") == []
    restart(club)
    state = end_state(club, [first, second])
    assert_sound(state)
    assert_lint(club)
    state.report("T4", redelivered=1, reapplied=0)


class _Meddler(Mailbox):
    """Between our look at INBOX (the UIDs and sizes, Mailbox.pending_heads) and the
    FETCHes of the bodies, another client meddles with it."""

    def __init__(self, club: Club, seen: int, moved: int, expunged: int) -> None:
        super().__init__(imap_settings(club.cfg))
        self.club, self.targets, self.done = club, (seen, moved, expunged), False

    def pending_heads(self) -> tuple[list[int], dict[int, dict[bytes, Any]]]:
        found = super().pending_heads()
        if not self.done:
            self.done = True
            seen, moved, expunged = self.targets
            with self.club.account.client("INBOX") as other:
                other.add_flags([seen], [b"\\Seen"])
                if not other.folder_exists("Elsewhere"):
                    other.create_folder("Elsewhere")
                other.move([moved], "Elsewhere")
                other.delete_messages([expunged])
                other.uid_expunge([expunged])
        return found


def test_t05_another_client_between_search_and_fetch(club: Club) -> None:
    white, black, gid = two_players(club)
    m1 = white.send("1. e4")
    u1 = club.account.uids()[-1]
    m2 = club.players["brown@example.org"].compose("hello", to="relay@club.example",
                                                   subject="hi").as_bytes()
    u2 = club.deliver(m2)
    m3 = b"From: x@y.example\r\nSubject: junk\r\nMessage-ID: <junk-3@y.example>\r\n\r\nx\r\n"
    u3 = club.deliver(m3)
    m4 = black.send("1. e4 e5")
    box = _Meddler(club, u1, u2, u3)
    box.connect()
    try:
        report = run_once(club.store, club.cfg, club.clock, mailbox=box)
    finally:
        box.close()
    assert report.poll.vanished == 2
    assert report.poll.processed == 2
    assert plies(club, gid) == ["e2e4", "e7e5"]  # \Seen changed nothing: it is processed
    restart(club)  # a second run: nothing twice
    with club.store.session() as s:
        assert len(s.scalars(select(Inbound.id)).all()) == 2
    assert folder_ids(club, "Elsewhere") == [message_id(m2)]
    state = end_state(club, [m1, m2, m3, m4], gone=[message_id(m2), message_id(m3)])
    assert_sound(state)
    assert len(captured_ids(club)) == state.out
    assert_lint(club)
    state.report("T5", vanished=report.poll.vanished)


def test_t02_permanent_bounces_counted_per_member_escalate_to_the_td(club: Club) -> None:
    from relaybot.app.outbox import send_pending
    from relaybot.mail.queue import Recipient, queue_mail

    _white, black, gid = two_players(club)
    with club.store.session() as s:
        brown = s.scalars(select(Member).where(Member.email == black.address)).one()
        for i in range(3):
            queue_mail(s, club.cfg, kind="reminder", to=Recipient(brown.name, brown.email,
                                                                  brown.id),
                       subject=f"r{i}", body="x", now=club.clock, game_id=gid,
                       in_reply_to="a@club.example", references=["a@club.example"])
    club.sink.fail_next("rcpt", "550 5.1.1 no such user", times=3)
    send_pending(club.store, club.cfg, club.clock)
    restart(club)  # the TD's notices go out
    with club.store.session() as s:
        bounced = s.scalars(select(Outbox).where(Outbox.status == "bounced")).all()
    escalations = kinds(club, TD).count("td_bounces")
    assert len(bounced) == 3 and {r.member_id for r in bounced} == {brown.id}
    assert escalations == 1
    with club.store.session() as s:
        assert s.get(Game, gid).status == "active"  # type: ignore[union-attr]  # G6
    state = end_state(club)
    assert_sound(state)
    assert_lint(club)
    state.report("T2/bounces", bounced=len(bounced), td_escalations=escalations)
