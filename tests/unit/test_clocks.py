"""Day clocks (J5-J14, J18): time controls, days used, the books, leave, silence."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relaybot.core.clocks import (
    BLACK,
    WHITE,
    Books,
    Pause,
    Penalty,
    PlyTimes,
    TimeControl,
    adjudication_day,
    compute_books,
    counted_days,
    days_used,
    days_used_from_start,
    duration_reached,
    escalation_after_reminder,
    local_day,
    nth_counted_day,
    pending,
    question_pauses,
    receipt_day,
    silence_deadlines,
)
from relaybot.core.leave import check_leave, days_in_year, end_leave_on_move

START = date(2024, 1, 1)
D = date


def utc(y: int, m: int, d: int, h: int = 12, minute: int = 0) -> datetime:
    return datetime(y, m, d, h, minute, tzinfo=UTC)


def noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def plies(used: Sequence[int], start: date = START, grace: int = 1) -> list[PlyTimes]:
    """Plies (UTC players) where ply i uses ``used[i]`` days (J7 with ``grace``)."""
    out: list[PlyTimes] = []
    day = start
    for i, u in enumerate(used):
        day = day + timedelta(days=grace + u)
        out.append(PlyTimes(i % 2, noon(day)))
    return out


def white_moves(used_white: Sequence[int]) -> list[int]:
    """Interleave White's days with Black replying at no cost."""
    out: list[int] = []
    for u in used_white:
        out += [u, 0]
    return out


def books(control: str, used: Sequence[int]) -> Books:
    """The books of a UTC game where ply i uses ``used[i]`` days."""
    return compute_books(TimeControl.parse(control), START, plies(used))


def last_day(b: Books) -> date:
    """The UTC day the last ply was relayed."""
    assert b.last_sent_at is not None
    return local_day(b.last_sent_at, "UTC")


# ---------------------------------------------------------------------------------------
# J8: time controls as text
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10/30", "10/30"),
        ("10/50", "10/50"),
        ("bank:20", "bank:20"),
        ("fischer:30+1:45", "fischer:30+1:45"),
        ("fischer:30+1", "fischer:30+1"),
        ("10/30,max:14", "10/30,max:14"),
        (" BANK : 20 , MAX:7 ", "bank:20,max:7"),
    ],
)
def test_j8_parse_and_canonical_text(text: str, canonical: str) -> None:
    tc = TimeControl.parse(text)
    assert str(tc) == canonical
    assert TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize(
    "junk",
    ["", "30", "10/0", "0/30", "bank:0", "bank", "fischer:30", "fischer:30+1:20",
     "10/30,max:0", "10/30,min:3", "10/30,", "blitz", "10/30/2"],
)
def test_j8_junk_is_a_clear_value_error(junk: str) -> None:
    with pytest.raises(ValueError, match="time control"):
        TimeControl.parse(junk)


def test_j8_control_moves() -> None:
    tc = TimeControl.parse("10/30")
    assert tc.control_move(0) == 10
    assert tc.control_move(9) == 10
    assert tc.control_move(10) == 20
    assert tc.limit_at(20) == 60
    assert TimeControl.parse("bank:20").control_move(5) is None


# ---------------------------------------------------------------------------------------
# J6, J7: days
# ---------------------------------------------------------------------------------------


def test_j6_receipt_is_the_day_after_sending() -> None:
    # JCCA email: a move sent on 5 May counts as received on 6 May.
    assert receipt_day(utc(2024, 5, 5, 23, 59), "UTC") == D(2024, 5, 6)


def test_j6_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        local_day(datetime(2024, 5, 5, 12), "UTC")
    with pytest.raises(ValueError, match="time zone"):
        local_day(utc(2024, 5, 5), "Mars/Olympus")


def test_j7_reply_the_day_after_receipt_costs_nothing_grace_1() -> None:
    relayed = utc(2024, 5, 5)
    assert days_used(relayed, utc(2024, 5, 5, 20), "UTC") == 0
    assert days_used(relayed, utc(2024, 5, 6, 23), "UTC") == 0
    assert days_used(relayed, utc(2024, 5, 7, 1), "UTC") == 1
    assert days_used(relayed, utc(2024, 5, 15), "UTC") == 9


