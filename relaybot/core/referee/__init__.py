"""The referee: one player's mail against one game, decided as a value.

``decide`` is pure: it gets the stored game, who sent the mail and the mail's
text, and returns a ``Verdict`` saying what to apply and what to answer. The
service turns a verdict into database rows and outbox mail. Nothing here does
I/O or reads a clock. It reads the mail once (a ``Mail``) and runs the small named
checks of ``CHECKS`` on it in order: each answers with a ``Verdict`` or passes, and
the first answer is the verdict.

The J1 check is O(new plies): the mail's earlier moves are compared with the
record as comparison keys (``token_key`` against the stored ``ply_keys``); only
a token that misses its key (a localised letter, say) is parsed on a replayed
board, and only new plies are played on the stored position.

The values are :mod:`.verdict`; the mail read against the game, :mod:`.mail`; the
checks and ``decide``, :mod:`.checks`.
"""

from relaybot.core.referee.checks import CHECKS, Check, decide
from relaybot.core.referee.mail import Mail, Moved, first_difference
from relaybot.core.referee.verdict import PENALTY_DAYS, StoredGame, Verdict, VerdictKind

__all__ = [
    "CHECKS",
    "PENALTY_DAYS",
    "Check",
    "Mail",
    "Moved",
    "StoredGame",
    "Verdict",
    "VerdictKind",
    "decide",
    "first_difference",
]
