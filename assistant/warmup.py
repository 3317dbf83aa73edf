"""Start-up work that no message decides, split between a background thread and the
caller so the two overlap.

Why: before its first token a turn needs the privacy guard's engine (presidio and
spaCy), the profile rules' indexes and, by default, the embedded model: seconds of
work that depend on nothing the user typed. The guard and the profile are Python work
and go to a background thread (`start`), begun as soon as the command knows it will
answer, beside the app's imports and the opening of the stores. The model is native
code that releases the interpreter, and it is loaded on the caller's thread
(`prepare_model`) while the background thread runs: llama-cpp-python silences a
model load by pointing the process's stdout and stderr at /dev/null for its
duration, so a load on another thread swallowed whatever the command printed then
(an error line included).

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


def warm() -> None:
    """Build the guard's engine, the profile rules' indexes and the memory's time
    vocabulary (read on the first stored message otherwise, about 0.15 s)."""
    from aniso.privacy import engine

    engine.shared_analyzer()
    from aniso.profile import learner

    learner.warm()
    from aniso.tiers import when

    when.vocabulary()


def prepare_model(settings: Settings) -> None:
    """Load the embedded model, if it is the one in use, with the state of its prompt's
    fixed start (from the disk cache: `llm/prefix_cache.py`). Call it on the thread
    that prints."""
    if not settings.is_embedded_model:
        return
    from aniso.llm import embedded
    from aniso.prompt import SMALL_MODEL_PREAMBLE

    with timings.span("model"):
        embedded.prime([{"role": "system", "content": SMALL_MODEL_PREAMBLE}])


def start() -> threading.Thread:
    """`warm` on a thread; a failure there is only logged, since the chat thread
    meets (and reports) the same failure itself when it needs the piece.

    Not a daemon: the interpreter would kill a daemon thread at exit wherever it is,
    and one killed inside an import leaves the import lock held, so a command that
    failed early (an unusable data dir) hung on its way out. A process that ends
    before the warm-up does now waits for it: seconds, after the error is shown."""

    def run() -> None:
        try:
            warm()
        except Exception as error:  # noqa: BLE001 - the chat thread reports it
            log.info("background warm-up stopped: %s", type(error).__name__)

    thread = threading.Thread(target=run, name="aniso-warm-up")
    thread.start()
    return thread


def wait(thread: threading.Thread, settings: Settings) -> None:
    """Load the model here while `start`'s thread works, then wait for that thread;
    the wait is timed as the "warm_up" part of a turn."""
    prepare_model(settings)
    with timings.span("warm_up"):
        thread.join()