def test_j7_shogi_league_day_after_next_costs_nothing_grace_2() -> None:
    # Seed 002 rule 9: "翌々日までに返信したものは消費0日".
    relayed = utc(2024, 5, 5)
    assert days_used(relayed, utc(2024, 5, 7, 23), "UTC", grace=2) == 0
    assert days_used(relayed, utc(2024, 5, 8), "UTC", grace=2) == 1


def test_j6_j7_days_are_counted_in_the_replying_players_zone() -> None:
    # Relayed 20:30 UTC on 10 Jan: already 11 Jan 05:30 in Tokyo, still 10 Jan 21:30 in
    # Berlin. Both reply at 10:00 UTC on 12 Jan (19:00 Tokyo, 11:00 Berlin), same day.
    relayed = utc(2024, 1, 10, 20, 30)
    reply = utc(2024, 1, 12, 10)
    assert local_day(relayed, "Asia/Tokyo") == D(2024, 1, 11)
    assert local_day(relayed, "Europe/Berlin") == D(2024, 1, 10)
    assert days_used(relayed, reply, "Asia/Tokyo") == 0
    assert days_used(relayed, reply, "Europe/Berlin") == 1


def test_j6_relay_at_2330_utc_tokyo_next_day_new_york_same_day() -> None:
    # 23:30 UTC on 1 March is already 2 March in Tokyo (08:30) -- and in Berlin (00:30),
    # so the Berlin contrast needs an earlier hour (test above) -- but still 1 March in
    # New York (18:30). The same reply costs New York one day more.
    relayed = utc(2024, 3, 1, 23, 30)
    assert local_day(relayed, "Asia/Tokyo") == D(2024, 3, 2)
    assert local_day(relayed, "Europe/Berlin") == D(2024, 3, 2)
    assert local_day(relayed, "America/New_York") == D(2024, 3, 1)
    reply = utc(2024, 3, 3, 14)  # 3 March in both zones (23:00 Tokyo, 09:00 New York)
    assert days_used(relayed, reply, "Asia/Tokyo") == 0  # F=2, R=3
    assert days_used(relayed, reply, "America/New_York") == 1  # F=1, R=3
    late = utc(2024, 3, 3, 16)  # 4 March 01:00 in Tokyo, 3 March 11:00 in New York
    assert days_used(relayed, late, "Asia/Tokyo") == 1
    assert days_used(relayed, late, "America/New_York") == 1


def test_j7_white_first_move_counts_from_start_date() -> None:
    assert days_used_from_start(START, utc(2024, 1, 2), "UTC") == 0
    assert days_used_from_start(START, utc(2024, 1, 5), "UTC") == 3
    assert days_used_from_start(START, utc(2023, 12, 20), "UTC") == 0  # before the start
    b = compute_books(TimeControl.parse("10/30"), START, [PlyTimes(WHITE, utc(2024, 1, 5))])
    row = b.white.ledger[0]
    assert (row.relayed_day, row.receipt_day, row.reply_day, row.days) == (
        START, D(2024, 1, 2), D(2024, 1, 5), 3)


def test_j12_j13_paused_days_are_not_counted() -> None:
    relayed = utc(2024, 5, 1)
    reply = utc(2024, 5, 20)  # 18 counted days without pauses (window 3..20)
    assert days_used(relayed, reply, "UTC") == 18
    assert days_used(relayed, reply, "UTC", paused=[(D(2024, 5, 10), D(2024, 5, 14))]) == 13
    # Only days in the counted window (F + grace, R] come off.
    assert days_used(relayed, reply, "UTC", paused=[(D(2024, 4, 25), D(2024, 5, 3))]) == 17
    assert days_used(relayed, reply, "UTC", paused=[(D(2024, 5, 18), D(2024, 6, 30))]) == 15
    # Overlapping pauses are counted once.
    both = [(D(2024, 5, 10), D(2024, 5, 14)), (D(2024, 5, 12), D(2024, 5, 15))]
    assert days_used(relayed, reply, "UTC", paused=both) == 12


