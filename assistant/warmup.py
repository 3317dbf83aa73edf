"""Start-up work that no message decides, begun first and run beside the command's own.

Why: before its first token a turn needs the privacy guard's engine (presidio and
spaCy), the profile rules' indexes and, by default, the embedded model: seconds of
work that depend on nothing the user typed. `start` begins them as soon as the
command knows it will answer, before the app's own imports and the opening of the
stores:
- the model loads on a thread of its own. Its load and the evaluation of the
  prompt's fixed start are native code that leaves the interpreter free, so they run
  on the second core while the other threads import and build. The load prints
  nothing and leaves stdout and stderr alone (`embedded._quiet_in_place`), so the
  command's own output is never swallowed;
- the guard, the profile's indexes and the time vocabulary build on a second thread.

The caller waits for both (`wait`) before its first message: the profile's indexes
are plain caches, and a message arriving while they are half built would build them a
second time, on the same two cores.

Privacy is untouched: the guard still screens every message on the chat thread,
before anything is stored or sent. Warming only builds its engine earlier, and the
engine is built once under a lock, so a scan that comes first waits for that build
instead of starting its own. Nothing here sees a message or touches the data dir.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from aniso.core import timings
from aniso.core.settings import Settings

log = logging.getLogger(__name__)


IMPORTS = threading.Lock()
"""Held by whichever thread imports the app's own modules (`aniso.profile`,
`aniso.prompt`, the services...). Several of them import each other, and Python's
per-module import locks let a second thread see such a module half built: with the
model's thread importing `aniso.prompt` while the chat thread imported the services,
one of them failed with "cannot import name ... from partially initialized module".
Third-party libraries and `aniso.core`, `aniso.llm` and `aniso.privacy` (which import
no app module and no module of their own in a circle) are imported without it, so
the heavy imports still overlap."""


def warm() -> None:
    """Build the guard's engine, the profile rules' indexes and the memory's time
    vocabulary (read on the first stored message otherwise, about 0.15 s)."""
    # The privacy package imports only `aniso.core`, and none of its modules import
    # each other in a circle: it and presidio load beside the chat thread's imports.
    from aniso.privacy import engine

    engine.shared_analyzer()
    with IMPORTS:
        from aniso.profile import learner
        from aniso.tiers import when
    learner.warm()
    when.vocabulary()


def prepare_model(settings: Settings) -> None:
    """Load the embedded model, if it is the one in use, with the state of its prompt's
    fixed start (from the disk cache: `llm/prefix_cache.py`)."""
    if not settings.is_embedded_model:
        return
    from aniso.llm import embedded

    with timings.span("model"):
        embedded.load_model()
        with IMPORTS:
            from aniso.prompt import SMALL_MODEL_PREAMBLE
        embedded.prime([{"role": "system", "content": SMALL_MODEL_PREAMBLE}])


@dataclass(frozen=True)
class Warming:
    """The threads `start` began."""

    threads: tuple[threading.Thread, ...]


def start(settings: Settings) -> Warming:
    """`prepare_model` and `warm`, each on a thread; a failure there is only logged,
    since the chat thread meets (and reports) the same failure itself when it needs
    the piece: a model that does not load becomes the turn's error, after the message
    is stored.

    Not daemons: the interpreter would kill a daemon thread at exit wherever it is,
    and one killed inside an import leaves the import lock held, so a command that
    failed early (an unusable data dir) hung on its way out. A process that ends
    before the warm-up does now waits for it: seconds, after the error is shown."""

    def guarded(name: str, work: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                work()
            except Exception as error:  # noqa: BLE001 - the chat thread reports it
                log.info("background %s stopped: %s", name, type(error).__name__)

        thread = threading.Thread(target=run, name=f"aniso-{name}")
        thread.start()
        return thread

    threads = [guarded("model", lambda: prepare_model(settings))]
    threads.append(guarded("warm-up", warm))
    return Warming(tuple(threads))


def wait(warming: Warming) -> None:
    """Wait for what `start` began; the wait is timed as the "warm_up" part of a turn."""
    with timings.span("warm_up"):
        for thread in warming.threads:
            thread.join()
