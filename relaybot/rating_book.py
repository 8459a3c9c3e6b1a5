"""Ratings per member and game kind (R1, R2, R4), applied once per finished game.

A member's rating in a kind lives in its ``member_ratings`` row; no row means unrated in
that kind, and the rating code then starts from the kind's default (``DEFAULT``). Chess
and shogi use the JCCA quick table and provisional Rb (R1, R2); go uses the salon's
points (R4), which have no provisional period.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.core.ratings import (
    START_RATING,
    RatingState,
    apply_result,
    go_points,
    go_rank,
    grade_for,
    grade_points,
    section_points,
)
from relaybot.store.models import Game, Member, MemberRating, RatingChange

KINDS = ("chess", "shogi", "go")
RATED_RESULTS = ("1-0", "0-1", "1/2-1/2")
UNRATED_TERMINATIONS = ("withdrawal_void", "withdrawal_suspended")
# R1: an unrated player starts at 1200 provisional; R4: a go player of unknown strength
# starts at 0 points (seed 004: 初期値を「0」), and salon points are never provisional.
DEFAULT: dict[str, tuple[int, bool]] = {
    "chess": (START_RATING, True), "shogi": (START_RATING, True), "go": (0, False)}

# Shogi results as the net league writes them, side 0 being 先手. R1 (seed 002, 11):
# draws, forfeits and both-lose (期限切れ) are not rated there, so they are not listed.
_SHOGI_RESULTS = {"1-0": "1-0", "0-1": "0-1", "sente": "1-0", "gote": "0-1",
                  "先手勝ち": "1-0", "後手勝ち": "0-1"}


def _default(kind: str) -> tuple[int, bool]:
    return DEFAULT.get(kind, (START_RATING, True))


@dataclass(frozen=True)
class RatingInput:
    """A rating an operator or TD sets (``member add/set --rating``, the CSV columns)."""

    kind: str
    rating: int
    provisional: bool


def rating_row(session: Session, member_id: int, kind: str) -> MemberRating | None:
    """The member's row for this game kind, or None while unrated in it."""
    return session.scalar(select(MemberRating).where(
        MemberRating.member_id == member_id, MemberRating.kind == kind))


def ratings_of(session: Session, member_id: int) -> dict[str, MemberRating]:
    """Every rating row of one member, by kind."""
    rows = session.scalars(select(MemberRating).where(MemberRating.member_id == member_id))
    return {row.kind: row for row in rows}


def current_ratings(session: Session, member_ids: Iterable[int], kind: str) -> dict[int, int]:
    """The ratings now in ``kind`` of those members who have one (no key: unrated)."""
    ids = list(member_ids)
    if not ids:
        return {}
    rows = session.execute(select(MemberRating.member_id, MemberRating.rating).where(
        MemberRating.member_id.in_(ids), MemberRating.kind == kind))
    return {member_id: rating for member_id, rating in rows}


def set_rating(session: Session, member: Member, value: RatingInput) -> MemberRating:
    """Set a member's rating in one kind (a TD-set value, R1).

    Official (``provisional`` False) means it is never replaced by Rb after 12 games
    (R2): that is how a JCCA member's existing rating is entered. The game count and
    the Rb record stay as they are, so a correction does not restart the provisional
    period. ``member`` must be flushed (it has an id).
    """
    row = rating_row(session, member.id, value.kind)
    if row is None:
        row = MemberRating(member_id=member.id, kind=value.kind, rated_games=0,
                           rb_opponents=[], rb_wins=0, rb_losses=0)
        session.add(row)
    row.rating = value.rating
    row.provisional = int(value.provisional and value.kind != "go")
    return row


def state_of(row: MemberRating | None, kind: str = "chess") -> RatingState:
    """A rating state for the core; the kind's default when unrated (R1, R4)."""
    if row is None:
        rating, provisional = _default(kind)
        return RatingState(rating=rating, provisional=provisional)
    return RatingState(
        rating=row.rating,
        games=row.rated_games,
        provisional=bool(row.provisional),
        opponents=tuple(row.rb_opponents or ()),
        wins=row.rb_wins,
        losses=row.rb_losses,
    )


def _store(row: MemberRating, state: RatingState) -> None:
    row.rating = state.rating
    row.rated_games = state.games
    row.provisional = int(state.provisional)
    row.rb_opponents = list(state.opponents)
    row.rb_wins = state.wins
    row.rb_losses = state.losses


