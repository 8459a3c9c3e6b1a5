"""T8 one move per (game, ply), T9 deadlines across downtime, T10 no loops, T13 no header
injection or identity tricks, T14 every outgoing mail well-formed (RELIABILITY.md)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from email.message import EmailMessage
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import make_msgid
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from relaybot.store.locks import InstanceLock
from relaybot.store.models import Inbound, Outbox
from tests.integration.relay_harness import RELAY, TD, Club, authenticated_by_mta
from tests.reliability.harness import (
    assert_lint,
    assert_sound,
    end_state,
    kinds,
    lint,
    plies,
    restart,
    run_bot,
)
from tests.reliability.test_crash import two_players

pytestmark = [pytest.mark.integration, pytest.mark.reliability]

CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail"


def errors_to(club: Club, address: str) -> int:
    return sum(1 for k in kinds(club, address) if k.startswith("error_"))


# ------------------------------------------------------------------------ T8


def _t8(club: Club, test_id: str) -> None:
    white, _black, gid = two_players(club)
    before = errors_to(club, white.address)
    delivered = [white.send("1. e4"), white.send("1. d4")]  # same (game, ply), one cycle
    restart(club)
    restart(club)
    assert plies(club, gid) == ["e2e4"]  # exactly one applied: the first by UID
    told = errors_to(club, white.address) - before
    assert told == 1  # the other one told once
    with club.store.session() as s:
        outcomes = s.scalars(select(Inbound.outcome).order_by(Inbound.id)).all()
    assert outcomes[0] == "move" and outcomes[1] != "move"
    state = end_state(club, delivered)
    assert_sound(state)
    assert_lint(club)
    state.report(test_id, told=told)


def test_t08_two_moves_for_the_same_ply(club: Club) -> None:
    _t8(club, "T8")


def test_t08_two_moves_for_the_same_ply_postgresql(pg_club: Club) -> None:
    _t8(pg_club, "T8/pg")


# ------------------------------------------------------------------------ T9


def _t9(club: Club, test_id: str) -> None:
    white, black, _gid = two_players(club)
    delivered = [white.send("1. e4")]
    restart(club)
    start = club.clock
    # daily runs; stopped 3 days across the reminder (day 10) and 3 days across the
    # escalation (day 20); restarted twice after each stop
    schedule = [1, 7, 11.2, 11.5, 12, 17, 21.3, 21.6, 22]
    for day in schedule:
        restart(club, now=start + timedelta(days=day))
    reminders = kinds(club, black.address).count("reminder")
    escalations = kinds(club, TD).count("td_silence")
    assert reminders == 1 and escalations == 1
    with club.store.session() as s:
        keys = s.scalars(select(Outbox.dedupe_key).where(
            Outbox.kind.in_(["reminder", "td_silence"]))).all()
    assert len(keys) == len(set(keys)) == 2
    # a second instance while one runs: refused on SQLite; on PostgreSQL (G9) it runs
    # and leaves the scheduled work to the leader
    lock = InstanceLock(club.store)
    lock.acquire()
    try:
        second = run_bot(club, now=start + timedelta(days=23))
    finally:
        lock.release()
    if club.db_url.startswith("sqlite"):
        assert second.returncode == 2 and "already running" in second.stderr
    else:
        assert second.returncode == 0 and "scheduled: left to the leader" in second.stdout
    # D1/G10: one digest per (member, ISO week) across the stops and restarts, none missed
    import re

    weeks = {re.findall(r"\d{4}-W\d\d", str(c.parsed["Subject"]))[0]: 0
             for c in club.sink.captured if c.parsed["X-Relaybot-Kind"] == "digest"}
    digests = Counter(
        (c.rcpt_tos[0], re.findall(r"\d{4}-W\d\d", str(c.parsed["Subject"]))[0])
        for c in club.sink.captured if c.parsed["X-Relaybot-Kind"] == "digest")
    assert set(digests.values()) == {1}
    run_weeks = {(start + timedelta(days=d)).astimezone(ZoneInfo("Asia/Tokyo")).isocalendar()[:2]
                 for d in schedule}
    assert len(weeks) == len(run_weeks)  # every week the bot ran in got its digest
    assert {a for a, _ in digests} == {white.address, black.address}
    state = end_state(club, delivered)
    assert_sound(state)
    assert_lint(club)
    state.report(test_id, runs=len(schedule), reminders=reminders, escalations=escalations,
                 **({"second_refused": 1} if club.db_url.startswith("sqlite")
                    else {"second_followed": 1}), digests=sum(digests.values()))


@pytest.mark.slow
def test_t09_deadlines_across_downtime_and_a_second_instance(club: Club) -> None:
    _t9(club, "T9")


@pytest.mark.slow
def test_t09_deadlines_across_downtime_and_a_second_instance_postgresql(
    pg_club: Club,
) -> None:
    _t9(pg_club, "T9/pg")


# ------------------------------------------------------------------------ T10


def _automated_variants(club: Club, gid: str) -> list[tuple[str, bytes]]:
    white = club.players["sato@example.jp"]

    def mail(name: str, headers: dict[str, str], *, sender: str | None = None) -> bytes:
        msg = white.compose("Thanks, see you!", to=f"relay+{gid}@club.example",
                            subject=f"Re: [{gid}] your move")
        if sender is not None:
            msg.replace_header("From", sender)
        for key, value in headers.items():
            msg[key] = value
        return msg.as_bytes()

    variants = [
        (f"auto-submitted {v or 'empty'}", mail("", {"Auto-Submitted": v}))
        for v in ("auto-replied", "auto-generated", "auto-notified", "Auto-Replied (vacation)",
                  "")
    ]
    variants += [
        ("return-path <>", mail("", {"Return-Path": "<>"})),
        ("from <>", mail("", {}, sender="<>")),
        ("mailer-daemon", mail("", {}, sender="MAILER-DAEMON@example.jp")),
        ("list-id", mail("", {"List-Id": "<chess.lists.example.jp>"})),
        ("list-unsubscribe", mail("", {"List-Unsubscribe": "<mailto:u@lists.example.jp>"})),
        ("precedence bulk", mail("", {"Precedence": "bulk"})),
        ("precedence junk", mail("", {"Precedence": "junk"})),
        ("precedence list", mail("", {"Precedence": "list"})),
        ("own address", mail("", {}, sender=RELAY)),
        ("own game address", mail("", {}, sender=f"relay+{gid}@club.example")),
        ("x-autoreply", mail("", {"X-Autoreply": "yes"})),
    ]
    report = MIMEMultipart("report", report_type="delivery-status")
    report["From"] = "Mail Delivery System <MAILER-DAEMON@example.jp>"
    report["To"] = f"relay+{gid}@club.example"
    report["Subject"] = "Undelivered Mail Returned to Sender"
    report["Message-ID"] = make_msgid(domain="example.jp")
    report.attach(MIMEText("This is the mail system. I'm sorry to have to inform you..."))
    status = MIMEMessage(EmailMessage())
    status.set_type("message/delivery-status")
    report.attach(status)
    variants.append(("dsn multipart/report", report.as_bytes()))
    dsn_member = MIMEMultipart("report", report_type="delivery-status")
    dsn_member["From"] = "sato@example.jp"
    dsn_member["To"] = f"relay+{gid}@club.example"
    dsn_member["Subject"] = f"[{gid}] delivery report"
    dsn_member["Message-ID"] = make_msgid(domain="example.jp")
    dsn_member.attach(MIMEText("1. e4"))
    variants.append(("multipart/report from a member", dsn_member.as_bytes()))
    return variants


def test_t10_no_reply_to_automated_mail_and_the_ping_pong_ends(club: Club) -> None:
    white, black, gid = two_players(club)
    variants = _automated_variants(club, gid)
    base = club.clock + timedelta(hours=1)
    out_before = len(club.sink.captured)
    for i, (_name, raw) in enumerate(variants):
        club.deliver(raw, base + timedelta(minutes=i))
    restart(club)
    assert len(club.sink.captured) == out_before, kinds(club)[out_before:]  # no reply at all
    assert plies(club, gid) == []  # not even the move in the member's DSN
    with club.store.session() as s:
        outcomes = s.scalars(select(Inbound.outcome)).all()
    assert len(outcomes) == len(variants)
    assert set(outcomes) <= {"automated", "no_sender"}, outcomes
    # control: Auto-Submitted: no is answered
    control = white.compose("Thanks, see you!", to=white.game_address(gid),
                            subject=f"Re: [{gid}] x")
    control["Auto-Submitted"] = "no"
    club.deliver(control.as_bytes(), base + timedelta(minutes=30))
    restart(club)
    assert errors_to(club, white.address) == 1

    # a naive auto-responder (no Auto-Submitted) answering everything the bot sends Black
    answered: set[str] = set()
    rounds = 0
    day = base + timedelta(minutes=40)
    while rounds < 40:
        new = [c for c in club.mails_to(black.address)
               if str(c.parsed["Message-ID"]) not in answered]
        if not new:
            break
        for c in new:
            answered.add(str(c.parsed["Message-ID"]))
            reply = black.compose("I am out of the office until Monday.",
                                  to=str(c.parsed["Reply-To"] or c.parsed["From"]),
                                  subject="Re: " + str(c.parsed["Subject"]))
            reply["In-Reply-To"] = str(c.parsed["Message-ID"])
            rounds += 1
            club.deliver(reply.as_bytes(), day + timedelta(minutes=rounds))
        club.cycle()  # in-process run_once: the same code path, 40x faster than a CLI run
    cap = club.cfg.bot.error_reply_cap
    pong = errors_to(club, black.address)
    assert rounds < 40, "the loop did not end"
    assert pong <= cap
    assert_lint(club)
    state = end_state(club, [raw for _n, raw in variants])
    assert_sound(state)
    state.report("T10", variants=len(variants), replies_to_automated=0,
                 pingpong_rounds=rounds, pingpong_replies=pong, cap=cap)


# ------------------------------------------------------------------------ T13


def test_t13_no_header_injection_and_identity_tricks_rejected(club: Club) -> None:
    alice = club.member("Liddell, Alice", "alice@x.org")
    bob = club.member("Builder, Bob", "bob@x.org")
    gid = club.game(alice, bob)
    out_before = len(club.sink.captured)

    def corpus(name: str) -> bytes:
        return (CORPUS / name).read_bytes().replace(b"g7k2", gid.encode())

    trick, victim = corpus("from_trick.eml"), corpus("reply_to_victim.eml")
    club.deliver(trick)
    club.deliver(victim)
    restart(club)
    assert plies(club, gid) == []  # identity rejected: nothing applied
    assert len(club.sink.captured) == out_before  # and nobody answered
    injection = authenticated_by_mta(corpus("subject_injection.eml"), "x.org")
    club.deliver(injection)
    restart(club)
    assert plies(club, gid) == ["e2e4"]  # Alice's own move counts; the subject is text
    # Alice, with Reply-To set to a victim, out of turn: the reply goes to Alice only
    bad = alice.compose("1. e4 e5", to=alice.game_address(gid), subject=f"[{gid}] hi")
    bad["Reply-To"] = "victim@evil.example"
    bad["Sender"] = "bob@x.org"
    club.deliver(bad.as_bytes())
    restart(club)
    assert plies(club, gid) == ["e2e4"]
    assert errors_to(club, "alice@x.org") == 1
    rcpts = {r for c in club.sink.captured for r in c.rcpt_tos}
    assert rcpts <= {"alice@x.org", "bob@x.org", TD}, rcpts
    for c in club.sink.captured:
        head = c.raw.split(b"\r\n\r\n", 1)[0].lower()
        assert b"\nbcc:" not in head and b"victim" not in head
    with club.store.session() as s:
        outcomes = s.scalars(select(Inbound.outcome).order_by(Inbound.id)).all()
    assert outcomes[:2] == ["no_sender", "stranger"], outcomes
    assert_lint(club)
    state = end_state(club, [trick, victim, injection, bad.as_bytes()])
    assert_sound(state)
    state.report("T13", injected_headers=0, identity_accepted=0)


# ------------------------------------------------------------------------ T14


@pytest.mark.slow
def test_t14_every_outgoing_mail_is_well_formed(club: Club) -> None:
    white, black, _gid = two_players(club)
    delivered = [white.send("1. e4")]
    restart(club)
    delivered.append(black.send("1. e4 Ke6"))  # illegal: an error reply
    restart(club)
    delivered.append(black.send("1. e4 e5"))
    club.sink.fail_next("rcpt", "550 5.1.1 no such user")  # a bounce: TD notice
    club.sink.stall(4, accept=True)  # a lost 250: the same mail twice
    restart(club, env={"RELAYBOT_SMTP_TIMEOUT": "2"})
    poison = white.compose("2. Nf3")
    poison.replace_header("Message-ID", "<poison-14@example.jp>")
    club.deliver(poison.as_bytes())
    delivered.append(poison.as_bytes())
    for _ in range(3):
        restart(club, env={"RELAYBOT_FAULT_AT": "process:raise:poison-14"})
    start = club.clock
    restart(club, now=start + timedelta(days=12))  # a reminder to White
    delivered.append(white.send("resign", at=start + timedelta(days=12, hours=1)))
    restart(club, now=start + timedelta(days=13))
    restart(club, now=start + timedelta(days=14))
    got = kinds(club)
    for kind in ("start", "move", "ack", "error_bad_move", "td_delivery", "quarantine",
                 "reminder", "game_end", "td_result"):
        assert kind in got, (kind, got)
    problems = lint(club)
    assert problems == [], "\n".join(problems)
    state = end_state(club, delivered)
    assert_sound(state, duplicates=1)
    state.report("T14", linted=len(club.sink.captured), kinds=len(set(got)), violations=0)
