"""The malloc arena cap that lets a long session reuse freed memory (see aniso.core.runtime)."""

from __future__ import annotations

import subprocess
import sys

from aniso.core import runtime as native_heap

PROBE = "from aniso.core.runtime import limit_malloc_arenas as f, arena_limit as g; print(f(), g())"


def probe(env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_cap_is_set_on_glibc_and_reported() -> None:
    assert probe({"PATH": "/usr/bin:/bin"}) == f"True {native_heap.ARENAS}"


def test_a_users_own_malloc_arena_max_is_left_alone() -> None:
    assert probe({"PATH": "/usr/bin:/bin", "MALLOC_ARENA_MAX": "4"}) == "False None"


WIPE_PROBE = """
import ctypes, ctypes.util, sys
from aniso.core.runtime import wipe_freed_memory
if sys.argv[1] == "wipe":
    assert wipe_freed_memory()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
secret = b"forgotten vector " * 100  # 1,700 bytes, like one vector with its links
block = libc.malloc(len(secret))
ctypes.memmove(block, secret, len(secret))
libc.free(block)
again = libc.malloc(len(secret))
print(ctypes.string_at(again, len(secret)).count(b"forgotten"))
"""


def test_freed_heap_memory_is_wiped_so_no_buffer_carries_it_to_disk() -> None:
    """hnswlib writes its whole malloc'd buffer to disk; recycled heap must be blank.

    glibc wipes blocks past its per-thread cache (1,032 bytes): every vector (1,536
    bytes for 384 floats) and every index buffer."""

    def reused(mode: str) -> int:
        result = subprocess.run(
            [sys.executable, "-c", WIPE_PROBE, mode],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin"},
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return int(result.stdout)

    assert reused("plain") > 0, "glibc hands the freed block back as it was"
    assert reused("wipe") == 0


def test_a_users_own_malloc_perturb_is_left_alone() -> None:
    probe = "from aniso.core.runtime import wipe_freed_memory as w; print(w())"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "MALLOC_PERTURB_": "0"},
        timeout=60,
    )
    assert result.stdout.strip() == "False"
