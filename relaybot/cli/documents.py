"""The ``--json`` documents of the list and show commands (INTERFACE.md "Output for scripts").

One function builds each command's document as plain dicts and lists (keys in English,
dates as ``date``/``datetime``, which ``common.print_json`` writes in ISO 8601, addresses
as registered); a command prints it and nothing else. To add a key, extend the one
function of that command: ``game_list_document``, ``game_document``,
``member_list_document``, ``member_document``, ``event_document`` or
``event_list_document``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.deadlines import with_td_for_duration
from relaybot.club.gamefile import GameFile
from relaybot.club.results import result_form
from relaybot.config import Config
from relaybot.games import rules_for
from relaybot.store.models import Event, Game, Member, MemberRating

Document = dict[str, Any]

# the shogi league's TD words for a side-0-first score (INTERFACE.md "TD commands")
_SHOGI_WORDS = {"1-0": "sente", "0-1": "gote", "1/2-1/2": "draw", "0-0": "both-lose"}


def result_word(game: Game) -> str | None:
    """A finished game's result in the TD's words (chess ``1-0``, shogi ``sente``, go
    ``B+3.5``, ``void`` for a go game the TD voided: seed 004 勝負なし, R4); None while
    unfinished or without a result."""
    form = result_form(game)
    if form is None:
        return "void" if _voided(game) else None
    if game.kind == "shogi":
        return _SHOGI_WORDS[form]
    if game.kind == "chess":
        return form
    return (game.result or "").strip() or None  # go and others: their own words


def _voided(game: Game) -> bool:
    """A finished game whose stored result is a void one (``td adjudicate ID void``)."""
    text = (game.result or "").strip()
    if game.kind != "go" or game.status != "finished" or not text:
        return False  # chess and shogi have no void among the TD's results
    try:
        outcome = rules_for(game.kind).parse_result(text, game.termination or "")
    except ValueError:  # the game's rules are not installed here, or no result
        return False
    return outcome is not None and outcome.void


def colours(game: Game) -> tuple[str, str]:
    """The colour of side 0 and side 1 as ``game new`` names them (``white``/``black``):
    side 0 is the colour that moves first in the game's rules (White in chess, Black in
    shogi, where Black is 先手, and in go)."""
    try:
        first, second = rules_for(game.kind).colour_options
    except ValueError:  # the game's rules are not installed here
        return ("white", "black") if game.kind == "chess" else ("black", "white")
    return first, second


def _sides(game: Game, members: dict[int, Member]) -> Document:
    """``black``/``white`` addresses and ``black_name``/``white_name``."""
    doc: Document = {}
    for colour, member_id in zip(colours(game), (game.side0_id, game.side1_id), strict=True):
        member = members.get(member_id)
        doc[colour] = member.email if member is not None else None
        doc[f"{colour}_name"] = member.name.pgn() if member is not None else None
    return {key: doc[key] for key in ("black", "white", "black_name", "white_name")}


def game_summary(game: Game, members: dict[int, Member]) -> Document:
    """One game as ``game list --json`` lists it."""
    return {
        "id": game.id, "game": game.kind, "event": game.event, "state": game.status,
        "result": result_word(game), **_sides(game, members),
        "plies": game.ply_count, "start": game.start_date, "end": game.end_date,
        "termination": game.termination,
    }


def members_by_id(session: Session, ids: Iterable[int] | None = None) -> dict[int, Member]:
    """Members by id (every member when ``ids`` is None)."""
    query = select(Member)
    if ids is not None:
        query = query.where(Member.id.in_(list(ids)))
    return {m.id: m for m in session.scalars(query)}


def game_list_document(session: Session, games: Sequence[Game]) -> list[Document]:
    """``game list --json``: a list of ``{"id", "game", "event", "state", "result",
    "black", "white", ...}``, in the order of the text listing."""
    members = members_by_id(session, {i for g in games for i in (g.side0_id, g.side1_id)})
    return [game_summary(g, members) for g in games]


def pending_proposals(gf: GameFile) -> list[str]:
    """J16: the proposals binding the side to move (sent with the last move), as the game
    writes them in English; empty when none is pending."""
    from relaybot.core.conditionals import Conditional, format_conditional

    g = gf.game
    if g.status != "active" or not g.proposals or g.proposals_by is None:
        return []
    board = gf.rules.load(g.position)
    return [format_conditional(gf.rules, board, Conditional(plies=tuple(line)))
            for line in g.proposals]


def game_document(cfg: Config, gf: GameFile, now: datetime | None = None) -> Document:
    """``game show ID --json``: the game's summary with what the text shows: address, TD,
    rules, record, whose move it is, every move with the time it was sent, and for go the
    board size, handicap stones, komi (SGF's KM: added to White, negative when White gives
    it) and whether the game is free (out of the salon's points); with ``now``, J14's
    ``with_td_since``."""
    g = gf.game
    members = {gf.white.id: gf.white, gf.black.id: gf.black}
    doc = game_summary(g, members)
    to_move = None
    if g.status == "active":
        to_move = colours(g)[gf.rules.to_move(gf.rules.load(g.position))]
    proposals = pending_proposals(gf)
    doc.update({
        "address": cfg.bot.game_address(g.id), "td": gf.td or cfg.bot.td,
        "time_control": g.time_control, "conditionals": g.conditionals,
        "grace_days": g.grace, "leave_allowed": bool(g.leave_allowed),
        "overrun": g.overrun, "to_move": to_move,
        "record": gf.rules.format_record(gf.plies, "san") or "",
        # J16: ``auto``, a bound answer the bot played for the proposer
        "moves": [{"ply": m.ply + 1, "move": m.text, "sent": m.sent_at, "auto": bool(m.auto)}
                  for m in gf.moves],
        # J16: the proposals binding the side to move until its reply, and whose they are
        "proposals": proposals,
        "proposals_by": (colours(g)[g.proposals_by]
                         if proposals and g.proposals_by is not None else None),
        # J14: the day an active game went to the TD for adjudication, unfinished 24
        # months after its start (as of ``now``); None before, or without ``now``
        "with_td_since": with_td_for_duration(gf, now) if now is not None else None,
    })
    if g.kind == "go":  # the terms the text shows (R4): board, stones, komi as SGF's KM
        position = gf.rules.load(g.position)
        doc.update({key: getattr(position, key, None) for key in ("size", "handicap", "komi")})
        # seed 004 section 2: a free game (9x9, 13x13, 7 stones or more, or by the players'
        # wish) leaves the points as they were
        doc["free"] = gf.rules.free_game(position)
    return doc


def _finished_games(session: Session, member_ids: Iterable[int]) -> dict[int, list[Game]]:
    """Every finished game of these members, by member."""
    ids = list(member_ids)
    found: dict[int, list[Game]] = {i: [] for i in ids}
    if not ids:
        return found
    for g in session.scalars(select(Game).where(
            Game.status == "finished",
            Game.side0_id.in_(ids) | Game.side1_id.in_(ids)).order_by(Game.id)):
        for member_id in {g.side0_id, g.side1_id} & found.keys():
            found[member_id].append(g)
    return found


def _go_keys(row: MemberRating | None, counted: int) -> Document:
    """Go's own keys beside the points: the rank they reach, as a code (``9k``, ``1d``),
    and the games in the count."""
    from relaybot.club.rating_book import go_rank_of

    return {"rank": go_rank_of(row), "counted": counted}


def ratings_document(session: Session, member: Member,
                     games: Sequence[Game] | None = None) -> dict[str, Document]:
    """A member's ratings by game kind, for every kind the member has a rating in or has
    played: ``{"rating", "official", "games", "wins", "losses", "draws"}`` (games: the
    finished games with a result; a game both lost is a loss), and for go ``rank`` and
    ``counted`` (games that count: not free, not void)."""
    from relaybot.club.rating_book import KINDS, ratings_of, state_of

    rows = ratings_of(session, member.id)
    if games is None:
        games = _finished_games(session, [member.id])[member.id]
    tally: dict[str, dict[str, int]] = {}
    for g in games:
        form = result_form(g)
        if form is None:
            continue
        side = 0 if g.side0_id == member.id else 1
        t = tally.setdefault(g.kind, {"games": 0, "wins": 0, "losses": 0, "draws": 0,
                                      "counted": 0})
        t["games"] += 1
        if form == "1/2-1/2":
            t["draws"] += 1
        elif form == ("1-0", "0-1")[side]:
            t["wins"] += 1
        else:
            t["losses"] += 1
        if g.kind == "go" and not rules_for("go").free_game(g.position):
            t["counted"] += 1
    doc: dict[str, Document] = {}
    for kind in (*KINDS, *sorted(set(tally) - set(KINDS))):
        row = rows.get(kind)
        if row is None and kind not in tally:
            continue
        state = state_of(row, kind)
        t = tally.get(kind, {"games": 0, "wins": 0, "losses": 0, "draws": 0, "counted": 0})
        entry: Document = {"rating": state.rating,
                           "official": row is not None and not state.provisional,
                           "rated_games": state.games,
                           **{k: t[k] for k in ("games", "wins", "losses", "draws")}}
        if kind == "go":
            entry.update(_go_keys(row, t["counted"]))
        doc[kind] = entry
    if "go" in rows:  # the go salon's own count and the rank held (seed 004 sections 2, 5)
        from relaybot.club.rating_book import ratings_json

        salon = ratings_json(session, member).get("go")
        if salon is not None:
            doc["go"] = {**doc.get("go", {}), **salon}
    return doc


def _member_base(member: Member) -> Document:
    notation = member.notation + (f":{member.letters}" if member.letters not in ("", "en")
                                  else "")
    name = member.name
    # "name" stays the "Family, Given" form scripts have always read; the parts beside it
    return {"email": member.email, "name": name.pgn(), "family": name.family,
            "given": name.given, "name_ja": name.ja or None, "lang": member.lang,
            "tz": member.tz, "notation": notation, "digest": member.digest}


def member_list_document(session: Session, members: Sequence[Member]) -> list[Document]:
    """``member list --json``: every member with address, name, language, zone, notation,
    digest and ratings (as ``member show --json`` has them)."""
    games = _finished_games(session, [m.id for m in members])
    return [{**_member_base(m), "ratings": ratings_document(session, m, games[m.id])}
            for m in members]


def member_document(session: Session, member: Member) -> Document:
    """``member show ADDR --json``: ``{"email", "name", "ratings": {KIND: {...}}, ...}`` with
    the other addresses, the chess grade and titles."""
    from relaybot.club.grade_book import grade_of, titles_of
    from relaybot.club.members import member_addresses
    points, grade = grade_of(session, member)
    ratings = ratings_document(session, member)
    return {**_member_base(member), "addresses": member_addresses(session, member),
            "born": member.born, "serves": bool(member.serves),
            "ratings": ratings,
            "grade": {"points": points, "grade": grade},
            "titles": titles_of(session, member.id), "joined": member.created_at,
            **books_document(session, member)}


def books_document(session: Session, member: Member) -> Document:
    """The books' keys of ``member show --json`` (issue 30): ``membership`` (``kind``,
    ``family_of``, ``born``, ``valid_until``, ``left_on``; null outside the books) and
    ``pawns``."""
    from relaybot.club.memberships import membership_of, valid_until
    from relaybot.club.pawns import balance
    from relaybot.store.models import Member as MemberRow

    ms = membership_of(session, member)
    head = session.get(MemberRow, ms.family_of_id) if ms and ms.family_of_id else None
    return {"membership": None if ms is None else {
        "kind": ms.kind, "family_of": head.email if head else None, "born": member.born,
        "valid_until": valid_until(session, ms), "left_on": ms.left_on},
        "pawns": balance(session, member)}


def event_summary(event: Event, games: Sequence[Game]) -> Document:
    """One event as ``event list --json`` lists it."""
    return {"event": event.name, "kind": event.kind,
            "game": games[0].kind if games else None,
            "final": bool(event.final), "time_control": event.time_control,
            "start": event.start_date, "td": event.td,
            "game_count": len(games),
            "active_games": sum(1 for g in games if g.status == "active")}


def event_list_document(session: Session, events: Sequence[Event]) -> list[Document]:
    """``event list --json``: every event with its kind, game, start and games."""
    by_event: dict[str, list[Game]] = {}
    for g in session.scalars(select(Game).where(Game.event.is_not(None))
                             .order_by(Game.created_at, Game.id)):
        by_event.setdefault(g.event or "", []).append(g)
    return [event_summary(e, by_event.get(e.name, [])) for e in events]


def event_document(session: Session, event: Event) -> Document:
    """``event show NAME --json``: ``{"event", "kind", "game", "standings": [{"rank",
    "email", "score", ...}]}`` in standing order, and the event's games; a salon adds each
    player's ``win_rate`` and ``margin``."""
    from relaybot.club.tournaments import (
        by_standing_name,
        event_end,
        event_players,
        event_standings,
        salon_secretaries,
    )

    games = list(session.scalars(select(Game).where(Game.event == event.name)
                                 .order_by(Game.created_at, Game.id)))
    players = event_players(session, event)
    email: dict[str, str] = {name: m.email for name, m in by_standing_name(players).items()}
    standings = []
    for row in event_standings(session, event):
        entry: Document = {
            "rank": row.rank, "shared": row.shared, "email": email.get(row.player),
            "name": row.player, "score": row.points, "games": row.games, "wins": row.wins,
            "draws": row.draws, "losses": row.losses,
            "tiebreaks": {t: _tiebreak(row, t) for t in row.tiebreaks},
        }
        if event.kind == "salon":  # seed 004 section 5: the win rate as a fraction
            entry["win_rate"] = round(row.points / row.games, 3) if row.games else None
            entry["margin"] = row.margin
            entry["points"] = row.rating
        standings.append(entry)
    members = members_by_id(session, {i for g in games for i in (g.side0_id, g.side1_id)})
    out = {**event_summary(event, games), "tiebreaks": event.tiebreaks.split(","),
           "finished": event_end(session, list(games)) is not None,
           "standings": standings, "games": [game_summary(g, members) for g in games]}
    if event.kind == "salon":  # seed 004 section 6: the next league's secretaries
        out["secretaries"] = [m.email for m in salon_secretaries(session, event) or ()]
    return out


def _tiebreak(row: Any, name: str) -> float | None:
    """The value of one tie-break in a standings row (None where the row has none)."""
    values = {"sb": row.sb, "solkoff": row.solkoff, "buchholz": row.solkoff,
              "median": row.median, "median_buchholz": row.median_buchholz,
              "wins": row.wins, "direct": row.direct, "margin": row.margin,
              "rating": row.rating}
    value = values.get(name)
    return None if value is None else float(value)
