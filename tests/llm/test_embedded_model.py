"""The real embedded model, end to end, offline: the one test that is not mocked."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import RUNNER, python_output, run_cli


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


LOG_PROBE = """
import ctypes
import llama_cpp.llama_cpp as bindings
from llama_cpp import _logger
lines = []

@bindings.llama_log_callback
def counting(level, text, user_data):
    lines.append(text)

_logger.llama_log_callback = counting  # llama-cpp-python's own callback, as it is put back
bindings.llama_log_set(counting, ctypes.c_void_p(0))
from aniso.llm import embedded
embedded.load_model()
during = len(lines)
missing = bindings.llama_model_load_from_file(b"/no/such/model.gguf",
                                              bindings.llama_model_default_params())
print(during, len(lines) - during, missing is None)
"""


@pytest.mark.embedded_model
def test_the_model_load_logs_nothing_through_python_and_then_logs_as_before() -> None:
    """The load's log lines (about 2,000) go to a C no-op, not through the interpreter
    lock to a Python callback; after the load, llama.cpp's lines (here a model file
    that does not exist) reach the Python callback again."""
    during, after, failed = python_output(LOG_PROBE).split()
    assert (int(during), failed) == (0, "True")
    assert int(after) > 0


@pytest.mark.embedded_model
def test_replies_decode_on_one_thread_and_prompts_on_two() -> None:
    """One decode thread: a second OpenMP worker only adds a wait at every layer of a
    one-token step, and a long one when the other core is busy; prompts are batches."""
    code = (
        "from aniso.llm import embedded; p = embedded.load_model().context_params; "
        "print(p.n_threads, p.n_threads_batch)"
    )
    assert python_output(code).split() == ["1", "2"]
