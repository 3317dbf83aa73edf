"""The one rich progress bar of the CLI: shown on a TTY, silent under --json or a pipe.

Domain code takes a plain `Progress` callback (`aniso.core.ports`); only the CLI and
the benches draw.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from aniso.core.ports import Progress


@contextmanager
def bar(label: str, *, quiet: bool = False) -> Iterator[Callable[[int], Progress]]:
    """Yields `start(total) -> advance`: the bar appears once the total is known and is
    gone when the block ends; with `quiet` or no TTY nothing is drawn."""
    from rich.progress import Progress as RichProgress

    shown = RichProgress(transient=True) if not quiet and sys.stderr.isatty() else None

    def start(total: int) -> Progress:
        if shown is None:
            return lambda _done: None
        task = shown.add_task(label, total=total)
        shown.start()
        return lambda done: shown.advance(task, done)

    try:
        yield start
    finally:
        if shown is not None:
            shown.stop()
