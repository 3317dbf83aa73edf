"""How the process's native heap is allocated: few malloc arenas, so freed memory is
reused, and freed memory wiped, so nothing forgotten survives in it.

Why: the embedded vector index (chromadb's Rust core), the tokenizer and numpy
all allocate from worker threads. glibc gives each thread that contends its
own arena, up to eight per core, and memory freed into one arena is reused only by
the threads that map to it; over a long session the gaps add up. Measured with a
Chroma-only loop of upserts, deletes and queries (steps 2,000 to 8,000): RSS grew
2.7 KB per vector slot with glibc's default arenas and 1.7 KB with two, which is
the size of the slot itself (a 384-float vector plus its graph links).

glibc reads MALLOC_ARENA_MAX only at start-up, so the same limit is set with
mallopt(M_ARENA_MAX) before any worker thread exists. A user who sets
MALLOC_ARENA_MAX keeps their own value; other C libraries (musl) have no arenas.

Wiping: hnswlib (inside Chroma) allocates its vector buffer with plain malloc and
writes the whole capacity to `data_level0.bin`, initialised or not. In a process
that held the old index, the unused tail of a rebuilt index's buffer was recycled
heap, and in about half the runs it carried a forgotten vector to disk right after
`aniso forget` rebuilt the index to be rid of it. With mallopt(M_PERTURB) glibc
fills every block it frees with one byte and every block it hands out with another,
so no buffer can carry old contents into a file. glibc does this for every block
past its small per-thread cache (1,032 bytes): each vector (1,536 bytes for 384
floats) and each index buffer; short strings may linger in freed heap, but no
buffer that reaches a file is made of them. Measured: the erasure test failed
8 of 18 runs without it and none of 30 with it. A user's MALLOC_PERTURB_ wins.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys

log = logging.getLogger(__name__)

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's <malloc.h>
_M_PERTURB = -6
PERTURB_BYTE = 0xA5
_applied: int | None = None
_wiping = False


def arena_limit() -> int | None:
    """The arena cap this process set, or None (not set, or the user's own value);
    benches report it so that their RSS figures say what they measured."""
    return _applied


def _mallopt():  # type: ignore[no-untyped-def]
    """glibc's mallopt, or None where there is none (another libc or platform)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt


def wipe_freed_memory() -> bool:
    """Have glibc overwrite heap blocks when they are freed and when they are handed
    out; True if it is on (idempotent). Called by the composition root, before any
    memory is read, so that every process that opens a memory wipes its heap."""
    global _wiping
    if _wiping:
        return True
    if "MALLOC_PERTURB_" in os.environ:  # the user's own choice, read by glibc at start
        _wiping = os.environ["MALLOC_PERTURB_"].strip() not in ("", "0")
        return _wiping
    mallopt = _mallopt()
    if mallopt is None or mallopt(_M_PERTURB, PERTURB_BYTE) != 1:
        return False
    _wiping = True
    return True


def wiping() -> bool:
    """Whether freed heap memory is wiped in this process."""
    return _wiping


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on; True if it took."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    mallopt = _mallopt()
    if mallopt is None:
        return False
    global _applied
    if mallopt(_M_ARENA_MAX, arenas) != 1:
        log.debug("mallopt(M_ARENA_MAX, %d) was refused", arenas)
        return False
    _applied = arenas
    return True
