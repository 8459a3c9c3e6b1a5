"""The chess record: PGN in the JCCA report form (J15), with python-chess."""

from __future__ import annotations

import chess
import chess.pgn

from relaybot.games.base import RecordInfo


def _pgn_date(text: str) -> str:
    return text.replace("-", ".") if text and text != "-" else "????.??.??"


def write_pgn(info: RecordInfo) -> str:
    """PGN with the J15 headers; each move carries its send date as a comment."""
    pgn = chess.pgn.Game()
    headers = pgn.headers
    headers["Event"] = info.event or "relaybot"
    headers["Site"] = info.site
    headers["Date"] = _pgn_date(info.start.isoformat())
    headers["Round"] = info.round or "-"
    headers["White"], headers["Black"] = info.players
    headers["Result"] = info.result or "*"
    white, black = info.ratings
    headers["WhiteJCCA"] = str(white) if white is not None else "-"
    headers["BlackJCCA"] = str(black) if black is not None else "-"
    headers["EndDate"] = _pgn_date(info.end.isoformat() if info.end else "")
    node: chess.pgn.GameNode = pgn
    for ply, day in info.moves:
        node = node.add_variation(chess.Move.from_uci(ply))
        node.comment = day
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)
