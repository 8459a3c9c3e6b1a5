"""The game as PGN in the JCCA report form (J15)."""

from __future__ import annotations

import chess
import chess.pgn
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.views import GameFile, local_date


def _pgn_date(text: str) -> str:
    return text.replace("-", ".") if text and text != "-" else "????.??.??"


def game_pgn(session: Session, cfg: Config, gf: GameFile) -> str:
    """PGN with the J15 headers; each move carries its send date as a comment."""
    game = gf.game
    pgn = chess.pgn.Game()
    headers = pgn.headers
    headers["Event"] = game.event or "relaybot"
    headers["Site"] = cfg.bot.site
    headers["Date"] = _pgn_date(game.start_date.isoformat())
    headers["Round"] = game.round or "-"
    headers["White"] = gf.white.name
    headers["Black"] = gf.black.name
    headers["Result"] = game.result or "*"
    headers["WhiteJCCA"] = str(game.side0_rating) if game.side0_rating is not None else "-"
    headers["BlackJCCA"] = str(game.side1_rating) if game.side1_rating is not None else "-"
    headers["EndDate"] = _pgn_date(game.end_date.isoformat() if game.end_date else "")
    node: chess.pgn.GameNode = pgn
    for move in gf.moves:
        node = node.add_variation(chess.Move.from_uci(move.canon))
        node.comment = local_date(move.sent_at, cfg.bot.timezone)
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)
