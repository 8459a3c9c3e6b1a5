"""The mail stage's state for one unit of work is one typed object (issue 22 item 8)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from relaybot.mail.work import MailWork, caused_by, unproven, work_of


def test_one_work_object_per_session_with_its_cause_and_proof_restored() -> None:
    with Session(create_engine("sqlite://")) as session:
        work = work_of(session)
        assert isinstance(work, MailWork) and work_of(session) is work
        assert work.cause is None and not work.unproven
        with caused_by(session, " Sato@Example.JP "):
            assert work.cause == "sato@example.jp"
            with unproven(session):
                assert work.unproven
                with caused_by(session, "td@club.example"):
                    assert work.cause == "td@club.example"
                assert work.cause == "sato@example.jp"
            assert not work.unproven
        assert work.cause is None


def test_counts_are_kept_for_one_transaction_only() -> None:
    with Session(create_engine("sqlite://")) as session:
        work = work_of(session)
        first = session.get_transaction()
        work.counts_for(first)[("a@x", date(2026, 1, 1))] = None
        assert work.counts_for(first)
        assert work.counts_for(object()) == {}  # type: ignore[arg-type]
