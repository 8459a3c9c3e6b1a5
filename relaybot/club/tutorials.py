"""Tutorial games (issue 30, seed 000): who may have one, and which games are tutorials
(unrated, in no standings).
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.book_settings import rules_of
from relaybot.club.errors import AdminError
from relaybot.store.models import Member, Tutorial


def check_tutorial(session: Session, kind: str, tutor: Member, student: Member) -> None:
    """A tutorial is chess or shogi, and each member has at most the club's number by
    email (郵便戦とEメール戦の各1回ずつ申込みできます)."""
    if kind not in ("chess", "shogi"):
        raise AdminError(f"a tutorial game is chess or shogi, not {kind}")
    if tutor.id == student.id:
        raise AdminError("the tutor and the student are two members")
    had = session.scalar(select(func.count()).select_from(Tutorial)
                         .where(Tutorial.student_id == student.id)) or 0
    allowed = rules_of(session).tutorials_by_email
    if had >= allowed:
        raise AdminError(f"{student.email} has had {had} tutorial game(s) by email "
                         f"(at most {allowed})")


def is_tutorial(session: Session, game_id: str) -> bool:
    """Whether the game is a tutorial (unrated, in no standings)."""
    return session.get(Tutorial, game_id) is not None
