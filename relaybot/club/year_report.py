"""``relaybot club report``: the club's year (April to March) in the books (issue 30,
seed 000): members by kind, expiries, fees and pawns moved, prizes, awards and games
played per event. For the TD's eyes: the web pages show none of it.

Every figure is the year's, not today's: the members counted are those whose membership
was valid on at least one day of the year (:func:`members_in_year`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, date, datetime, time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.book_settings import rules_of
from relaybot.club.memberships import membership_states, terms_of, valid_until
from relaybot.club.prizes import games_in_year
from relaybot.core.books_rules import award_year_of, most_games
from relaybot.store.models import (
    ClubAward,
    FeePayment,
    Game,
    Member,
    Membership,
    PawnEntry,
    Tutorial,
)

SECTIONS = {  # section -> (en, ja)
    "members": ("Members by kind (valid on some day of the year)",
                "会員の種別（年度中に一日でも有効だった会員）"),
    "expiry": ("Memberships running out this year", "今年度に期限の来る会員"),
    "fees": ("Fees received", "会費・参加料"),
    "pawns": ("Pawns moved", "pawn の移動"),
    "prize": ("Tournament prizes", "トーナメント・プライズ"),
    "award": ("Most games of the year", "年間最多対局賞"),
    "games": ("Games finished per event", "大会ごとの終局数"),
}
WORDS = {  # item -> ja
    "regular": "正会員", "family": "家族会員", "junior": "ジュニア会員",
    "membership": "年会費", "entry": "参加料", "deposit": "預け入れ", "payment": "支払い",
    "fee": "会費", "prize": "プライズ", "forfeit": "没収", "lapsed": "期限切れ",
    "(no event)": "（大会なし）", "so far": "集計中",
}


def _period(year: int) -> tuple[date, date]:
    return date(year, 4, 1), date(year + 1, 3, 31)


def members_in_year(session: Session, first: date, last: date) -> Counter[str]:
    """Members by kind whose membership covered some of the days ``first`` to ``last``
    (at least one day, not necessarily all): joined (``Member.created_at``) by ``last``,
    and valid (:func:`relaybot.club.memberships.term_of`: paid, a family member's regular
    member's, a junior's last year) until ``first`` or later. A member not paid yet counts when
    they joined by ``last`` and had not left before ``first``. The kind is the member's
    kind now (the books keep no history of kinds)."""
    rows = session.execute(select(Membership, Member.created_at).join(
        Member, Member.id == Membership.member_id)).all()
    terms = terms_of(session, [ms.member_id for ms, _joined in rows])
    kinds: Counter[str] = Counter()
    for ms, joined in rows:
        if joined.date() > last:
            continue
        term = terms[ms.member_id]
        if term.until is not None and term.until < first:
            continue
        kinds[ms.kind] += 1
    return kinds


def report_rows(session: Session, year: int | None, today: date, now: datetime
                ) -> list[tuple[str, str, str, str]]:
    """(section, item, value, note) rows of the year from April ``year`` (default: the
    year ``today`` is in)."""
    rules = rules_of(session)
    year = award_year_of(today, rules) if year is None else year
    first, last = _period(year)
    since = datetime.combine(first, time.min, tzinfo=UTC)
    until = datetime.combine(last, time.max, tzinfo=UTC)
    rows: list[tuple[str, str, str, str]] = [("year", str(year), first.isoformat(),
                                              last.isoformat())]
    kinds = members_in_year(session, first, last)
    rows += [("members", k, str(kinds[k]), "") for k in ("regular", "family", "junior")]
    names = dict(session.execute(select(Member.id, Member.email)).all())
    for ms in session.scalars(select(Membership)):
        end = valid_until(session, ms)
        if end is not None and first <= end <= last:
            state = membership_states(session, [ms.member_id], today).get(ms.member_id)
            rows.append(("expiry", names[ms.member_id], end.isoformat(),
                         "lapsed" if state and state.state == "lapsed" else ms.kind))
    fees: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in session.scalars(select(FeePayment).where(FeePayment.at >= since,
                                                      FeePayment.at <= until)):
        fees[f.what][0] += f.yen
        fees[f.what][1] += f.pawns
    rows += [("fees", what, f"{yen} yen", f"{pawns} pawns")
             for what, (yen, pawns) in sorted(fees.items())]
    moved: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p in session.scalars(select(PawnEntry).where(PawnEntry.at >= since,
                                                     PawnEntry.at <= until)):
        moved[p.kind][0] += p.pawns
        moved[p.kind][1] += 1
    rows += [("pawns", kind, f"{pawns:+d} pawns", f"{count}")
             for kind, (pawns, count) in sorted(moved.items())]
    # a prize belongs to the year its group's last game ended in
    ended = dict(session.execute(select(Game.event, func.max(Game.end_date))
                                 .where(Game.event.is_not(None)).group_by(Game.event)).all())
    for a in session.scalars(select(ClubAward).where(ClubAward.what == "prize")
                             .order_by(ClubAward.id)):
        last_game = ended.get(a.ref)
        if last_game is not None and first <= last_game <= last:
            rows.append(("prize", a.ref, names[a.member_id], f"{a.pawns} pawns"))
    given = list(session.scalars(select(ClubAward).where(
        ClubAward.what == "award", ClubAward.ref == str(year))))
    if given:
        rows += [("award", str(year), names[a.member_id], f"{a.games}") for a in given]
    else:
        counts, _period_days = games_in_year(session, year)
        winners, games = most_games({str(k): v for k, v in counts.items()})
        rows += [("award", str(year), names[int(w)], f"{games} (so far)") for w in winners]
    tutorials = select(Tutorial.game_id)
    per_event = Counter(g.event or "(no event)" for g in session.scalars(select(Game).where(
        Game.status == "finished", Game.end_date >= first, Game.end_date <= last,
        Game.id.not_in(tutorials))))
    rows += [("games", event, str(n), "") for event, n in sorted(per_event.items())]
    return rows


def report_text(rows: list[tuple[str, str, str, str]], lang: str) -> str:
    """The rows as text in ``lang`` (en or ja)."""
    ja = lang == "ja"
    out: list[str] = []
    current = ""
    for section, item, value, note in rows:
        if section == "year":
            out.append(f"{item}年度の会計報告（{value} 〜 {note}）" if ja
                       else f"The club's books, year {item} ({value} to {note})")
            continue
        if section != current:
            current = section
            en, jp = SECTIONS[section]
            out.append("")
            out.append(jp if ja else en)
        if ja:
            value = value.replace(" yen", "円").replace(" pawns", " pawn")
            note = note.replace(" pawns", " pawn").replace("(so far)", "（集計中）")
            item = WORDS.get(item, item)
            note = WORDS.get(note, note)
            if section == "award":
                note = f"{note.split(' ')[0]}局" + ("（集計中）" if "集計中" in note else "")
            if section == "pawns":
                note = f"{note}件"
        else:
            if section == "award":
                note = f"{note} games"
            if section == "pawns":
                note = f"{note} movements"
        out.append("  " + "\t".join(x for x in (item, value, note) if x))
    return "\n".join(out)
