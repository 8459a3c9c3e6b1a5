"""What each line of a weekly digest says (D1): a game's row with its clocks, a result
or a correction in the reader's words, a rating as published, the reader's place in a
league class and an event's crosstable. Plain data for the templates; the reading of the
store is :mod:`relaybot.app.digest`'s."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from relaybot.club.daybooks import control_number
from relaybot.club.deadlines import game_with_td_since
from relaybot.club.rating_book import KINDS
from relaybot.core.clocks import pending
from relaybot.core.events import standings_lines
from relaybot.core.game import waits_for_result, waits_for_td
from relaybot.core.ratings import rank_code, rank_name
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.mail.wording import result_text
from relaybot.store.models import Game, GameEvent, Member, RatingChange


def _kind_order(kind: str) -> tuple[int, str]:
    """Chess, shogi, go, then anything newer by name."""
    return (KINDS.index(kind) if kind in KINDS else len(KINDS), kind)


def game_row(member: Member, game: Game, people: dict[int, Member], books: Any,
              now: datetime) -> dict[str, Any]:
    """One of the reader's active games: the opponent, the side, whose move, and the
    clocks as the books count them (used, on the current move, left)."""
    colour = 0 if game.side0_id == member.id else 1
    opponent = people[game.side1_id if colour == 0 else game.side0_id]
    side = books.sides[colour]
    clock = pending(books, now)
    rules = rules_for(game.kind)
    # J14: unfinished 24 months after its start (in side 0's zone, as the sweep counts)
    side0 = member if colour == 0 else opponent
    since = game_with_td_since(game, rules, side0.tz, now)
    return {
        "id": game.id, "opponent": display_name(opponent.name, member.lang), "colour": colour,
        "side": rules.side_names(member.lang)[colour],
        # go after both passed: each player states the result, nobody is to move
        "stating": waits_for_result(rules, game.position),
        # go: the two results stated differ: the TD decides, nobody is asked for anything
        "with_td": waits_for_td(rules, game.position),
        # J14: the day it went to the TD for adjudication ("" before): the row says so
        # instead of the days left, which no longer lead to any deadline
        "duration_td": since.isoformat() if since is not None else "",
        # plies: the template says them as the game's players count moves (progress)
        "your_move": books.on_move == colour, "moves": game.ply_count, "kind": game.kind,
        # on one's move, what is left counts the days already on it (as the game's mail
        # does: "left after it"), so "used", "on it so far" and "left" add up
        "used": side.total, "control": control_number(books, colour, rules) or "",
        "left": clock.left if books.on_move == colour else side.left,
        "pending": clock.days if books.on_move == colour else 0,
    }


def result_row(game: Game, names: dict[int, str], lang: str) -> dict[str, Any]:
    """A finished game for the digest: the players, side 0 first, and the result in the
    reader's words. Shogi's and go's results name a side (先手の勝ち, B+3.5), so their
    rows say which player had it (``sides``); chess's "White - Black 1-0" says it by
    the order, as every chess list does."""
    return {"white": display_name(names.get(game.side0_id, "?"), lang),
            "black": display_name(names.get(game.side1_id, "?"), lang),
            "sides": None if game.kind == "chess" else list(rules_for(game.kind).side_names(lang)),
            "result": result_text(game.kind, game.result or "", game.termination or "", lang),
            "event": game.event or ""}


def correction_row(event: GameEvent, game: Game, names: dict[int, str],
                    reader: int, lang: str) -> dict[str, Any]:
    """A corrected result for the digest; the reader's own re-rating when they played."""
    mine = (event.detail.get("ratings") or {}).get(str(reader))
    return {**result_row(game, names, lang),
            "old": result_text(game.kind, event.detail.get("old", ""), "", lang),
            "new": result_text(game.kind, event.detail.get("new", ""),
                               game.termination or "", lang), "kind": game.kind,
            "rating": {"before": mine[0], "after": mine[1]} if mine else None}


def rating_rows(changes: dict[str, list[RatingChange]], lang: str) -> list[dict[str, Any]]:
    """D1: a member's rating changes since the previous digest, per game kind, in the
    club's order of kinds, each before and after as ``lang`` shows a rating."""
    return [{"kind": kind, "changes": [
                {"before": _shown(c.before, c.state_before, kind, lang),
                 "after": _shown(c.after, c.state_after, kind, lang)} for c in cs]}
            for kind, cs in sorted(changes.items(), key=lambda item: _kind_order(item[0]))]


def _shown(rating: int, state: dict[str, Any] | None, kind: str = "", lang: str = "en"
           ) -> str:
    """A rating as published: ``(1320)`` while provisional (R2: 仮レーティングは、すべて
    （1320）というように、カッコをつけて表示), from the state kept with the change; go
    points with the rank held, in the reader's words (``(86) 4級``, seed 004)."""
    shown = f"({rating})" if state and state.get("provisional") else str(rating)
    if kind == "go":
        held = str((state or {}).get("rank") or "") or rank_code(rating)
        shown += f" {rank_name(held, lang)}"
    return shown


def place(common: dict[str, Any], event_id: int, member: Member,
           letter: str | None) -> dict[str, Any] | None:
    """The member's standing in a league class (T3): class, rank of how many, wins
    (千日手・持将棋 as 0.5) and losses; None for an event that is no season's class."""
    if letter is None:
        return None
    rows = common["standings"][event_id]
    # rows name players by the stored "Family, Given" text, tagged when two share it
    me = common["standing_names"][event_id].get(member.id, member.name)
    row = next((r for r in rows if r.player == me), None)
    if row is None:
        return None
    return {"class": letter, "rank": row.rank, "size": len(rows),
            "wins": f"{row.points:g}", "losses": row.losses}


def table(common: dict[str, Any], event_id: int, lang: str) -> str:
    """An event's crosstable in a language, written once per run (every player reads it)."""
    tables = common.setdefault("tables", {})
    key = (event_id, lang)
    if key not in tables:
        rows = common["standings"][event_id]
        tables[key] = standings_lines(rows, lang) if rows else ""
    return str(tables[key])
