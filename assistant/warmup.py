"""Start-up work that no message decides, begun on a background thread.

Why: before its first token a turn needs the privacy guard's engine (presidio and
spaCy), the profile rules' indexes and, by default, the embedded model: seconds of
work that depend on nothing the user typed. Started as soon as the command knows it
will answer, it overlaps the app's own imports and the opening of the stores; loading
the model is native code that runs while the chat thread holds the interpreter.

The caller waits for the thread (`wait`) before its first message: the profile's
indexes are plain caches, and a message arriving while they are half built would build
them a second time, on the same two cores.

Privacy is untouched: the guard still screens every message on the chat thread,
before anything is stored or sent. Warming only builds its engine earlier, and the
engine is built once under a lock, so a scan that comes first waits for that build
instead of starting its own. Nothing here sees a message or touches the data dir.
"""

from __future__ import annotations

import logging
import threading

from aniso.core import timings
from aniso.core.settings import Settings

log = logging.getLogger(__name__)


def warm(settings: Settings) -> None:
    """Load the embedded model (if it is the one in use) with its prompt's fixed start,
    the guard's engine and the profile rules' indexes, in that order: the model is
    native code that overlaps best with the caller's Python work."""
    if settings.is_embedded_model:
        from aniso.llm import embedded
        from aniso.prompt import SMALL_MODEL_PREAMBLE

        # The fixed start of every prompt, from the disk cache (`llm/prefix_cache.py`).
        embedded.prime([{"role": "system", "content": SMALL_MODEL_PREAMBLE}])
    from aniso.privacy import engine

    engine.shared_analyzer()
    from aniso.profile import learner

    learner.warm()


def start(settings: Settings) -> threading.Thread:
    """`warm` on a thread; a failure there is only logged, since the chat thread
    meets (and reports) the same failure itself when it needs the piece.

    Not a daemon: the interpreter would kill a daemon thread at exit wherever it is,
    and one killed inside an import leaves the import lock held, so a command that
    failed early (an unusable data dir) hung on its way out. A process that ends
    before the warm-up does now waits for it: seconds, after the error is shown."""

    def run() -> None:
        try:
            warm(settings)
        except Exception as error:  # noqa: BLE001 - the chat thread reports it
            log.info("background warm-up stopped: %s", type(error).__name__)

    thread = threading.Thread(target=run, name="aniso-warm-up")
    thread.start()
    return thread


def wait(thread: threading.Thread) -> None:
    """Wait for `start`'s thread to finish, timed as the "warm_up" part of a turn."""
    with timings.span("warm_up"):
        thread.join()
