"""A helper process of a bench (an SMTP sink, say), forked before any thread exists and
spoken to over a pipe, so its event loop never waits on the bench's."""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any


class Child:
    """``target(conn, *args)`` in a forked child; :attr:`hello` is the first thing it
    sends (its address, or "ready"); :meth:`stop` sends "stop" and waits for it."""

    def __init__(self, target: Callable[..., None], *args: Any, timeout: float = 30) -> None:
        ctx = multiprocessing.get_context("fork")  # before any thread exists in this process
        self._conn: Connection
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=target, args=(child, *args), daemon=True)
        self._proc.start()
        child.close()
        if not self._conn.poll(timeout):
            self.stop()
            raise RuntimeError(f"{type(self).__name__} did not start")
        self.hello: Any = self._conn.recv()

    def stop(self) -> None:
        """Ask the child to stop; kill it if it has not within 10 s."""
        with contextlib.suppress(OSError):
            self._conn.send("stop")
        self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()
