"""The books (J5, J8, J9, J12, J13, J16, J18): each player's day ledger, totals, what is
left, and the first lost clock, run over a game's applied plies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal

from relaybot.core.clocks.controls import TimeControl
from relaybot.core.clocks.days import counted_days, local_day
from relaybot.core.clocks.facts import BLACK, WHITE, Pause, Penalty, PlyTimes, player_pauses
from relaybot.core.leave import DayRange

__all__ = ["Books", "LedgerRow", "Overrun", "OverrunKind", "Side", "compute_books"]

OverrunKind = Literal["control", "bank", "fischer", "max"]

_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class LedgerRow:
    """One reply in a player's ledger: the J18 facts and the TD report's day ledger (J9)."""

    ply: int
    move: int  # the player's move number (1-based)
    relayed_day: date  # F: the opponent's move relayed (start date for White's 1st move)
    receipt_day: date  # F + 1 (J6)
    reply_day: date  # R: this reply reached our server
    days: int  # J7 days used on this move
    penalty_days: int  # J5/J16 penalties counted with this move
    penalty_reasons: tuple[str, ...]
    total: int  # running total after this row (moves + penalties)


@dataclass(frozen=True)
class Overrun:
    """A lost clock (J9). ``move`` is the offender's move number.

    ``kind``: ``"control"`` (``total > limit`` at a control move), ``"bank"`` (``total >=
    limit``, the bank at 0), ``"fischer"`` (``total > limit``, limit = total before the move
    plus the reserve) or ``"max"`` (``total`` is the days of that one move, ``> limit``).
    """

    colour: int
    move: int
    kind: OverrunKind
    total: int
    limit: int


@dataclass(frozen=True)
class Side:
    """One player's books.

    ``left`` is what the J18 mail states as days left: to the next control (``10/30``:
    ``limit - total``, may be negative: the control will be overrun), in the bank
    (``bank:20``), or the reserve (Fischer). ``limit`` is the total allowed at
    ``control_move`` (moves), the bank size (bank) or ``total + left`` (Fischer).
    """

    colour: int
    moves: int
    move_days: int
    penalty_days: int
    pending_penalty_days: int
    total: int
    control_move: int | None
    limit: int
    left: int
    ledger: tuple[LedgerRow, ...]
    overrun: Overrun | None


@dataclass(frozen=True)
class Books:
    """Both players' books after the applied plies (J18). ``overrun`` is the first one."""

    control: TimeControl
    start: date
    tz: tuple[str, str]
    grace: int
    sides: tuple[Side, Side]
    on_move: int
    last_sent_at: datetime | None
    pauses: tuple[tuple[DayRange, ...], tuple[DayRange, ...]]
    overrun: Overrun | None

    @property
    def white(self) -> Side:
        """White's (the first player's) side."""
        return self.sides[WHITE]

    @property
    def black(self) -> Side:
        """Black's side."""
        return self.sides[BLACK]


@dataclass
class _Clock:
    """Mutable state while the books are run."""

    colour: int
    moves: int = 0
    move_days: int = 0
    penalty_days: int = 0
    reserve: int = 0
    ledger: list[LedgerRow] = field(default_factory=list)
    overrun: Overrun | None = None

    @property
    def total(self) -> int:
        return self.move_days + self.penalty_days


