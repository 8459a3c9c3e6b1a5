"""Fault injection for the reliability tests (RELIABILITY.md T1-T7).

``RELAYBOT_FAULT_AT`` names one or more points, comma-separated, each with an
optional action::

    after_commit                 die here: os._exit(137) (the default action)
    process:raise:poison-7       raise InjectedFault when the data passed holds "poison-7"
    process:raise                raise InjectedFault every time
    mid_fetch:sleep:3            sleep 3 s here, the first time only

``RELAYBOT_FAULT_MARK=<file>``: each fault that fires appends its point name to that
file first, so a test knows the process has reached it.

Read once at import: with the variable unset, a point costs one comparison with None.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

FAULT_EXIT = 137


class InjectedFault(RuntimeError):
    """Raised by a ``<point>:raise`` fault: stands for any bug met while processing."""


@dataclass
class _Fault:
    action: str
    arg: str
    fired: bool = False


def _parse(spec: str) -> dict[str, _Fault]:
    faults: dict[str, _Fault] = {}
    for item in spec.split(","):
        point, _, rest = item.strip().partition(":")
        action, _, arg = rest.partition(":")
        if point:
            faults[point] = _Fault(action or "exit", arg)
    return faults


_SPEC = os.environ.get("RELAYBOT_FAULT_AT") or None
_FAULTS = _parse(_SPEC) if _SPEC else None
_MARK = os.environ.get("RELAYBOT_FAULT_MARK") or None


def _mark(name: str) -> None:
    if _MARK is not None:
        with open(_MARK, "a", encoding="utf-8") as fh:
            fh.write(name + "\n")


def crash_point(name: str, data: bytes | None = None) -> None:
    """Act here if the tests asked for it (exit, raise, sleep); otherwise do nothing."""
    if _FAULTS is None:
        return
    fault = _FAULTS.get(name)
    if fault is None:
        return
    if fault.action == "raise":
        if fault.arg and (data is None or fault.arg.encode() not in data):
            return
        _mark(name)
        raise InjectedFault(f"injected fault at {name}")
    if fault.action == "sleep":
        if fault.fired:
            return
        fault.fired = True
        _mark(name)
        time.sleep(float(fault.arg or 1))
        return
    _mark(name)
    os._exit(FAULT_EXIT)
