"""The preliminary prize and the annual most-games award (issue 30, seed 000): given
once each as the books settle, the games each member finished in an award year, and the
prizes and awards given lately (for the digest).
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.book_settings import rules_of
from relaybot.club.pawns import add_pawns
from relaybot.club.results import result_form
from relaybot.club.tournaments import event_players
from relaybot.core.books_rules import (
    ClubRules,
    award_period,
    most_games,
    prize_shares,
    top_scorers,
)
from relaybot.store.models import ClubAward, Event, Game, Member, Tutorial


def settle_prizes(session: Session, now: datetime) -> list[str]:
    """The prize of each preliminary group whose games have all finished, given once to
    its top scorers in pawns (prize_shares); a line for each."""
    rules = rules_of(session)
    done = []
    given = set(session.scalars(select(ClubAward.ref).where(ClubAward.what == "prize")))
    events = [e for e in session.scalars(select(Event).where(
        Event.kind == "group", Event.final == 0, Event.start_date >= rules.prize_from))
        if e.name not in given]
    ready = _all_finished(session, [e.name for e in events])
    for event in events:
        if event.name not in ready:
            continue
        games = list(session.scalars(select(Game).where(Game.event == event.name)))
        if not games or any(g.status != "finished" for g in games):
            continue
        scores: dict[int, float] = {m.id: 0.0 for m in event_players(session, event)}
        for g in games:
            form = result_form(g)
            if form is None:
                continue
            s0, _, s1 = form.partition("-")
            scores[g.side0_id] = scores.get(g.side0_id, 0.0) + _points(s0)
            scores[g.side1_id] = scores.get(g.side1_id, 0.0) + _points(s1)
        winners = top_scorers({str(k): v for k, v in scores.items()})
        share = prize_shares(len(winners), rules)
        for mid in winners:
            member = session.get(Member, int(mid))
            assert member is not None
            session.add(ClubAward(what="prize", ref=event.name, member_id=member.id,
                                  pawns=share, at=now))
            if share:
                add_pawns(session, member, share, f"tournament prize, {event.name}", now,
                          kind="prize", ref=f"prize:{event.id}")
            done.append(f"prize {event.name}: {member.email} {share} pawns")
    session.flush()
    return done


def _all_finished(session: Session, names: list[str]) -> set[str]:
    """The events among ``names`` that have games, every one of them finished.

    One query for many events (in chunks), not one per event: games are not indexed by
    event, and the digest settles the books before every run (10,000 members in 2,500
    sections: 2,500 scans of the games, most of the run's time, issue 29).
    """
    played: set[str] = set()
    open_: set[str] = set()
    for start in range(0, len(names), 500):
        for name, status in session.execute(
                select(Game.event, Game.status).where(Game.event.in_(names[start:start + 500]))
                .distinct()):
            if name is None:
                continue  # not asked for: the query names its events
            played.add(name)
            if status != "finished":
                open_.add(name)
    return played - open_


def _points(text: str) -> float:
    return {"1": 1.0, "1/2": 0.5}.get(text.strip(), 0.0)


def _counted(rules: ClubRules) -> tuple[Any, ...]:
    """The games the award counts: finished, started on or after the award's first day,
    tutorials not counted."""
    return (Game.status == "finished", Game.start_date >= rules.award_from,
            Game.id.not_in(select(Tutorial.game_id)))


def games_in_year(session: Session, year: int, rules: ClubRules | None = None,
                  ) -> tuple[Counter[int], tuple[date, date] | None]:
    """Games each member finished in award year ``year`` (April to March; tutorials not
    counted), and the year's days."""
    rules = rules or rules_of(session)
    period = award_period(year, rules)
    counts: Counter[int] = Counter()
    if period is None:
        return counts, None
    for side0, side1 in session.execute(select(Game.side0_id, Game.side1_id).where(
            Game.end_date >= period[0], Game.end_date <= period[1], *_counted(rules))):
        counts[side0] += 1
        counts[side1] += 1
    return counts, period


def settle_awards(session: Session, now: datetime, today: date) -> list[str]:
    """The most-games award of each award year that has ended, given once to the members
    who finished most games in it; a line for each."""
    rules = rules_of(session)
    done = []
    given = set(session.scalars(select(ClubAward.ref).where(ClubAward.what == "award")))
    year = rules.award_from.year - 1
    # a year no counted game ended in has no award and stays unsettled: only the years
    # between the first and the last such game are read (one query for the rest; each
    # digest run settles the books, issue 29)
    first, last = session.execute(select(func.min(Game.end_date), func.max(Game.end_date))
                                  .where(*_counted(rules))).one()
    while True:
        period = award_period(year, rules)
        if period is not None and period[1] >= today:
            break
        if (period is not None and str(year) not in given and first is not None
                and last is not None and period[0] <= last and first <= period[1]):
            counts, _ = games_in_year(session, year, rules)
            winners, games = most_games({str(k): v for k, v in counts.items()})
            for mid in winners:
                session.add(ClubAward(what="award", ref=str(year), member_id=int(mid),
                                      games=games, at=now))
                done.append(f"most games {year}: member {mid}, {games} games")
        year += 1
    session.flush()
    return done


def club_news(session: Session, since: datetime) -> list[dict[str, Any]]:
    """Prizes and awards given since ``since``, for the digest."""
    rows = session.execute(select(ClubAward, Member.name).join(
        Member, Member.id == ClubAward.member_id).where(ClubAward.at >= since)
        .order_by(ClubAward.at, ClubAward.id)).all()
    return [{"what": a.what, "ref": a.ref, "name": name, "pawns": a.pawns, "games": a.games,
             "at": a.at} for a, name in rows]
