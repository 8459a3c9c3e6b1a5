"""A finished game's result read the same way everywhere: standings (T5), the J15 score
line, ratings (R1) and grades (R3).

Each game writes its results in its own words (chess ``1-0``, shogi ``sente``, go
``B+3.5``; INTERFACE "TD commands") and reads them back with its ``parse_result``; this
turns them into one side-0-first form, so no reader needs to know a game's words.
"""

from __future__ import annotations

from relaybot.games import rules_for
from relaybot.store.models import Game

FORMS = ("1-0", "0-1", "1/2-1/2", "0-0")

# Read when a game's rules are not installed here (a shogi club's database opened by a
# build without shogi): the words of INTERFACE "TD commands", side 0 first.
_WORDS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "0-0": "0-0",
          "sente": "1-0", "gote": "0-1", "先手勝ち": "1-0", "後手勝ち": "0-1",
          "draw": "1/2-1/2", "引き分け": "1/2-1/2", "both-lose": "0-0", "両者負け": "0-0"}


def result_margin(game: Game) -> float | None:
    """The winner's margin of a finished game that counts one (go ``B+3.5``: 3.5); None
    for a win by resignation, time or forfeit, a draw, or a game without margins."""
    text = (game.result or "").strip()
    if game.status != "finished" or not text:
        return None
    try:
        outcome = rules_for(game.kind).parse_result(text, game.termination or "")
    except ValueError:  # the game's rules are not installed here
        return None
    return None if outcome is None or outcome.winner is None else outcome.margin


def result_form(game: Game) -> str | None:
    """``1-0`` (side 0 won), ``0-1``, ``1/2-1/2`` or ``0-0`` (both lose: the shogi league's
    期限切れ) for a finished game; None for a void game or one without a result."""
    text = (game.result or "").strip()
    if game.status != "finished" or not text:
        return None
    try:
        rules = rules_for(game.kind)
    except ValueError:  # the game's rules are not installed here
        return _WORDS.get(text.lower())
    outcome = rules.parse_result(text, game.termination or "")
    if outcome is None or outcome.void:
        return None
    if outcome.both_lose:
        return "0-0"
    if outcome.winner is None:
        return "1/2-1/2"
    return "1-0" if outcome.winner == 0 else "0-1"
