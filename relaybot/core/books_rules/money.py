"""Pawns, entry fees, the preliminary prize and the annual most-games award (seed 000
JCCAデポジット制度, トーナメント・プライズ, 年間最多対局賞)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta

from relaybot.core.books_rules.membership import ClubRules


def yen_to_pawns(yen: int, rules: ClubRules) -> int:
    """Pawns bought with ``yen``: 1 pawn=100円(端数が生じた場合は切り捨て)."""
    if yen < 0:
        raise ValueError("yen cannot be negative")
    return yen // rules.pawn_yen


def pawns_for_fee(yen: int, rules: ClubRules) -> int:
    """Pawns that pay a fee of ``yen``: a part of a pawn still costs a whole one (nothing
    is paid out, so the member never pays less than the fee)."""
    return -(-yen // rules.pawn_yen)


def entry_fee(fee: int, kind: str | None, rules: ClubRules) -> int:
    """An event's entry fee for a member of ``kind``: juniors pay half
    (ジュニア会員のトーナメント参加料は一般会員の半額), fractions of a yen dropped."""
    return fee * rules.junior_entry_percent // 100 if kind == "junior" else fee


def top_scorers(scores: Mapping[str, float]) -> list[str]:
    """The players sharing the top score, in the order given."""
    if not scores:
        return []
    best = max(scores.values())
    return [p for p, s in scores.items() if s == best]


def prize_shares(winners: int, rules: ClubRules) -> int:
    """Pawns for each of ``winners`` sharing first place: 単独優勝者には6 pawn、同率首位2名
    の場合は3 pawn ずつ、3名の場合は2 pawn ずつ; more share the pot, fractions dropped."""
    return rules.prize_pawns // winners if winners > 0 else 0


def award_year_of(day: date, rules: ClubRules) -> int:
    """The award year a day falls in, named by the year its April starts it."""
    return day.year if day.month >= rules.fiscal_month else day.year - 1


def award_period(year: int, rules: ClubRules) -> tuple[date, date] | None:
    """The days of award ``year`` (April to March): the first runs from ``award_from``
    (2007年1月以降開始のトーナメントより、(2年目からは毎年4月から)翌年3月までの1年間);
    None for a year before it."""
    begin = date(year, rules.fiscal_month, 1)
    end = date(year + 1, rules.fiscal_month, 1) - timedelta(days=1)
    first = award_year_of(rules.award_from, rules)
    if rules.award_from.month >= rules.fiscal_month:
        if year < first:
            return None
        return (max(begin, rules.award_from), end)
    # award_from in January-March: the first year is the next April's, begun early
    if year < first + 1:
        return None
    return (rules.award_from, end) if year == first + 1 else (begin, end)


def most_games(counts: Mapping[str, int]) -> tuple[list[str], int]:
    """Who finished the most games, all of them on a tie, and how many."""
    played = {p: n for p, n in counts.items() if n > 0}
    if not played:
        return [], 0
    best = max(played.values())
    return [p for p, n in played.items() if n == best], best
