"""Holding Ctrl-C and SIGTERM over a few steps that must not be cut in half.

Why: Python raises `KeyboardInterrupt` (and `aniso scenarios run` turns SIGTERM into
one) between any two bytecodes. Some steps leave something behind when cut there:
a scratch folder made but not yet in the `try` that deletes it, or a worker process
started but not yet registered with its pool, so nothing stops it and it reads half
its start-up data and prints a traceback. Measured: `scenarios run --jobs 2`
terminated within 20 ms of start left a traceback in 2 of 20 runs, and a scratch
folder holding verbatim messages in CI.

While held, a signal is only noted. When the block ends it is raised again with the
handler that was in place before, so the caller sees the same interrupt, or the same
default exit, a few milliseconds late instead of in the middle of a step.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Run the block with Ctrl-C and SIGTERM noted, then deliver the first one noted.

    Only the main thread can install handlers, and only it receives Python's signal
    handlers, so off the main thread the block simply runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        noted.append(signum)

    previous = {signum: signal.signal(signum, note) for signum in _HELD}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            # None: a handler installed outside Python, which cannot be put back.
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if noted:
            signal.raise_signal(noted[0])
