"""What a person reads about a game, as plain data for the templates."""

from __future__ import annotations

import inspect
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.daybooks import clock_context
from relaybot.club.gamefile import GameFile
from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.game import board_in, moves_in, waits_for_result
from relaybot.games.base import GameRules, RecordInfo
from relaybot.mail.wording import ending_text, result_text
from relaybot.store.models import Event, Member

UNSUBSCRIBE_SCOPE = tokens.UNSUBSCRIBE_SCOPE  # the one-click token's scope


def unsubscribe_token(cfg: Config, member_id: int) -> str:
    """The token of a member's one-click unsubscribe link (RFC 8058, the digest's
    ``List-Unsubscribe``); ``relaybot web`` verifies it with the same keys."""
    return tokens.issue(cfg.bot.token_keys()[0], UNSUBSCRIBE_SCOPE, str(member_id))


def shown_board(gf: GameFile, position: object, lang: str, viewer: int = 0, *,
                final: bool | None = None) -> str:
    """The board as text; a final board (by default: a finished game's) without whose
    turn it is, where the game draws one (``final_board_text``: chess and shogi leave out
    the side to move, go also "each states the result")."""
    over = gf.game.status == "finished" if final is None else final
    return board_in(gf.rules, position, lang, viewer, over=over)


def _states_result(gf: GameFile, position: str) -> bool:
    """Whether the game waits for the players to state its result, not for a move (a
    game may tell: go's ``states_result`` after both passed)."""
    return gf.game.status == "active" and waits_for_result(gf.rules, position)


def unsubscribe_path(cfg: Config, member_id: int) -> str:
    """The path of a member's one-click unsubscribe link on the web pages."""
    return f"/unsubscribe/{member_id}/{unsubscribe_token(cfg, member_id)}"


def event_start(session: Session, name: str | None) -> date | None:
    """The start date of the event named ``name`` (PGN's EventDate), None without one."""
    if not name:
        return None
    return session.scalar(select(Event.start_date).where(Event.name == name))


def local_date(moment: datetime | None, tz: str) -> str:
    """A date as the reader sees it in their own time zone (J6)."""
    if moment is None:
        return "-"
    return moment.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d")


def game_context(cfg: Config, gf: GameFile, reader: Member) -> dict[str, Any]:
    """Everything a player's mail shows about the game, in the reader's terms."""
    lang = reader.lang
    notation, letters = gf.notation_for(reader)
    plies = gf.plies
    position = gf.game.position  # the saved text: no board is built for a mail
    colour = gf.colour_of(reader.id)
    to_move = gf.rules.to_move(position)
    sides = gf.rules.side_names(lang)
    last = gf.moves[-1] if gf.moves else None
    previous = gf.moves[-2] if len(gf.moves) > 1 else None
    ctx: dict[str, Any] = {"clock_ok": False, "last_dates": []}
    if gf.books is not None and gf.now is not None:
        ctx = clock_context(gf.books, colour, gf.now, gf.rules, lang)
        ctx["last_dates"] = date_line(ctx)
    viewer = colour if colour is not None else 0  # each reads the board from their seat
    return ctx | {
        "game_id": gf.game.id,
        "label": gf.game.label or "",
        "game_address": cfg.bot.game_address(gf.game.id),
        "event": gf.game.event or "",
        "white": gf.white.name,
        "black": gf.black.name,
        "reader": reader.name,
        "side0": sides[0],  # the sides as the game names them (White/Black, 白/黒)
        "side1": sides[1],
        "record_policy": gf.rules.record_policy,
        "draw_offers": gf.rules.rule_set.draw_offers,  # go has none: the help leaves them out
        "game_kind": gf.rules.kind,  # not "kind": the error mail names its own
        "record_format": gf.rules.record_format.upper(),
        "game_keywords": sorted(gf.rules.keywords),  # shogi's 入玉宣言, ... (the help mail)
        "conditionals": gf.game.conditionals,
        "reader_colour": sides[colour] if colour is not None else "",
        "record": moves_in(gf.rules, record_text(gf, notation, letters) or "-", lang),
        "ply_count": len(plies),
        "board": shown_board(gf, position, lang, viewer),
        # the HTML part shows it as a picture (mail/html.py): the game's own PNG where it
        # draws one (fast), else its SVG, rasterised there
        **board_picture(gf.rules, position, viewer, last.canon if last else ""),
        "position_name": POSITION_NAMES.get(gf.rules.kind, ""),
        **_examples(gf.rules, position),
        "position": gf.rules.position_text(position),
        # the page as the mail shows the game: from the reader's seat, in their language
        "game_link": cfg.web.link(f"/games/{gf.game.id}?"
                                  + ("side=1&" if viewer == 1 else "") + f"lang={lang}"),
        "to_move_colour": sides[to_move],
        "to_move_name": gf.player(to_move).name,
        "your_move": colour == to_move and gf.game.status == "active",
        # go after both passed: the board itself asks for the result, not for a move
        "stating": _states_result(gf, position),
        "status": gf.game.status,
        "result": gf.game.result or "",
        # the result and its ending in the game's own words (issue 26: 先手の勝ち（投了）)
        "result_text": result_text(gf.rules.kind, gf.game.result or "",
                                   gf.game.termination or "", lang),
        "ending": ending_text(gf.rules.kind, gf.game.termination or "", lang),
        "termination": gf.game.termination or "",
        "time_control": gf.game.time_control,
        "start_date": gf.game.start_date.isoformat(),
        "last_sent": local_date(last.sent_at if last else None, reader.tz),
        "previous_sent": local_date(previous.sent_at if previous else None, reader.tz),
        "timezone": reader.tz,
        "draw_offer_by": (
            sides[gf.game.draw_offer_by] if gf.game.draw_offer_by is not None else ""
        ),
    }


