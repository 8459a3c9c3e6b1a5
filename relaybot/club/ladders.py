"""The ladder of each game kind (issue 30, seed 000): its order, a challenge of a higher
player registered with its game, the ladder after each finished challenge, and the
ladders a member is on (for the digest).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.results import result_form
from relaybot.club.tournaments import event_players
from relaybot.core.books_rules import LadderError, challenge_allowed, ladder_after
from relaybot.store.models import Event, Game, LadderChallenge, LadderRung, Member


def ladder_order(session: Session, kind: str) -> list[Member]:
    """The ladder of one game kind, top first."""
    return list(session.scalars(select(Member).join(
        LadderRung, LadderRung.member_id == Member.id)
        .where(LadderRung.kind == kind).order_by(LadderRung.position)))


def set_ladder(session: Session, kind: str, members: list[Member]) -> None:
    """Write the ladder of ``kind`` in this order, top first."""
    for rung in session.scalars(select(LadderRung).where(LadderRung.kind == kind)):
        session.delete(rung)
    session.flush()
    for position, member in enumerate(members, start=1):
        session.add(LadderRung(kind=kind, member_id=member.id, position=position))
    session.flush()


def register_challenge(session: Session, event: Event, game: Game) -> None:
    """A ladder event's game (``event new --kind ladder --players CHALLENGER,HIGHER``):
    the challenge names a higher player (挑戦する上位者を指名). A game kind with no
    ladder yet starts one with the defender on it."""
    challenger, defender = event_players(session, event)[:2]
    order = ladder_order(session, game.kind)
    if not order:
        set_ladder(session, game.kind, [defender])
        order = [defender]
    try:
        challenge_allowed([m.email for m in order], challenger.email, defender.email)
    except LadderError as exc:
        raise AdminError(f"ladder ({game.kind}): {exc}") from None
    session.add(LadderChallenge(game_id=game.id, kind=game.kind, challenger_id=challenger.id,
                                defender_id=defender.id))
    session.flush()


def settle_ladders(session: Session, now: datetime) -> list[str]:
    """Each ladder after its finished challenges, in the order their games ended, each
    applied once (a challenger who wins moves up: ladder_after); a line for each."""
    done = []
    rows = session.execute(select(LadderChallenge, Game).join(
        Game, Game.id == LadderChallenge.game_id).where(
        LadderChallenge.applied_at.is_(None), Game.status == "finished")
        .order_by(Game.end_date, Game.updated_at)).all()
    for ch, game in rows:
        order = ladder_order(session, ch.kind)
        by_email = {m.email: m for m in order}
        challenger = session.get(Member, ch.challenger_id)
        defender = session.get(Member, ch.defender_id)
        assert challenger is not None and defender is not None
        by_email[challenger.email] = challenger
        form = result_form(game)
        winner_id = (game.side0_id if form == "1-0" else game.side1_id if form == "0-1"
                     else None)
        winner = (challenger.email if winner_id == challenger.id
                  else defender.email if winner_id == defender.id else None)
        new = ladder_after([m.email for m in order], challenger.email, defender.email, winner)
        set_ladder(session, ch.kind, [by_email[e] for e in new])
        ch.applied_at = now
        done.append(f"ladder ({ch.kind}): {challenger.email} v {defender.email}, "
                    + ("challenger wins and moves up" if winner == challenger.email
                       else "the ladder stays"))
    return done


def ladders_of(session: Session, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """For each member among ``ids`` on a ladder: every ladder they are on, names top
    first (the digest shows it; 公式サイトやニュースレターに掲載される梯子段)."""
    if not ids:
        return {}
    kinds = sorted(set(session.scalars(select(LadderRung.kind).where(
        LadderRung.member_id.in_(ids)))))
    found: dict[int, list[dict[str, Any]]] = {}
    for kind in kinds:
        order = ladder_order(session, kind)
        shown = {"kind": kind, "names": [m.name for m in order]}
        for m in order:
            if m.id in ids:
                found.setdefault(m.id, []).append(shown)
    return found
