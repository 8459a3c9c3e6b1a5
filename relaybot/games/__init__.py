"""Games behind one protocol (``base.GameRules``); chess now, shogi and go later."""

from __future__ import annotations

from relaybot.games.base import GameRules


def rules_for(kind: str) -> GameRules:
    """The rules object for a game kind; a ValueError names an unknown kind."""
    if kind == "chess":
        from relaybot.games.chess import RULES

        return RULES
    raise ValueError(f"unknown game kind {kind!r} (known: chess)")
