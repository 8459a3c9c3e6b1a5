"""Progress bars for long CLI work (digests, member import, event creation), with rich.

Drawn on stderr, and only when stderr is a terminal: a cron job, a pipe or a test sees
nothing of them, and stdout stays what a script reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

Advance = Callable[[int, int], None]
"""``advance(done, total)``: how far the work is."""


@contextmanager
def progress_bar(label: str, stream: IO[str] | None = None,
                 force: bool = False) -> Iterator[Advance]:
    """A bar labelled ``label``; yields the ``advance(done, total)`` to call.

    ``force`` draws it even when the stream is not a terminal (for tests).
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(file=stream, stderr=stream is None, force_terminal=force or None)
    if not console.is_terminal:
        yield lambda done, total: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance
