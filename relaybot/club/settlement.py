"""What the club's books do by themselves (issue 30, seed 000), once each, as the digest
settles them weekly: the ladders, the prizes and the awards.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy.orm import Session

from relaybot.club.ladders import settle_ladders
from relaybot.club.prizes import settle_awards, settle_prizes


def settle(session: Session, now: datetime, today: date) -> list[str]:
    """Everything the books do by themselves, once each: the ladders after finished
    challenges, the prizes of finished preliminary groups, the award of each year ended.
    Returns a line for each."""
    return (settle_ladders(session, now) + settle_prizes(session, now)
            + settle_awards(session, now, today))