# ---------------------------------------------------------------------------------------
# J8, J9: the books
# ---------------------------------------------------------------------------------------


def test_j8_carry_over_25_days_leaves_35_for_moves_11_to_20() -> None:
    b = books("10/30", white_moves([25] + [0] * 9))
    assert b.white.moves == 10
    assert b.white.total == 25
    assert (b.white.control_move, b.white.limit, b.white.left) == (20, 60, 35)
    assert b.overrun is None
    ok = books("10/30", white_moves([25] + [0] * 9 + [35] + [0] * 9))
    assert ok.white.total == 60 and ok.overrun is None
    over = books("10/30", white_moves([25] + [0] * 9 + [36] + [0] * 9))
    assert over.overrun is not None
    assert (over.overrun.colour, over.overrun.move, over.overrun.kind) == (WHITE, 20, "control")
    assert (over.overrun.total, over.overrun.limit) == (61, 60)


def test_j9_31_days_at_move_10_is_an_overrun_checked_at_the_control_move() -> None:
    at9 = books("10/30", white_moves([31] + [0] * 8))
    assert at9.overrun is None  # J9: only checked at a control move
    assert at9.white.left == -1  # but the mail already shows it
    b = books("10/30", white_moves([31] + [0] * 9))
    assert b.overrun is not None
    assert (b.overrun.move, b.overrun.total, b.overrun.limit) == (10, 31, 30)
    assert b.white.overrun == b.overrun and b.black.overrun is None


def test_j8_10_50_black_side() -> None:
    used = []
    for _ in range(10):
        used += [0, 5]
    b = books("10/50", used)
    assert b.black.total == 50 and b.overrun is None and b.black.left == 50
    used[-1] = 6
    b = books("10/50", used)
    assert b.overrun is not None and b.overrun.colour == BLACK


def test_j5_penalty_of_5_days_counts_in_the_total() -> None:
    moves = plies(white_moves([3, 2, 0]))
    bad = moves[2].sent_at + timedelta(hours=2)  # White's bad 2nd move, before the good one
    pen = Penalty(WHITE, 5, "illegal move", bad)
    b = compute_books(TimeControl.parse("10/30"), START, moves, penalties=[pen])
    assert b.white.total == 3 + 2 + 0 + 5
    assert b.white.penalty_days == 5 and b.white.move_days == 5
    row = b.white.ledger[2]
    assert (row.move, row.penalty_days, row.penalty_reasons, row.total) == (
        3, 5, ("illegal move",), 10)
    assert b.white.left == 20


def test_j5_penalty_pushes_the_control_over() -> None:
    moves = plies(white_moves([26] + [0] * 9))
    pen = Penalty(WHITE, 5, "ambiguous", moves[4].sent_at)
    b = compute_books(TimeControl.parse("10/30"), START, moves, penalties=[pen])
    assert b.overrun is not None and (b.overrun.move, b.overrun.total) == (10, 31)


def test_j5_penalty_after_the_last_move_counts_at_once() -> None:
    moves = plies(white_moves([3]))  # White moved, Black moved; White on move
    pen = Penalty(WHITE, 5, "illegal move", moves[-1].sent_at + timedelta(days=1))
    b = compute_books(TimeControl.parse("10/30"), START, moves, penalties=[pen])
    assert b.white.total == 8 and b.white.pending_penalty_days == 5
    assert b.white.left == 22


def test_j9_bank_20_exhausted_loses_by_itself() -> None:
    # Seed 002 rule 9: 20 days, "0日になったら負け": lost when the bank reaches 0.
    b = books("bank:20", white_moves([10, 9]))
    assert b.overrun is None and b.white.left == 1
    b = books("bank:20", white_moves([10, 10]))
    assert b.overrun is not None
    assert (b.overrun.kind, b.overrun.move, b.overrun.total, b.overrun.limit) == (
        "bank", 2, 20, 20)


def test_j9_bank_penalty_empties_the_bank_while_thinking() -> None:
    moves = plies(white_moves([16]))
    pen = Penalty(WHITE, 5, "illegal move", moves[-1].sent_at + timedelta(hours=1))
    b = compute_books(TimeControl.parse("bank:20"), START, moves, penalties=[pen])
    assert b.overrun is not None and (b.overrun.kind, b.overrun.move) == ("bank", 2)


