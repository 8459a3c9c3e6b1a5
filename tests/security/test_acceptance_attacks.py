"""Outside acceptance attacks on "Who may act", the TD commands and the one reading
(INTERFACE.md), replayed through the real Dovecot.

Every test's docstring starts with "attack -> outcome": docs/security.md is generated
from them (scripts/security_table.py).
"""

from __future__ import annotations

import pytest

from tests.integration.relay_harness import Club
from tests.security.test_identity import deliver, game_of, holds, two_players
from tests.security.test_one_reading import request_address

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("prose", [
    "Rest assured it was me.", "Result: I sent it from my phone.",
    "Answer: yes, that was me.", "Free to confirm, of course.",
])
def test_g12_a_players_confirm_with_prose_starting_like_a_td_command_confirms(
        club: Club, prose: str) -> None:
    """a player's own held resignation, the reply to the request says "confirm" and a line
    of prose that starts like a TD command word -> confirmed (a player's command lines do
    nothing, so they are no new mail that drops the hold)"""
    white, _black, gid = two_players(club)
    plain = white.compose("resign", to=f"relay+{gid}@club.example", subject=f"[{gid}]")
    assert deliver(club, plain) == {"held": 1}
    reply = white.compose(f"confirm\n{prose}", to=request_address(club, white),
                          subject="Re: confirm")
    assert deliver(club, reply) == {"confirmed": 1}
    assert holds(club) == [("confirmed", gid)]
    assert game_of(club, gid).status == "finished"

