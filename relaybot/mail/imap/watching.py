"""What ``Mailbox.watch`` waits on besides the server: an interrupt another thread raises
(the mail server's wake-up, relaybot.app.wake), and why a watch ended."""

from __future__ import annotations

import select
from typing import Literal, Protocol

__all__ = ["Interrupt", "Woke", "readable"]

Woke = Literal["news", "timeout", "interrupt"]
"""Why :meth:`Mailbox.watch` returned: the server reported mail, the time was up, or the
caller's interrupt was raised."""


class Interrupt(Protocol):
    """Something another thread raises to end a wait at once (a self-pipe, say): readable
    while raised. Reading it is the owner's business; the mailbox only watches it."""

    def fileno(self) -> int:
        """The descriptor that is readable while the interrupt is raised."""
        ...


def readable(fds: list[int], seconds: float) -> set[int]:
    """Which of ``fds`` are readable (or closed) within ``seconds``."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return {fd for fd, _mask in poller.poll(max(0, round(seconds * 1000)))}
