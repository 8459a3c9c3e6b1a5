"""Rules that had no test (issue 13): J14 (the 24-month mail to the TD), J20 (a
withdrawal: lost, void, suspended) and J21 (a wrong move keeps the sender's clock
running; the receiver loses nothing), each through the real mail path."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from relaybot.app.sweep import sweep
from relaybot.club.daybooks import books_for
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game, Outbox
from tests.integration.relay_harness import TD, Club, Player, body_of


def test_j14_a_game_unfinished_after_24_months_goes_to_the_td_once(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    old = club.game(white, black, start=(club.clock - timedelta(days=2 * 365 + 5)).date())
    young = club.game(white, black)
    # the go salon's rules (seed 004) set no such limit: an old go game plays on
    old_go = club.game(white, black, kind="go", options=(("size", "9"),),
                       start=(club.clock - timedelta(days=2 * 365 + 5)).date())
    for hours in (0, 6):  # the sweep runs again: still one mail (G10)
        sweep(club.store, club.cfg, club.clock + timedelta(hours=hours))
    with club.store.session() as s:
        duration = s.scalars(select(Outbox.game_id).where(Outbox.kind == "td_duration")).all()
        told = s.scalars(select(Outbox.game_id).where(Outbox.kind == "with_td")).all()
    assert duration == [old] and young not in duration
    assert sorted(told) == [old, old] and old_go not in told


def test_j14_after_its_24_months_a_move_is_not_played_and_nobody_is_reminded(
        club: Club) -> None:
    """J14 (seed 000 rule 19: 「最長24か月をもって終了する」): a move arriving on or after the
    day the game went to the TD is answered, not played or relayed; no reminder or silence
    report follows it; a resignation still ends the game."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black, start=(club.clock - timedelta(days=2 * 365 + 5)).date())
    club.cycle()  # the sweep sends the TD the 24-month report, and tells both players
    for player in (white, black):
        notice = player.last()
        assert notice["X-Relaybot-Kind"] == "with_td"
        told = body_of(player.inbox()[-1])
        assert "No more moves are played" in told and '"td:"' in told
    heard = len(black.inbox())
    white.send("1. e4", to=white.game_address(gid), subject=f"Re: [{gid}]")
    assert club.cycle().poll.outcomes == {"with_td": 1}
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.plies == "" and game.status == "active"
    reply = white.last()
    assert reply["X-Relaybot-Kind"] == "error_with_td"
    assert "The game is with the tournament director" in str(reply["Subject"])
    text = body_of(white.inbox()[-1])
    assert "24 months after its start" in text and '"td:"' in text
    assert len(black.inbox()) == heard  # the opponent is sent nothing
    for _ in range(2):  # 22 days silent: longer than a reminder and an escalation need
        club.clock += timedelta(days=11)
        club.cycle()
    kinds = [str(c.parsed["X-Relaybot-Kind"]) for c in club.sink.captured]
    assert "reminder" not in kinds and "td_silence" not in kinds
    assert kinds.count("td_duration") == 1 and kinds.count("with_td") == 2  # once each
    black.send("resign", to=black.game_address(gid), subject=f"Re: [{gid}]")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and game.status == "finished" and game.result == "1-0"


def test_j20_withdrawal_lost_void_and_suspended(club: Club) -> None:
    a = club.member("Aoki, Ai", "a@example.jp")
    b = club.member("Baba, Bun", "b@example.jp")
    c = club.member("Chiba, Chie", "c@example.jp")
    d = club.member("Doi, Dai", "d@example.jp")
    lost_w = club.game(a, b)  # a withdraws: a loses as White
    lost_b = club.game(c, a)  # ... and as Black
    void = club.game(b, d)
    suspended = club.game(c, d)
    td = Player("TD", TD, club)
    td.send("withdraw a@example.jp lost", to=td.member_address(), subject="J20")
    td.send("withdraw b@example.jp void", to=td.member_address(), subject="J20")
    td.send("withdraw d@example.jp suspended", to=td.member_address(), subject="J20")
    club.cycle()
    with club.store.session() as s:
        got = {gid: (g.status, g.result, g.termination)
               for gid in (lost_w, lost_b, void, suspended) if (g := s.get(Game, gid))}
    assert got[lost_w] == ("finished", "0-1", "withdrawal_lost")
    assert got[lost_b] == ("finished", "1-0", "withdrawal_lost")
    assert got[void] == ("finished", "*", "withdrawal_void")
    assert got[suspended] == ("suspended", None, None)
    # J20 (rule 21: 対局の中断と見なす): a suspended game is decided by the TD later
    td.send(f"adjudicate {suspended} 1/2-1/2", to=td.member_address(), subject="J20")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, suspended)
        assert game is not None
        assert (game.status, game.result, game.termination) == (
            "finished", "1/2-1/2", "adjudication")


def test_j21_a_wrong_move_keeps_the_senders_clock_running(club: Club) -> None:
    """Two games on the same days; in one, Black first sends an illegal move on day 2 and
    corrects it on day 5. Black's days are those of the other game plus the J5 penalty;
    White loses nothing (the bot noticed the error at once)."""
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    faulty = club.game(white, black)
    clean = club.game(white, black)
    start = club.clock
    for gid in (faulty, clean):
        white.send("1. e4", to=white.game_address(gid), at=start + timedelta(hours=1))
    club.cycle()
    black.send("1. e4 Ke5", to=black.game_address(faulty),
               at=start + timedelta(days=2))  # illegal: J5
    club.cycle()
    for gid in (faulty, clean):
        black.send("1. e4 e5", to=black.game_address(gid), at=start + timedelta(days=5))
    club.cycle()
    now = start + timedelta(days=6)
    with club.store.session() as s:
        books = {gid: books_for(s, load_game(s, g, now))
                 for gid in (faulty, clean) if (g := s.get(Game, gid))}
    assert books[faulty].white.total == books[clean].white.total  # the receiver loses nothing
    assert books[faulty].black.total == books[clean].black.total + 5  # J5 on top of the days
    assert books[clean].black.total >= 3  # the days to the correction are the sender's