def test_j8_fischer_reserve_is_capped() -> None:
    # 30 days + 1 per move, never above 45: 20 free moves give 45, not 50.
    b = books("fischer:30+1:45", white_moves([0] * 20))
    assert b.white.left == 45
    assert books("fischer:30+1", white_moves([0] * 20)).white.left == 50
    assert books("fischer:30+1:45", white_moves([0] * 20 + [45])).overrun is None
    over = books("fischer:30+1:45", white_moves([0] * 20 + [46])).overrun
    assert over is not None and (over.kind, over.move, over.total, over.limit) == (
        "fischer", 21, 46, 45)


def test_j8_fischer_increment_after_the_move() -> None:
    b = books("fischer:30+1:45", white_moves([10, 10]))
    assert b.white.left == 30 - 10 + 1 - 10 + 1
    assert b.white.limit == b.white.total + b.white.left


def test_j8_per_move_maximum() -> None:
    assert books("10/30,max:14", white_moves([14])).overrun is None
    fischer = books("fischer:30+1:45,max:14", white_moves([15, 0]))
    assert fischer.overrun is not None and fischer.overrun.kind == "max"
    assert fischer.white.left == 30 - 15 + 1 + 1  # the reserve still kept
    b = books("10/30,max:14", white_moves([15]))
    assert b.overrun is not None
    assert (b.overrun.kind, b.overrun.move, b.overrun.total, b.overrun.limit) == (
        "max", 1, 15, 14)


def test_j13_question_to_the_td_pauses_both_clocks() -> None:
    moves = plies([0, 0, 12, 12])  # White's 2nd: 12 days; Black's 2nd: 12 days
    asked = moves[1].sent_at + timedelta(days=3)
    answered = asked + timedelta(days=4)  # 5 days paused (inclusive) inside White's window
    tz = ("UTC", "UTC")
    b = compute_books(TimeControl.parse("10/30"), START, moves,
                      pauses=question_pauses(asked, answered, tz), tz=tz)
    assert b.white.ledger[1].days == 12 - 5
    assert b.black.ledger[1].days == 12  # Black's window came after the answer


def test_j13_question_pause_in_each_players_zone() -> None:
    asked = utc(2024, 2, 1, 20)  # 2 Feb in Tokyo, 1 Feb in Berlin
    w, b = question_pauses(asked, utc(2024, 2, 3, 20), ("Asia/Tokyo", "Europe/Berlin"))
    assert (w.first, w.last) == (D(2024, 2, 2), D(2024, 2, 4))
    assert (b.first, b.last) == (D(2024, 2, 1), D(2024, 2, 3))
    open_w, _ = question_pauses(asked, None, ("UTC", "UTC"))
    assert open_w.last is None and open_w.days[1] == date.max


def test_j12_leave_pauses_one_player_only() -> None:
    moves = plies([0, 0, 20, 20])
    leave = Pause(WHITE, moves[1].sent_at.date() + timedelta(days=5),
                  moves[1].sent_at.date() + timedelta(days=14))
    b = compute_books(TimeControl.parse("10/30"), START, moves, pauses=[leave])
    assert b.white.ledger[1].days == 10
    assert b.black.ledger[1].days == 20


def test_j12_leave_is_ended_by_the_players_own_move() -> None:
    # White announces 20 days of leave but moves on its 6th day: days after it count.
    moves = plies([0, 0, 10, 3, 20])
    on_leave = moves[1].sent_at.date() + timedelta(days=6)  # 4 counted days before leave
    leave = Pause(WHITE, on_leave, on_leave + timedelta(days=19))
    b = compute_books(TimeControl.parse("10/30"), START, moves, pauses=[leave])
    # White's 2nd move came on the leave's 6th day: 4 days before the leave were counted.
    assert b.white.ledger[1].reply_day == on_leave + timedelta(days=5)
    assert b.white.ledger[1].days == 4 + 1  # the 5 leave days before the move not counted
    assert b.white.ledger[2].days == 20  # the rest of the leave is gone
    assert b.pauses[WHITE] == ((on_leave, on_leave + timedelta(days=4)),)


