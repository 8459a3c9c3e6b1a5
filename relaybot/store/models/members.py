"""Members: who they are, their ratings and titles, their other addresses, and
the ledger of rating changes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    case,
)
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.elements import ColumnElement

from relaybot.core.names import PersonName, split_name
from relaybot.store.models.base import Base, UtcDateTime


class Member(Base):
    """A club member: name, address, language and time zone, how they write moves,
    their rating and their digest."""

    __tablename__ = "members"

    id: Mapped[int] = mapped_column(primary_key=True)
    # issue 26: the name in parts, each language writing it its own way (core.names);
    # ``given`` is "" for a name registered without a comma, ``name_ja`` "" when none
    family: Mapped[str] = mapped_column(String(200), server_default="")
    given: Mapped[str] = mapped_column(String(200), default="", server_default="")
    name_ja: Mapped[str] = mapped_column(String(200), default="", server_default="")
    email: Mapped[str] = mapped_column(String(320), unique=True)
    lang: Mapped[str] = mapped_column(String(8))
    tz: Mapped[str] = mapped_column(String(64))
    notation: Mapped[str] = mapped_column(String(16), default="san")
    letters: Mapped[str] = mapped_column(String(8), default="en")
    # D1: weekly | off; the ISO week ("2026-W47") of the last digest queued
    digest: Mapped[str] = mapped_column(String(8), default="weekly", server_default="weekly")
    last_digest_week: Mapped[str | None] = mapped_column(String(10), nullable=True, index=True)
    bounces: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # G6
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # the year of birth (optional), the one the club keeps: seed 004 section 6, the
    # salon's secretaries skip members of 70 or more unless they ask to serve; seed 000,
    # a junior member is one until the fiscal year they are 18 (0022 merged the books'
    # copy into this one)
    born: Mapped[int | None] = mapped_column(Integer, nullable=True)
    serves: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    @hybrid_property
    def name(self) -> PersonName:
        """The member's name: a :class:`PersonName` (its text is "Family, Given", the
        form ``member add --name`` takes and PGN writes), so every place that shows it
        can write it as its reader does."""
        # a member who reads English is written in their own order in Japanese text too
        parts = (self.family, self.given or "", self.name_ja or "", self.lang != "en")
        # made once per instance while its parts stay the same: a mail asks for a
        # player's name dozens of times (its contexts, headers and pictures, issue 29)
        kept = self.__dict__.get("_person_name")
        if kept is not None and kept[0] == parts:
            return kept[1]  # type: ignore[no-any-return]
        name = PersonName(*parts[:3], eastern=parts[3])
        self.__dict__["_person_name"] = (parts, name)
        return name

    @name.inplace.setter
    def _name_setter(self, value: str) -> None:
        # "Family, Given" (or a PersonName): the parts; the Japanese-script name stays
        # unless the value brings one
        if isinstance(value, PersonName):
            self.family, self.given = value.family, value.given
            if value.ja:
                self.name_ja = value.ja
            return
        self.family, self.given = split_name(value)

    @name.inplace.expression
    @classmethod
    def _name_expression(cls) -> ColumnElement[str]:
        # the same text in SQL, for ORDER BY and for selecting names alone
        return case((cls.given == "", cls.family),
                    else_=cls.family + ", " + cls.given)


class MemberRating(Base):
    """A member's rating in one game kind (R1, R2; R4 for go, where it is the salon's points).

    No row for a kind means unrated in it: the rating code then starts from the kind's
    default (1200 provisional for chess and shogi, R1; 0 points for go, R4).
    """

    __tablename__ = "member_ratings"
    __table_args__ = (UniqueConstraint("member_id", "kind", name="uq_member_rating"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    kind: Mapped[str] = mapped_column(String(16))  # Game.kind: chess | shogi | go
    rating: Mapped[int] = mapped_column(Integer)
    # R2: provisional until 20 rated games (a TD-set value may start official); the
    # first 12 games' opponents, wins and losses give Rb
    provisional: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    rated_games: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    rb_opponents: Mapped[list[int]] = mapped_column(JSON, default=list)
    rb_wins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    rb_losses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # R3: the rating the introduction bonus was given for, once (seed 000: 導入時および
    # 本レイティング認定時): an official rating at introduction, or the rating when it
    # became official after 20 games; None while not yet given
    bonus_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # go (seed 004 section 2): the rank reached (``1d``; None: the rank the points give),
    # which moves only through the win-rate gates; the jigo among the counted games; and
    # whether the TD was told the member reached 10 counted games on provisional points
    rank: Mapped[str | None] = mapped_column(String(8), nullable=True)
    draws: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    told_td: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class MemberTitle(Base):
    """A title a member holds (R3, seed 000 称号点数): ``japan_champion`` (one row per time
    won), ``IM``, ``SIM``, ``GM``."""

    __tablename__ = "member_titles"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    title: Mapped[str] = mapped_column(String(32))
    # T1/R3: the final won (seed 000: 決勝優勝者は「…日本チャンピオン」を称します); None
    # for a title the operator entered
    event: Mapped[str | None] = mapped_column(String(200), nullable=True)


class MemberAddress(Base):
    """Another address a member writes from (seed 000 allows moves from a phone's mail
    address): ``member set ADDR --add-address OTHER``. Mail to the member still goes to
    ``Member.email``; mail from any registered address is the member's."""

    __tablename__ = "member_addresses"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    address: Mapped[str] = mapped_column(String(320), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class RatingChange(Base):
    """One rating change per player per game, never two (R1)."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "member_id", name="uq_rating_change"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    before: Mapped[int] = mapped_column(Integer)
    after: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    # the player's whole rating state around the game (rating, games, provisional, Rb
    # record, bonus rating), so a corrected result can replay the games after it (R2)
    state_before: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    state_after: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
