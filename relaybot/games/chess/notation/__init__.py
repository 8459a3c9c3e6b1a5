"""Player text -> chess moves and back (J1-J4), on top of python-chess.

Pure: no I/O, no clock. The referee uses :func:`extract_record` to find the
record in a mail, :func:`token_key`/:func:`ply_keys` for the fast whole-game
comparison (J1), :func:`parse_move` for anything that does not match and for
the new move (J2-J4), and :func:`format_move`/:func:`format_record` to write
each player's mail in that player's notation (J3).
"""

from relaybot.games.chess.notation.moves import (
    ParsedMove,
    format_move,
    format_record,
    format_stored,
    letter_set,
    numeric_move,
    parse_move,
    parse_move_ex,
    ply_keys,
    stored_move_text,
)
from relaybot.games.chess.notation.record import extract_record
from relaybot.games.chess.notation.text import (
    LETTER_SETS,
    looks_like_move,
    normalise_text,
    token_key,
)

__all__ = [
    "LETTER_SETS",
    "ParsedMove",
    "extract_record",
    "format_move",
    "format_record",
    "format_stored",
    "letter_set",
    "looks_like_move",
    "normalise_text",
    "numeric_move",
    "parse_move",
    "parse_move_ex",
    "ply_keys",
    "stored_move_text",
    "token_key",
]
