"""Membership kinds, fees and expiry (seed 000 入会案内, 会費切れにご注意)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, timedelta

MEMBER_KINDS = ("regular", "family", "junior")
"""正会員 (年会費), 家族会員 (本会員と同居の家族), ジュニア会員."""


@dataclass(frozen=True)
class ClubRules:
    """Every figure of the club's books; the defaults are seed 000's (2007)."""

    fee_regular: int = 3000  # 年会費 (有効期間1年間) 3,000円
    fee_family: int = 1500  # 家族会費 1,500円, valid as long as the regular member's
    fee_junior: int = 1000  # ジュニア会員 1,000円
    junior_age: int = 18  # 18歳の年度末までに入会・継続した1年を最終年度とします
    fiscal_month: int = 4  # the club's year starts in April (年度)
    warn_days: int = 31  # the digest warns a month ahead of the expiry
    notice_days: int = 7  # and once more in the week after it; later: lapsed, no digest
    pawn_yen: int = 100  # 1 pawn=100円(端数が生じた場合は切り捨て)
    junior_entry_percent: int = 50  # ジュニア会員のトーナメント参加料は一般会員の半額
    prize_pawns: int = 6  # 予選トーナメントに6 pawnのプライズ
    prize_from: date = date(2007, 1, 1)  # 2007年1月以降開始の予選トーナメント
    award_from: date = date(2007, 1, 1)  # 年間最多対局賞: 2007年1月以降開始のトーナメントより
    tutorials_by_email: int = 1  # 郵便戦とEメール戦の各1回ずつ申込みできます

    def fee(self, kind: str) -> int:
        """The yearly fee of a membership kind."""
        return membership_fee(kind, self)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names a club may set (``relaybot club settings --set NAME=VALUE``)."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def with_values(self, values: dict[str, str]) -> ClubRules:
        """These rules with settings given as text (dates ISO, the rest whole numbers);
        ValueError naming the setting on a bad one."""
        changed: dict[str, object] = {}
        for name, text in values.items():
            if name not in self.field_names():
                raise ValueError(f"unknown setting {name!r} ({', '.join(self.field_names())})")
            current = getattr(self, name)
            try:
                value: object = (date.fromisoformat(text) if isinstance(current, date)
                                 else int(text))
            except ValueError:
                wanted = ("a date YYYY-MM-DD" if isinstance(current, date)
                          else "a whole number")
                raise ValueError(f"setting {name}: {text!r} is not {wanted}") from None
            if isinstance(value, int) and value < 0:
                raise ValueError(f"setting {name}: {value} is negative")
            changed[name] = value
        return dataclasses.replace(self, **changed)  # type: ignore[arg-type]


def membership_fee(kind: str, rules: ClubRules) -> int:
    """The yearly fee in yen of ``kind`` (regular, family, junior)."""
    if kind not in MEMBER_KINDS:
        raise ValueError(f"a membership kind is one of {', '.join(MEMBER_KINDS)}, not {kind!r}")
    return {"regular": rules.fee_regular, "family": rules.fee_family,
            "junior": rules.fee_junior}[kind]


def add_years(day: date, years: int) -> date:
    """``day`` that many years later (29 February becomes 28 February)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def renewed_until(paid_until: date | None, on: date) -> date:
    """The last valid day after paying one year's fee on ``on`` (有効期間1年間): a
    renewal before the expiry adds a year to it; after a lapse, or a first payment, the
    year runs from the day paid."""
    if paid_until is None or paid_until < on:
        return add_years(on, 1) - timedelta(days=1)
    return add_years(paid_until, 1)


def junior_deadline(born: int, rules: ClubRules) -> date:
    """The last day a junior may join or renew as one: the end (31 March) of the fiscal
    year in which they are 18 (18歳の年度末). With only the year of birth known, the
    member is taken to turn 18 from April of ``born + 18``, so that fiscal year ends on
    31 March of ``born + 19``."""
    return date(born + rules.junior_age + 1, rules.fiscal_month, 1) - timedelta(days=1)


def junior_until(paid_until: date, born: int, rules: ClubRules) -> date:
    """The last valid day of a junior membership paid until ``paid_until``: every paid
    year that began by the junior deadline counts, none that began after it
    (18歳の年度末までに入会・継続した1年を最終年度とします: the year joined or renewed by
    the end of the fiscal year they are 18 is the last). Years paid beyond it (an
    expiry set by hand, a renewal that ran ahead) end at the end of that last year."""
    deadline = junior_deadline(born, rules)
    end = paid_until
    # the year that ends on ``end`` began the day after ``add_years(end, -1)``
    while add_years(end, -1) >= deadline:
        end = add_years(end, -1)
    return end


def year_begins_after(paid_until: date | None, on: date, deadline: date) -> bool:
    """Whether the year a payment on ``on`` buys (from the day after ``paid_until`` when
    paid ahead, else from ``on``) begins after ``deadline``."""
    begins = on if paid_until is None or paid_until < on else paid_until + timedelta(days=1)
    return begins > deadline


def expiry_notice(paid_until: date | None, today: date, rules: ClubRules) -> str | None:
    """What the digest says of a membership today: ``soon`` within a month before the
    expiry, ``expired`` in the week after it, ``lapsed`` later (no digest: the seed stops
    the newsletter without notice), None otherwise or with no expiry known."""
    if paid_until is None:
        return None
    if today <= paid_until:
        return "soon" if (paid_until - today).days <= rules.warn_days else None
    return "expired" if (today - paid_until).days <= rules.notice_days else "lapsed"
