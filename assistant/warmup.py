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
- the profile's indexes and the time vocabulary build on a second thread, then the
  guard's engine (only if the message could need it: `privacy.screen`), the embedding
  weights, the token encoding and the vector store's import.

The caller waits (`wait`) only for the profile's indexes and the time vocabulary before
its first message: they are plain caches, and a message arriving while they are half
built would build them a second time, on the same two cores. Everything else is built
once under a lock, so the turn goes on and meets each piece where it needs it.

Privacy is untouched: the guard still screens every message on the chat thread,
before anything is stored or sent. Warming only builds its engine earlier, and the
engine is built once under a lock, so a scan that comes first waits for that build
instead of starting its own. Nothing here sees a message or touches the data dir.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aniso.core import timings
from aniso.core.settings import LOCAL_EMBEDDING, Settings
from aniso.privacy.screen import could_hold

if TYPE_CHECKING:
    from aniso.tiers.index.vector_host import HostedIndex

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


def warm(settings: Settings) -> None:
    """Everything a turn would otherwise load itself, the guard's engine included (the
    TUI, whose first message is not known yet): `warm_caches`, then `warm_loads`."""
    serialise_ast_parsing()  # the TUI warms on a worker beside its own threads
    warm_caches()
    warm_loads(settings, guard=True)


def warm_caches() -> None:
    """The profile rules' indexes and the memory's time vocabulary (read on the first
    stored message otherwise, about 0.15 s): plain caches, which a message arriving
    while they are half built would build a second time, so `wait` waits for these."""
    with IMPORTS:
        from aniso.profile import learner
        from aniso.tiers import when
    learner.warm()
    when.vocabulary()


def warm_loads(settings: Settings, *, guard: bool, vectors: bool = True) -> None:
    """The guard's engine (if `guard`) and what the first stored message and the first
    recall load: the vector store's import (about half a second of chromadb's own
    imports; not with `vectors` off, when a child process opens the index: `host_index`),
    the local embedding weights and the token encoding. The engine and the
    weights are built under a lock and the import under Python's, so a chat thread that
    gets there first waits for the rest of the build instead of repeating it; the
    encoding is a plain cache, at worst read twice. Nothing here needs to be waited for."""
    if guard:
        # The privacy package imports only `aniso.core`, and none of its modules import
        # each other in a circle: it and presidio load beside the chat thread's imports.
        from aniso.privacy import engine

        engine.shared_analyzer()
    # The longest first: chromadb's import overlaps the chat thread's own imports; a
    # turn that reaches its first message before the weights are warmed loads them itself.
    with IMPORTS:
        from aniso.tiers.index import embeddings
    if vectors:
        from aniso.tiers.index import vectors as index

        index.warm()
    if settings.embedding == LOCAL_EMBEDDING:
        embeddings.warm()
    from aniso.core.tokens import count_tokens

    count_tokens("warm")


def settle() -> None:
    """For a process that stays up (the TUI, the chat REPL): once start-up has built its
    caches, collect and move everything alive into the collector's permanent
    generation (`gc.freeze`), so no later collection walks it again.

    Why: the loaded libraries, the model's tables and the profile's caches are a few
    hundred thousand objects that live as long as the process. Each full collection
    walked them all: at 10,000 episodes (`aniso bench scale`) the slowest turn, 133-145
    ms, was one such collection of about 110 ms; with the freeze it was 49-53 ms. The
    p95 is the same either way. A one-shot command (`ask`) ends before a full
    collection would come, so it does not pay for the collect."""
    gc.collect()
    gc.freeze()


def prepare_model(settings: Settings) -> None:
    """Load the embedded model, if it is the one in use, with the state of its prompt's
    fixed start (from the disk cache: `llm/prefix_cache.py`)."""
    if not settings.is_embedded_model:
        return
    from aniso.llm import embedded

    with timings.span("model"):
        embedded.load_model()
        with IMPORTS:
            from aniso.prompt import SMALL_MODEL_START
        embedded.prime([{"role": "system", "content": SMALL_MODEL_START}])


