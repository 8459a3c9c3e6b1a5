"""Games and what happens in them: moves, the game's event log, leave, questions to
the TD, holds waiting for a member's confirmation, the mails about several games, and
tutorial games."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from relaybot.store.models.base import Base, UtcDateTime

if TYPE_CHECKING:
    from relaybot.store.models.mail import Inbound, Outbox


class Game(Base):
    """One game between two members: its kind, event, clocks, position and result."""

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
    """One ply of a game as stored: canonical and as shown, and when its mail arrived."""

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


class Tutorial(Base):
    """A tutorial game (seed 000 チュートリアル・ゲーム): unrated, in no standings, ended by
    the tutor."""

    __tablename__ = "tutorials"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    tutor_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    student_id: Mapped[int] = mapped_column(ForeignKey("members.id"), index=True)
