"""The fault harness for RELIABILITY.md T1-T14.

The bot runs as a real subprocess (``relaybot run --once --now ...``) against the
test Dovecot and the SMTP sink, with ``RELAYBOT_FAULT_AT`` naming a crash point
(relaybot/store/faults.py). After the crash it is restarted, and the end state is
checked across the three places a mail can be: the database, the IMAP folders
and the mail the sink captured.

Every test prints one line for docs/reliability.md (scripts/reliability_table.py)::

    RELIABILITY T1 in=7 applied=7 out=16 duplicates=1 lost=0
"""

from __future__ import annotations

import email
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from relaybot.mail.inbound import verp_id
from relaybot.store.faults import FAULT_EXIT
from relaybot.store.models import Game, Inbound, Move, Outbox
from tests.integration.relay_harness import RELAY, Club
from tests.servers.smtp_sink import Captured

MSGID_RE = re.compile(r"<([0-9a-f]{32})@club\.example>")


# ------------------------------------------------------------------------ running the bot


def run_bot(club: Club, fault: str | None = None, *, now: datetime | None = None,
            mark: Path | None = None, env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
    """One ``relaybot run --once --now <club clock>``; ``fault`` goes to RELAYBOT_FAULT_AT."""
    extra = dict(env or {})
    if fault:
        extra["RELAYBOT_FAULT_AT"] = fault
    if mark is not None:
        extra["RELAYBOT_FAULT_MARK"] = str(mark)
    when = (now or club.clock).isoformat()
    return club.cli("run", "--once", "--now", when, extra_env=extra, check=False)


def crash(club: Club, point: str, **kw: object) -> subprocess.CompletedProcess[str]:
    """Run the bot with a crash at ``point``; it must really die there."""
    proc = run_bot(club, point, **kw)  # type: ignore[arg-type]
    assert proc.returncode == FAULT_EXIT, (
        f"no crash at {point}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def restart(club: Club, **kw: object) -> subprocess.CompletedProcess[str]:
    """Run the bot normally; it must finish its cycle."""
    proc = run_bot(club, **kw)  # type: ignore[arg-type]
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def start_service(club: Club, *, env: dict[str, str] | None = None,
                  ) -> subprocess.Popen[str]:
    """``relaybot run`` (the long-running service) as a subprocess."""
    (club.workdir / "relaybot.toml").touch()
    full = {**club.env(), **(env or {})}
    log = (club.workdir / "service.log").open("a")
    return subprocess.Popen([sys.executable, "-m", "relaybot.cli", "run"], cwd=club.workdir,
                            env=full, stdout=log, stderr=subprocess.STDOUT, text=True)


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def marked(path: Path, point: str) -> bool:
    return path.exists() and point in path.read_text().split()


# ------------------------------------------------------------------------ end state


def message_id(raw: bytes) -> str:
    """The Message-ID of raw mail, without angle brackets, lower-case."""
    msg = email.message_from_bytes(raw, policy=policy.compat32)
    return str(msg.get("Message-ID", "")).strip().strip("<>").lower()


def folder_ids(club: Club, folder: str) -> list[str]:
    if folder not in club.account.folders():
        return []
    return [message_id(raw) for raw in club.account.messages(folder)]


def outbox(club: Club) -> list[Outbox]:
    with club.store.session() as s:
        return list(s.scalars(select(Outbox).order_by(Outbox.id)))


def ledger_ids(club: Club) -> set[str]:
    with club.store.session() as s:
        return set(s.scalars(select(Inbound.message_id)))


def moves_applied(club: Club) -> int:
    with club.store.session() as s:
        return len(s.scalars(select(Move.id)).all())


def plies(club: Club, game_id: str) -> list[str]:
    with club.store.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        return game.plies.split()


def captured_ids(club: Club) -> list[str]:
    return [str(c.parsed["Message-ID"]).strip().strip("<>") for c in club.sink.captured]


def kinds(club: Club, address: str | None = None) -> list[str]:
    return [str(c.parsed["X-Relaybot-Kind"]) for c in club.sink.captured
            if address is None or address in c.rcpt_tos]


@dataclass
class EndState:
    """What the three stores say after a run, and the counts a test reports."""

    delivered: int
    applied: int
    out: int
    duplicates: int
    lost_in: list[str]
    lost_out: list[str]
    inbox_processed: list[str]
    processed_unledgered: list[str]
    pending: int

    @property
    def lost(self) -> int:
        return len(self.lost_in) + len(self.lost_out)

    def report(self, test_id: str, **extra: object) -> None:
        emit(test_id, in_=self.delivered, applied=self.applied, out=self.out,
             duplicates=self.duplicates, lost=self.lost, **extra)


def end_state(club: Club, delivered: Iterable[bytes] = (), *,
              gone: Iterable[str] = ()) -> EndState:
    """Collect the end state; ``gone`` are Message-IDs another client removed on purpose."""
    wanted = [message_id(raw) for raw in delivered]
    inbox = folder_ids(club, "INBOX")
    processed = folder_ids(club, "Processed")
    quarantine = folder_ids(club, "Quarantine")
    ledger = ledger_ids(club)
    skip = set(gone)
    seen = set(inbox) | set(processed) | set(quarantine) | ledger | skip
    rows = outbox(club)
    got = Counter(captured_ids(club))
    return EndState(
        delivered=len(wanted),
        applied=moves_applied(club),
        out=sum(got.values()),
        duplicates=sum(n - 1 for n in got.values()),
        lost_in=[m for m in wanted if m not in seen],
        lost_out=[r.message_id for r in rows if r.status == "sent" and r.message_id not in got],
        inbox_processed=[m for m in inbox if m in ledger],
        processed_unledgered=[m for m in processed if m not in ledger],
        pending=sum(1 for r in rows if r.status == "pending"),
    )


def assert_sound(state: EndState, *, duplicates: int = 0) -> None:
    """G1/G4 as seen from outside: nothing lost, nothing processed left behind."""
    assert state.lost_in == [], f"mail lost on the way in: {state.lost_in}"
    assert state.lost_out == [], f"rows marked sent but never delivered: {state.lost_out}"
    assert state.inbox_processed == [], f"committed mail left in INBOX: {state.inbox_processed}"
    assert state.processed_unledgered == [], (
        f"mail moved out of INBOX without a commit: {state.processed_unledgered}")
    assert state.pending == 0, f"{state.pending} outbox rows still pending"
    assert state.duplicates == duplicates, f"{state.duplicates} duplicates, want {duplicates}"


def emit(test_id: str, **counts: object) -> None:
    """One parseable line per test (scripts/reliability_table.py reads them)."""
    parts = " ".join(f"{k.rstrip('_')}={v}" for k, v in counts.items())
    print(f"\nRELIABILITY {test_id} {parts}", flush=True)


# ------------------------------------------------------------------------ T14 lint


def lint(club: Club, captured: Iterable[Captured] | None = None) -> list[str]:
    """Every G11/G4/G6 rule an outgoing mail must keep; returns the violations."""
    mails = list(club.sink.captured if captured is None else captured)
    rows = {r.message_id: r for r in outbox(club)}
    problems: list[str] = []
    first_raw: dict[str, bytes] = {}
    for c in mails:
        msg: EmailMessage = c.parsed
        mid_header = str(msg.get("Message-ID", ""))
        m = MSGID_RE.fullmatch(mid_header.strip())
        if m is None:
            problems.append(f"Message-ID not ours: {mid_header!r}")
            continue
        token = m.group(1)
        mid = f"{token}@club.example"
        kind = str(msg.get("X-Relaybot-Kind", ""))
        where = f"{kind} {mid}"
        if mid in first_raw and first_raw[mid] != c.raw:
            problems.append(f"{where}: resent with different bytes")
        first_raw.setdefault(mid, c.raw)
        row = rows.get(mid)
        if row is None:
            problems.append(f"{where}: no outbox row has this Message-ID (not stable)")
        elif [row.recipient] != c.rcpt_tos:
            problems.append(f"{where}: sent to {c.rcpt_tos}, row says {row.recipient}")
        if str(msg.get("Auto-Submitted", "")) not in ("auto-generated", "auto-replied"):
            problems.append(f"{where}: Auto-Submitted is {msg.get('Auto-Submitted')!r}")
        if msg.get("X-Relaybot-Game") and kind not in ("start",) and not kind.startswith(
                ("td_", "quarantine")):
            if not msg.get("In-Reply-To") or not msg.get("References"):
                problems.append(f"{where}: no threading headers")
        for line in c.raw.split(b"\n"):
            if len(line.rstrip(b"\r")) > 998:
                problems.append(f"{where}: a line of {len(line)} bytes")
                break
        if verp_id(c.mail_from, RELAY) is None or (row is not None and (
                c.mail_from != row.envelope_from or token in c.mail_from)):
            problems.append(f"{where}: envelope sender {c.mail_from!r} is not its VERP")
        for name in ("Bcc", "Cc"):
            if msg.get(name) is not None:
                problems.append(f"{where}: unexpected {name} header")
        for name, value in msg.items():
            if "\n" in str(value) or "\r" in str(value):
                problems.append(f"{where}: CR/LF in {name}")
    return problems


def assert_lint(club: Club) -> int:
    problems = lint(club)
    assert problems == [], "\n".join(problems)
    return len(club.sink.captured)
