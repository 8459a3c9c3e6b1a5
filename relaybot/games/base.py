"""What a game plug-in implements: the protocol and values of :mod:`relaybot.core.game`.

Re-exported here so that a game package reads ``from relaybot.games.base import ...``.
"""

from relaybot.core.game import (
    Declared,
    GameRules,
    MoveError,
    MoveErrorKind,
    Outcome,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
    Termination,
)

__all__ = ["Declared", "GameRules", "MoveError", "MoveErrorKind", "Outcome", "ProposalLine",
           "RecordInfo", "RecordPolicy", "RecordText", "RuleSet", "Termination"]