def compute_books(
    control: TimeControl,
    start: date,
    moves: Sequence[PlyTimes],
    penalties: Sequence[Penalty] = (),
    pauses: Sequence[Pause] = (),
    tz: tuple[str, str] = ("UTC", "UTC"),
    grace: int = 1,
    first: int = 0,
) -> Books:
    """The books of a game (J18) from its applied plies, penalties and pauses.

    ``first``: the colour that makes ply 0 (0 as a rule; 1 where the second-named side
    moves first: White in a handicap go game).

    Ply 0 is White's first move and counts from ``start`` (J7); each later ply counts from
    the arrival of the ply before it (the bot relays at once). A relay before ``start``
    counts from ``start`` (moves before the reference date cost nothing). ``pauses``: J12
    leaves and J13 questions (``question_pauses``), each for one colour; a leave is cut
    short by that player's own move inside it (J12), so stored leaves need not be cut.
    ``tz``: the players' zones (White, Black). Overruns (J9) are checked at every control
    move, after every move for bank, Fischer and the per-move maximum, and for a bank or
    Fischer clock also after a penalty given since the player's last move.
    """
    for i, ply in enumerate(moves):
        if ply.colour != (i + first) % 2:
            raise ValueError(f"ply {i} is by colour {ply.colour}, expected {(i + first) % 2}")
    clocks = (_Clock(WHITE, reserve=control.days), _Clock(BLACK, reserve=control.days))
    paused = player_pauses(moves, pauses, tz)

    # J5/J16: each penalty goes with the first move of its colour arriving at or after it.
    attached: dict[int, list[Penalty]] = {}
    pending_pen: list[list[Penalty]] = [[], []]
    for pen in sorted(penalties, key=lambda p: p.at):
        target = next((i for i, ply in enumerate(moves)
                       if (i + first) % 2 == pen.colour and ply.sent_at >= pen.at), None)
        if target is None:
            pending_pen[pen.colour].append(pen)
        else:
            attached.setdefault(target, []).append(pen)

    first_overrun: Overrun | None = None
    for i, ply in enumerate(moves):
        clock = clocks[ply.colour]
        zone = tz[ply.colour]
        relayed: date = start if i == 0 else max(start, local_day(moves[i - 1].sent_at, zone))
        reply = local_day(ply.sent_at, zone)
        used = counted_days(relayed + timedelta(days=grace), reply, paused[ply.colour])
        pens = attached.get(i, [])
        pen_days = sum(p.days for p in pens)
        before = clock.total
        clock.moves += 1
        clock.move_days += used
        clock.penalty_days += pen_days
        clock.ledger.append(LedgerRow(
            ply=i, move=clock.moves, relayed_day=relayed, receipt_day=relayed + _ONE_DAY,
            reply_day=reply, days=used, penalty_days=pen_days,
            penalty_reasons=tuple(p.reason for p in pens), total=clock.total,
        ))
        over = _check_move(clock, control, used, before)
        if over is not None and clock.overrun is None:
            clock.overrun = over
            first_overrun = first_overrun or over

    for colour in (WHITE, BLACK):
        clock = clocks[colour]
        extra = sum(p.days for p in pending_pen[colour])
        if not extra:
            continue
        before = clock.total
        clock.penalty_days += extra
        if clock.overrun is not None:
            continue
        # J9: a bank at 0 (or a Fischer reserve below 0) loses by itself, at once, during
        # the move being made (the moves still to come cannot give days back).
        over = None
        if control.kind == "bank" and clock.total >= control.days:
            over = Overrun(colour, clock.moves + 1, "bank", clock.total, control.days)
        elif control.kind == "fischer" and extra > clock.reserve:
            over = Overrun(colour, clock.moves + 1, "fischer", clock.total,
                           before + clock.reserve)
        if over is not None:
            clock.overrun = over
            first_overrun = first_overrun or over

    sides = (_side(clocks[WHITE], control, pending_pen[WHITE]),
             _side(clocks[BLACK], control, pending_pen[BLACK]))
    return Books(
        control=control, start=start, tz=tz, grace=grace, sides=sides,
        on_move=(len(moves) + first) % 2, last_sent_at=moves[-1].sent_at if moves else None,
        pauses=(tuple(paused[WHITE]), tuple(paused[BLACK])), overrun=first_overrun,
    )


def _check_move(clock: _Clock, control: TimeControl, used: int, before: int) -> Overrun | None:
    """J9: the overrun a move just made causes, if any (the per-move maximum first).

    For Fischer this also moves the reserve on: the move and its penalties come off it,
    then the increment goes on, up to the cap.
    """
    over: Overrun | None = None
    if control.kind == "moves":
        if clock.moves % control.moves == 0:  # a control move: 10th, 20th, ...
            limit = control.limit_at(clock.moves)
            if clock.total > limit:
                over = Overrun(clock.colour, clock.moves, "control", clock.total, limit)
    elif control.kind == "bank":
        # Seed 002 rule 9: "0日になったら負け": lost when the bank reaches 0.
        if clock.total >= control.days:
            over = Overrun(clock.colour, clock.moves, "bank", clock.total, control.days)
    else:
        limit = before + clock.reserve
        clock.reserve -= clock.total - before
        if clock.reserve < 0:
            over = Overrun(clock.colour, clock.moves, "fischer", clock.total, limit)
        clock.reserve += control.increment
        if control.cap is not None:
            clock.reserve = min(clock.reserve, control.cap)
    if control.max_per_move is not None and used > control.max_per_move:
        return Overrun(clock.colour, clock.moves, "max", used, control.max_per_move)
    return over


def _side(clock: _Clock, control: TimeControl, pending_pen: list[Penalty]) -> Side:
    pending_days = sum(p.days for p in pending_pen)
    total = clock.total
    if control.kind == "moves":
        control_move = control.control_move(clock.moves)
        assert control_move is not None
        limit = control.limit_at(control_move)
        left = limit - total
    elif control.kind == "bank":
        control_move = None
        limit = control.days
        left = limit - total
    else:
        control_move = None
        left = clock.reserve - pending_days
        limit = total + left
    return Side(
        colour=clock.colour, moves=clock.moves, move_days=clock.move_days,
        penalty_days=clock.penalty_days, pending_penalty_days=pending_days, total=total,
        control_move=control_move, limit=limit, left=left, ledger=tuple(clock.ledger),
        overrun=clock.overrun,
    )
