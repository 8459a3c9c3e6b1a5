"""Issue 30: the club's books as seed 000 keeps them, pure (relaybot.core.books_rules).
Each test quotes the seed's line it checks."""

from __future__ import annotations

from datetime import date

import pytest

from relaybot.core.books_rules import (
    ClubRules,
    LadderError,
    award_period,
    challenge_allowed,
    entry_fee,
    expiry_notice,
    junior_deadline,
    ladder_after,
    membership_fee,
    most_games,
    pawns_for_fee,
    prize_shares,
    renewed_until,
    top_scorers,
    yen_to_pawns,
)

SEED = ClubRules()


def test_members_kinds_and_fees() -> None:
    """年会費 (有効期間1年間) 3,000円 / 家族会費 1,500円 / ジュニア会員 (有効期間1年間)
    1,000円; ジュニア会員は18歳の年度末までに入会・継続した1年を最終年度とします."""
    assert [membership_fee(k, SEED) for k in ("regular", "family", "junior")] == [
        3000, 1500, 1000]
    with pytest.raises(ValueError):
        membership_fee("honorary", SEED)
    # one year from the day paid; a renewal before the expiry adds a year to it
    assert renewed_until(None, date(2007, 4, 10)) == date(2008, 4, 9)
    assert renewed_until(date(2008, 4, 9), date(2008, 3, 1)) == date(2009, 4, 9)
    assert renewed_until(date(2008, 4, 9), date(2008, 6, 1)) == date(2009, 5, 31)
    # born 1990: 18 from April 2008, the fiscal year ends on 31 March 2009
    assert junior_deadline(1990, SEED) == date(2009, 3, 31)
    # a club may change every figure
    assert ClubRules().with_values({"fee_regular": "3500"}).fee("regular") == 3500


def test_members_expiry_warned_a_month_ahead_and_at_expiry() -> None:
    """会費切れにご注意 ... 会費切れとなった場合は通知なくニュースレターの発送を停止しています."""
    until = date(2008, 3, 31)
    assert expiry_notice(until, date(2008, 2, 1), SEED) is None
    assert expiry_notice(until, date(2008, 3, 5), SEED) == "soon"
    assert expiry_notice(until, date(2008, 4, 3), SEED) == "expired"
    assert expiry_notice(until, date(2008, 4, 20), SEED) == "lapsed"
    assert expiry_notice(None, date(2008, 4, 20), SEED) is None


def test_pawn_deposit_one_pawn_is_100_yen_fractions_dropped() -> None:
    """名称と換算為替: 1 pawn=100円(端数が生じた場合は切り捨て); 年会費の払込の際に5000円
    送金して、3000円を年会費に充てた残余の2000円を20 pawnとしてデポジットする。"""
    assert yen_to_pawns(2000, SEED) == 20
    assert yen_to_pawns(2050, SEED) == 20
    assert yen_to_pawns(5000 - SEED.fee("regular"), SEED) == 20
    # 2-game match に参加する際の参加料200円の支払に2 pawnを使用する
    assert pawns_for_fee(200, SEED) == 2


def test_entry_fees_juniors_pay_half() -> None:
    """予選Tは...参加料は1組600円、ジュニア参加料は1組300円;
    ジュニア会員のトーナメント参加料は一般会員の半額とします。"""
    assert entry_fee(600, "regular", SEED) == 600
    assert entry_fee(600, "junior", SEED) == 300
    assert entry_fee(600, None, SEED) == 600


def test_prizes_six_pawns_sole_three_each_two_two_each_three() -> None:
    """単独優勝者には6 pawn、同率首位2名の場合は3 pawn ずつ、3名の場合は2 pawn ずつ。"""
    assert [prize_shares(n, SEED) for n in (1, 2, 3)] == [6, 3, 2]
    assert top_scorers({"a": 4.5, "b": 4.5, "c": 1.0, "d": 2.0}) == ["a", "b"]


def test_annual_most_games_award_april_to_march() -> None:
    """2007年1月以降開始のトーナメントより、(2年目からは毎年4月から)翌年3月までの1年間に
    終局したゲーム数が最も多かった方を「年間最多対局賞」として表彰します。"""
    assert award_period(2006, SEED) is None
    assert award_period(2007, SEED) == (date(2007, 1, 1), date(2008, 3, 31))
    assert award_period(2008, SEED) == (date(2008, 4, 1), date(2009, 3, 31))
    assert most_games({"a": 7, "b": 9, "c": 9}) == (["b", "c"], 9)
    assert most_games({}) == ([], 0)


def test_ladder_winner_takes_the_higher_place() -> None:
    """<梯子段 1-game match> ... 挑戦する上位者を指名して申込みください。"""
    order = ["a", "b", "c", "d"]
    challenge_allowed(order, "d", "b")
    with pytest.raises(LadderError):
        challenge_allowed(order, "b", "d")  # a lower player is not challenged
    assert ladder_after(order, "d", "b", "d") == ["a", "d", "b", "c"]
    assert ladder_after(order, "d", "b", "b") == order
    assert ladder_after(order, "d", "b", None) == order
    assert ladder_after(order, "e", "c", "e") == ["a", "b", "e", "c", "d"]  # a newcomer


def test_ladder_two_game_match_rating_wish() -> None:
    """対戦相手のレイティングに希望がある場合は〔≦1800 (1800以下の方)〕〔≧1500
    (1500以上の方)〕 (言葉でもOK)などと明記して申込みください。"""
    from relaybot.core.books_rules import fits, parse_wish

    assert parse_wish("≦1800") == (None, 1800)
    assert parse_wish("〔≧1500〕") == (1500, None)
    assert parse_wish("1800以下") == (None, 1800)
    assert parse_wish("at least 1500, at most 1800") == (1500, 1800)
    assert parse_wish("") == (None, None)
    assert fits(1700, parse_wish("≧1500、≦1800")) and not fits(1850, parse_wish("≦1800"))
    with pytest.raises(ValueError):
        parse_wish("strong")


def test_members_junior_last_year_begins_by_the_deadline() -> None:
    """ジュニア会員は18歳の年度末までに入会・継続した1年を最終年度とします: the last junior
    year is the one that began by the 31 March of the fiscal year they are 18."""
    from relaybot.core.books_rules import junior_until, year_begins_after

    deadline = junior_deadline(2007, SEED)
    assert deadline == date(2026, 3, 31)
    # a year begun by the deadline is kept whole; years after it never were
    assert junior_until(date(2026, 6, 30), 2007, SEED) == date(2026, 6, 30)
    assert junior_until(date(2027, 6, 30), 2007, SEED) == date(2026, 6, 30)
    assert junior_until(date(2030, 3, 31), 2007, SEED) == date(2026, 3, 31)
    assert junior_until(date(2025, 9, 30), 2007, SEED) == date(2025, 9, 30)
    # a renewal buys a year from the day after the expiry when paid ahead, else from the day
    assert not year_begins_after(date(2026, 3, 30), date(2026, 3, 1), deadline)
    assert year_begins_after(date(2026, 3, 31), date(2026, 3, 1), deadline)
    assert not year_begins_after(None, date(2026, 3, 31), deadline)
    assert year_begins_after(None, date(2026, 4, 1), deadline)