# ---------------------------------------------------------------------------------------
# The player on move (J9 bank at 0, J11 sweep, J18)
# ---------------------------------------------------------------------------------------


def test_pending_10_30_days_so_far_and_overrun_day() -> None:
    b = books("10/30", white_moves([25] + [0] * 8))  # White to make move 10, 5 days left
    assert b.on_move == WHITE
    relayed = last_day(b)
    p = pending(b, noon(relayed + timedelta(days=4)))
    assert (p.colour, p.move, p.days, p.total, p.left) == (WHITE, 10, 3, 28, 2)
    assert p.control_move == 10 and p.limit == 30
    assert p.receipt_day == relayed + timedelta(days=1)
    assert p.overrun_day == relayed + timedelta(days=1 + 6)  # the 6th counted day: 31
    assert not p.overrun
    assert pending(b, noon(relayed + timedelta(days=7))).overrun


def test_pending_bank_loses_at_zero_while_thinking() -> None:
    b = books("bank:20", white_moves([17]))  # 3 days left in the bank
    relayed = last_day(b)
    p = pending(b, noon(relayed + timedelta(days=3)))
    assert (p.days, p.left, p.overrun) == (2, 1, False)
    assert p.overrun_day == relayed + timedelta(days=4)
    assert pending(b, noon(relayed + timedelta(days=4))).overrun


def test_pending_first_move_from_start_and_open_pause_never_overruns() -> None:
    tc = TimeControl.parse("10/30,max:14")
    b = compute_books(tc, START, [])
    p = pending(b, noon(D(2024, 1, 4)))
    assert (p.relayed_day, p.days, p.move_left, p.move) == (START, 2, 12, 1)
    assert p.overrun_day == D(2024, 1, 17)  # 15th counted day: past the per-move max
    paused = compute_books(tc, START, [], pauses=[Pause(WHITE, D(2024, 1, 3), None, "q")])
    assert pending(paused, noon(D(2024, 3, 1))).overrun_day is None


def test_pending_fischer_reserve() -> None:
    b = books("fischer:30+1:45", white_moves([0] * 20))
    relayed = last_day(b)
    p = pending(b, noon(relayed + timedelta(days=11)))
    assert (p.days, p.left) == (10, 35)
    assert p.overrun_day == relayed + timedelta(days=1 + 46)


# ---------------------------------------------------------------------------------------
# J11 silence, J14 duration
# ---------------------------------------------------------------------------------------


def test_j11_silence_deadlines() -> None:
    relayed = utc(2024, 3, 1)
    assert silence_deadlines(relayed, "UTC") == (D(2024, 3, 11), D(2024, 3, 21))


def test_j11_silence_deadlines_pushed_back_by_a_pause() -> None:
    relayed = utc(2024, 3, 1)
    leave = [(D(2024, 3, 5), D(2024, 3, 9))]  # 5 days of leave: no reminders (J12)
    assert silence_deadlines(relayed, "UTC", leave) == (D(2024, 3, 16), D(2024, 3, 26))
    late = [(D(2024, 3, 15), D(2024, 3, 24))]  # after the reminder: only escalation moves
    assert silence_deadlines(relayed, "UTC", late) == (D(2024, 3, 11), D(2024, 3, 31))
    open_q = [(D(2024, 3, 5), date.max)]
    assert silence_deadlines(relayed, "UTC", open_q) == (date.max, date.max)


def test_j11_the_td_hears_10_days_after_the_reminder_itself() -> None:
    """Seed 000 rule 12: the TD is told 10 days after the reply the reminder asked for was
    due, so a reminder sent late (the bot was stopped on its day) moves the escalation."""
    relayed = utc(2024, 3, 1)
    on_time = utc(2024, 3, 11, 6)
    assert escalation_after_reminder(on_time, "UTC") == silence_deadlines(relayed, "UTC")[1]
    assert escalation_after_reminder(utc(2024, 3, 26, 9), "UTC") == D(2024, 4, 5)
    assert escalation_after_reminder(utc(2024, 3, 26, 20), "Asia/Tokyo") == D(2024, 4, 6)
    leave = [(D(2024, 3, 30), D(2024, 4, 2))]  # leave after the reminder pushes it back
    assert escalation_after_reminder(utc(2024, 3, 26, 9), "UTC", leave) == D(2024, 4, 9)


