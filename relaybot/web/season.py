"""The season page of ``relaybot web`` (T3, seed 002; issue 24 item 9): a season of the
shogi net league with its classes, each class's standings and crosstable (the players'
starting order, wins with 千日手・持将棋 as 0.5), the promotion and relegation marks once
the season has ended, those sitting it out, and the titles it gave (rule 13)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.season_book import (
    RESTING,
    class_results,
    season_outcomes,
    season_titles,
)
from relaybot.core.text import display_name
from relaybot.store.models import Member, Season, SeasonPlayer
from relaybot.web.data import event_page

MARKS = {"promoted": "↑", "relegated": "↓", "rest": "休", "withdrawn": "×"}
"""The mark beside a player's name at the season's end (none: stays)."""


def find_season_named(session: Session, name: str) -> Season | None:
    """The season called ``name`` (as typed in the URL), or None."""
    if "\x00" in name:  # PostgreSQL refuses NUL in text: an error, not a miss
        return None
    return session.scalar(select(Season).where(Season.name == " ".join(name.split())))


def season_page(session: Session, season: Season, lang: str,
                now: datetime) -> dict[str, Any]:
    """What the season page shows, names as ``lang`` writes them (``now``: the clock the
    class pages read whose move it is by)."""
    ended = season.ended_at is not None
    outcome = season_outcomes(session, season) if ended else {}
    names = {m.email: m for m in session.scalars(select(Member).join(
        SeasonPlayer, SeasonPlayer.member_id == Member.id).where(
        SeasonPlayer.season_id == season.id))}
    classes = []
    for letter, event, rows in class_results(session, season):
        table = event_page(session, event, lang, now)
        # each class row by member: a name is written differently for each reader
        orders = {names[r["email"]].id: r for r in rows if r["email"] in names}
        for row in table["rows"]:
            mine = orders.get(row["id"])
            row["start_order"] = mine["start_order"] if mine else None
            row["state"] = mine["state"] if mine else "playing"
            row["outcome"] = outcome.get(mine["email"]) if mine else None
            row["mark"] = MARKS.get(str(row["outcome"]), "")
        classes.append({"letter": letter, "event": event.name,
                        "link": "/events/" + quote(event.name, safe=""),
                        "rows": table["rows"]})
    resting = [{"name": display_name(m.name, lang), "id": m.id, "class": p.letter}
               for p, m in session.execute(
                   select(SeasonPlayer, Member).join(Member, Member.id == SeasonPlayer.member_id)
                   .where(SeasonPlayer.season_id == season.id, SeasonPlayer.state == RESTING)
                   .order_by(SeasonPlayer.id)).all()]
    titles = [{"title": t["title"], "id": names[t["email"]].id if t["email"] in names else None,
               "name": display_name(names[t["email"]].name, lang) if t["email"] in names
               else t["email"]} for t in season_titles(session, season)]
    return {"name": season.name, "start": season.start_date.isoformat(),
            "end": season.end_date.isoformat(), "ended": ended, "classes": classes,
            "resting": resting, "titles": titles}
