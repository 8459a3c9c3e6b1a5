"""Games by name: the one place that knows which game packages exist.

Like python-chess's variant list, the registry is a fixed table of names to
modules; a module is imported the first time its game is asked for, so running a
chess club never loads shogi or go. A game package exposes ``RULES``, an object
implementing :class:`relaybot.games.base.GameRules`. Tests and plug-ins outside
the package add a game with :func:`register`.
"""

from __future__ import annotations

import importlib

from relaybot.games.base import GameRules

# kind -> module holding RULES; a new game is one line here and one package
_BUILTIN: dict[str, str] = {
    "chess": "relaybot.games.chess",
    "shogi": "relaybot.games.shogi",
    "go": "relaybot.games.go",
}
_LOADED: dict[str, GameRules] = {}


def register(rules: GameRules) -> None:
    """Make ``rules`` the game of kind ``rules.kind`` (replacing any before it)."""
    _LOADED[rules.kind] = rules


def unregister(kind: str) -> None:
    """Forget a game added with :func:`register` (for tests)."""
    _LOADED.pop(kind, None)


def kinds() -> list[str]:
    """Every game kind that can be played, built-in first."""
    return [*_BUILTIN, *(k for k in _LOADED if k not in _BUILTIN)]


def rules_for(kind: str) -> GameRules:
    """The rules of a game kind; a ValueError names an unknown kind."""
    rules = _LOADED.get(kind)
    if rules is not None:
        return rules
    module = _BUILTIN.get(kind)
    if module is None:
        raise ValueError(f"unknown game kind {kind!r} (known: {', '.join(kinds())})")
    loaded: GameRules = importlib.import_module(module).RULES
    _LOADED[kind] = loaded
    return loaded
