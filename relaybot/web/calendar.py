"""A player's games' deadlines as an iCalendar feed (RFC 5545, the icalendar library).

One all-day event per active game: the last day the player on move may send the reply
(their own deadline, or the opponent's, marked as such). The UID names the game and
the ply, so a calendar that polls the feed moves the event when the game moves on.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from icalendar import Calendar, vText
from icalendar import Event as CalEvent

from relaybot.config import Config

SUMMARIES = {
    "en": {True: "Your move in game {game_id}: last day to reply (move {move})",
           False: "Game {game_id}: {opponent}'s reply due (move {move})"},
    "ja": {True: "対局 {game_id}: あなたの手番の期限（第{move}手）",
           False: "対局 {game_id}: {opponent}さんの返信期限（第{move}手）"},
}
# go after both passed: no move is due, the result is (from the side that has not yet)
STATING = {
    "en": {True: "Game {game_id}: last day to state the result",
           False: "Game {game_id}: {opponent}'s statement of the result due"},
    "ja": {True: "対局 {game_id}: 結果の申告の期限",
           False: "対局 {game_id}: {opponent}さんの結果申告の期限"},
}


def feed(cfg: Config, member_name: str, lang: str, rows: list[dict[str, Any]],
         now: datetime) -> bytes:
    """The calendar of ``rows`` (``web.member_data.deadlines``) in the member's language."""
    cal = Calendar()
    cal.add("prodid", "-//relaybot//deadlines//EN")
    cal.add("version", "2.0")
    # an X- property is written as given unless it is typed: as TEXT, the library escapes
    # (RFC 5545 3.3.11: backslash, ";", ",", line breaks) and folds it like SUMMARY, so
    # a member's name cannot end the line and add properties of its own
    cal.add("x-wr-calname", vText(("対局の期限 " if lang == "ja" else "Game deadlines, ")
                                  + member_name))
    for row in rows:
        said = STATING if row.get("stating") else SUMMARIES
        texts = said.get(lang, said["en"])
        event = CalEvent()
        event.add("uid", f"{row['game_id']}-{row['ply']}@{cfg.bot.domain}")
        event.add("dtstamp", now)
        event.add("dtstart", row["day"])
        event.add("dtend", row["day"] + timedelta(days=1))
        event.add("summary", texts[row["mine"]].format(**row))
        link = cfg.web.link(f"/games/{row['game_id']}?lang={lang}")  # the feed's language
        if link:
            event.add("url", link)
        cal.add_component(event)
    data = cal.to_ical()
    assert isinstance(data, bytes)
    return data
