"""What a game's own page shows, read from the store as plain data for the template:
the board from either seat and each position of its replay (the pictures, or the board
as text), the record with the days each move was sent, the clocks; and the record file
to download.

No ORM object reaches the template, and no mail address is ever put into it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from relaybot.club.daybooks import clock_context
from relaybot.club.deadlines import with_td_for_duration
from relaybot.club.gamefile import GameFile
from relaybot.club.views import POSITION_NAMES, event_start, local_date, record_file
from relaybot.config import Config
from relaybot.core.clocks import pending
from relaybot.core.game import (
    board_in,
    moves_in,
    replay_from,
    start_of,
    stated_results,
    waits_for_result,
    waits_for_td,
)
from relaybot.games import rules_for
from relaybot.mail.wording import ending_text, result_text
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game
from relaybot.web.game_rows import game_row, name_of


def game_page(session: Session, cfg: Config, game: Game, lang: str, viewer: int,
              now: datetime) -> dict[str, Any]:
    """One game: board from side ``viewer``'s seat and each position of its replay (a
    picture per ply from :func:`board_image`), the record with send dates, clocks."""
    gf = load_game(session, game, now)
    rules = gf.rules
    position = rules.load(game.position)
    sides = rules.side_names(lang)
    row = game_row(game, {gf.white.id: gf.white, gf.black.id: gf.black}, lang)
    frames = _frames(rules, game, gf.plies, [m.text or m.canon for m in gf.moves], sides,
                     lang, final_words(game, row["result_words"], lang))
    rows: list[dict[str, Any]] = []
    for m in gf.moves:  # one row per move number: White's and Black's ply side by side
        number = rules.move_number(m.ply, "en").rstrip(".").removeprefix("move ")
        cell = {"ply": m.ply + 1, "text": frames[m.ply + 1]["move"],
                "label": frames[m.ply + 1]["label"],
                # the day the mover sent it, in the mover's own zone (the days a
                # player's clock counts are theirs)
                "sent": local_date(m.sent_at, gf.player((gf.first_mover + m.ply) % 2).tz)}
        if rows and rows[-1]["number"] == number:
            rows[-1]["plies"].append(cell)
        else:
            rows.append({"number": number, "plies": [cell]})
    clock: dict[str, Any] = {"clock_ok": False}
    if game.status == "active" and gf.books is not None:
        clock = clock_context(gf.books, None, now, gf.rules, lang)
        due = pending(gf.books, now)
        clock["deadline"] = (due.overrun_day - timedelta(days=1)).isoformat() \
            if due.overrun_day is not None else ""
        clock["paused"] = due.overrun_day is None  # J12, J13: an open leave or question
        stating = waits_for_result(rules, position)
        clock["stating"] = stating
        # what each side stated so far (go's counting): the page says who still has to,
        # or that two different results went to the TD
        claims = stated_results(rules, position) if stating else ("", "")
        clock["stated"] = [{"side": sides[c], "result": result_text(game.kind, claim, "", lang)}
                           for c, claim in enumerate(claims) if claim]
        clock["disputed"] = waits_for_td(rules, position)
        if clock["disputed"]:  # the last position waits for the TD, not for the players
            frames[-1]["alt"] = (f"{frames[-1]['label']}まで、結果はTDの裁定待ち"
                                 if lang == "ja" else
                                 f"After {frames[-1]['label']}, the result is with the "
                                 "tournament director")
        # J14: unfinished 24 months after its start, the game ended and is with the TD: no
        # day to reply by is named, the page says since when instead
        since = with_td_for_duration(gf, now)
        clock["duration_td"] = since.isoformat() if since is not None else ""
        if since is not None:
            clock["deadline"] = ""
        clock["to_move"] = "" if stating else sides[due.colour]
        clock["to_move_name"] = "" if stating else name_of(gf.player(due.colour), lang)
    return row | clock | {
        "viewer": viewer, "frames": frames, "last_ply": len(frames) - 1,
        "board_text": board_in(rules, position, lang, viewer,
                               over=game.status != "active"),
        "position": rules.position_text(game.position),
        "terms": rules.terms_text(position, lang),
        "position_name": POSITION_NAMES.get(game.kind, ""),
        "game_kind": game.kind,  # the page's words for a move are the game's (go 着手)
        "move_rows": rows,  # paired: a move number has two plies (chess)
        "paired": rules.move_number(0, "en").rstrip(".") == rules.move_number(1, "en")
        .rstrip("."),
        "time_control": game.time_control, "end": game.end_date.isoformat()
        if game.end_date else "", "termination": game.termination or "",
        "ending": ending_text(game.kind, game.termination or "", lang),
        "record_format": rules.record_format.upper(),
        "timezone": cfg.bot.timezone,
        "zones": game_zones(gf, sides),
    }


def game_zones(gf: GameFile, sides: tuple[str, str]) -> list[dict[str, str]]:
    """The zones a game's dates are in (issue 26 item 5): one when both players share it,
    else each side's (``[{"side": "White", "zone": "Europe/Berlin"}, ...]``); the page
    names them in words (the ``zone`` filter), never the club's zone for someone else's
    game."""
    zones = (gf.white.tz, gf.black.tz)
    if zones[0] == zones[1]:
        return [{"side": "", "zone": zones[0]}]
    return [{"side": sides[colour], "zone": zones[colour]} for colour in (0, 1)]


def final_words(game: Game, result_words: str, lang: str) -> str:
    """What a game that is no longer being played says instead of whose move it is:
    its result and how it ended (``Sente wins (resignation)``, ``黒4目半勝ち（TDの
    裁定）``), or that the TD suspended it; "" while it is being played."""
    if game.status == "active":
        return ""
    if game.status == "suspended":  # J20: a withdrawal the TD left undecided
        return "TDの判断で中断中" if lang == "ja" else "suspended by the tournament director"
    result = result_words or game.result or ""
    ending = ending_text(game.kind, game.termination or "", lang) if game.termination else ""
    if not ending:
        return result
    return f"{result}（{ending}）" if lang == "ja" else f"{result} ({ending})"


def _frames(rules: Any, game: Game, plies: list[str], texts: list[str],
            sides: tuple[str, str], lang: str, over: str = "") -> list[dict[str, Any]]:
    """Each position of the replay, from the start (0) to after the last ply: the move
    that led to it (as the record writes it) and a sentence saying so and whose turn it
    is, the picture's text alternative. ``over`` (:func:`final_words`): the game is no
    longer played, and its last position says so instead of naming a side to move."""
    board = start_of(rules, game.position)
    if not plies:
        board = rules.load(game.position)
    frames: list[dict[str, Any]] = []
    for n in range(len(plies) + 1):
        if n:
            rules.play(board, plies[n - 1])
        text = moves_in(rules, texts[n - 1], lang) if n and n <= len(texts) \
            else (plies[n - 1] if n else "")
        label = moves_in(rules, rules.move_label(n - 1, text), lang) if n else ""
        side = sides[rules.to_move(board)]
        if over and n == len(plies):  # a finished game: nobody is to move any more
            alt = (f"{label}まで、{over}" if lang == "ja" and n else
                   f"開始局面、{over}" if lang == "ja" else
                   f"After {label}: {over}" if n else f"Start: {over}")
        elif n and waits_for_result(rules, board):  # go: both passed, no one is to move
            alt = (f"{label}まで、両者が結果を申告" if lang == "ja" else
                   f"After {label}, both players state the result")
        elif lang == "ja":
            alt = (f"{label}まで、{side}の手番" if n else f"開始局面、{side}の手番")
        else:
            alt = (f"After {label}, {side} to move" if n else f"Start, {side} to move")
        frames.append({"ply": n, "move": text, "label": label, "alt": alt})
    return frames


def board_image(game: Game, ply: int, viewer: int,
                text_lang: str = "") -> tuple[bytes, str] | None:
    """The picture of the game's position after ``ply`` plies from ``viewer``'s seat, as
    the mail draws it (the game's PNG; its SVG where it draws none here): the bytes and
    their media type; with ``text_lang`` the board as text in that language instead
    (the picture's long text alternative: pieces in hand, captures, whose move). None
    when the game has no such ply."""
    rules = rules_for(game.kind)
    plies = game.plies.split()
    if not 0 <= ply <= len(plies):
        return None
    position = (replay_from(rules, game.position, plies[:ply]) if plies
                else rules.load(game.position))
    if text_lang:
        # the last position of a finished game names no side to move, as the page's does
        over = game.status != "active" and ply == len(plies)
        return (board_in(rules, position, text_lang, viewer, over=over).encode("utf-8"),
                "text/plain; charset=utf-8")
    draw = getattr(rules, "board_png", None)
    png = draw(position, viewer) if callable(draw) else b""
    if isinstance(png, bytes) and png:
        return png, "image/png"
    return rules.board_svg(position, viewer).encode("utf-8"), "image/svg+xml"


def record_download(session: Session, cfg: Config, game: Game) -> dict[str, str]:
    """The game's record file (the game plug-in's ``write_record``, standard headers)."""
    gf = GameFile.load(session, game)
    return record_file(cfg, gf, event_start(session, game.event))
