"""What each page shows, read from the store as plain data for the templates.

Every function takes an open session and returns dicts: no ORM object reaches a
template, and no mail address is ever put into one.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from relaybot.books import clock_context
from relaybot.config import Config
from relaybot.core.clocks import pending
from relaybot.core.events import crosstable_data
from relaybot.core.game import moves_in, result_in
from relaybot.core.ratings import rank_name
from relaybot.core.text import display_name
from relaybot.events import event_standings, salon_secretaries
from relaybot.gamefile import GameFile
from relaybot.games import rules_for
from relaybot.pipeline.lifecycle import load_game
from relaybot.rating_book import go_rank_of
from relaybot.store.models import Event, EventPlayer, Game, Member, MemberRating
from relaybot.views import POSITION_NAMES, event_start, local_date, record_file

# what the tie-break columns of the crosstable are called (the mails' headings)
TIEBREAK_NAMES = {
    "en": {"sb": "SB", "solkoff": "Solkoff", "buchholz": "Buchholz", "median": "Median",
           "median_buchholz": "Median Buchholz", "direct": "Direct encounter", "wins": "Wins",
           "start": "Start order", "entry": "Entry order", "rate": "Win %",
           "margin": "Margin", "direct_pair": "Direct encounter (two)",
           "rating": "Points (rating)"},
    "ja": {"sb": "SB", "solkoff": "ソルコフ", "buchholz": "ソルコフ", "median": "ミディアム",
           "median_buchholz": "メディアン・ブッフホルツ", "direct": "直接対決", "wins": "勝数",
           "start": "開始時の順位", "entry": "参加表明順", "rate": "勝率",
           "margin": "目数差", "direct_pair": "直接対決（2人）", "rating": "持点"},
}
EVENT_KINDS = {
    "en": {"group": "group", "match": "match", "ladder": "ladder challenge",
           "section": "section", "league": "league", "salon": "salon league"},
    "ja": {"group": "予選グループ", "match": "マッチ", "ladder": "ラダー挑戦",
           "section": "セクション", "league": "リーグ", "salon": "サロンリーグ"},
}
KIND_NAMES = {"en": {"chess": "Chess", "shogi": "Shogi", "go": "Go"},
              "ja": {"chess": "チェス", "shogi": "将棋", "go": "囲碁"}}


def _name(member: Member | None, lang: str) -> str:
    return display_name(member.name, lang) if member is not None else "?"


def _game_row(game: Game, people: dict[int, Member], lang: str) -> dict[str, Any]:
    rules = rules_for(game.kind)
    sides = rules.side_names(lang)
    return {
        "id": game.id, "kind": KIND_NAMES[lang].get(game.kind, game.kind),
        "event": game.event or "", "status": game.status,
        "result": result_in(rules, game.result or "", lang),  # go: 黒5目半勝ち
        "side0": sides[0], "side1": sides[1],
        "white": _name(people.get(game.side0_id), lang), "white_id": game.side0_id,
        "black": _name(people.get(game.side1_id), lang), "black_id": game.side1_id,
        "moves": game.ply_count, "start": game.start_date.isoformat(),
    }


def _people(session: Session, games: list[Game]) -> dict[int, Member]:
    ids = {g.side0_id for g in games} | {g.side1_id for g in games}
    if not ids:
        return {}
    return {m.id: m for m in session.scalars(select(Member).where(Member.id.in_(ids)))}


def home(session: Session, lang: str) -> dict[str, Any]:
    """The front page: every event, the games being played, the latest results."""
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
    people = _people(session, active + finished)
    return {"events": events, "active": [_game_row(g, people, lang) for g in active],
            "finished": [_game_row(g, people, lang) for g in finished]}


def game_page(session: Session, cfg: Config, game: Game, lang: str, viewer: int,
              now: datetime) -> dict[str, Any]:
    """One game: board from side ``viewer``'s seat, record with send dates, clocks."""
    gf = load_game(session, game, now)
    rules = gf.rules
    position = rules.load(game.position)
    row = _game_row(game, {gf.white.id: gf.white, gf.black.id: gf.black}, lang)
    moves = [{"label": moves_in(rules, rules.move_label(m.ply, m.text or m.canon), lang),
              "sent": local_date(m.sent_at, cfg.bot.timezone)} for m in gf.moves]
    clock: dict[str, Any] = {"clock_ok": False}
    if game.status == "active" and gf.books is not None:
        clock = clock_context(gf.books, None, now)
        due = pending(gf.books, now)
        clock["deadline"] = (due.overrun_day - timedelta(days=1)).isoformat() \
            if due.overrun_day is not None else ""
        clock["to_move"] = rules.side_names(lang)[due.colour]
        clock["to_move_name"] = _name(gf.player(due.colour), lang)
    return row | clock | {
        "board_svg": rules.board_svg(position, viewer), "viewer": viewer,
        "board_text": rules.board_text(position, lang, viewer),
        "position": rules.position_text(game.position),
        "terms": rules.terms_text(position, lang),
        "position_name": POSITION_NAMES.get(game.kind, ""),
        "moves_list": moves,
        "record": rules.format_record(gf.plies, rules.display_notation) if gf.plies else "",
        "time_control": game.time_control, "end": game.end_date.isoformat()
        if game.end_date else "", "termination": game.termination or "",
        "record_format": rules.record_format.upper(),
        "timezone": cfg.bot.timezone,
    }


