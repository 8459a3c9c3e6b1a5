"""Ratings applied when a game ends (R1, R2), once per game, through the pure core."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.core.ratings import START_RATING, RatingState, apply_result, display_rating
from relaybot.store.models import Game, Member, RatingChange

RATED_RESULTS = ("1-0", "0-1", "1/2-1/2")
UNRATED_TERMINATIONS = ("withdrawal_void", "withdrawal_suspended")


def state_of(member: Member) -> RatingState:
    """A member's rating state (1200 provisional when they have none yet, R1)."""
    return RatingState(
        rating=member.rating if member.rating is not None else START_RATING,
        games=member.rated_games,
        provisional=bool(member.provisional),
        opponents=tuple(member.rb_opponents or ()),
        wins=member.rb_wins,
        losses=member.rb_losses,
    )


def _store(member: Member, state: RatingState) -> None:
    member.rating = state.rating
    member.rated_games = state.games
    member.provisional = int(state.provisional)
    member.rb_opponents = list(state.opponents)
    member.rb_wins = state.wins
    member.rb_losses = state.losses


def display(member: Member) -> str:
    """The rating as published: ``(1320)`` while provisional (R2)."""
    state = state_of(member)
    if state.provisional:
        return f"({state.rating})"
    return display_rating(state.rating, max(state.games, 20))


def rate_game(session: Session, game: Game, now: datetime) -> bool:
    """Apply the rating change of a finished game; False when it is not rated or already was.

    The change comes from the ratings at the game's start (R1); it is added to the
    ratings now. A game without play (no move by either side) is not rated.
    """
    if game.result not in RATED_RESULTS or game.termination in UNRATED_TERMINATIONS:
        return False
    if game.ply_count < 2:
        return False  # a forfeit without play
    done = session.scalar(select(RatingChange.id).where(RatingChange.game_id == game.id))
    if done is not None:
        return False  # never twice for one game
    white = session.get(Member, game.side0_id)
    black = session.get(Member, game.side1_id)
    assert white is not None and black is not None
    w_start = game.side0_rating if game.side0_rating is not None else START_RATING
    b_start = game.side1_rating if game.side1_rating is not None else START_RATING
    new_w, new_b = apply_result(state_of(white), state_of(black), w_start, b_start, game.result)
    for member, new in ((white, new_w), (black, new_b)):
        before = member.rating if member.rating is not None else START_RATING
        session.add(RatingChange(game_id=game.id, member_id=member.id, before=before,
                                 after=new.rating, at=now))
        _store(member, new)
    return True


def grade_of(session: Session, member: Member) -> tuple[int, str]:
    """R3: JCCA grade points (introduction bonus from the first rating on record, plus
    tournament points from every finished game in an event, by the category of the
    section's average start rating) and the grade they reach."""
    from relaybot.core.ratings import grade_for, grade_points, section_points

    first = session.scalar(select(RatingChange.before).where(
        RatingChange.member_id == member.id).order_by(RatingChange.at, RatingChange.id)
        .limit(1))
    intro = first if first is not None else member.rating
    tournament = 0
    mine = (Game.side0_id == member.id) | (Game.side1_id == member.id)
    events = {e for e in session.scalars(select(Game.event).where(mine)) if e}
    for event in sorted(events):
        games = session.scalars(select(Game).where(Game.event == event)).all()
        ratings: dict[int, int] = {}
        for g in games:  # each participant's rating at the start of the section
            ratings.setdefault(g.side0_id, g.side0_rating or START_RATING)
            ratings.setdefault(g.side1_id, g.side1_rating or START_RATING)
        scores = [
            (1.0 if g.result == ("1-0" if g.side0_id == member.id else "0-1")
             else 0.5 if g.result == "1/2-1/2" else 0.0)
            for g in games
            if member.id in (g.side0_id, g.side1_id) and g.status == "finished"
            and g.result in RATED_RESULTS
        ]
        if scores:
            tournament += section_points(list(ratings.values()), scores)
    points = grade_points(intro_rating=intro, tournament=tournament)
    return points, grade_for(points)
