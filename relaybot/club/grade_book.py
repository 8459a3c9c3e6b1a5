"""JCCA grades (段級位, R3): a member's titles, and the grade points the introduction
bonus, the titles and the tournament results add up to, with the grade they reach. JCCA
grades are chess grades; the bonus is kept with the chess rating
(:mod:`relaybot.club.rating_book`), the rest is read here.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.rating_book import rating_row
from relaybot.core.ratings import START_RATING, grade_for, grade_points, section_points
from relaybot.store.models import Event, Game, Member, MemberTitle

RATED_RESULTS = ("1-0", "0-1", "1/2-1/2")  # the results a tournament score counts (R3)


def titles_of(session: Session, member_id: int) -> list[str]:
    """The member's JCCA titles (R3), one entry per time won, in the order entered; the
    shogi league's 名人 (T3, kept as ``meijin``) is no JCCA title and gives no grade points
    (see :func:`relaybot.club.season_book.member_league_titles`)."""
    return list(session.scalars(select(MemberTitle.title).where(
        MemberTitle.member_id == member_id, MemberTitle.title != "meijin")
        .order_by(MemberTitle.id)))


def grade_of(session: Session, member: Member) -> tuple[int, str]:
    """R3: JCCA grade points and the grade they reach: the introduction bonus once, for
    the rating at introduction or when it became official (seed 000: 導入時および本レイテ
    ィング認定時のレイティングに応じ一度だけ与える; a provisional newcomer has none yet),
    title points, and tournament points from every finished chess game in a JCCA event
    (not an ICCF section), by the category of the section's average start rating. JCCA
    grades are chess grades, so other kinds' games and ratings do not count."""
    row = rating_row(session, member.id, "chess")
    intro = row.bonus_rating if row is not None else None
    tournament = 0
    mine = ((Game.side0_id == member.id) | (Game.side1_id == member.id)) & (Game.kind == "chess")
    events = {e for e in session.scalars(select(Game.event).where(mine)) if e}
    # seed 000: 獲得点数は、JCCAトーナメント結果により: an ICCF section (T2) gives none
    iccf = set(session.scalars(select(Event.name).where(Event.kind == "section")))
    for event in sorted(events - iccf):
        games = session.scalars(select(Game).where(Game.event == event,
                                                   Game.kind == "chess")).all()
        ratings: dict[int, int] = {}
        for g in games:  # each participant's rating at the start of the section
            ratings.setdefault(g.side0_id, g.side0_rating or START_RATING)
            ratings.setdefault(g.side1_id, g.side1_rating or START_RATING)
        scores = [
            (1.0 if g.result == ("1-0" if g.side0_id == member.id else "0-1")
             else 0.5 if g.result == "1/2-1/2" else 0.0)
            for g in games
            if member.id in (g.side0_id, g.side1_id) and g.status == "finished"
            and g.result in RATED_RESULTS
        ]
        if scores:
            tournament += section_points(list(ratings.values()), scores)
    points = grade_points(intro_rating=intro, titles=titles_of(session, member.id),
                          tournament=tournament)
    return points, grade_for(points)
