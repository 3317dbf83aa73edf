"""Aniso: a personal assistant whose memory is anisotropic.

Recent, relevant memories stay in full detail; older ones are kept in progressively
more compressed tiers and can be unpacked again. This package is the chat loop, the
memory controller, settings, the LLM gateway and the CLI; the memory engine lives in
`aniso.tiers`, `aniso.profile` and `aniso.privacy`.

Importing `aniso` is cheap on purpose: heavy pieces load on first use, so that
`aniso --help` and the TUI's first paint stay fast.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The embedder's matrices are small (one message at a time): BLAS worker threads
# only add hand-offs, and on a busy machine they made one query embedding ~10x slower.
# Read when numpy loads, so it is set before anything imports it; a user's value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# llama.cpp's OpenMP workers spin while they wait for work; on a shared 2-core machine
# that spinning steals the cores they wait on, and prompt evaluation ran 5-8x slower.
# Read when the OpenMP runtime loads, so it is set here, first; a user's value wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# sqlite-utils would import pandas (when installed) for nothing Aniso uses: 0.3 s of
# every command that opens the stores. Installed here, before anything imports it.
from aniso.core import lean_imports  # noqa: E402 - after the variables above

lean_imports.install()

# A library stays silent unless the application configures logging; the CLI sends
# records to the redacted `aniso.log` in the data dir (aniso.logs).
logging.getLogger("aniso").addHandler(logging.NullHandler())

if TYPE_CHECKING:
    from pathlib import Path

    from aniso.api import Memory
    from aniso.chat import Assistant

__all__ = ["Assistant", "__version__", "open"]


def open(data_dir: str | Path | None = None, **settings: Any) -> Memory:  # noqa: A001
    """Open the memory in `data_dir` as a `Memory` (see `aniso.api`); use it in a
    `with` block, or call `close()`. Settings may be given by name."""
    from aniso.api import open as open_memory

    return open_memory(data_dir, **settings)


def __getattr__(name: str) -> Any:
    if name == "Assistant":
        from aniso.chat import Assistant

        return Assistant
    raise AttributeError(f"module 'aniso' has no attribute {name!r}")
