"""The one rich progress bar of the CLI: drawn on stderr on a TTY, silent under --json
or a pipe. Domain code takes a plain `Progress` callback (`aniso.core.ports`); only the
CLI and the benches draw."""

from __future__ import annotations

import sys
from typing import Any


class Bar:
    """A transient bar of `total` steps; every method is a no-op when it is not shown."""

    def __init__(self, label: str, total: int, *, quiet: bool = False) -> None:
        self._progress: Any = None
        if quiet or not sys.stderr.isatty():
            return
        from rich.console import Console
        from rich.progress import Progress

        self._progress = Progress(transient=True, console=Console(stderr=True))
        self._task = self._progress.add_task(label, total=total)
        self._progress.start()

    @property
    def shown(self) -> bool:
        return self._progress is not None

    def advance(self, amount: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, amount)

    def step(self, label: str) -> None:
        """One step done, with what comes next as the bar's label."""
        if self._progress is not None:
            self._progress.update(self._task, description=label)
            self._progress.advance(self._task, 1)

    def update(self, done: int, total: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=done, total=total)

    def phase(self, label: str, done: int, total: int) -> None:
        """Where a multi-phase job stands: its phase as the label, and its count."""
        if self._progress is not None:
            self._progress.update(self._task, description=label, completed=done, total=total)

    def retotal(self, total: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
