"""Bare `aniso`: the TUI on a terminal, help (exit 0) for scripts and CI without one."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from helpers import RUNNER, run_cli


def test_bare_aniso_without_a_terminal_prints_help(data_dir: Path) -> None:
    result = run_cli()
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("Usage: aniso [OPTIONS] [COMMAND] [ARGS]...")
    assert result.stderr == b""
    assert not data_dir.exists(), "printing help touches no data"


def _read_until(fd: int, wanted: bytes, *, limit_s: float = 120) -> bytes:
    """Read the terminal until `wanted` appears (or give up after `limit_s`)."""
    seen = b""
    waited = 0.0
    poller = select.poll()  # not select(): it fails on descriptors past 1023
    poller.register(fd, select.POLLIN)
    while wanted not in seen and waited < limit_s:
        ready = poller.poll(500)
        waited += 0.5
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


def test_bare_aniso_on_a_terminal_opens_the_app_and_quits(data_dir: Path) -> None:
    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "36"}
    process = subprocess.Popen(
        [sys.executable, str(RUNNER), "--fake-llm", "Hello from the app.", "--"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**env, "ANISO_MODEL": "fake/x"},
        close_fds=True,
    )
    os.close(follower)
    try:
        screen = _read_until(leader, b"palette")
        assert b"palette" in screen and b"Recalled" in screen, screen[-2000:]
        os.write(leader, b"hi there\r")
        screen = _read_until(leader, b"Hello from the app.")
        assert b"Hello from the app." in screen
        os.write(leader, b"\x11")  # Ctrl+Q
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    assert (data_dir / "aniso.db").exists()


def test_the_app_module_loads_no_heavy_library() -> None:
    """Start-up stays fast: models and indexes load in a worker after the first paint."""
    heavy = ("litellm", "chromadb", "presidio_analyzer", "spacy", "llama_cpp", "tiktoken")
    probe = (
        f"import sys, aniso.cli, aniso.tui.app; print([m for m in {heavy!r} if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True)
    assert result.stdout.decode().strip() == "[]"
