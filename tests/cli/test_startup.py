"""Start-up imports only what the path needs, and the timings stay out of normal output.

Checked by what a real process has in `sys.modules`, never by timing: `aniso --help`
must not pay for the heavy libraries, and `ask` on the embedded model must not import
litellm (it is for configured remote models and embeddings only).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import python_output, run_cli

HEAVY = ("litellm", "presidio_analyzer", "chromadb", "llama_cpp", "spacy", "sqlite_utils")


def _modules_after(args: list[str], heavy: tuple[str, ...]) -> tuple[int, list[str]]:
    """Run `aniso ARGS` in a fresh interpreter; its exit code and which of `heavy`
    it had imported by the end."""
    code = (
        "import json, sys\n"
        "from aniso.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit as exit:\n"
        "    status = exit.code or 0\n"
        "else:\n"
        "    status = 0\n"
        f"loaded = [name for name in {heavy!r} if name in sys.modules]\n"
        "print(json.dumps({'status': status, 'loaded': loaded}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, stdin=subprocess.DEVNULL, timeout=600
    )
    report = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return report["status"], report["loaded"]


def _printed(code: str) -> str:
    """What `python -c code` printed, stripped; the test fails if the code fails."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_help_imports_no_heavy_library() -> None:
    status, loaded = _modules_after(["--help"], HEAVY)
    assert status == 0
    assert loaded == []


def test_the_runner_sees_a_heavy_import() -> None:
    """The check above can fail: a command that opens the stores does load them."""
    status, loaded = _modules_after(["config"], ("pydantic_settings",))
    assert status == 0
    assert loaded == ["pydantic_settings"]


def test_opening_the_stores_does_not_import_pandas(data_dir: Path) -> None:
    """sqlite-utils would import pandas, when installed, for nothing Aniso uses."""
    status, loaded = _modules_after(["stats"], ("sqlite_utils", "pandas"))
    assert status == 0
    assert loaded == ["sqlite_utils"]


def test_pandas_stays_usable_beside_aniso() -> None:
    """Only sqlite-utils' own optional import is skipped: pandas imported before or
    after works as usual, and sqlite-utils then sees it."""
    code = (
        "import aniso, sqlite_utils.db as db, pandas\n"
        "assert db.pd is None and pandas.DataFrame({'a': [1]}).shape == (1, 1)\n"
        "import subprocess, sys\n"
        "first = 'import pandas, aniso, sqlite_utils.db as db; print(db.pd is pandas)'\n"
        "print(subprocess.run([sys.executable, '-c', first], capture_output=True).stdout)\n"
    )
    assert _printed(code) == "b'True\\n'"


def test_httpx_loads_without_its_command_line_client() -> None:
    """chromadb imports httpx, whose top level would import its command-line client
    (click, rich, pygments) for the `httpx` script; a process that asks for that client
    still gets it."""
    code = (
        "import sys, aniso, httpx\n"
        "assert 'httpx._main' not in sys.modules and 'rich.console' not in sys.modules\n"
        "assert httpx.Client().timeout == httpx.Timeout(5.0)\n"
        "import httpx._main\n"
        "print(callable(httpx._main.main))\n"
    )
    assert _printed(code) == "True"


def test_the_lean_import_can_be_seen_failing() -> None:
    """The check above can fail: httpx imported before aniso brings its client along."""
    code = "import sys, httpx, aniso\nprint('httpx._main' in sys.modules)\n"
    assert _printed(code) == "True"


OTLP = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"


def test_chromadb_loads_without_the_grpc_span_exporter_until_one_is_made() -> None:
    """chromadb's telemetry imports the gRPC span exporter only to build it for a
    configured collector: it loads without it, and building one still gets the real
    exporter."""
    code = (
        "import sys, aniso, chromadb\n"
        "from chromadb.telemetry import opentelemetry as telemetry\n"
        f"assert {OTLP!r} not in sys.modules and 'grpc' not in sys.modules\n"
        "exporter = telemetry.OTLPSpanExporter(endpoint='http://127.0.0.1:9')\n"
        f"from {OTLP} import OTLPSpanExporter\n"
        "print(type(exporter) is OTLPSpanExporter)\n"
        "exporter.shutdown()\n"
    )
    assert _printed(code) == "True"


def test_the_deferred_import_can_be_seen_failing() -> None:
    """The check above can fail: the exporter imported before aniso stays loaded."""
    code = f"import sys, {OTLP}, aniso, chromadb\nprint('grpc' in sys.modules)\n"
    assert _printed(code) == "True"


@pytest.mark.embedded_model
def test_ask_on_the_embedded_model_does_not_import_litellm(data_dir: Path) -> None:
    status, loaded = _modules_after(["ask", "hello"], ("litellm", "llama_cpp", "pandas"))
    assert status == 0
    assert loaded == ["llama_cpp"]  # the model answered, without litellm (or pandas)


