"""What every page's games table says, shared by the data modules of the pages
(:mod:`relaybot.web.data`, :mod:`relaybot.web.game_data`, :mod:`relaybot.web.member_data`):
a game's line (players, moves, the result in the game's words, whose move it is and the
last day to reply), the players' names and a player's score in a game.

As everywhere in ``relaybot.web``: plain data for the templates, no mail address.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.deadlines import with_td_for_duration
from relaybot.club.results import result_form
from relaybot.core.clocks import pending
from relaybot.core.game import progress_of, waits_for_result, waits_for_td
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.mail.wording import result_text
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game, Member

KIND_NAMES = {"en": {"chess": "Chess", "shogi": "Shogi", "go": "Go"},
              "ja": {"chess": "チェス", "shogi": "将棋", "go": "囲碁"}}


def _result_words(game: Game, rules: Any, sides: tuple[str, str], lang: str) -> str:
    """A finished game's result as the page says it: in the game's own words where its
    plug-in has them (shogi 先手の勝ち, go 黒5目半勝ち: the same as the mail's), else as
    :func:`result_words` says a win or a draw."""
    if game.result == "*":  # J20: a game voided by a withdrawal ended with no result
        return result_words("Void", sides, lang)
    if any(getattr(rules, hook, None) is not None
           for hook in ("result_text_words", "result_words")):
        return result_text(game.kind, game.result or "", game.termination or "", lang)
    return result_words(game.result or "", sides, lang)


def result_words(result: str, sides: tuple[str, str], lang: str) -> str:
    """A finished game's result in the game's words: ``1-0`` is "White wins" in chess
    and 先手の勝ち in shogi; go's ``B+3.5`` is "Black wins by 3.5" or 黒の3目半勝ち."""
    ja = lang == "ja"
    wins = "{}の勝ち" if ja else "{} wins"
    if result in ("1-0", "0-1"):
        return wins.format(sides[0 if result == "1-0" else 1])
    if result in ("1/2-1/2", "jigo", "0"):
        return "引き分け" if ja else "Draw"
    if result == "Void":
        return "無効" if ja else "Void"
    if result == "-":
        return "双方負け" if ja else "Both lose"
    head, plus, how = result.partition("+")
    if plus and head.upper() in ("B", "W"):  # go: the side first named is Black
        side = sides[0 if head.upper() == "B" else 1]
        ways = {"R": ("中押し", "by resignation"), "T": ("時間切れ", "on time"),
                "F": ("反則", "by forfeit")}
        if how.upper() in ways:
            word = ways[how.upper()]
            return f"{side}の{word[0]}勝ち" if ja else f"{side} wins {word[1]}"
        try:
            margin = float(how)
        except ValueError:
            return result
        if ja:
            whole, half = int(margin), margin != int(margin)
            points = ("半目" if not whole else f"{whole}目半") if half else f"{whole}目"
            return f"{side}の{points}勝ち"
        return f"{side} wins by {margin:g}"
    return result


def name_of(member: Member | None, lang: str) -> str:
    """A player's name as the reader writes it; "?" when the member is not found."""
    return display_name(member.name, lang) if member is not None else "?"


def game_row(game: Game, people: dict[int, Member], lang: str,
             turns: dict[str, dict[str, str]] | None = None,
             events: set[str] | None = None) -> dict[str, Any]:
    """One line of a games table: players, moves as the game counts them, the result
    in the game's words or (``turns``) whose move it is and the last day to reply; the
    event linked only when it exists (``events``: the names that do; None: all)."""
    rules = rules_for(game.kind)
    sides = rules.side_names(lang)
    moves = progress_of(rules, game.ply_count).move  # chess 3 after 3... Nf6; shogi 6
    turn = (turns or {}).get(game.id, {})
    return {
        "id": game.id, "kind": KIND_NAMES[lang].get(game.kind, game.kind),
        "event": game.event or "", "status": game.status, "result": game.result or "",
        "event_exists": bool(game.event) and (events is None or game.event in events),
        "round": game.round if game.round not in ("", "-") else "",
        "side0": sides[0], "side1": sides[1],
        "white": name_of(people.get(game.side0_id), lang), "white_id": game.side0_id,
        "black": name_of(people.get(game.side1_id), lang), "black_id": game.side1_id,
        "moves": moves, "start": game.start_date.isoformat(),
        "end": game.end_date.isoformat() if game.end_date else "",
        "result_words": _result_words(game, rules, sides, lang) if game.result else "",
        "to_move": turn.get("side", ""), "to_move_name": turn.get("name", ""),
        "deadline": turn.get("deadline", ""), "stating": bool(turn.get("stating")),
        "disputed": bool(turn.get("disputed")),
        # J14: unfinished 24 months after its start: with the TD, no last day to reply
        "with_td": bool(turn.get("with_td")),
    }


def turns_of(session: Session, games: list[Game], lang: str,
             now: datetime) -> dict[str, dict[str, str]]:
    """For each game being played: the side to move, its player and the last day to
    reply (J8, J9; none during an open pause, nor once the game is with the TD: J14's
    ``with_td``, go's ``disputed``)."""
    out: dict[str, dict[str, str]] = {}
    for game in games:
        if game.status != "active":
            continue
        gf = load_game(session, game, now)
        if gf.books is None:
            colour, deadline = gf.rules.to_move(gf.rules.load(game.position)), ""
        else:
            due = pending(gf.books, now)
            colour = due.colour
            deadline = ((due.overrun_day - timedelta(days=1)).isoformat()
                        if due.overrun_day is not None else "")
        # J14: unfinished 24 months after its start: the TD adjudicates, no reply is due
        with_td = "1" if with_td_for_duration(gf, now) is not None else ""
        if with_td:
            deadline = ""
        if waits_for_result(gf.rules, game.position):  # go after both passed: nobody
            disputed = waits_for_td(gf.rules, game.position)  # the TD's: no day is due
            out[game.id] = {"stating": "1", "deadline": "" if disputed else deadline,
                            "disputed": "1" if disputed else "",  # moves; both state it
                            "with_td": with_td}
            continue
        out[game.id] = {"side": gf.rules.side_names(lang)[colour],
                        "name": name_of(gf.player(colour), lang), "deadline": deadline,
                        "with_td": with_td}
    return out


def people_of(session: Session, games: list[Game]) -> dict[int, Member]:
    """The players of ``games`` by member id, read in one query."""
    ids = {g.side0_id for g in games} | {g.side1_id for g in games}
    if not ids:
        return {}
    return {m.id: m for m in session.scalars(select(Member).where(Member.id.in_(ids)))}


def score_of(game: Game, member_id: int) -> float | None:
    """The member's score in a finished game (1, ½, 0), None when it does not count."""
    form = result_form(game)
    if form is None:
        return None
    mine = form.split("-")[0 if game.side0_id == member_id else 1]
    return 0.5 if mine == "1/2" else float(mine)
