"""J19: every mail about a game is in its export (issue 13, item 5): a mail moving several
games (J17), a question and its acknowledgement (J13), a leave (J12) and a TD's command
mail with its confirmation, besides the game's own moves."""

from __future__ import annotations

import mailbox
from datetime import timedelta

from tests.integration.relay_harness import Club, Player

TD = "td@club.example"


def _exported(club: Club, gid: str) -> list[str]:
    """The mails in the game's export, in order: a player's by subject, the bot's by kind."""
    path = club.workdir / f"{gid}.mbox"
    club.cli("game", "export", gid, "--out", str(path))
    return [str(m["X-Relaybot-Kind"] or m["Subject"]) for m in mailbox.mbox(str(path))]


def test_j19_every_mail_about_a_game_is_in_its_export(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    a = club.game(white, black)
    b = club.game(white, black)
    club.cycle()
    white.send("Two games at once.\n\nA: 1. e4\n\nB: 1. d4\n", to=white.game_address(a),
               subject="sections A and B")
    club.cycle()
    black.send("td: may I take back a misprint?", to=black.game_address(a),
               subject="question on A")
    club.cycle()
    d0 = (club.clock + timedelta(days=2)).date()
    black.send(f"leave {d0} {d0 + timedelta(days=4)}", to=black.member_address(),
               subject="leave for both")
    club.cycle()
    Player("TD", TD, club).send(f"adjudicate {b} 1/2-1/2", to=club.token_address(TD),
                                subject="ruling on B")
    club.cycle()
    in_a, in_b = _exported(club, a), _exported(club, b)
    for mails in (in_a, in_b):
        # the mail moving both games (J17) and its one reply
        assert "sections A and B" in mails and "sections" in mails
        # a leave concerns every game (J12): the mail, its reply, the TD's notice
        assert {"leave for both", "leave_reply", "td_leave"} <= set(mails)
    # the question (J13) and its acknowledgement and relay to the TD: game A's alone
    assert {"question on A", "question_ack", "td_question"} <= set(in_a)
    assert not {"question on A", "question_ack", "td_question"} & set(in_b)
    # the TD's command mail and its confirmation: game B's alone
    assert {"ruling on B", "td_confirm"} <= set(in_b)
    assert not {"ruling on B", "td_confirm"} & set(in_a)
