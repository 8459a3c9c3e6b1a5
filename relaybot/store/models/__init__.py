"""SQLAlchemy 2 tables, one module per part of the club. The Alembic migrations in
migrations/ create the same schema.

Times are stored as timezone-aware UTC (``DateTime(timezone=True)``); SQLite
keeps them naive, so ``UtcDateTime`` puts the zone back on the way out."""

from relaybot.store.models.base import Base, UtcDateTime
from relaybot.store.models.books import (
    ClubAward,
    ClubSetting,
    EventFee,
    FeePayment,
    Membership,
    PawnEntry,
)
from relaybot.store.models.events import (
    Announcement,
    Event,
    EventPlayer,
    LadderChallenge,
    LadderRung,
    Season,
    SeasonClass,
    SeasonPlayer,
)
from relaybot.store.models.games import (
    Game,
    GameEvent,
    Hold,
    Leave,
    MailGame,
    Move,
    Question,
    Tutorial,
)
from relaybot.store.models.mail import (
    ImapState,
    Inbound,
    InboundClaim,
    InboundFailure,
    KeyRotation,
    Lock,
    Outbox,
    ReplyCount,
)
from relaybot.store.models.members import (
    Member,
    MemberAddress,
    MemberRating,
    MemberTitle,
    RatingChange,
)

__all__ = ["Announcement", "Base", "ClubAward", "ClubSetting", "Event", "EventFee",
           "EventPlayer", "FeePayment", "Game", "GameEvent", "Hold", "ImapState", "Inbound",
           "InboundClaim", "InboundFailure", "KeyRotation", "LadderChallenge", "LadderRung",
           "Leave", "Lock", "MailGame", "Member", "MemberAddress", "MemberRating",
           "MemberTitle", "Membership", "Move", "Outbox", "PawnEntry", "Question",
           "RatingChange", "ReplyCount", "Season", "SeasonClass", "SeasonPlayer", "Tutorial",
           "UtcDateTime"]
