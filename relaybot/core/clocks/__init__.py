"""Day clocks for correspondence play: time controls, days used, the books (J5-J14, J18).

Everything here is pure: no I/O and no clock reading. The service passes ``now`` (and the
arrival times of the mails, IMAP INTERNALDATE, UTC aware) and gets values back.

Counting in one sentence (J6, J7): a move relayed on local day ``F`` (the receiving
player's own calendar day, midnight to midnight) counts as received on ``F + 1``; a reply
sent on local day ``R`` costs ``max(0, R - (F + grace))`` days, where the days inside a
pause (J12 leave, J13 question to the TD) are not counted. Only days in the window
``(F + grace, R]`` are ever counted, so a pause that falls inside the grace period changes
nothing.

Time controls (J8) are written as text in the game's settings: ``10/30``, ``bank:20``,
``fischer:30+1:45``, each optionally followed by ``,max:14`` (see
:mod:`relaybot.core.clocks.controls`).

Colours are 0 (White, the first player) and 1 (Black), as in ``relaybot.games``.

The modules:

* ``controls`` - :class:`TimeControl` (J8);
* ``days`` - local days and counted days, silence and adjudication days (J6, J7, J11, J14);
* ``facts`` - what the books are computed from: plies, penalties, pauses (J5, J12, J13, J16);
* ``books`` - :func:`compute_books`: ledgers, totals, overruns (J8, J9, J18);
* ``due`` - :func:`pending`: the clock of the player on move now (J9, J10, J11, J18).
"""

from __future__ import annotations

from relaybot.core.clocks.books import (
    Books,
    LedgerRow,
    Overrun,
    OverrunKind,
    Side,
    compute_books,
)
from relaybot.core.clocks.controls import ControlKind, TimeControl
from relaybot.core.clocks.days import (
    DURATION_MONTHS,
    SILENCE_ESCALATION_DAYS,
    SILENCE_REMINDER_DAYS,
    adjudication_day,
    counted_days,
    days_used,
    days_used_from_start,
    duration_reached,
    escalation_after_reminder,
    local_day,
    nth_counted_day,
    paused_days,
    receipt_day,
    silence_deadlines,
)
from relaybot.core.clocks.due import PendingClock, pending
from relaybot.core.clocks.facts import (
    BLACK,
    PENALTY_DAYS,
    WHITE,
    Pause,
    Penalty,
    PlyTimes,
    question_pauses,
)

__all__ = [
    "BLACK",
    "DURATION_MONTHS",
    "PENALTY_DAYS",
    "SILENCE_ESCALATION_DAYS",
    "SILENCE_REMINDER_DAYS",
    "WHITE",
    "Books",
    "ControlKind",
    "LedgerRow",
    "Overrun",
    "OverrunKind",
    "Pause",
    "Penalty",
    "PendingClock",
    "PlyTimes",
    "Side",
    "TimeControl",
    "adjudication_day",
    "compute_books",
    "counted_days",
    "days_used",
    "days_used_from_start",
    "duration_reached",
    "escalation_after_reminder",
    "local_day",
    "nth_counted_day",
    "paused_days",
    "pending",
    "question_pauses",
    "receipt_day",
    "silence_deadlines",
]