@dataclass(frozen=True)
class Warming:
    """The threads `start` began, and the moment the caches a message needs are built."""

    threads: tuple[threading.Thread, ...]
    ready: threading.Event


def host_index(settings: Settings, *, temporary: bool) -> HostedIndex | None:
    """For a one-shot command: start the child process that opens the embedded vector
    index (`tiers.index.vector_host`), before anything else loads, so chromadb's import
    runs on the other core instead of under this process's interpreter lock. None when
    the command reads no memory (`temporary`) or the index is a server (nothing to open
    but an HTTP client)."""
    if temporary or settings.chroma_url:
        return None
    from aniso.tiers.index import vector_host

    return vector_host.start(settings.data_dir / "chroma")


def start(
    settings: Settings, message: str | None = None, *, vectors: bool = True, lasting: bool = False
) -> Warming:
    """`prepare_model` and `warm`, each on a thread; a failure there is only logged,
    since the chat thread meets (and reports) the same failure itself when it needs
    the piece: a model that does not load becomes the turn's error, after the message
    is stored.

    Not daemons: the interpreter would kill a daemon thread at exit wherever it is,
    and one killed inside an import leaves the import lock held, so a command that
    failed early (an unusable data dir) hung on its way out. A process that ends
    before the warm-up does now waits for it: seconds, after the error is shown.

    With the `message` known (`ask`), the guard's engine is built only if the message
    could hold something it redacts (`privacy.screen`): for any other message it would
    be over a second of imports competing with the chat thread for the interpreter, for
    a scan that does not need them. The reply, if it holds digits, builds the engine
    after its last token. `vectors` off: the vector index is opened by a child process
    (`host_index`), so its import is not warmed here. A `lasting` process (the chat
    REPL) `settle`s once the loads are done."""

    ready = threading.Event()
    serialise_ast_parsing()

    def guarded(name: str, work: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                work()
            except Exception as error:  # noqa: BLE001 - the chat thread reports it
                log.info("background %s stopped: %s", name, type(error).__name__)

        thread = threading.Thread(target=run, name=f"aniso-{name}")
        thread.start()
        return thread

    def warm_up() -> None:
        try:
            warm_caches()
        finally:
            ready.set()
        warm_loads(settings, guard=message is None or could_hold(message), vectors=vectors)
        if lasting:
            settle()

    threads = [guarded("model", lambda: prepare_model(settings))]
    threads.append(guarded("warm-up", warm_up))
    return Warming(tuple(threads), ready)


_AST_PARSE = threading.RLock()  # a collection inside a parse may run a finalizer that parses


def serialise_ast_parsing() -> None:
    """Let one thread at a time build a syntax tree (`ast.parse`, which
    `ast.literal_eval` calls too), before the warm-up's threads start.

    Why: CPython 3.11 keeps the AST constructor's recursion depth in the
    interpreter's state, not the thread's. The warm-up imports libraries on three
    threads, and some of them parse source while they load; a collection or a switch
    of threads in the middle of one tree let another change the depth, and
    `ask hello` failed once in a CI run with "SystemError: AST constructor recursion
    depth mismatch (before=66, after=24)" (cpython gh-106905). Parsing is
    milliseconds, rare after start-up, and never on the chat's path."""
    import ast

    if getattr(ast.parse, "serialised", False):
        return
    parse = ast.parse

    def serialised(*args, **kwargs):  # type: ignore[no-untyped-def]
        with _AST_PARSE:
            return parse(*args, **kwargs)

    serialised.serialised = True  # type: ignore[attr-defined]
    ast.parse = serialised


def wait(warming: Warming) -> None:
    """Wait for the caches a message must not race (`warm_caches`); the model and the
    other loads go on beside the turn, which meets them, built or half built under
    their locks, where it needs them. Timed as the "warm_up" part of a turn."""
    with timings.span("warm_up"):
        warming.ready.wait()
