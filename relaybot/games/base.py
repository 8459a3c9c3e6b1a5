"""What a game plug-in implements: the protocol and values of :mod:`relaybot.core.game`.

Re-exported here so that a game package reads ``from relaybot.games.base import ...``.
"""

import unicodedata

from relaybot.core.game import (
    Declared,
    GameRules,
    MoveError,
    MoveErrorKind,
    Outcome,
    Progress,
    ProposalLine,
    RecordInfo,
    RecordPolicy,
    RecordText,
    RuleSet,
    Termination,
)

__all__ = ["Declared", "GameRules", "MoveError", "MoveErrorKind", "Outcome", "Progress",
           "ProposalLine", "RecordInfo", "RecordPolicy", "RecordText", "RuleSet", "Termination",
           "one_line"]


def one_line(text: str) -> str:
    """A record header's value (a member's or an event's name) kept on its one line:
    control characters (CR, LF, tab, NEL, ...) and the line and paragraph separators as
    spaces, so a name can never start a header line of its own in a KIF, CSA or PGN
    file."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in text)
