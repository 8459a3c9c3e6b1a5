"""What a member's own pages show, read from the store as plain data for the
templates: the player's page (ratings with their history as a small plot, the record,
the grade and titles, their games) and the deadlines of their calendar feed.

No ORM object reaches a template, and no mail address is ever put into one.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from relaybot.club.deadlines import with_td_for_duration
from relaybot.club.grade_book import grade_of, titles_of
from relaybot.club.rating_book import go_rank_of
from relaybot.core.clocks import pending
from relaybot.core.game import waits_for_result, waits_for_td
from relaybot.core.ratings import rank_name
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game, Member, MemberRating, RatingChange
from relaybot.web.game_rows import (
    KIND_NAMES,
    game_row,
    name_of,
    people_of,
    score_of,
    turns_of,
)

# the titles a member holds, as the player's page names them
TITLE_NAMES = {"en": {"japan_champion": "Japan Champion"},
               "ja": {"japan_champion": "日本チャンピオン"}}


def rating_plot(points: list[int], label: str) -> str:
    """A small line chart of a rating's history (oldest first) as inline SVG, drawn
    here: no script, no library; ``label`` is its text alternative (escaped)."""
    width, height, pad, left = 240, 64, 8, 40  # left: room for the highest and lowest
    if not points:
        return ""
    low, high = min(points), max(points)
    span = max(high - low, 1)
    step = (width - left - pad) / max(len(points) - 1, 1)
    xy = [(left + i * step, pad + (high - p) * (height - 2 * pad) / span)
          for i, p in enumerate(points)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    last_x, last_y = xy[-1]
    title = escape(label)
    return (f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{title}"><title>{title}</title>'
            f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="#fafafa" '
            f'stroke="#ddd"/>'
            f'<text x="4" y="{pad + 4}" font-size="11" fill="#555">{high}</text>'
            f'<text x="4" y="{height - pad + 4}" font-size="11" fill="#555">{low}</text>'
            f'<polyline points="{line}" fill="none" stroke="#1a63c9" '
            f'stroke-width="2" stroke-linejoin="round"/>'
            f'<circle cx="{last_x:.1f}" cy="{last_y:.1f}" r="3" fill="#1a63c9"/></svg>')


def player_page(session: Session, member: Member, lang: str, now: datetime) -> dict[str, Any]:
    """A player: per game their rating (provisional in brackets) with its history as a
    small plot, wins/draws/losses; the chess grade and titles; their games (being
    played, whose move and the deadline; then finished) and the calendar."""
    games = list(session.scalars(
        select(Game).where(or_(Game.side0_id == member.id, Game.side1_id == member.id))
        .order_by(Game.status, Game.start_date.desc(), Game.id)))
    people = people_of(session, games)
    history: dict[str, list[int]] = {}
    for change, kind in session.execute(
            select(RatingChange, Game.kind).join(Game, Game.id == RatingChange.game_id)
            .where(RatingChange.member_id == member.id)
            .order_by(RatingChange.at, RatingChange.id)):
        points = history.setdefault(kind, [])
        if not points:
            points.append(change.before)
        points.append(change.after)
    records: dict[str, list[int]] = {}
    for game in games:
        score = score_of(game, member.id) if game.status == "finished" else None
        if score is not None:
            wdl = records.setdefault(game.kind, [0, 0, 0])
            wdl[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    rated = {r.kind: r for r in session.scalars(select(MemberRating).where(
        MemberRating.member_id == member.id))}
    kinds = sorted(set(rated) | set(records), key=lambda k: (k not in KIND_NAMES["en"], k))
    name = name_of(member, lang)
    per_kind = []
    for kind in kinds:
        word = KIND_NAMES[lang].get(kind, kind)
        row = rated.get(kind)
        wins, draws, losses = records.get(kind, [0, 0, 0])
        points = history.get(kind, [])
        # seed 004: go's number is the salon's points (持点), never a rating
        measure = (("持点" if kind == "go" else "レーティング") if lang == "ja"
                   else "salon points" if kind == "go" else "rating")
        label = (f"{name}の{word}の{measure}の推移: " if lang == "ja"
                 else f"{name}'s {word} {measure} over time: ") + " → ".join(map(str, points))
        per_kind.append({
            "kind": word, "rating": row.rating if row else None, "salon": kind == "go",
            "provisional": bool(row.provisional) if row else False,
            "games": row.rated_games if row else 0,
            # seed 004: the go rank beside the points (初段, 1d)
            "rank": rank_name(go_rank_of(row), lang) if row and kind == "go" else "",
            "wins": wins, "draws": draws, "losses": losses,
            "plot": rating_plot(points, label) if len(points) > 1 else ""})
    grade_points, grade = grade_of(session, member) if "chess" in rated else (0, "")
    if lang == "ja":
        grade = grade.split(" (")[0]  # 初段 (1st dan): the gloss is for English readers
    turns = turns_of(session, games, lang, now)
    return {"id": member.id, "name": name, "ratings": per_kind,
            "grade": grade, "grade_points": grade_points,
            "titles": [TITLE_NAMES[lang].get(t, t) for t in titles_of(session, member.id)],
            "active": [game_row(g, people, lang, turns) for g in games
                       if g.status == "active"],
            # the latest ended first, as on the front page
            "finished": [game_row(g, people, lang) for g in sorted(
                (g for g in games if g.status == "finished"),
                key=lambda g: (g.end_date or date.min, g.id), reverse=True)],
            # J20: suspended by the TD, neither played nor finished: apart, as on the front
            "suspended": [game_row(g, people, lang) for g in games
                          if g.status == "suspended"]}


def deadlines(session: Session, member: Member, now: datetime) -> list[dict[str, Any]]:
    """Each active game's next deadline as the member's calendar shows it: the last day
    the player on move may send their reply before the clock is lost (J8, J9); none for
    a game with the TD (go's disputed result; J14, unfinished after 24 months)."""
    out = []
    today = now.astimezone(ZoneInfo(member.tz)).date()
    for game in session.scalars(select(Game).where(
            Game.status == "active", or_(Game.side0_id == member.id,
                                         Game.side1_id == member.id)).order_by(Game.id)):
        gf = load_game(session, game, now)
        if gf.books is None:
            continue
        due = pending(gf.books, now)
        if due.overrun_day is None:
            continue  # an open pause: no day can be named
        stating = waits_for_result(gf.rules, game.position)
        if waits_for_td(gf.rules, game.position):
            continue  # go: two different results are the TD's to decide, no one's to send
        if with_td_for_duration(gf, now) is not None:
            continue  # J14: unfinished after 24 months, the TD adjudicates: no day is due
        # go after both passed: the side still to state the result (the board says who)
        colour = gf.rules.to_move(gf.rules.load(game.position)) if stating else due.colour
        last: date = due.overrun_day - timedelta(days=1)
        mine = gf.player(colour).id == member.id
        opponent = gf.player(1 - colour)
        out.append({"game_id": game.id, "ply": gf.game.ply_count, "day": max(last, today),
                    "mine": mine, "move": due.move, "stating": stating,
                    "opponent": name_of(opponent if mine else gf.player(colour),
                                        member.lang),
                    "left": due.left})
    return out
