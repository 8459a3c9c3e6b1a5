"""Chess (python-chess): the only package that imports ``chess``.

``RULES`` is what the registry hands out for ``kind == "chess"``.
"""

from relaybot.games.chess import reasons as _reasons  # noqa: F401  (its words, added on import)
from relaybot.games.chess.rules import RULES, ChessRules

__all__ = ["RULES", "ChessRules"]
