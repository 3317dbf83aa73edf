"""Start-up timings of one process, written only when `ANISO_TIMINGS` names a file.

Why: the time to a first token is spread over imports, opening the stores, the privacy
guard, recall, loading the model and evaluating the prompt. `aniso bench start` runs a
real `aniso ask` and needs to know where that time went without the process printing
anything extra: with the variable unset every call here is a dict lookup and nothing is
recorded or written, so normal output never changes.

Times are wall-clock epoch seconds, so the bench (another process) can set them against
the moment it spawned the command. Spans are recorded as they end; they do not nest.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

ENV = "ANISO_TIMINGS"

_spans: list[dict[str, float | str]] = []
_marks: dict[str, float] = {}
_armed = False


def enabled() -> bool:
    """True when this process was asked to report its timings."""
    return bool(os.environ.get(ENV))


@contextlib.contextmanager
def span(name: str) -> Iterator[None]:
    """Charge the time inside the block to `name` (e.g. "guard")."""
    if not enabled():
        yield
        return
    start = time.time()
    try:
        yield
    finally:
        _spans.append({"name": name, "start": start, "end": time.time()})
        _arm()


def mark(name: str) -> None:
    """Note the first time an instant is reached (e.g. "first_token")."""
    if enabled() and name not in _marks:
        _marks[name] = time.time()
        _arm()


def _arm() -> None:
    global _armed
    if not _armed:
        _armed = True
        atexit.register(write)


def write() -> None:
    """Write what was recorded as JSON to the file `ANISO_TIMINGS` names."""
    target = os.environ.get(ENV)
    if not target:
        return
    with contextlib.suppress(OSError):  # a measurement never breaks the command
        Path(target).write_text(json.dumps({"spans": _spans, "marks": _marks}), "utf-8")