def test_j11_silence_in_the_players_zone() -> None:
    relayed = utc(2024, 3, 1, 20)  # 2 March in Tokyo
    assert silence_deadlines(relayed, "Asia/Tokyo")[0] == D(2024, 3, 12)


def test_j14_adjudication_after_24_months() -> None:
    assert adjudication_day(D(2024, 1, 15)) == D(2026, 1, 15)
    assert adjudication_day(D(2024, 2, 29)) == D(2026, 2, 28)
    assert adjudication_day(D(2024, 8, 31), months=6) == D(2025, 2, 28)


def test_j14_duration_reached_on_the_adjudication_day_where_side_0_lives() -> None:
    """From the adjudication day on (a day in the zone given: the sweep's, side 0's) an
    unfinished game is the TD's; the evening before in UTC is already that day in Tokyo."""
    start = D(2024, 1, 15)
    eve = datetime(2026, 1, 14, 16, 0, tzinfo=UTC)  # 2026-01-15 01:00 in Tokyo
    assert not duration_reached(start, eve, "Europe/London")
    assert duration_reached(start, eve, "Asia/Tokyo")
    assert duration_reached(start, datetime(2027, 1, 1, tzinfo=UTC), "Europe/London")
    assert not duration_reached(start, datetime(2025, 7, 14, tzinfo=UTC), "UTC", months=18)
    assert duration_reached(start, datetime(2025, 7, 15, tzinfo=UTC), "UTC", months=18)


# ---------------------------------------------------------------------------------------
# J12 leave requests
# ---------------------------------------------------------------------------------------


def test_j12_leave_of_30_days_refused_when_10_are_used() -> None:
    used = [(D(2024, 2, 1), D(2024, 2, 10))]
    d = check_leave(used, (D(2024, 6, 1), D(2024, 6, 30)), today=D(2024, 5, 1))
    assert (d.ok, d.reason_code, d.days, d.year) == (False, "over_allowance", 30, 2024)
    assert (d.used_this_year, d.left_this_year) == (10, 20)
    d = check_leave(used, (D(2024, 6, 1), D(2024, 6, 20)), today=D(2024, 5, 1))
    assert (d.ok, d.reason_code, d.days) == (True, "ok", 20)


def test_j12_td_approved_extra_days() -> None:
    used = [(D(2024, 2, 1), D(2024, 2, 10))]
    d = check_leave(used, (D(2024, 6, 1), D(2024, 6, 30)), D(2024, 5, 1), approved_extra_days=30)
    assert d.ok and d.left_this_year == 50


def test_j12_leave_announced_after_it_started_is_refused() -> None:
    d = check_leave([], (D(2024, 6, 1), D(2024, 6, 5)), today=D(2024, 6, 2))
    assert (d.ok, d.reason_code) == (False, "started")
    assert check_leave([], (D(2024, 6, 2), D(2024, 6, 5)), today=D(2024, 6, 2)).ok


def test_j12_leave_bad_order_overlap_and_switched_off() -> None:
    today = D(2024, 1, 1)
    assert check_leave([], (D(2024, 6, 5), D(2024, 6, 1)), today).reason_code == "order"
    taken = [(D(2024, 6, 1), D(2024, 6, 5))]
    assert check_leave(taken, (D(2024, 6, 5), D(2024, 6, 8)), today).reason_code == "overlap"
    off = check_leave([], (D(2024, 6, 1), D(2024, 6, 2)), today, allowed=False)
    assert (off.ok, off.reason_code) == (False, "not_allowed")


