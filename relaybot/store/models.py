"""SQLAlchemy 2.0 tables. The Alembic migrations in migrations/ create the same schema.

Times are stored as timezone-aware UTC (``DateTime(timezone=True)``); SQLite
keeps them naive, so ``UtcDateTime`` puts the zone back on the way out.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    case,
)
from sqlalchemy import false as sa_false
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.sql.elements import ColumnElement

from relaybot.core.names import PersonName, split_name


class UtcDateTime(TypeDecorator[datetime]):
    """A DateTime that is always timezone-aware UTC in Python."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class Member(Base):
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


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), default="chess")
    event: Mapped[str | None] = mapped_column(String(200), nullable=True)
    round: Mapped[str] = mapped_column(String(40), default="-")
    # The two sides as the game names them (side 0: White in chess, 先手 in shogi, Black in
    # go); which side moves first is the game's to say (White in a handicap go game).
    side0_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    side1_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    time_control: Mapped[str] = mapped_column(String(40), default="10/30")
    conditionals: Mapped[str] = mapped_column(String(16), default="binding")
    notation: Mapped[str | None] = mapped_column(String(16), nullable=True)
    start_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16), default="active")
    result: Mapped[str | None] = mapped_column(String(16), nullable=True)
    termination: Mapped[str | None] = mapped_column(String(40), nullable=True)
    end_date: Mapped[date | None] = mapped_column(Date, nullable=True)
    # Canonical plies (UCI for chess), space separated, and the position after them:
    # the J1 check compares against per-ply keys and replays only what is new.
    plies: Mapped[str] = mapped_column(Text, default="")
    ply_count: Mapped[int] = mapped_column(Integer, default=0)
    position: Mapped[str] = mapped_column(Text)
    draw_offer_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    side0_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    side1_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_out_message_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # J7: days of grace after receipt (1 JCCA/ICCF, 2 shogi league); J12: leave allowed
    grace: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    leave_allowed: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # G10: the next moment something may fall due for this game (reminder, escalation,
    # a bank running out, J14); the sweep reads only rows with due_at <= now via its index
    due_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True, index=True)
    # J16: the accepted proposals now binding the other side (UCI lines) and their author
    proposals: Mapped[list[list[str]]] = mapped_column(JSON, default=list)
    proposals_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # J17: "A", "B", ... among the games of the same two players, for one mail with sections
    label: Mapped[str | None] = mapped_column(String(8), nullable=True)
    # J9: on an overrun, "report" to the TD for confirmation or "forfeit" at once
    overrun: Mapped[str] = mapped_column(String(8), default="report", server_default="report")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Move(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply", name="uq_moves_game_ply"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    ply: Mapped[int] = mapped_column(Integer)  # 0-based
    # the ply in the game's canonical form (UCI for chess) and as the game displays it
    canon: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(String(64))
    keys: Mapped[str] = mapped_column(Text)  # comparison keys, space separated
    sent_at: Mapped[datetime] = mapped_column(UtcDateTime())  # arrival (INTERNALDATE)
    auto: Mapped[int] = mapped_column(Integer, default=0)  # 1: played by the bot (J16)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id"), nullable=True)
    # set instead of inbound_id while the mail's own row is not written yet: both rows
    # then go out in the mail's one flush, the inbound row with its final outcome
    inbound: Mapped[Inbound | None] = relationship(lazy="raise")


class GameEvent(Base):
    """The game's ledger: penalties, errors, offers, results (J5, J15)."""

    __tablename__ = "game_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    kind: Mapped[str] = mapped_column(String(40))
    colour: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ply: Mapped[int | None] = mapped_column(Integer, nullable=True)
    days: Mapped[int] = mapped_column(Integer, default=0)
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Inbound(Base):
    """Every mail taken from IMAP, raw (J19), and the idempotency ledger (G2)."""

    __tablename__ = "inbound"
    __table_args__ = (
        UniqueConstraint("folder", "uidvalidity", "uid", name="uq_inbound_uid"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(512), unique=True)
    folder: Mapped[str] = mapped_column(String(255))
    # IMAP's are unsigned 32-bit: over a signed INTEGER's range (0024)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    uid: Mapped[int] = mapped_column(BigInteger)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime())
    from_addr: Mapped[str | None] = mapped_column(String(320), nullable=True)
    subject: Mapped[str] = mapped_column(Text, default="")
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    outcome: Mapped[str] = mapped_column(String(40))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime())


class InboundClaim(Base):
    """The ingest ledger's claim (G2, G9): one row per IMAP message handled, inserted
    with ``ON CONFLICT DO NOTHING`` in the same transaction as the mail's effects. On
    PostgreSQL a second instance's claim waits for the first one's transaction and then
    fails cleanly, so that instance skips the mail; a mail whose processing raised gives
    its claim back (deleted in the same transaction) and is tried again (G3)."""

    __tablename__ = "inbound_claims"

    mailbox: Mapped[str] = mapped_column(String(320), primary_key=True)
    folder: Mapped[str] = mapped_column(String(255), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    uid: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    claimed_at: Mapped[datetime] = mapped_column(UtcDateTime())  # the wall clock, not --now


class InboundFailure(Base):
    """Failed attempts per IMAP message, committed apart from the rolled-back work (G3)."""

    __tablename__ = "inbound_failures"
    __table_args__ = (
        UniqueConstraint("folder", "uidvalidity", "uid", name="uq_failure_uid"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    folder: Mapped[str] = mapped_column(String(255))
    uidvalidity: Mapped[int] = mapped_column(BigInteger)
    uid: Mapped[int] = mapped_column(BigInteger)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    quarantined: Mapped[int] = mapped_column(Integer, default=0)


class Outbox(Base):
    """Transactional outbox (G4): written with the state change, sent afterwards."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    dedupe_key: Mapped[str | None] = mapped_column(String(255), unique=True, nullable=True)
    kind: Mapped[str] = mapped_column(String(40))
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    recipient: Mapped[str] = mapped_column(String(320))
    # the VERP envelope sender (G6): a delivery report is matched to its row by it
    envelope_from: Mapped[str] = mapped_column(String(320), index=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class ReplyCount(Base):
    """Mail to one address on one day, counted against the caps (G7, issue 12 item 8):
    ``count`` error replies, ``replies`` every reply caused by that address's own mail,
    ``alerts`` the TD's alerts (those over the cap go into one summary mail), ``unproven``
    mail caused by mail that proved no sender (issue 22 item 6; the whole club's under
    the address ``(unproven)``)."""

    __tablename__ = "reply_counts"
    __table_args__ = (UniqueConstraint("address", "day", name="uq_reply_counts"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(320))
    day: Mapped[date] = mapped_column(Date)
    count: Mapped[int] = mapped_column(Integer, default=0)
    replies: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    alerts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    unproven: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Lock(Base):
    """One holder per role (G9); ``heartbeat`` lets a new holder notice a dead one."""

    __tablename__ = "locks"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(255))
    heartbeat: Mapped[datetime] = mapped_column(UtcDateTime())


class ImapState(Base):
    __tablename__ = "imap_state"

    folder: Mapped[str] = mapped_column(String(255), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(BigInteger)


class Leave(Base):
    """A player's leave (J12): inclusive days in the player's own zone."""

    __tablename__ = "leaves"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    first: Mapped[date] = mapped_column(Date)
    last: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))  # active | pending (TD approval) | refused
    extra_days: Mapped[int] = mapped_column(Integer, default=0)
    announced_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Question(Base):
    """A question to the TD (J13): the game's clocks stop from asked_at to answered_at."""

    __tablename__ = "questions"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    colour: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    asked_at: Mapped[datetime] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    answer: Mapped[str] = mapped_column(Text, default="")


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
    __tablename__ = "event_players"
    __table_args__ = (UniqueConstraint("event_id", "member_id", name="uq_event_player"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    seat: Mapped[int] = mapped_column(Integer)
    # T3 (seed 002 rule 18): the starting order (順位) of a season's class; first-timers
    # share one. None: the seat is the starting order
    start_order: Mapped[int | None] = mapped_column(Integer, nullable=True)


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


class Announcement(Base):
    """A TD announcement for the weekly digest (D1)."""

    __tablename__ = "announcements"

    id: Mapped[int] = mapped_column(primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class MailGame(Base):
    """A mail about more games than its own ``game_id`` names (J19: every mail about a
    game is in its export): a mail with several sections (J17), a leave notice (all of a
    member's games), a TD's command mail."""

    __tablename__ = "mail_games"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id"), nullable=True)
    outbox_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id"), nullable=True)
    # set instead of the ids while the mail's own row is not written yet (as Move does)
    inbound: Mapped[Inbound | None] = relationship(lazy="raise")
    outbox: Mapped[Outbox | None] = relationship(lazy="raise")


class MemberAddress(Base):
    """Another address a member writes from (seed 000 allows moves from a phone's mail
    address): ``member set ADDR --add-address OTHER``. Mail to the member still goes to
    ``Member.email``; mail from any registered address is the member's."""

    __tablename__ = "member_addresses"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    address: Mapped[str] = mapped_column(String(320), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Hold(Base):
    """A mail from a registered address that did not prove its sender (INTERFACE.md "Who
    may act"): kept until the address confirms it (it then acts as of its arrival), the
    sender cancels it, a later authenticated mail for the same game supersedes it, or it
    lapses after seven days. ``token`` is the ``c.`` token of the confirmation request,
    kept to find the hold by (the token itself proves nothing without its recipient)."""

    __tablename__ = "holds"

    id: Mapped[int] = mapped_column(primary_key=True)
    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound.id"))
    # the member who must confirm, or none for a TD's mail (then ``td`` is the address)
    member_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True,
                                                  index=True)
    td: Mapped[str | None] = mapped_column(String(320), nullable=True)
    address: Mapped[str] = mapped_column(String(320))  # where the request was sent
    game_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # every game the held mail's reading names, space-separated (issue 22): an
    # authenticated mail about any of them makes the hold lapse
    games: Mapped[str] = mapped_column(Text, default="", server_default="")
    # a reply that said neither confirm nor cancel was answered once; never again
    asked_again: Mapped[bool] = mapped_column(Boolean, default=False,
                                              server_default=sa_false())
    token: Mapped[str | None] = mapped_column(String(16), nullable=True, index=True)
    # held | confirmed | cancelled | superseded | lapsed
    status: Mapped[str] = mapped_column(String(12), default="held", index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    inbound: Mapped[Inbound] = relationship(lazy="raise")


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


class Membership(Base):
    """A member's place in the club's books (issue 30, seed 000 入会案内): ``kind``
    regular, family (valid as long as ``family_of``'s membership) or junior (by the
    member's ``Member.born``); ``paid_until`` the last day paid for; ``lapsed_told``
    the expiry the TD was told had lapsed (once); ``left_on`` the day the member left
    (pawns forfeited). A member without a row is outside the books (no fee, no
    expiry)."""

    __tablename__ = "memberships"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(12), default="regular")
    family_of_id: Mapped[int | None] = mapped_column(ForeignKey("members.id"), nullable=True)
    paid_until: Mapped[date | None] = mapped_column(Date, nullable=True)
    lapsed_told: Mapped[date | None] = mapped_column(Date, nullable=True)
    left_on: Mapped[date | None] = mapped_column(Date, nullable=True)


class PawnEntry(Base):
    """One movement of a member's pawn deposit (seed 000 JCCAデポジット制度): ``pawns``
    in (positive) or out (negative), the ``yen`` it stands for, its reason; ``ref`` keys
    the movements the bot makes itself (a prize, an entry fee), never twice."""

    __tablename__ = "pawn_entries"
    __table_args__ = (UniqueConstraint("member_id", "ref", name="uq_pawn_ref"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    pawns: Mapped[int] = mapped_column(Integer)
    yen: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(16))  # deposit|payment|fee|entry|prize|forfeit
    reason: Mapped[str] = mapped_column(Text, default="")
    ref: Mapped[str | None] = mapped_column(String(120), nullable=True)


class FeePayment(Base):
    """A fee paid (seed 000): a year's membership or an event's entry fee, in yen or from
    pawns (``pawns`` > 0)."""

    __tablename__ = "fee_payments"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
    what: Mapped[str] = mapped_column(String(12))  # membership | entry
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id"), nullable=True)
    yen: Mapped[int] = mapped_column(Integer, default=0)
    pawns: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class EventFee(Base):
    """An event's entry fee in yen (``event new --fee``); juniors pay half."""

    __tablename__ = "event_fees"

    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), primary_key=True)
    yen: Mapped[int] = mapped_column(Integer)


class Tutorial(Base):
    """A tutorial game (seed 000 チュートリアル・ゲーム): unrated, in no standings, ended by
    the tutor."""

    __tablename__ = "tutorials"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    tutor_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    student_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)


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


class ClubAward(Base):
    """A prize or the annual most-games award given (``what`` prize|award; ``ref`` the
    preliminary event's name or the award year), announced in the next digest."""

    __tablename__ = "club_awards"
    __table_args__ = (UniqueConstraint("what", "ref", "member_id", name="uq_club_award"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    what: Mapped[str] = mapped_column(String(8))
    ref: Mapped[str] = mapped_column(String(200))
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    pawns: Mapped[int] = mapped_column(Integer, default=0)
    games: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class ClubSetting(Base):
    """A figure of the club's books changed from seed 000's default (``club settings``)."""

    __tablename__ = "club_settings"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(80))


class KeyRotation(Base):
    """When relaybot first ran with a ``[bot] secret_previous`` (INTERFACE: the old key's
    tokens stay valid for 30 days). The key itself is never stored: its SHA-256."""

    __tablename__ = "key_rotations"

    fingerprint: Mapped[str] = mapped_column(String(64), primary_key=True)
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime())
