"""Shogi (python-shogi): the only package that imports ``shogi``.

``RULES`` is what the registry hands out for ``kind == "shogi"``.
"""

from relaybot.games.shogi import reasons as _reasons  # noqa: F401  (its words, added on import)
from relaybot.games.shogi.rules import RULES, ShogiRules

__all__ = ["RULES", "ShogiRules"]
