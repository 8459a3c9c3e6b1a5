"""What the club's public pages show, read from the store as plain data for the
templates: the front page (events, games being played, latest results), an event's
standings and crosstable, a game's rating list.

A game's own page is :mod:`relaybot.web.game_data`, a member's pages
:mod:`relaybot.web.member_data`, the lines of a games table
:mod:`relaybot.web.game_rows`. Every function takes an open session and returns dicts:
no ORM object reaches a template, and no mail address is ever put into one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.rating_book import go_rank_of
from relaybot.club.tournaments import event_standings, salon_secretaries, standing_names
from relaybot.core.events import crosstable_data
from relaybot.core.ratings import rank_name
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.store.models import (
    Event,
    EventPlayer,
    Game,
    LadderRung,
    Member,
    MemberRating,
    Season,
    SeasonClass,
)
from relaybot.web.game_rows import KIND_NAMES, game_row, people_of, score_of, turns_of

# what the tie-break columns of the crosstable are called (the mails' headings)
TIEBREAK_NAMES = {
    "en": {"sb": "SB", "solkoff": "Solkoff", "buchholz": "Buchholz", "median": "Median",
           "median_buchholz": "Median Buchholz", "direct": "Direct encounter", "wins": "Wins",
           "start": "Start order", "entry": "Entry order", "rate": "Win %",
           "margin": "Margin", "direct_pair": "Direct encounter (two)",
           "rating": "Rating", "salon_points": "Salon points",
           "sb_beaten": "SB (opponents beaten)",
           "median_beaten": "Median (opponents beaten)"},
    "ja": {"sb": "SB", "solkoff": "ソルコフ", "buchholz": "ソルコフ", "median": "ミディアム",
           "median_buchholz": "メディアン・ブッフホルツ", "direct": "直接対決", "wins": "勝数",
           "start": "開始時の順位", "entry": "参加表明順", "rate": "勝率（%）",
           "margin": "目数差", "direct_pair": "直接対決（2人）", "rating": "レーティング",
           "salon_points": "持点",
           "sb_beaten": "SB方式", "median_beaten": "ミディアム方式"},
}
EVENT_KINDS = {
    "en": {"group": "Preliminary group", "match": "Match", "ladder": "Ladder challenge",
           "section": "Section", "league": "League", "salon": "Salon league"},
    "ja": {"group": "予選グループ", "match": "マッチ", "ladder": "ラダー挑戦",
           "section": "セクション", "league": "リーグ", "salon": "サロンリーグ"},
}
def _event_names(session: Session) -> set[str]:
    return set(session.scalars(select(Event.name)))


def home(session: Session, lang: str, now: datetime) -> dict[str, Any]:
    """The front page: every event, the games being played (whose move, the next
    deadline), the latest results."""
    events = []
    for event in session.scalars(select(Event).order_by(Event.start_date.desc(), Event.name)):
        count = len(session.scalars(select(EventPlayer.id).where(
            EventPlayer.event_id == event.id)).all())
        events.append({"name": event.name, "players": count,
                       "kind": EVENT_KINDS[lang].get(event.kind, event.kind),
                       "start": event.start_date.isoformat()})
    active = list(session.scalars(select(Game).where(Game.status == "active")
                                  .order_by(Game.start_date.desc(), Game.id).limit(200)))
    finished = list(session.scalars(select(Game).where(Game.status == "finished")
                                    .order_by(Game.end_date.desc(), Game.id).limit(50)))
    # J20: games the TD suspended are neither played nor finished: listed apart
    suspended = list(session.scalars(select(Game).where(Game.status == "suspended")
                                     .order_by(Game.start_date.desc(), Game.id).limit(50)))
    people = people_of(session, active + finished + suspended)
    turns = turns_of(session, active, lang, now)
    names = _event_names(session)
    # T3: the shogi league's seasons, each a page of its own (its classes are events)
    seasons = [{"name": s.name, "start": s.start_date.isoformat(),
                "end": s.end_date.isoformat(), "ended": s.ended_at is not None,
                "upcoming": s.ended_at is None and now.date() < s.start_date}
               for s in session.scalars(select(Season).order_by(Season.start_date.desc(),
                                                                Season.name))]
    # the ladders (梯子段) there are, one page each
    kinds = set(session.scalars(select(LadderRung.kind)))
    ladders = [{"kind": kind, "name": KIND_NAMES[lang].get(kind, kind)} for kind in
               [k for k in KIND_NAMES["en"] if k in kinds] + sorted(kinds - set(KIND_NAMES["en"]))]
    # the rating lists there are (the salon's points for go), one page each
    rated = set(session.scalars(select(MemberRating.kind)))
    ratings = [{"kind": kind, "name": KIND_NAMES[lang][kind]} for kind in KIND_NAMES["en"]
               if kind in rated]
    return {"events": events, "seasons": seasons, "ladders": ladders, "ratings": ratings,
            "active": [game_row(g, people, lang, turns, names) for g in active],
            "finished": [game_row(g, people, lang, None, names) for g in finished],
            "suspended": [game_row(g, people, lang, None, names) for g in suspended]}


def event_page(session: Session, event: Event, lang: str, now: datetime) -> dict[str, Any]:
    """An event: standings in rank order, each player numbered by their seat (as the
    CLI numbers them) with the rank beside it; a crosstable whose cells link to the
    games (every game of a pair: a double round robin has two), every tie-break column
    (T5); the games with results linked."""
    rows = event_standings(session, event)
    seated = list(session.execute(
        select(Member, EventPlayer).join(EventPlayer, EventPlayer.member_id == Member.id)
        .where(EventPlayer.event_id == event.id)).all())
    names = standing_names([m for m, _ in seated])  # the names the standings key
    seats: dict[str, tuple[int, int]] = {names[m.id]: (p.seat, m.id) for m, p in seated}
    # T3's order tie-breaks, as event_standings reads them: the starting order (a
    # season's, else the seat) and the entry order (the seat)
    orders = {p.member_id: (p.start_order or p.seat, p.seat) for _, p in seated}
    games = list(session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)))
    people = people_of(session, games)
    sides_of = {g.id: rules_for(g.kind).side_names(lang) for g in games}
    table = crosstable_data(rows)
    order = sorted(seat for seat, _ in seats.values())
    by_id = {member_id: seat for seat, member_id in seats.values()}
    for row in table:
        seat, member_id = seats.get(str(row["player"]), (0, 0))
        row["no"], row["id"] = seat, member_id or None
        row["start"], row["entry"] = orders.get(member_id, (None, None))
        # the standings' own name (a PersonName): with its Japanese-script form and the
        # member's order, as every other page writes it (str() would lose both)
        row["player"] = display_name(row["player"], lang)  # type: ignore[arg-type]
        cells: dict[int, list[dict[str, Any]]] = {n: [] for n in order}
        for game in games:
            if member_id not in (game.side0_id, game.side1_id):
                continue
            other = game.side1_id if game.side0_id == member_id else game.side0_id
            if other in by_id:
                colour = 0 if game.side0_id == member_id else 1
                score = score_of(game, member_id)
                cells[by_id[other]].append({
                    "id": game.id, "score": score, "side": sides_of[game.id][colour],
                    # ended without a result (J20's void, go's 勝負なし): counts for no
                    # one, and is no game still being played
                    "void": score is None and game.status == "finished"})
        row["cells"] = [{"seat": n, "games": cells[n]} for n in order]
    order_keys = [t.strip() for t in event.tiebreaks.split(",") if t.strip()]
    if event.kind == "salon":
        order_keys.insert(0, "rate")  # T4: the win rate ranks first
    turns = turns_of(session, games, lang, now)
    # T3: a class of a season of the shogi league links back to its season's page
    of_season = session.execute(select(Season.name, SeasonClass.letter).join(
        SeasonClass, SeasonClass.season_id == Season.id).where(
        SeasonClass.event_id == event.id)).first()
    # which game the event plays (its games'; a salon's is go): the header names it
    game_kind = games[0].kind if games else ("go" if event.kind == "salon" else "")
    return {"name": event.name, "kind": EVENT_KINDS[lang].get(event.kind, event.kind),
            "game_name": KIND_NAMES[lang].get(game_kind, game_kind),
            "season": {"name": of_season[0], "letter": of_season[1]} if of_season else None,
            # a ladder challenge links the ladder of its game (issue 30: /ladder/<kind>)
            "ladder": ({"kind": games[0].kind,
                        "name": KIND_NAMES[lang].get(games[0].kind, games[0].kind)}
                       if event.kind == "ladder" and games else None),
            "start": event.start_date.isoformat(), "seats": order,
            "time_control": event.time_control, "rows": table,
            "tiebreaks": [{"key": t, "title": TIEBREAK_NAMES[lang].get(
                # go's rating is the salon's points (seed 004), and the page says so
                "salon_points" if t == "rating" and rows and rows[0].rating_game == "go"
                else t, t)} for t in order_keys],
            "games": [game_row(g, people, lang, turns) for g in games],
            # a drawn go game is a jigo (持碁): the table's column and legend say so
            "go_event": bool(rows) and rows[0].rating_game == "go",
            # seed 004 section 6: the next league's secretaries, once a salon league ended
            "secretaries": [{"id": m.id, "name": display_name(m.name, lang)}
                            for m in salon_secretaries(session, event) or ()]}


def ratings_page(session: Session, kind: str, lang: str) -> dict[str, Any] | None:
    """The rating list of one game (R1, R2; for go the salon's points and ranks, R4, seed
    004 section 2): every member rated in it, highest first, equal ratings sharing a
    place; a provisional rating is marked as such. None for a game no one is rated in."""
    if kind not in KIND_NAMES["en"]:
        return None
    rows = session.execute(
        select(Member, MemberRating).join(MemberRating, MemberRating.member_id == Member.id)
        .where(MemberRating.kind == kind)
        .order_by(MemberRating.rating.desc(), Member.id)).all()
    if not rows:
        return None
    listed: list[dict[str, Any]] = []
    for number, (member, row) in enumerate(rows, start=1):
        shared = bool(listed) and listed[-1]["rating"] == row.rating
        listed.append({
            "place": listed[-1]["place"] if shared else number, "id": member.id,
            "name": display_name(member.name, lang), "rating": row.rating,
            "provisional": bool(row.provisional), "games": row.rated_games,
            "rank": rank_name(go_rank_of(row), lang) if kind == "go" else ""})
    return {"kind": kind, "kind_name": KIND_NAMES[lang][kind], "salon": kind == "go",
            "rows": listed}
