"""Go (囲碁) by mail, on sgfmill: boards 19, 13 and 9, handicap and komi (seed 004)."""

from relaybot.games.go import reasons as _reasons  # noqa: F401  (its words, added on import)
from relaybot.games.go.rules import RULES, GoRules

__all__ = ["RULES", "GoRules"]