def record_download(session: Session, cfg: Config, game: Game) -> dict[str, str]:
    """The game's record file (the game plug-in's ``write_record``, standard headers)."""
    gf = GameFile.load(session, game)
    return record_file(cfg, gf, event_start(session, game.event))


def event_page(session: Session, event: Event, lang: str) -> dict[str, Any]:
    """An event: standings and crosstable with every tie-break column (T5)."""
    rows = event_standings(session, event)
    ids = {m.name: m.id for m in session.scalars(
        select(Member).join(EventPlayer, EventPlayer.member_id == Member.id)
        .where(EventPlayer.event_id == event.id))}
    table = crosstable_data(rows)
    for row in table:
        row["id"] = ids.get(str(row["player"]))
        row["player"] = display_name(str(row["player"]), lang)
        cells: dict[int, list[float | None]] = {}
        for result in row["results"]:  # type: ignore[attr-defined]
            if result["no"] is not None:
                cells[result["no"]] = result["scores"]
        row["cells"] = [cells.get(n + 1) for n in range(len(table))]
    order = [t.strip() for t in event.tiebreaks.split(",") if t.strip()]
    if event.kind == "salon":
        order.insert(0, "rate")  # T4: the win rate ranks first
    games = list(session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)))
    people = _people(session, games)
    return {"name": event.name, "kind": EVENT_KINDS[lang].get(event.kind, event.kind),
            "start": event.start_date.isoformat(),
            "time_control": event.time_control, "rows": table,
            "tiebreaks": [{"key": t, "title": TIEBREAK_NAMES[lang].get(t, t)} for t in order],
            "games": [_game_row(g, people, lang) for g in games],
            # seed 004 section 6: the next league's secretaries, once a salon league ended
            "secretaries": [{"id": m.id, "name": display_name(m.name, lang)}
                            for m in salon_secretaries(session, event) or ()]}


def player_page(session: Session, member: Member, lang: str) -> dict[str, Any]:
    """A player: ratings per game, their games (being played first), the calendar."""
    games = list(session.scalars(
        select(Game).where(or_(Game.side0_id == member.id, Game.side1_id == member.id))
        .order_by(Game.status, Game.start_date.desc(), Game.id)))
    people = _people(session, games)
    ratings = [{"kind": KIND_NAMES[lang].get(r.kind, r.kind), "rating": r.rating,
                "provisional": bool(r.provisional),
                # seed 004: the go rank beside the points (初段, 1d)
                "rank": rank_name(go_rank_of(r), lang) if r.kind == "go" else ""}
               for r in session.scalars(select(MemberRating).where(
                   MemberRating.member_id == member.id).order_by(MemberRating.kind))]
    return {"id": member.id, "name": _name(member, lang), "ratings": ratings,
            "active": [_game_row(g, people, lang) for g in games if g.status == "active"],
            "finished": [_game_row(g, people, lang) for g in games if g.status != "active"]}


def deadlines(session: Session, member: Member, now: datetime) -> list[dict[str, Any]]:
    """Each active game's next deadline as the member's calendar shows it: the last day
    the player on move may send their reply before the clock is lost (J8, J9)."""
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
        last: date = due.overrun_day - timedelta(days=1)
        mine = gf.player(due.colour).id == member.id
        opponent = gf.player(1 - due.colour)
        out.append({"game_id": game.id, "ply": gf.game.ply_count, "day": max(last, today),
                    "mine": mine, "move": due.move,
                    "opponent": _name(opponent if mine else gf.player(due.colour),
                                      member.lang),
                    "left": due.left})
    return out
