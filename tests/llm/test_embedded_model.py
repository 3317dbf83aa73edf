"""The real embedded model, end to end, offline: the one test that is not mocked."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import RUNNER, run_cli


@pytest.mark.embedded_model
def test_ask_hello_on_the_embedded_model_stays_offline(data_dir: Path, tmp_path: Path) -> None:
    socket_log = tmp_path / "connections.log"
    result = run_cli("ask", "hello", socket_log=socket_log)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip(), "the embedded model gave an empty reply"
    attempts = socket_log.read_text() if socket_log.exists() else ""
    assert attempts == "", f"non-loopback network access attempted:\n{attempts}"
    with sqlite3.connect(data_dir / "aniso.db") as db:
        status, reply = db.execute("SELECT status, reply FROM episodes").fetchone()
    assert status == "answered" and reply


def test_socket_guard_catches_a_connection(tmp_path: Path) -> None:
    """The guard used above must be able to fail: a plain connect is recorded."""
    socket_log = tmp_path / "connections.log"
    code = (
        f"import sys, socket; sys.path.insert(0, {str(RUNNER.parent)!r}); import cli_runner;"
        f"from pathlib import Path; cli_runner._guard_sockets(Path({str(socket_log)!r}))\n"
        "try:\n    socket.create_connection(('93.184.216.34', 80), timeout=1)\n"
        "except OSError:\n    pass\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert "93.184.216.34" in socket_log.read_text()
