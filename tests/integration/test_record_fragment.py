"""J1 by mail: a fragment from a later move gets a plain answer in the player's language,
and nothing is applied (issue 13, item 8)."""

from __future__ import annotations

from tests.integration.relay_harness import Club, body_of


def test_j1_a_mail_starting_at_move_2_is_told_so_in_both_languages(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp", lang="ja")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    club.cycle()
    for text in ("1. e4", "1. e4 e5"):
        sender = white if text == "1. e4" else black
        sender.send(text, to=sender.game_address(gid))
        club.cycle()
    white.send("2. Nf3", to=white.game_address(gid))  # the new move alone
    club.cycle()
    reply = body_of(white.inbox()[-1])
    assert "棋譜は 2. から始まっています" in reply and "第1手からの棋譜" in reply
    black.send("1... e5 2. Nf3 Nc6", to=black.game_address(gid))
    club.cycle()
    assert "The record in your mail starts at 1..., not at move 1" in body_of(
        black.inbox()[-1]).replace("\r\n", "\n")
