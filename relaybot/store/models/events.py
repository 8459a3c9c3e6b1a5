"""Events and seasons: an event's players, the digest's announcements, the shogi
league's seasons, classes and players, and the ladder."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    JSON,
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from relaybot.store.models.base import Base, UtcDateTime


class Event(Base):
    """A section, group, match or ladder challenge (T1, T2)."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    time_control: Mapped[str] = mapped_column(String(40), default="10/30")
    conditionals: Mapped[str] = mapped_column(String(16), default="binding")
    start_date: Mapped[date] = mapped_column(Date)
    tiebreaks: Mapped[str] = mapped_column(String(80), default="sb,solkoff,median,direct")
    td: Mapped[str | None] = mapped_column(String(320), nullable=True)
    # T1: a JCCA final (決勝T); a player's last final decides the ">= 50%" entry
    final: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class EventPlayer(Base):
    """A player of an event: their seat and, in a season's class, starting order."""

    __tablename__ = "event_players"
    __table_args__ = (UniqueConstraint("event_id", "member_id", name="uq_event_player"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    seat: Mapped[int] = mapped_column(Integer)
    # T3 (seed 002 rule 18): the starting order (順位) of a season's class; first-timers
    # share one. None: the seat is the starting order
    start_order: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Announcement(Base):
    """A TD announcement for the weekly digest (D1)."""

    __tablename__ = "announcements"

    id: Mapped[int] = mapped_column(primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class Season(Base):
    """A season of the shogi net league (T3, seed 002 rule 12): six months from
    ``start_date``, games from its 10th to ``end_date``; each class is an event."""

    __tablename__ = "seasons"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    game: Mapped[str] = mapped_column(String(16), default="shogi")
    number: Mapped[int] = mapped_column(Integer, default=1)  # seasons in the chain
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    td: Mapped[str | None] = mapped_column(String(320), nullable=True)
    previous_id: Mapped[int | None] = mapped_column(ForeignKey("seasons.id"), nullable=True)
    # rule 5: one third rounded half up, or down or up when the classes are uneven
    rounding: Mapped[str] = mapped_column(String(8), default="round", server_default="round")
    # rule 7: the first-timers' table, [[class, least points], ...]; None: the seed's
    first_timers: Mapped[list[list[object]] | None] = mapped_column(JSON, nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    # rule 19: the last month-end whose progress report was queued
    reported_to: Mapped[date | None] = mapped_column(Date, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class SeasonClass(Base):
    """One class of a season (S, A, B, ...), the event that plays it and its secretary
    (クラス幹事, seed 002 rule 20; None: the season's TD)."""

    __tablename__ = "season_classes"
    __table_args__ = (UniqueConstraint("season_id", "letter", name="uq_season_class"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id"), index=True)
    letter: Mapped[str] = mapped_column(String(4))
    position: Mapped[int] = mapped_column(Integer)  # 0 for S, then down
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    secretary: Mapped[str | None] = mapped_column(String(320), nullable=True)


class SeasonPlayer(Base):
    """A member in a season (T3, seed 002 rule 8): ``state`` ``playing``, ``rest`` (a
    rest declared after the games started: every game lost), ``withdrawn``, or
    ``resting`` (sitting the season out, ``letter`` the class kept); ``band`` where rule 8
    placed them (relegated, stays, promoted, returning, new, returning_long, or
    ``initial`` for a season made by hand)."""

    __tablename__ = "season_players"
    __table_args__ = (UniqueConstraint("season_id", "member_id", name="uq_season_player"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id"), index=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    letter: Mapped[str] = mapped_column(String(4))
    state: Mapped[str] = mapped_column(String(12), default="playing")
    band: Mapped[str] = mapped_column(String(16), default="initial")
    start_order: Mapped[int | None] = mapped_column(Integer, nullable=True)
    changed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class LadderRung(Base):
    """A member's place on the ladder of one game kind (梯子段), 1 the top."""

    __tablename__ = "ladder_rungs"
    __table_args__ = (UniqueConstraint("kind", "member_id", name="uq_ladder_rung"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    position: Mapped[int] = mapped_column(Integer)


class LadderChallenge(Base):
    """A ladder challenge's game; ``applied_at`` once its result moved the ladder."""

    __tablename__ = "ladder_challenges"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    challenger_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    defender_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    applied_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
