"""What one unit of mail work keeps between its stages, in one typed object (issue 22).

An inbound mail (or a sweep) is one unit of work in one transaction. While it runs, the
mail stage keeps a little state besides the database rows: who caused the mail being
written (its replies count against that address's caps), whether that sender proved
nothing (its effects count against the caps on unproven mail), the reply-count rows read
in this transaction (so that each is read once), and the outbox rows queued to be
written in one statement. All of it lives in one :class:`MailWork`, which the session
carries for the transaction: :func:`work_of` is the one way to reach it, so nothing else
hides state on the session, and a test can read or set it directly.

メール処理 1 件ぶんの作業状態（返信の原因、本人未確認かどうか、返信数の行、まとめて書く
送信行）を 1 つの型付きオブジェクトにまとめます。
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy.orm import Session, SessionTransaction

_KEY = "relaybot.mail.work"


@dataclass
class MailWork:
    """The state of one unit of mail work (see the module's docstring)."""

    # the address whose inbound mail caused what is written now ("" for none)
    cause: str | None = None
    # the cause proved no sender: its effects count against the caps on unproven mail
    unproven: bool = False
    # outbox rows queued with defer=True, written in one statement by insert_deferred
    deferred: list[dict[str, Any]] = field(default_factory=list)
    # reply-count rows (or None: read as missing) by (address, day), for ``counts_root``
    counts: dict[tuple[str, date], Any] = field(default_factory=dict)
    counts_root: SessionTransaction | None = None

    def counts_for(self, root: SessionTransaction | None) -> dict[tuple[str, date], Any]:
        """The reply-count rows known to the transaction ``root`` (another root starts
        afresh: rows of a committed or rolled-back transaction are not trusted)."""
        if self.counts_root is not root:
            self.counts_root, self.counts = root, {}
        return self.counts


def work_of(session: Session) -> MailWork:
    """The session's one :class:`MailWork`, made on first use."""
    work = session.info.get(_KEY)
    if work is None:
        work = session.info[_KEY] = MailWork()
    assert isinstance(work, MailWork)
    return work


@contextmanager
def caused_by(session: Session, address: str | None) -> Iterator[MailWork]:
    """Mail written inside is caused by an inbound mail from ``address``; the previous
    cause is restored afterwards."""
    work = work_of(session)
    before = work.cause
    work.cause = (address or "").strip().lower()
    try:
        yield work
    finally:
        work.cause = before


@contextmanager
def unproven(session: Session) -> Iterator[MailWork]:
    """Mail written inside is caused by a mail that proved no sender."""
    work = work_of(session)
    before = work.unproven
    work.unproven = True
    try:
        yield work
    finally:
        work.unproven = before
