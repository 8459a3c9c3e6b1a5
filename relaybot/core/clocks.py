"""Day clocks for correspondence play: time controls, days used, the books (J5-J14, J18).

Everything here is pure: no I/O and no clock reading. The service passes ``now`` (and the
arrival times of the mails, IMAP INTERNALDATE, UTC aware) and gets values back.

Counting in one sentence (J6, J7): a move relayed on local day ``F`` (the receiving
player's own calendar day, midnight to midnight) counts as received on ``F + 1``; a reply
sent on local day ``R`` costs ``max(0, R - (F + grace))`` days, where the days inside a
pause (J12 leave, J13 question to the TD) are not counted. Only days in the window
``(F + grace, R]`` are ever counted, so a pause that falls inside the grace period changes
nothing.

Time controls (J8), written as text in the game's settings:

* ``10/30``, ``10/50``: cumulative; at a player's 10th, 20th, 30th... move the total must
  be ``<= 30, 60, 90...`` days; unused days carry over. Checked only at control moves (J9).
* ``bank:20`` (shogi league, seed 002 rule 9): 20 days in all, no refill. The seed says
  "当初の持ち日数を20日とし、0日になったら負けとする": the player loses when the bank
  *reaches* 0, i.e. when the total is ``>= 20`` (not only when it goes past 20). The bank
  loses by itself, with no claim (J9), also while the player is still thinking (see
  ``pending``).
* ``fischer:30+1:45`` (ICCF server style): a reserve of 30 days, +1 day after each move
  made, the reserve never above 45 (``fischer:30+1`` has no cap). A move that costs more
  than the reserve (reserve below 0) loses.
* ``,max:14`` after any of them: no single move may use more than 14 days.

Colours are 0 (White, the first player) and 1 (Black), as in ``relaybot.games``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from relaybot.core.leave import DayRange, end_leave_on_move

WHITE = 0
BLACK = 1

PENALTY_DAYS = 5  # J5 (rule 6) and J16 (rule 4): days added to the offender's time
SILENCE_REMINDER_DAYS = 10  # J11 (rule 12): resend the last mail after 10 days
SILENCE_ESCALATION_DAYS = 20  # J11: 10 more days, then report to the TD
DURATION_MONTHS = 24  # J14 (rule 19): unfinished after 24 months goes to the TD

ControlKind = Literal["moves", "bank", "fischer"]
OverrunKind = Literal["control", "bank", "fischer", "max"]

_ONE_DAY = timedelta(days=1)

# ---------------------------------------------------------------------------------------
# Time controls (J8)
# ---------------------------------------------------------------------------------------

_MOVES_RE = re.compile(r"(\d+)/(\d+)")
_BANK_RE = re.compile(r"bank:(\d+)")
_FISCHER_RE = re.compile(r"fischer:(\d+)\+(\d+)(?::(\d+))?")
_MAX_RE = re.compile(r"max:(\d+)")

_EXAMPLES = "10/30, 10/50, bank:20, fischer:30+1:45, optionally followed by ,max:14"


@dataclass(frozen=True)
class TimeControl:
    """A game's day clock (J8). Build it with ``TimeControl.parse``; ``str()`` gives it back.

    ``kind`` is ``"moves"`` (``moves``/``days``: N moves in D days, cumulative),
    ``"bank"`` (``days`` in all) or ``"fischer"`` (``days`` to start, ``increment`` per
    move, reserve at most ``cap`` if set). ``max_per_move`` is the optional per-move limit.
    """

    kind: ControlKind
    days: int
    moves: int = 0
    increment: int = 0
    cap: int | None = None
    max_per_move: int | None = None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read ``10/30``, ``bank:20``, ``fischer:30+1:45``, each with optional ``,max:N``.

        Case and spaces do not matter. Raises ``ValueError`` with a message that can go
        to the TD as it is.
        """
        raw = text
        norm = re.sub(r"\s+", "", text).lower()
        head, sep, tail = norm.partition(",")
        max_per_move: int | None = None
        if sep:
            mm = _MAX_RE.fullmatch(tail)
            if mm is None:
                raise ValueError(
                    f"time control {raw!r}: {tail!r} not understood after the comma "
                    f"(only max:N, e.g. 10/30,max:14)"
                )
            max_per_move = int(mm.group(1))
            if max_per_move <= 0:
                raise ValueError(f"time control {raw!r}: the per-move maximum must be > 0")
        if m := _MOVES_RE.fullmatch(head):
            moves, days = int(m.group(1)), int(m.group(2))
            if moves <= 0 or days <= 0:
                raise ValueError(f"time control {raw!r}: moves and days must both be > 0")
            return cls("moves", days, moves=moves, max_per_move=max_per_move)
        if m := _BANK_RE.fullmatch(head):
            days = int(m.group(1))
            if days <= 0:
                raise ValueError(f"time control {raw!r}: the bank must hold more than 0 days")
            return cls("bank", days, max_per_move=max_per_move)
        if m := _FISCHER_RE.fullmatch(head):
            base, inc = int(m.group(1)), int(m.group(2))
            cap = int(m.group(3)) if m.group(3) is not None else None
            if base <= 0:
                raise ValueError(f"time control {raw!r}: the starting reserve must be > 0")
            if cap is not None and cap < base:
                raise ValueError(
                    f"time control {raw!r}: the cap ({cap}) is below the starting reserve "
                    f"({base})"
                )
            return cls("fischer", base, increment=inc, cap=cap, max_per_move=max_per_move)
        raise ValueError(f"time control {raw!r} not understood (expected {_EXAMPLES})")

    def __str__(self) -> str:
        if self.kind == "moves":
            text = f"{self.moves}/{self.days}"
        elif self.kind == "bank":
            text = f"bank:{self.days}"
        else:
            text = f"fischer:{self.days}+{self.increment}"
            if self.cap is not None:
                text += f":{self.cap}"
        if self.max_per_move is not None:
            text += f",max:{self.max_per_move}"
        return text

    def control_move(self, moves_made: int) -> int | None:
        """J8: the next control move after ``moves_made`` moves (``k*N > moves_made``).

        ``None`` for bank and Fischer clocks, which have no control moves.
        """
        if self.kind != "moves":
            return None
        return (moves_made // self.moves + 1) * self.moves

    def limit_at(self, control_move: int) -> int:
        """J8: the most days a player may have used at ``control_move`` (``10/30``: 30*k)."""
        if self.kind != "moves":
            raise ValueError(f"{self} has no control moves")
        return (control_move // self.moves) * self.days


# ---------------------------------------------------------------------------------------
# Days (J6, J7, J11, J14)
# ---------------------------------------------------------------------------------------


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {tz!r}") from exc


def local_day(moment: datetime, tz: str) -> date:
    """J6: the calendar day ``moment`` falls on in zone ``tz`` (the day changes at midnight).

    ``moment`` must be aware (our timestamps are INTERNALDATE, UTC); raises ``ValueError``
    for a naive one, never guesses.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: give an aware one (UTC)")
    return moment.astimezone(_zone(tz)).date()


def _day(moment: datetime | date, tz: str) -> date:
    """A local day from an aware datetime, or a date taken as it is (a start date)."""
    if isinstance(moment, datetime):
        return local_day(moment, tz)
    return moment


def receipt_day(sent_at: datetime | date, tz: str) -> date:
    """J6: a move sent on day D counts as received on D + 1 (in the receiver's zone ``tz``)."""
    return _day(sent_at, tz) + _ONE_DAY


def _merged(paused: Iterable[DayRange]) -> list[DayRange]:
    """Pauses sorted and merged (overlapping or touching ranges become one)."""
    out: list[DayRange] = []
    for first, last in sorted(p for p in paused if p[1] >= p[0]):
        if out and (out[-1][1] == date.max or first <= out[-1][1] + _ONE_DAY):
            out[-1] = (out[-1][0], max(last, out[-1][1]))
        else:
            out.append((first, last))
    return out


def paused_days(after: date, until: date, paused: Iterable[DayRange]) -> int:
    """How many days of the window ``(after, until]`` lie inside the pauses (J12, J13)."""
    total = 0
    for first, last in _merged(paused):
        lo = max(first, after + _ONE_DAY)
        hi = min(last, until)
        if hi >= lo:
            total += (hi - lo).days + 1
    return total


def counted_days(after: date, until: date, paused: Iterable[DayRange] = ()) -> int:
    """Days in ``(after, until]`` that are not paused; 0 when ``until <= after``."""
    if until <= after:
        return 0
    return (until - after).days - paused_days(after, until, paused)


def nth_counted_day(after: date, n: int, paused: Iterable[DayRange] = ()) -> date:
    """The day on which the ``n``-th counted (unpaused) day after ``after`` falls.

    ``n <= 0`` gives ``after``. Pauses push the day back; if an open-ended pause
    (``last == date.max``) is reached first the answer is ``date.max`` ("never").
    """
    day = after
    left = n
    for first, last in _merged(paused):
        if left <= 0:
            break
        if last <= day:
            continue
        start = max(first, day + _ONE_DAY)
        free = (start - day).days - 1  # counted days before this pause
        if free >= left:
            break
        left -= free
        if last == date.max:
            return date.max
        day = last
    return day + timedelta(days=max(0, left))


def days_used(
    relayed_at: datetime | date,
    replied_at: datetime | date,
    tz: str,
    grace: int = 1,
    paused: Sequence[DayRange] = (),
) -> int:
    """J7: days a reply used: ``max(0, R - (F + grace))`` minus paused days.

    ``F`` is the local day of ``relayed_at`` and ``R`` of ``replied_at``, both in the
    replying player's zone ``tz`` (J6). A ``date`` is taken as the day itself (White's
    first move counts from the game's start date, J7). ``grace`` is 1 for JCCA/ICCF
    email, 2 for the shogi league ("翌々日までに返信したものは消費0日"). ``paused`` are
    inclusive day ranges (J12 leave, J13 question) in the same zone; only paused days in
    the counted window ``(F + grace, R]`` are taken off.
    """
    if grace < 0:
        raise ValueError("grace must be >= 0")
    first = _day(relayed_at, tz)
    reply = _day(replied_at, tz)
    return counted_days(first + timedelta(days=grace), reply, paused)


def days_used_from_start(
    start: date,
    replied_at: datetime | date,
    tz: str,
    grace: int = 1,
    paused: Sequence[DayRange] = (),
) -> int:
    """J7: White's first move counts from the game's start date (the reference date)."""
    return days_used(start, replied_at, tz, grace, paused)


def silence_deadlines(
    relayed_at: datetime | date, tz: str, paused: Sequence[DayRange] = ()
) -> tuple[date, date]:
    """J11: (reminder day, TD escalation day) for a move relayed at ``relayed_at``.

    The reminder is due 10 days after the relay day, the escalation 10 days later; days
    inside pauses (the silent player's leave, J12: no reminders during leave; a J13
    question) do not count and push both back. Days are in the silent player's zone
    ``tz``. An open-ended pause (``(d, date.max)``) gives ``date.max`` (never).
    """
    relayed = _day(relayed_at, tz)
    return (
        nth_counted_day(relayed, SILENCE_REMINDER_DAYS, paused),
        nth_counted_day(relayed, SILENCE_ESCALATION_DAYS, paused),
    )


def adjudication_day(start: date, months: int = DURATION_MONTHS) -> date:
    """J14 (rule 19): the day a game started on ``start`` is due for TD adjudication.

    ``months`` after the start (24 for JCCA; 6 for a shogi season's games, counted from the
    season's start). A day missing in the target month becomes its last day.
    """
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    day = start.day
    while True:
        try:
            return date(year, month, day)
        except ValueError:
            day -= 1


# ---------------------------------------------------------------------------------------
# The books (J5, J8, J9, J12, J13, J16, J18)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlyTimes:
    """One applied ply: who made it and when its mail reached our server (J6, UTC aware)."""

    colour: int
    sent_at: datetime


@dataclass(frozen=True)
class Penalty:
    """Days added to a player's time (J5 bad move, J16 conditional ignored: 5 days).

    It counts towards the first move of ``colour`` arriving at or after ``at``; one given
    after that player's last move counts in the total at once (``Side.pending_penalty_days``).
    """

    colour: int
    days: int
    reason: str
    at: datetime


@dataclass(frozen=True)
class Pause:
    """Inclusive local days on which one player's clock does not run.

    J12 leave: ``reason="leave"``, the dates as announced, in that player's zone. J13: a
    question to the TD pauses both clocks; build it with ``question_pauses``. ``last=None``
    means still open (a question not yet answered).
    """

    colour: int
    first: date
    last: date | None
    reason: str = "leave"

    @property
    def days(self) -> DayRange:
        """The pause as an inclusive range (open-ended: ``date.max``)."""
        return (self.first, self.last if self.last is not None else date.max)


def question_pauses(
    asked_at: datetime, answered_at: datetime | None, tz: tuple[str, str]
) -> tuple[Pause, Pause]:
    """J13 (rule 25): a question pauses the game for both players from the day it was sent
    to the day the answer arrived, each in their own zone; ``answered_at=None``: still open.
    """
    def one(colour: int) -> Pause:
        zone = tz[colour]
        last = local_day(answered_at, zone) if answered_at is not None else None
        return Pause(colour, local_day(asked_at, zone), last, "question")

    return one(WHITE), one(BLACK)


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
) -> Books:
    """The books of a game (J18) from its applied plies, penalties and pauses.

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
        if ply.colour != i % 2:
            raise ValueError(f"ply {i} is by colour {ply.colour}, expected {i % 2}")
    clocks = (_Clock(WHITE, reserve=control.days), _Clock(BLACK, reserve=control.days))
    paused = _player_pauses(moves, pauses, tz)

    # J5/J16: each penalty goes with the first move of its colour arriving at or after it.
    attached: dict[int, list[Penalty]] = {}
    pending_pen: list[list[Penalty]] = [[], []]
    for pen in sorted(penalties, key=lambda p: p.at):
        target = next((i for i, ply in enumerate(moves)
                       if i % 2 == pen.colour and ply.sent_at >= pen.at), None)
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
        on_move=len(moves) % 2, last_sent_at=moves[-1].sent_at if moves else None,
        pauses=(tuple(paused[WHITE]), tuple(paused[BLACK])), overrun=first_overrun,
    )


def _player_pauses(
    moves: Sequence[PlyTimes], pauses: Sequence[Pause], tz: tuple[str, str]
) -> tuple[list[DayRange], list[DayRange]]:
    """Each colour's pause ranges, leaves cut short by that player's own moves (J12)."""
    out: tuple[list[DayRange], list[DayRange]] = ([], [])
    for pause in pauses:
        if pause.colour not in (WHITE, BLACK):
            raise ValueError(f"pause for unknown colour {pause.colour}")
        rng: DayRange | None = pause.days
        if pause.reason == "leave":
            for i in range(pause.colour, len(moves), 2):
                if rng is None:
                    break
                rng = end_leave_on_move(rng, local_day(moves[i].sent_at, tz[pause.colour]))
        if rng is not None:
            out[pause.colour].append(rng)
    return out


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


# ---------------------------------------------------------------------------------------
# The player on move now (J9 bank, J10, J11 sweep, J18 status)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PendingClock:
    """The clock of the player on move, as if they replied today.

    ``days`` are the days this move has used so far (J7, replying today); ``total`` and
    ``left`` count them (``left`` as in ``Side``). ``move_left`` is what the per-move
    maximum still allows. ``overrun_day`` is the first local day on which a reply (or no
    reply) means a lost clock: past the next control's limit (even if the moves still to
    come before the control cost nothing), the bank at 0, the Fischer reserve below 0, or
    the per-move maximum passed; ``None`` when no such day can come (an open pause).
    ``overrun`` is true when that day has come (for a bank clock: lost, J9).
    """

    colour: int
    move: int
    relayed_day: date
    receipt_day: date
    today: date
    days: int
    total: int
    control_move: int | None
    limit: int
    left: int
    move_left: int | None
    overrun_day: date | None
    overrun: bool


def pending(books: Books, now: datetime) -> PendingClock:
    """The clock of ``books.on_move`` at ``now`` (aware), with the books' own settings.

    The move is relayed at the arrival of the last ply (the start date before White's
    first move), counted in the mover's zone with the books' grace and that player's
    pauses (J6, J7, J12, J13).
    """
    colour = books.on_move
    side = books.sides[colour]
    control = books.control
    zone = books.tz[colour]
    paused = books.pauses[colour]
    if books.last_sent_at is None:
        relayed = books.start
    else:
        relayed = max(books.start, local_day(books.last_sent_at, zone))
    counted_from = relayed + timedelta(days=books.grace)
    today = local_day(now, zone)
    days = counted_days(counted_from, today, paused)
    total = side.total + days

    # Counted days this move may take before the clock is lost.
    needs: list[int] = []
    move_left: int | None = None
    if control.max_per_move is not None:
        move_left = control.max_per_move - days
        needs.append(control.max_per_move + 1)
    if control.kind == "bank":
        needs.append(side.left)  # seed 002 rule 9: lost when the bank reaches 0
    else:
        needs.append(side.left + 1)  # J8 past the control's limit; Fischer reserve below 0
    left = side.left - days
    need = min(needs)
    if need <= 0:
        overrun_day: date | None = relayed + _ONE_DAY
    else:
        found = nth_counted_day(counted_from, need, paused)
        overrun_day = None if found == date.max else found
    return PendingClock(
        colour=colour, move=side.moves + 1, relayed_day=relayed,
        receipt_day=relayed + _ONE_DAY, today=today, days=days, total=total,
        control_move=side.control_move, limit=side.limit, left=left, move_left=move_left,
        overrun_day=overrun_day,
        overrun=overrun_day is not None and today >= overrun_day,
    )
