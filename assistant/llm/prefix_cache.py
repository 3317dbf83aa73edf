"""The embedded model's state after the fixed start of every prompt, kept on disk.

Why: every `aniso ask` is a new process whose model starts empty, and every prompt
starts the same way: the chat template's system header and the fixed preamble (the
first paragraph of the system message). Evaluated once and saved in the user's cache
dir, that state is loaded by later processes, and llama.cpp evaluates only what follows
(it reuses the longest prefix of the prompt that it already holds).

- Correct: a state is loaded only under its key, which names the model file (path,
  size, modification time), the llama-cpp-python version, the context size and the
  exact prefix tokens; what follows the prefix is evaluated as usual.
- Bounded: one file, the size of the prefix's state (about a megabyte); writing a new
  one removes any other.
- Never in the way: a file that does not load (truncated, corrupt, from another build)
  is removed and logged in one line, and the prompt is evaluated as if there were none.
  The state holds the fixed preamble only: nothing the user said.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from aniso.core.cache import cache_dir

log = logging.getLogger(__name__)

MAGIC = b"aniso-prefix-state 1\n"
NAME = "prefix-{key}.state"


def prefix_tokens(llama: Any, messages: list[dict[str, Any]]) -> list[int]:
    """The tokens every prompt with this system preamble starts with: those the full
    prompt shares with a prompt of the preamble alone (first paragraph of the system
    message). Empty without a system message or a chat template."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llama.metadata.get("tokenizer.chat_template")
    if not template or not messages or messages[0].get("role") != "system":
        return []
    preamble = str(messages[0].get("content") or "").split("\n\n")[0]
    formatter = Jinja2ChatFormatter(template=template, eos_token="", bos_token="")

    def tokens(items: list[dict[str, Any]]) -> list[int]:
        result = formatter(messages=items)  # type: ignore[arg-type]
        return list(
            llama.tokenize(
                result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
            )
        )

    full = tokens(messages)
    fixed = tokens([{"role": "system", "content": preamble}])
    shared = 0
    for a, b in zip(full, fixed, strict=False):
        if a != b:
            break
        shared += 1
    return full[:shared]


def _key(llama: Any, model_path: Path, prefix: list[int]) -> str:
    import llama_cpp

    stat = model_path.stat()
    identity = [str(model_path), stat.st_size, stat.st_mtime_ns, llama_cpp.__version__]
    identity += [llama.n_ctx(), prefix]
    return hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:32]


def prime(llama: Any, model_path: Path, prefix: list[int], *, folder: Path | None = None) -> str:
    """Give a fresh model the prefix's state: from the cache file if it loads, else by
    evaluating the prefix and saving the state. Returns "loaded", "saved" or "skipped"
    (no prefix, or the model already holds a prompt)."""
    if not prefix or llama.n_tokens:
        return "skipped"
    folder = folder or cache_dir()
    path = folder / NAME.format(key=_key(llama, model_path, prefix))
    if path.exists():
        if _load(llama, path, prefix):
            return "loaded"
        llama.reset()
    llama.eval(prefix)
    _save(llama, path, prefix)
    return "saved"


def _load(llama: Any, path: Path, prefix: list[int]) -> bool:
    import numpy as np
    from llama_cpp.llama import LlamaState

    try:
        raw = path.read_bytes()
        if not raw.startswith(MAGIC):
            raise ValueError("not a prefix state file")
        header_end = raw.index(b"\n", len(MAGIC))
        header = json.loads(raw[len(MAGIC) : header_end])
        state = raw[header_end + 1 :]
        if header.get("tokens") != prefix or header.get("size") != len(state):
            raise ValueError("truncated or for another prefix")
        input_ids = np.zeros_like(llama.input_ids)  # the whole window, as the model keeps it
        input_ids[: len(prefix)] = prefix
        llama.load_state(
            LlamaState(
                input_ids=input_ids,
                scores=np.zeros((len(prefix), llama.n_vocab()), dtype=np.single),
                n_tokens=len(prefix),
                llama_state=state,
                llama_state_size=len(state),
                seed=header.get("seed", 0),
            )
        )
    except (OSError, ValueError, RuntimeError) as error:
        log.warning("prompt cache %s unusable (%s); rebuilt", path.name, error)
        with contextlib.suppress(OSError):
            path.unlink()
        return False
    return True


def _save(llama: Any, path: Path, prefix: list[int]) -> None:
    """Write the state atomically (a reader never sees half a file), then drop the
    older files: one file at a time."""
    try:
        state = llama.save_state()
        header = json.dumps({"tokens": prefix, "size": state.llama_state_size, "seed": 0})
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(MAGIC + header.encode() + b"\n" + bytes(state.llama_state))
        partial.replace(path)
        for other in path.parent.glob(NAME.format(key="*")):
            if other != path:
                other.unlink(missing_ok=True)
    except (OSError, RuntimeError) as error:  # a full disk, a read-only home
        log.warning("prompt cache not written: %s", error)
