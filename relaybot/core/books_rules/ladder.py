"""The ladder (梯子段 1-game match): 挑戦する上位者を指名して申込みください."""

from __future__ import annotations


class LadderError(ValueError):
    """A challenge the ladder does not allow."""


def challenge_allowed(order: list[str], challenger: str, defender: str) -> None:
    """Check that ``challenger`` names a higher player (a newcomer, not yet on the ladder,
    may challenge anyone on it); LadderError otherwise."""
    if challenger == defender:
        raise LadderError("a player cannot challenge themself")
    if defender not in order:
        raise LadderError("the challenged player is not on the ladder")
    if challenger in order and order.index(challenger) < order.index(defender):
        raise LadderError("a challenge names a higher player on the ladder")


def ladder_after(order: list[str], challenger: str, defender: str, winner: str | None
                 ) -> list[str]:
    """The ladder after one challenge: a newcomer joins at the bottom; a challenger who
    wins takes the defender's place and everyone from there down to the challenger's old
    place moves one down; a defender's win or a draw changes nothing else."""
    new = list(order)
    if challenger not in new:
        new.append(challenger)
    if winner == challenger and defender in new:
        new.remove(challenger)
        new.insert(new.index(defender), challenger)
    return new