def _examples(rules: GameRules, position: str) -> dict[str, Any]:
    """The examples a game gives on this game's board (go: ``G7`` on 9x9, not ``Q16``),
    by its optional ``example_points(saved)``; none for a game whose examples are
    fixed."""
    own: Any = getattr(rules, "example_points", None)
    return {"example_points": own(position)} if own is not None else {}


def board_picture(rules: GameRules, position: str, viewer: int,
                  last: str = "") -> dict[str, Any]:
    """``board_png`` (bytes) when the game draws one (``GameRules`` may offer
    ``board_png(position, viewer)``; it gives ``b""`` when it cannot draw here, as shogi
    without a CJK font), else ``board_svg`` for the mail layer to rasterise. ``last``: the
    last ply (canonical), for a game whose saved position does not keep it (chess: a
    FEN), passed to a drawing method that takes ``last`` to mark it."""
    loaded = rules.load(position)
    draw = getattr(rules, "board_png", None)
    png = draw(loaded, viewer, **marks(draw, last)) if callable(draw) else b""
    if isinstance(png, bytes) and png:
        return {"board_png": png, "board_svg": ""}
    return {"board_png": b"", "board_svg": board_svg(rules, loaded, viewer, last)}


def board_svg(rules: GameRules, position: Any, viewer: int, last: str = "") -> str:
    """The game's SVG board, the last move marked where the game's ``board_svg`` takes
    ``last`` (chess; shogi and go keep the last move in the position itself)."""
    return rules.board_svg(position, viewer, **marks(rules.board_svg, last))


def marks(draw: Any, last: str) -> dict[str, str]:
    """``{"last": last}`` for a drawing method that takes it, else nothing."""
    if not last:
        return {}
    try:
        takes = "last" in inspect.signature(draw).parameters
    except (TypeError, ValueError):
        return {}
    return {"last": last} if takes else {}


# what a game's saved position text is called, for the line that quotes it in a mail
POSITION_NAMES = {"chess": "FEN", "shogi": "SFEN"}


def date_line(clock: dict[str, Any]) -> list[dict[str, str]]:
    """The last move's three dates (J18) in the order they happened.

    A reply sent on the day of the relay comes before its deemed receipt (J6: the next
    day), so a fixed order would read backwards; on a tie the relay, then the receipt,
    then the reply. ``what`` is ``relayed``, ``received`` or ``sent``; the templates
    word it.
    """
    days = [("relayed", clock.get("last_relayed_day", "-"), 0),
            ("received", clock.get("last_receipt_day", "-"), 1),
            ("sent", clock.get("last_reply_day", "-"), 2)]
    if any(day == "-" for _, day, _ in days):
        return []
    return [{"what": what, "day": day} for what, day, _ in sorted(days, key=lambda d: d[1:])]


def record_text(gf: GameFile, notation: str, letters: str) -> str:
    """The record in a reader's notation from the stored moves, without replaying (J3)."""
    if len(gf.moves) != len(gf.plies) or any(not m.text for m in gf.moves):
        return gf.rules.format_record(gf.plies, notation, letters)
    return gf.rules.format_stored([(m.canon, m.text) for m in gf.moves], notation, letters)


def record_info(cfg: Config, gf: GameFile, *, standard: bool = False,
                event_date: date | None = None) -> RecordInfo:
    """What the game's record file says besides the moves (J15 for chess; with
    ``standard`` also what a reader's program expects)."""
    game = gf.game
    return RecordInfo(
        standard=standard, time_control=game.time_control, termination=game.termination or "",
        event_date=event_date,
        event=game.event or "", site=cfg.bot.record_site, start=game.start_date,
        round=game.round or "-", players=(gf.white.name, gf.black.name),
        ratings=(game.side0_rating, game.side1_rating), result=game.result or "",
        end=game.end_date,
        moves=[(m.canon, local_date(m.sent_at, cfg.bot.timezone)) for m in gf.moves],
        position=game.position)


def game_record(cfg: Config, gf: GameFile, fmt: str = "", *, standard: bool = False,
                event_date: date | None = None) -> str:
    """The game's record in its own format (chess: the JCCA report form, J15; KIF for
    shogi; SGF for go) or in ``fmt`` where the game writes that too (ValueError if not);
    ``standard``: the headers a reader's program expects (PGN: TimeControl, ...)."""
    return gf.rules.write_record(
        record_info(cfg, gf, standard=standard, event_date=event_date), fmt)


def record_file(cfg: Config, gf: GameFile, event_date: date | None = None) -> dict[str, str]:
    """The game's record as a file to download or attach: name, format and text."""
    fmt = gf.rules.record_format
    return {"name": f"{gf.game.id}.{fmt}", "format": fmt,
            "text": game_record(cfg, gf, standard=True, event_date=event_date)}
