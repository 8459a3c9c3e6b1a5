"""The club's books as seed 000 keeps them (issue 30): membership kinds and expiry, the
pawn deposit, entry fees, the preliminary prize, the annual most-games award and the
ladder (梯子段). Pure: the standard library only. Every figure is a :class:`ClubRules`
setting whose default is the seed's; a club changes it with ``relaybot club settings``.
"""

from relaybot.core.books_rules.ladder import LadderError, challenge_allowed, ladder_after
from relaybot.core.books_rules.membership import (
    MEMBER_KINDS,
    ClubRules,
    add_years,
    expiry_notice,
    junior_deadline,
    junior_until,
    membership_fee,
    renewed_until,
    year_begins_after,
)
from relaybot.core.books_rules.money import (
    award_period,
    award_year_of,
    entry_fee,
    most_games,
    pawns_for_fee,
    prize_shares,
    top_scorers,
    yen_to_pawns,
)
from relaybot.core.books_rules.wish import fits, parse_wish

__all__ = [
    "MEMBER_KINDS",
    "ClubRules",
    "LadderError",
    "add_years",
    "award_period",
    "award_year_of",
    "challenge_allowed",
    "entry_fee",
    "expiry_notice",
    "fits",
    "junior_deadline",
    "junior_until",
    "ladder_after",
    "membership_fee",
    "most_games",
    "parse_wish",
    "pawns_for_fee",
    "prize_shares",
    "renewed_until",
    "top_scorers",
    "year_begins_after",
    "yen_to_pawns",
]
