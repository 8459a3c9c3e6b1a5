"""Games as plug-ins: one package per game behind one protocol, found by name.

``rules_for("chess")`` (:mod:`.registry`) is how the core's callers and the shells
get a game; nothing outside a game's package imports its library.
"""

from relaybot.games.registry import kinds, register, rules_for

__all__ = ["kinds", "register", "rules_for"]