def test_j12_leave_over_new_year_counts_in_each_year() -> None:
    taken = [(D(2024, 12, 1), D(2024, 12, 25))]  # 25 days in 2024
    today = D(2024, 12, 1)
    ok = check_leave(taken, (D(2024, 12, 27), D(2025, 1, 20)), today)  # 5 + 20
    assert ok.ok and ok.days == 25
    bad = check_leave(taken, (D(2024, 12, 26), D(2025, 1, 5)), today)  # 6 in 2024
    assert (bad.ok, bad.reason_code, bad.year, bad.left_this_year) == (
        False, "over_allowance", 2024, 5)
    bad25 = check_leave([], (D(2024, 12, 31), D(2025, 2, 1)), today)  # 32 in 2025
    assert (bad25.reason_code, bad25.year) == ("over_allowance", 2025)
    assert days_in_year([(D(2024, 12, 27), D(2025, 1, 20))], 2025) == 20


def test_j12_a_move_ends_the_leave() -> None:
    leave = (D(2024, 6, 1), D(2024, 6, 30))
    assert end_leave_on_move(leave, D(2024, 6, 10)) == (D(2024, 6, 1), D(2024, 6, 9))
    assert end_leave_on_move(leave, D(2024, 6, 1)) is None  # nothing of it left
    assert end_leave_on_move(leave, D(2024, 5, 31)) == leave  # not started yet
    assert end_leave_on_move(leave, D(2024, 7, 1)) == leave


# ---------------------------------------------------------------------------------------
# Invariants (hypothesis)
# ---------------------------------------------------------------------------------------

_days = st.dates(min_value=D(2020, 1, 1), max_value=D(2030, 12, 31))
_pauses = st.lists(
    st.tuples(_days, st.integers(min_value=0, max_value=40)).map(
        lambda t: (t[0], t[0] + timedelta(days=t[1]))),
    max_size=4,
)
_moments = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC))
_zones = st.sampled_from(["UTC", "Asia/Tokyo", "Europe/Berlin", "America/New_York",
                          "Pacific/Kiritimati", "Pacific/Pago_Pago"])


@given(_moments, _moments, st.integers(min_value=0, max_value=300), _zones,
       st.integers(min_value=0, max_value=3), _pauses)
def test_j7_days_used_never_negative_and_monotone(
    relayed: datetime, reply: datetime, later_hours: int, tz: str, grace: int,
    paused: list[tuple[date, date]],
) -> None:
    first = days_used(relayed, reply, tz, grace, paused)
    second = days_used(relayed, reply + timedelta(hours=later_hours), tz, grace, paused)
    assert 0 <= first <= second
    assert first <= days_used(relayed, reply, tz, grace)  # pauses only take days off
    assert days_used(relayed, reply, tz, grace + 1, paused) <= first  # more grace, less


@given(_days, st.integers(min_value=0, max_value=200), _pauses)
def test_nth_counted_day_agrees_with_counted_days(
    after: date, n: int, paused: list[tuple[date, date]]
) -> None:
    day = nth_counted_day(after, n, paused)
    assert counted_days(after, day, paused) == n
    if n > 0:  # the n-th counted day is itself counted
        assert counted_days(after, day - timedelta(days=1), paused) == n - 1


@given(st.lists(st.integers(min_value=0, max_value=12), max_size=40))
def test_j18_books_totals_add_up(used: list[int]) -> None:
    b = books("10/30", used)
    for side in b.sides:
        assert side.total == sum(r.days + r.penalty_days for r in side.ledger)
        assert side.left == side.limit - side.total
        assert [r.total for r in side.ledger] == sorted(r.total for r in side.ledger)
    assert b.white.moves + b.black.moves == len(used)
    assert [r.days for s in b.sides for r in s.ledger] == used[0::2] + used[1::2]


@pytest.mark.parametrize(("text", "en", "ja"), [
    ("10/30", "10/30", "10/30"),
    ("bank:20", "20 days in all (lost at 0)", "通算20日（0日で負け）"),
    ("fischer:30+1:45", "30 days, 1 more after each move, at most 45",
     "30日、1手ごとに1日加算、上限45日"),
    ("10/30,max:14", "10/30; at most 14 days on one move", "10/30、1手あたり最大14日"),
])
def test_j8_a_time_control_in_the_readers_words(text: str, en: str, ja: str) -> None:
    """Mail and pages say a clock in words in both languages, not the settings' text."""
    control = TimeControl.parse(text)
    assert (control.describe("en"), control.describe("ja")) == (en, ja)