def test_timings_change_no_output(data_dir: Path, tmp_path: Path) -> None:
    timings = tmp_path / "timings.json"
    plain = run_cli("--model", "fake/x", "ask", "--json", "hello there", fake_reply="Hi.")
    timed = run_cli(
        *("--model", "fake/x", "ask", "--json", "hello again"),
        fake_reply="Hi.",
        env={"ANISO_TIMINGS": str(timings)},
    )
    assert plain.returncode == timed.returncode == 0, timed.stderr.decode()
    assert json.loads(plain.stdout)["reply"] == json.loads(timed.stdout)["reply"] == "Hi."
    assert plain.stderr == timed.stderr == b""
    recorded = json.loads(timings.read_text("utf-8"))
    names = {span["name"] for span in recorded["spans"]}
    assert {"imports", "stores", "guard", "recall"} <= names
    assert recorded["marks"]["cli"] <= recorded["marks"]["first_token"]
    assert recorded["marks"]["first_token"] <= recorded["marks"]["reply_end"]


@pytest.mark.embedded_model
def test_the_model_loads_beside_the_command_without_muting_it(data_dir: Path) -> None:
    """The model loads on its own thread while the command goes on: whatever the
    command writes meanwhile (here straight to file descriptor 1, as a native library
    or a flush would) reaches the terminal, and the load itself prints nothing."""
    code = (
        "import os, time\n"
        "from aniso import warmup\n"
        "from aniso.core.settings import load_settings\n"
        "from aniso.llm import embedded\n"
        "warming = warmup.start(load_settings({}))\n"
        "written = 0\n"
        "while not embedded._loaded or warming.threads[0].is_alive():\n"
        "    os.write(1, b'line\\n')\n"
        "    written += 1\n"
        "    time.sleep(0.002)\n"
        "warmup.wait(warming)\n"
        "print(f'written {written}', flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, stdin=subprocess.DEVNULL,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    lines = done.stdout.decode().splitlines()
    written = int(lines[-1].split()[1])
    assert written > 0
    assert lines[:-1] == ["line"] * written
    assert done.stderr == b""


WARM_PROBE = (
    "import sys\n"
    "from aniso import warmup\n"
    "from aniso.core.settings import load_settings\n"
    "warming = warmup.start(load_settings({'model': 'openai/gpt-4o-mini'}), sys.argv[1])\n"
    "warmup.wait(warming)\n"
    "for thread in warming.threads:\n"
    "    thread.join()\n"
    "print('presidio_analyzer' in sys.modules, 'chromadb' in sys.modules)\n"
)


@pytest.mark.parametrize(
    ("message", "guard_built"),
    [("what should I cook tonight?", False), ("my card is 4111 1111 1111 1111", True)],
)
def test_the_guard_engine_is_warmed_only_for_a_message_that_needs_it(
    data_dir: Path, message: str, guard_built: bool
) -> None:
    """`ask` knows its message before it starts warming: presidio (over a second of
    imports beside the turn's own) is built only when the screen says the guard could
    find something; the other loads are warmed either way."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", WARM_PROBE, message],
        capture_output=True, stdin=subprocess.DEVNULL, timeout=600, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(guard_built), "True"]


def test_a_lasting_process_freezes_what_start_up_built() -> None:
    """In a child: freezing the test process's own heap would change every later test."""
    code = (
        "import gc\n"
        "from aniso import warmup\n"
        "before = gc.get_freeze_count()\n"
        "warmup.settle()\n"
        "print(before, gc.get_freeze_count(), gc.get_count()[2])\n"
    )
    before, after, old = (int(n) for n in _printed(code).split())
    assert before == 0 and after > 1000 and old == 0


def test_syntax_trees_are_built_one_thread_at_a_time() -> None:
    """CPython 3.11 keeps the AST constructor's depth per interpreter: two threads
    parsing at once failed `ask hello` with a SystemError (`warmup.serialise_ast_parsing`)."""
    out = python_output(
        """
import ast, threading, time
active, most = 0, 0
inner = ast.parse
def counting(*args, **kwargs):
    global active, most
    active += 1
    most = max(most, active)
    time.sleep(0.001)
    try:
        return inner(*args, **kwargs)
    finally:
        active -= 1
ast.parse = counting
from aniso import warmup
warmup.serialise_ast_parsing()
once = ast.parse
warmup.serialise_ast_parsing()
assert ast.parse is once
def work():
    for _ in range(50):
        assert ast.literal_eval("[{'a': (1, 2)}, [3, [4, [5]]]]")
threads = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print("most at once", most)
"""
    )
    assert "most at once 1" in out
