"""Token counting with tiktoken, offline.

tiktoken downloads its encodings on first use. litellm ships the cl100k/o200k files
inside its package, so we point `TIKTOKEN_CACHE_DIR` there before tiktoken loads,
without importing litellm itself (that costs seconds).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

ENCODING = "cl100k_base"


def _litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"


_BUILT: dict[str, Any] = {}
_BUILDING = threading.Lock()


def _encoding():  # type: ignore[no-untyped-def]
    """The cl100k encoding, built from its arguments as read from the cache dir.

    Why: tiktoken reads its ranks file by decoding 100,256 base64 lines in Python, 0.2 s
    of CPU that every `ask` paid before it could store its message; the same mapping
    unpickled takes a tenth of that. The arguments are a pure function of tiktoken's
    and litellm's installed versions (litellm ships the file), which key the copy
    (`core/cache.py`).

    Built once per process, under a lock: the warm-up thread builds it beside the turn,
    and a turn that reached its first count meanwhile built a second copy, another
    0.1 s of the interpreter's time (tiktoken builds its tables in Rust without
    releasing it). Now it waits for the first."""
    found = _BUILT.get(ENCODING)
    if found is None:
        with _BUILDING:
            found = _BUILT.get(ENCODING)
            if found is None:
                found = _BUILT[ENCODING] = _build()
    return found


def _build():  # type: ignore[no-untyped-def]
    import tiktoken

    from aniso.core.cache import key_of, load_or_build

    key = key_of([Path(__file__)], ["tiktoken", "litellm"])
    return tiktoken.Encoding(**load_or_build(f"tiktoken-{ENCODING}", key, _arguments))


def _arguments() -> dict[str, Any]:
    """tiktoken's own constructor arguments for `ENCODING`, from the file litellm
    bundles (tiktoken would otherwise download it)."""
    bundled = _litellm_tokenizer_dir()
    if bundled is not None and bundled.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    from tiktoken_ext import openai_public

    return dict(openai_public.ENCODING_CONSTRUCTORS[ENCODING]())


def count_tokens(text: str) -> int:
    """Tokens of `text` in cl100k, the budget unit for prompts and memory sizes."""
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))
