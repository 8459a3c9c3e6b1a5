"""One clock for the whole run (issue 13, item 9; INTERFACE ``run --once --now``): with
``--now T`` every reply composed in the run counts days at T, not on the wall clock.
Arrival times still come from INTERNALDATE."""

from __future__ import annotations

import re

from tests.integration.relay_harness import Club, body_of


def test_j18_a_reply_in_a_run_with_now_counts_days_at_that_now(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    club.cycle()
    white.send("1. e4", to=white.game_address(gid))
    club.cycle()
    # Black's faulty reply, two days later in the club's calendar (the wall clock is
    # months later): the error reply's clock must be the run's, 2026-03
    black.send("1. e4 Kxe9", to=black.game_address(gid))
    club.cycle()
    reply = body_of(black.inbox()[-1]).replace("\r\n", "\n")
    days = re.search(r"On the current move so far: (\d+) day", reply)
    assert days is not None, reply
    assert int(days.group(1)) <= 2, reply
    assert "your new move.\nGame address:" in reply  # what to send, then the address
