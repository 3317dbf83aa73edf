"""The malloc arena cap that lets a long session reuse freed memory (see aniso.native_heap)."""

from __future__ import annotations

import subprocess
import sys

from aniso import native_heap

PROBE = "from aniso.native_heap import limit_malloc_arenas as f, arena_limit as g; print(f(), g())"


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
