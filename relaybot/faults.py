"""Crash injection for the reliability tests (RELIABILITY.md T1).

``RELAYBOT_FAULT_AT=<point>`` makes the process ``os._exit(137)`` when it
reaches that point. Read once at import, so an unset variable costs one
comparison against None.
"""

from __future__ import annotations

import os

_POINT = os.environ.get("RELAYBOT_FAULT_AT") or None


def crash_point(name: str) -> None:
    """Die here if the tests asked for it; otherwise do nothing."""
    if _POINT is not None and _POINT == name:
        os._exit(137)
