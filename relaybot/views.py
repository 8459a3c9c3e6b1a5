"""What a person reads about a game, as plain data for the templates."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from relaybot.books import clock_context
from relaybot.config import Config
from relaybot.gamefile import GameFile
from relaybot.games.base import RecordInfo
from relaybot.store.models import Member


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
    ctx: dict[str, Any] = {"clock_ok": False}
    if gf.books is not None and gf.now is not None:
        ctx = clock_context(gf.books, colour, gf.now)
        if ctx["last_ply"] >= 0:  # numbered as the game numbers moves (15手目 in shogi)
            ctx["last_label"] = gf.rules.move_number(ctx["last_ply"])
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
        "game_kind": gf.rules.kind,  # picks the game's part of a mail (_how_<kind>.txt.j2)
        "conditionals": gf.game.conditionals,  # J16: binding, optional (seed 002 rule 16), off
        "record_format": gf.rules.record_format.upper(),
        "reader_colour": sides[colour] if colour is not None else "",
        "record": record_text(gf, notation, letters) or "-",
        "ply_count": len(plies),
        "board": gf.rules.board_text(position, lang, colour or 0),  # from the reader's seat
        "to_move_colour": sides[to_move],
        "to_move_name": gf.player(to_move).name,
        "your_move": colour == to_move and gf.game.status == "active",
        "status": gf.game.status,
        "result": gf.game.result or "",
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


def record_text(gf: GameFile, notation: str, letters: str) -> str:
    """The record in a reader's notation from the stored moves, without replaying (J3)."""
    if len(gf.moves) != len(gf.plies) or any(not m.text for m in gf.moves):
        return gf.rules.format_record(gf.plies, notation, letters)
    return gf.rules.format_stored([(m.canon, m.text) for m in gf.moves], notation, letters)


def record_info(cfg: Config, gf: GameFile) -> RecordInfo:
    """What the game's record file says besides the moves (J15 for chess)."""
    game = gf.game
    return RecordInfo(
        event=game.event or "", site=cfg.bot.site, start=game.start_date,
        round=game.round or "-", players=(gf.white.name, gf.black.name),
        ratings=(game.side0_rating, game.side1_rating), result=game.result or "",
        end=game.end_date, termination=game.termination or "",
        moves=[(m.canon, local_date(m.sent_at, cfg.bot.timezone)) for m in gf.moves],
        position=game.position)


def game_record(cfg: Config, gf: GameFile, fmt: str = "") -> str:
    """The game's record in its own format (PGN for chess, J15; KIF for shogi), or in
    ``fmt`` where the game writes that too (ValueError if not)."""
    return gf.rules.write_record(record_info(cfg, gf), fmt)
