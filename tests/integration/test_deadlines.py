"""Days, deadlines and the TD end to end (J9, J11, J12, J13, J18; G10, T9)."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from relaybot.store.models import Game, Leave, Question
from tests.integration.relay_harness import TD, Club, Player, body_of

pytestmark = pytest.mark.integration


def setup(club: Club, **kw: object) -> tuple[Player, Player, str]:
    white = club.member("Sato, Hanako", "sato@example.jp", tz="Asia/Tokyo")
    black = club.member("Brown, Tom", "brown@example.org", tz="Europe/Berlin")
    return white, black, club.game(white, black, **kw)


def kinds(club: Club, address: str) -> list[str]:
    return [str(c.parsed["X-Relaybot-Kind"]) for c in club.mails_to(address)]


def run_at(club: Club, days: float) -> None:
    """``relaybot run --once --now <start + days>`` as the operator's cron would."""
    club.cli("run", "--once", "--now", (club.clock + timedelta(days=days)).isoformat())


@pytest.mark.slow
def test_j11_reminder_day_10_escalation_day_20_once_each_across_downtime(club: Club) -> None:
    white, _black, gid = setup(club)
    white.send("1. e4")
    club.cycle()
    start = club.clock
    # the bot runs daily, is stopped for 3 days across the reminder (days 8-11) and again
    # across the escalation (days 18-21), and is restarted twice a day around them (T9)
    schedule = [1, 5, 7, 11.2, 11.5, 12, 15, 17, 21.3, 21.6, 22, 25, 30]
    for day in schedule:
        club.clock = start
        run_at(club, day)
    club.clock = start
    assert kinds(club, "brown@example.org").count("reminder") == 1
    assert kinds(club, TD).count("td_silence") == 1
    escalation = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_silence"]
    text = body_of(escalation[0])
    assert f"forfeit {gid} black" in text and "Tom Brown" in text  # as English writes it
    reminder = next(c for c in club.mails_to("brown@example.org")
                if c.parsed["X-Relaybot-Kind"] == "reminder")
    assert reminder.parsed["In-Reply-To"]  # threaded on the last mail of the game
    assert "no reply from you for 11 days since your opponent's move" in body_of(reminder)
    # the TD reads the day the reminder went out (late: the bot was stopped on day 10),
    # not "on day 10"
    sent = reminder.parsed["Date"].datetime.astimezone(ZoneInfo("Asia/Tokyo")).date()
    assert "after the move was relayed on" in text
    assert f"a reminder went out on {sent.isoformat()}." in text and "day 10" not in text
    # a second instance while one holds the lock is refused (T9)