def display(row: MemberRating | None, kind: str = "chess") -> str:
    """The rating as published: ``(1320)`` while provisional (R2); go: ``85 (4k)`` (R4)."""
    state = state_of(row, kind)
    if kind == "go":
        return f"{state.rating} ({go_rank(state.rating)})"
    return state.display


def _row_for_update(session: Session, member_id: int, kind: str) -> MemberRating:
    row = rating_row(session, member_id, kind)
    if row is None:  # the first rated game in this kind: the default becomes a row
        rating, provisional = _default(kind)
        row = MemberRating(member_id=member_id, kind=kind, rating=rating,
                           provisional=int(provisional), rated_games=0, rb_opponents=[],
                           rb_wins=0, rb_losses=0)
        session.add(row)
    return row


def _jcca_result(game: Game) -> str | None:
    """The result as the quick table reads it, side 0 first; None when not rated (R1)."""
    text = (game.result or "").strip()
    if game.kind == "shogi":
        return _SHOGI_RESULTS.get(text)
    return text if text in RATED_RESULTS else None


def _go_deltas(game: Game) -> tuple[int, int] | None:
    """R4: (side 0 = Black, side 1 = White) point changes; None when the game does not
    count. Only go's own result forms are read (``B+3.5``, ``W+R``, ``jigo``): a bare
    ``1-0`` would be ambiguous between colours and sides."""
    text = (game.result or "").strip()
    if not (text[:2].upper() in ("B+", "W+") or text.lower() in ("jigo", "持碁")):
        return None
    points = go_points(text)
    if not points.counted:
        return None
    return points.black, points.white


def rate_game(session: Session, game: Game, now: datetime) -> bool:
    """Apply the rating change of a finished game to both players' rows for its kind;
    False when it is not rated or already was.

    JCCA kinds: the change comes from the ratings at the game's start (R1) and is added
    to the ratings now. Go: winner +1, loser -1, jigo 0 but counted (R4). A game
    without play (no ply at all) is not rated; one that ended after 1. e4 was played and
    is (issue 13: the seeds rate every game with play).
    """
    if game.termination in UNRATED_TERMINATIONS or game.ply_count == 0:
        return False  # void, suspended, or a forfeit without play
    kind = game.kind
    go = _go_deltas(game) if kind == "go" else None
    result = None if kind == "go" else _jcca_result(game)
    if go is None and result is None:
        return False
    done = session.scalar(select(RatingChange.id).where(RatingChange.game_id == game.id))
    if done is not None:
        return False  # never twice for one game
    rows = (_row_for_update(session, game.side0_id, kind),
            _row_for_update(session, game.side1_id, kind))
    states = (state_of(rows[0], kind), state_of(rows[1], kind))
    if go is not None:
        new = tuple(RatingState(rating=s.rating + d, games=s.games + 1, provisional=False)
                    for s, d in zip(states, go, strict=True))
    else:
        assert result is not None
        default = _default(kind)[0]
        start0 = game.side0_rating if game.side0_rating is not None else default
        start1 = game.side1_rating if game.side1_rating is not None else default
        new = apply_result(states[0], states[1], start0, start1, result)
    for row, before, after in zip(rows, states, new, strict=True):
        session.add(RatingChange(game_id=game.id, member_id=row.member_id,
                                 before=before.rating, after=after.rating, at=now))
        _store(row, after)
    return True


def grade_of(session: Session, member: Member) -> tuple[int, str]:
    """R3: JCCA grade points (introduction bonus from the first chess rating on record,
    plus tournament points from every finished chess game in an event, by the category
    of the section's average start rating) and the grade they reach. JCCA grades are
    chess grades, so other kinds' games and ratings do not count."""
    first = session.scalar(
        select(RatingChange.before).join(Game, Game.id == RatingChange.game_id)
        .where(RatingChange.member_id == member.id, Game.kind == "chess")
        .order_by(RatingChange.at, RatingChange.id).limit(1))
    row = rating_row(session, member.id, "chess")
    intro = first if first is not None else (row.rating if row is not None else None)
    tournament = 0
    mine = ((Game.side0_id == member.id) | (Game.side1_id == member.id)) & (Game.kind == "chess")
    events = {e for e in session.scalars(select(Game.event).where(mine)) if e}
    for event in sorted(events):
        games = session.scalars(select(Game).where(Game.event == event,
                                                   Game.kind == "chess")).all()
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
