"""Token counting with tiktoken, offline.

tiktoken downloads its encodings on first use. litellm ships the cl100k/o200k files
inside its package, so we point `TIKTOKEN_CACHE_DIR` there before tiktoken loads,
without importing litellm itself (that costs seconds).
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path

ENCODING = "cl100k_base"


def _litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"


@cache
def _encoding():  # type: ignore[no-untyped-def]
    bundled = _litellm_tokenizer_dir()
    if bundled is not None and bundled.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Tokens of `text` in cl100k, the budget unit for prompts and memory sizes."""
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))