@pytest.mark.slow
def test_j11_a_late_reminder_still_leaves_10_days_before_the_td_hears(club: Club) -> None:
    """Seed 000 rule 12: the TD is told 10 days after the reminder itself. The bot was
    stopped from day 5 to day 25: the reminder goes out on day 25, alone, and the TD hears
    on day 35, with the days of silence counted as they are."""
    white, _black, _gid = setup(club)
    white.send("1. e4")
    club.cycle()
    start = club.clock
    told: dict[float, tuple[int, int]] = {}
    for day in (1, 5, 25.2, 30, 34.2, 35.2):
        club.clock = start
        run_at(club, day)
        told[day] = (kinds(club, "brown@example.org").count("reminder"),
                     kinds(club, TD).count("td_silence"))
    club.clock = start
    assert told == {1: (0, 0), 5: (0, 0), 25.2: (1, 0), 30: (1, 0), 34.2: (1, 0),
                    35.2: (1, 1)}
    reminder = next(c for c in club.mails_to("brown@example.org")
                    if c.parsed["X-Relaybot-Kind"] == "reminder")
    # relayed on day 0 in Berlin, reminded on day 25: the silence as it is, and the
    # promise of 10 more days before the TD is told holds
    assert "no reply from you for 25 days" in body_of(reminder)
    assert "If the silence lasts 10 more days" in body_of(reminder)
    escalation = next(c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_silence")
    assert "has not replied for 35 days" in str(escalation.parsed["Subject"])


def test_j11_no_reminder_while_the_player_is_on_leave(club: Club) -> None:
    white, black, _gid = setup(club)
    first = (club.clock + timedelta(days=2)).date()
    last = (club.clock + timedelta(days=25)).date()
    white.send("1. e4")
    club.cycle()
    black.send(f"leave {first} {last}", to=black.member_address(), subject="Leave")
    club.cycle()
    assert "leave_reply" in kinds(club, "brown@example.org")
    assert "leave_notice" in kinds(club, "sato@example.jp")  # every opponent is told (J12)
    assert "td_leave" in kinds(club, TD)
    start = club.clock
    for day in (5, 12, 20, 24):
        run_at(club, day)
        club.clock = start
    assert "reminder" not in kinds(club, "brown@example.org")


def test_j12_leave_over_the_yearly_30_days_waits_for_the_td(club: Club) -> None:
    white, black, _gid = setup(club)
    d0 = (club.clock + timedelta(days=1)).date()
    black.send(f"leave {d0} {d0 + timedelta(days=9)}", to=black.member_address(), subject="休戦")
    club.cycle()
    black.send(f"leave {d0 + timedelta(days=20)} {d0 + timedelta(days=49)}",
               to=black.member_address(), subject="leave")
    club.cycle()
    reply = body_of(black.inbox()[-1])
    assert "TD" in reply and "30 days" in reply
    with club.store.session() as s:
        pending = s.scalars(select(Leave).where(Leave.status == "pending")).one()
        leave_id = pending.id
    # only the TD may approve; a player trying is refused politely
    white.send(f"approve leave {leave_id}", to=white.member_address(), subject="x")
    club.cycle()
    assert "Only the TD" in body_of(white.inbox()[-1])
    td = Player("TD", TD, club)
    td.send(f"approve leave {leave_id}", to=td.member_address(), subject="Re: leave")
    club.cycle()
    with club.store.session() as s:
        assert s.get(Leave, leave_id).status == "active"  # type: ignore[union-attr]
    assert "done: approve leave" in body_of(club.mails_to(TD)[-1])


def test_j12_the_td_may_approve_at_most_30_more_days_a_year(club: Club) -> None:
    """J12 (seed 000 rule 16): 30 days a year, 「さらに通算30日以内」 with the TD's
    approval: an approval past 60 days is refused with one clear line, the leave stays
    pending; one within them is approved."""
    _white, black, _gid = setup(club)
    d0 = (club.clock + timedelta(days=1)).date()
    black.send(f"leave {d0} {d0 + timedelta(days=19)}", to=black.member_address(), subject="x")
    club.cycle()  # 20 days: within the 30
    black.send(f"leave {d0 + timedelta(days=30)} {d0 + timedelta(days=179)}",
               to=black.member_address(), subject="leave")  # 150 days: waits for the TD
    club.cycle()
    with club.store.session() as s:
        long_id = s.scalars(select(Leave).where(Leave.status == "pending")).one().id
    td = Player("TD", TD, club)
    td.send(f"approve leave {long_id}", to=td.member_address(), subject="Re: leave")
    club.cycle()
    confirm = body_of(club.mails_to(TD)[-1])
    assert "NOT DONE: approve leave" in confirm and "60 days" in confirm
    with club.store.session() as s:
        assert s.get(Leave, long_id).status == "pending"  # type: ignore[union-attr]
    black.send(f"leave {d0 + timedelta(days=200)} {d0 + timedelta(days=229)}",
               to=black.member_address(), subject="leave")  # 30 more: 50 in all
    club.cycle()
    with club.store.session() as s:
        ok_id = s.scalars(select(Leave).where(Leave.status == "pending",
                                              Leave.id != long_id)).one().id
    td.send(f"approve leave {ok_id}", to=td.member_address(), subject="Re: leave")
    club.cycle()
    assert "done: approve leave" in body_of(club.mails_to(TD)[-1])


def test_j12_leave_announced_after_it_started_is_refused(club: Club) -> None:
    _white, black, _gid = setup(club)
    started = (club.clock - timedelta(days=3)).date()
    black.send(f"leave {started} {started + timedelta(days=7)}", to=black.member_address(),
               subject="leave")
    club.cycle()
    assert "already started" in body_of(black.inbox()[-1])


def play_slow_white(club: Club, white: Player, black: Player) -> None:
    """Ten moves each but Black's tenth: White thinks 5 days over every move (4 counted,
    J7), so White is at 40 days by move 10 under 10/30; Black answers within hours."""
    moves = ["Nf3", "Nf6", "Ng1", "Ng8"] * 5
    record: list[str] = []
    for i, move in enumerate(moves[:19]):
        record.append(f"{i // 2 + 1}. {move}" if i % 2 == 0 else move)
        gap = timedelta(days=5) if i % 2 == 0 else timedelta(hours=3)
        (white if i % 2 == 0 else black).send(" ".join(record), at=club.clock + gap)
        club.cycle()


def test_j9_overrun_at_move_10_reported_and_forfeit_confirmed_by_td_mail(club: Club) -> None:
    white, black, gid = setup(club, time_control="10/30")
    play_slow_white(club, white, black)
    overrun = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_overrun"]
    assert len(overrun) == 1  # at White's 10th move only, not again at later moves
    text = body_of(overrun[0])
    assert "move 10" in text and "over the limit of 30" in text
    assert f"forfeit {gid} white" in text
    td = Player("TD", TD, club)
    td.send(f"forfeit {gid} white", to=td.member_address(), subject="Re: overrun")
    club.cycle()
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and (game.result, game.termination) == ("0-1", "forfeit")
    assert "0-1" in body_of(white.inbox()[-1])
    assert "td_result" in kinds(club, TD)


def test_j13_question_pauses_the_clock_until_the_answer(club: Club) -> None:
    white, black, _gid = setup(club)
    white.send("1. d4")
    club.cycle()
    black.send("td: may I claim a draw by repetition by mail?")
    club.cycle()
    question = [c for c in club.mails_to(TD) if c.parsed["X-Relaybot-Kind"] == "td_question"]
    assert len(question) == 1
    with club.store.session() as s:
        qid = s.scalars(select(Question.id)).one()
    # the TD answers 8 days later; Black replies 2 days after that
    club.clock += timedelta(days=8)
    td = Player("TD", TD, club)
    td.send(f"answer {qid}\nYes: write draw alone on a line.", to=td.member_address(),
            subject="Re: question")
    club.cycle()
    assert "answer" in kinds(club, "brown@example.org")
    assert "Yes: write draw" in body_of(black.inbox()[-1])
    club.clock += timedelta(days=2)
    black.send("1. d4 d5")
    club.cycle()
    forward = body_of(white.inbox()[-1])
    import re

    # relayed 03-03, reply 03-15: 11 days counted without the pause (J7); the days from
    # the question to the answer (about 9) are not counted (J13)
    used = int(re.search(r"Black (\d+) \(left", forward).group(1))  # type: ignore[union-attr]
    assert 0 < used <= 3, forward


def test_td_commands_from_anyone_else_do_nothing(club: Club) -> None:
    _white, black, gid = setup(club)
    black.send(f"forfeit {gid} white")
    club.cycle()
    with club.store.session() as s:
        assert s.get(Game, gid).status == "active"  # type: ignore[union-attr]
    assert "Only the TD" in body_of(black.inbox()[-1])


def test_j10_long_thinking_notice_reaches_the_opponent(club: Club) -> None:
    white, black, _gid = setup(club)
    white.send("1. e4")
    club.cycle()
    black.send("長考")
    report = club.cycle()
    assert report.poll.outcomes == {"long_think": 1}
    notice = body_of(white.inbox()[-1])
    assert "10 days or more" in notice and "J10" not in notice  # plain words (issue 26)
    assert "long_think_ack" in kinds(club, "brown@example.org")


def test_j9_event_set_to_forfeit_ends_the_game_at_the_overrun(club: Club) -> None:
    white, black, gid = setup(club, time_control="10/30", overrun="forfeit")
    play_slow_white(club, white, black)
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None and (game.result, game.termination) == ("0-1", "time")
        assert game.ply_count == 19  # White's 10th move was the last
    assert "td_overrun" in kinds(club, TD) and "td_result" in kinds(club, TD)
