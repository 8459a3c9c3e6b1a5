"""Conditional proposals (予想手, J16) for any game: values, checking, following.

A proposal is a *line* of plies starting with the opponent's predicted reply:
``[predicted, answer, predicted, answer, ...]``; the proposer is bound by every
accepted line until the reply arrives (J16). Reading proposals from mail text is the
game's (``GameRules.read_proposals``); checking and following them is here.
"""

from relaybot.core.conditionals.tree import follow, forces_win, format_conditional, validate
from relaybot.core.conditionals.values import (
    CONTRADICTION_PENALTY_DAYS,
    MAX_LINE_PLIES,
    Conditional,
    FollowKind,
    FollowResult,
    FollowStep,
    Mode,
    Rejected,
    RejectReason,
)
from relaybot.core.game import ProposalLine

__all__ = [
    "CONTRADICTION_PENALTY_DAYS",
    "MAX_LINE_PLIES",
    "Conditional",
    "FollowKind",
    "FollowResult",
    "FollowStep",
    "Mode",
    "ProposalLine",
    "RejectReason",
    "Rejected",
    "follow",
    "forces_win",
    "format_conditional",
    "validate",
]
