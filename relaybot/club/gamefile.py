"""A game as the shells use it: the row, both players and the moves, loaded once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

from relaybot.core.game import first_mover
from relaybot.games import rules_for
from relaybot.games.base import GameRules
from relaybot.store.models import Event, Game, Member, Move, Season, SeasonClass

_MOVES = select(Move).where(Move.game_id == bindparam("game_id")).order_by(Move.ply)


@dataclass(frozen=True)
class EventFacts:
    """What a game's mail needs to know of its event, read in one query."""

    td: str | None = None  # the event's own TD (``event new --td``); None: ``[bot] td``
    kind: str | None = None  # "league", "cup", ...; None: no event
    season_end: date | None = None  # the last day of the event's season (seed 002 rule 12)


# the event with its season's end, if it is a class of one (one round trip, not three:
# every move mail needs all three facts, issue 29)
_FACTS = (select(Event.td, Event.kind, Season.end_date)
          .outerjoin(SeasonClass, SeasonClass.event_id == Event.id)
          .outerjoin(Season, Season.id == SeasonClass.season_id)
          .where(Event.name == bindparam("event")).limit(1))


def event_facts(session: Session, event: str | None) -> EventFacts:
    """The TD, kind and season end of the event named ``event`` (all None for none)."""
    if not event:
        return EventFacts()
    row = session.execute(_FACTS, {"event": event}).first()
    return EventFacts(*row) if row is not None else EventFacts()


def _players(session: Session, game: Game) -> tuple[Member, Member]:
    """Both players: from the session when it holds them, else in one query."""
    ids = (game.side0_id, game.side1_id)
    held = {i: session.identity_map.get(identity_key(Member, i)) for i in ids}
    missing = [i for i, m in held.items() if m is None]
    if missing:
        held.update({m.id: m for m in session.scalars(
            select(Member).where(Member.id.in_(missing)))})
    white, black = held[ids[0]], held[ids[1]]
    assert isinstance(white, Member) and isinstance(black, Member)
    return white, black


@dataclass
class Preloaded:
    """Many games' players and moves, loaded by :func:`preload` in two queries."""

    members: dict[int, Member]  # held here so the session's identity map keeps them
    moves: dict[str, list[Move]]


def preload(session: Session, games: list[Game]) -> Preloaded:
    """Load the players and moves of ``games`` at once, for a loop that then calls
    :meth:`GameFile.load` on each with ``moves=`` (the players come from the session's
    identity map): two queries per batch, not three per game (the sweep, issue 29)."""
    moves: dict[str, list[Move]] = {g.id: [] for g in games}
    if not games:
        return Preloaded({}, moves)  # nothing due: no query at all
    ids = {g.side0_id for g in games} | {g.side1_id for g in games}
    members = {m.id: m for m in session.scalars(select(Member).where(Member.id.in_(ids)))}
    if moves:
        for move in session.scalars(select(Move).where(Move.game_id.in_(list(moves)))
                                    .order_by(Move.game_id, Move.ply)):
            moves[move.game_id].append(move)
    return Preloaded(members, moves)


@dataclass
class GameFile:
    """A game with its players and moves loaded once."""

    game: Game
    white: Member
    black: Member
    moves: list[Move]
    rules: GameRules
    books: Any = None  # relaybot.core.clocks.Books, set by the service when it has them
    now: datetime | None = None
    penalties: list[Any] = field(default_factory=list)
    pauses: list[Any] = field(default_factory=list)
    td: str | None = None  # the event's own TD (``event new --td``); None: ``[bot] td``
    event: EventFacts = field(default_factory=EventFacts)
    _first: int | None = field(default=None, repr=False)

    @classmethod
    def load(cls, session: Session, game: Game, moves: list[Move] | None = None) -> GameFile:
        """The game with its players and moves; ``moves``: already loaded (:func:`preload`)."""
        white, black = _players(session, game)
        if moves is None:
            moves = list(session.scalars(_MOVES, {"game_id": game.id}))
        facts = event_facts(session, game.event)
        return cls(game, white, black, moves, rules_for(game.kind), td=facts.td, event=facts)

    @property
    def first_mover(self) -> int:
        """The side that makes ply 0 (1 where the game starts with side 1: White in a
        handicap go game), from the game's start."""
        if self._first is None:
            self._first = first_mover(self.rules, self.game.position)
        return self._first

    @property
    def plies(self) -> list[str]:
        return self.game.plies.split() if self.game.plies else []

    @property
    def players(self) -> tuple[Member, Member]:
        """Side 0 and side 1 (White and Black in chess)."""
        return self.white, self.black

    def player(self, colour: int) -> Member:
        return self.white if colour == 0 else self.black

    def colour_of(self, member_id: int) -> int | None:
        if member_id == self.white.id:
            return 0
        if member_id == self.black.id:
            return 1
        return None

    def notation_for(self, member: Member) -> tuple[str, str]:
        """(notation, letters) a member reads: the game's notation wins (J3)."""
        return (self.game.notation or member.notation, member.letters)
