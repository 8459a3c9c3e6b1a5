"""The chess record: PGN in the JCCA report form (J15), with python-chess."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import chess

from relaybot.games.base import RecordInfo, one_line

if TYPE_CHECKING:
    import chess.pgn

# chess.pgn (and chess.engine, which it imports) is imported when a record is written,
# not when the game package is: `relaybot game show` and the referee never need it


def pgn_tag_value(text: str) -> str:
    """A PGN tag's value as the standard writes a string (section 7, strings): a backslash as
    ``\\\\``, a quote as ``\\"``, on one line (a PGN string holds no tab or line break),
    so no name can close the tag early and add tags of its own."""
    return one_line(text).replace("\\", "\\\\").replace('"', '\\"')


@cache
def _exporter_class() -> type[chess.pgn.StringExporter]:
    """python-chess's exporter (1.11 writes tag values as they are), escaping them."""
    import chess.pgn

    class _Exporter(chess.pgn.StringExporter):
        def visit_header(self, tagname: str, tagvalue: str) -> None:
            super().visit_header(tagname, pgn_tag_value(tagvalue))

    return _Exporter


def _new_game() -> chess.pgn.Game:
    import chess.pgn

    return chess.pgn.Game()


def _pgn_date(text: str) -> str:
    return text.replace("-", ".") if text and text != "-" else "????.??.??"


# PGN standard 9.8.1 Termination values for the bot's Termination names; the rest of a
# played-out game (mate, resignation, an agreed or claimed draw) is "normal"
_TERMINATIONS = {
    "time": "time forfeit", "forfeit": "rules infraction", "adjudication": "adjudication",
    "withdrawal_lost": "abandoned", "withdrawal_void": "abandoned", "": "unterminated",
}
_DAY = 86400


def pgn_time_control(control: str) -> str:
    """The bot's time control as PGN's TimeControl tag writes it (seconds; 9.6.1).

    ``10/30`` (cumulative: 10 moves in every 30 days, J8) is ``10/2592000``; ``bank:20``
    (20 days in all) is sudden death ``1728000``; anything else is ``?`` (unknown).
    """
    moves, slash, days = control.partition("/")
    if slash and moves.isdigit() and days.isdigit():
        return f"{int(moves)}/{int(days) * _DAY}"
    kind, colon, days = control.partition(":")
    if colon and kind == "bank" and days.isdigit():
        return str(int(days) * _DAY)
    return "?"


def write_pgn(info: RecordInfo) -> str:
    """PGN with the J15 headers (or, ``info.standard``, the standard ones); each move
    carries its send date as a comment."""
    if info.standard:
        return _standard_pgn(info)
    pgn = _new_game()
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
    return _moves(pgn, info)


def _standard_pgn(info: RecordInfo) -> str:
    """PGN as programs and servers write it: the seven tags, then EventDate, the Elo
    tags where ratings are known, TimeControl, Termination and Mode "EM" (email)."""
    pgn = _new_game()
    headers = pgn.headers
    headers["Event"] = info.event or "?"
    headers["Site"] = info.site or "?"
    headers["Date"] = _pgn_date(info.start.isoformat())
    headers["Round"] = info.round or "-"
    headers["White"], headers["Black"] = info.players
    headers["Result"] = info.result or "*"
    if info.event_date is not None:
        headers["EventDate"] = _pgn_date(info.event_date.isoformat())
    for tag, rating in zip(("WhiteElo", "BlackElo"), info.ratings, strict=True):
        if rating is not None:
            headers[tag] = str(rating)
    headers["TimeControl"] = pgn_time_control(info.time_control)
    headers["Termination"] = _TERMINATIONS.get(info.termination, "normal")
    headers["Mode"] = "EM"
    return _moves(pgn, info)


def _moves(pgn: chess.pgn.Game, info: RecordInfo) -> str:
    node: chess.pgn.GameNode = pgn
    for ply, day in info.moves:
        node = node.add_variation(chess.Move.from_uci(ply))
        node.comment = day
    exporter = _exporter_class()(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)
