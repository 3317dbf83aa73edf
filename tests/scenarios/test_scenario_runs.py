"""`aniso scenarios run --replies off` and `--jobs N`: fast runs that stay honest.

The CLI runs as a real subprocess on the default (embedded) model. `--replies off`
must load no model at all, so those runs happen with llama.cpp made unimportable
and report at exit whether litellm was ever imported: a reply attempted anyway shows
up as a turn error and as `litellm: True`. Reply checks must come back "not run",
never as passed. `--jobs 2` must give the report `--jobs 1` gives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes import ScriptedLLM, install
from helpers import one_line_error, run_cli

from aniso.core.settings import load_settings
from aniso.scenarios.checks import NOT_RUN
from aniso.scenarios.report import Outcome, Report
from aniso.scenarios.runner import run_suites
from aniso.scenarios.suite import load_suite

# Runs `aniso` with llama.cpp unimportable; prints whether litellm got imported.
NO_MODEL = """
import atexit, sys
sys.modules["llama_cpp"] = None
atexit.register(lambda: print("litellm:", "litellm" in sys.modules, file=sys.stderr))
from aniso.cli import main
sys.argv = ["aniso", *sys.argv[1:]]
main()
"""

PERSONAS = [
    {"id": "p", "name": "Ann", "language": "en", "format": "tables"},
    {"id": "q", "name": "Оля", "language": "ru"},
]
SCENARIOS = [
    {
        "id": "f1_bullets",
        "persona_id": "p",
        "messages": [
            {"from": "user", "text": "From now on use bullet points instead of tables."},
            {"advance": "20d"},
            {"from": "user", "text": "Plan my week of runs."},
        ],
        "checks": ["format", "update_handling"],
    },
    {
        "id": "d1_vegan",
        "persona_id": "q",
        "messages": [
            {"from": "user", "text": "Обожаю мясо, особенно шашлык. Мой паспорт 4510 123456."},
            {"advance": "30d"},
            {"from": "user", "text": "Я стала веганкой."},
            {"from": "user", "text": "Что приготовить на ужин?"},
        ],
        "checks": ["update_handling", "stale_memory", "privacy_leak"],
    },
]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "personas.json").write_text(json.dumps(PERSONAS, ensure_ascii=False), "utf-8")
    (folder / "scenarios.json").write_text(json.dumps(SCENARIOS, ensure_ascii=False), "utf-8")
    return folder


def _run_without_a_model(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", NO_MODEL, "--data-dir", str(tmp_path / "home"), *args],
        capture_output=True,
        timeout=600,
    )


def _scenarios_run(suite: Path, out: Path) -> list[str]:
    return [
        "scenarios",
        "run",
        "--suite",
        str(suite),
        "--variants",
        "history,aniso",
        "--out",
        str(out),
    ]


def test_replies_off_marks_reply_checks_not_run_and_loads_no_model(
    suite: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    args = [*_scenarios_run(suite, out), "--replies", "off", "--json"]
    result = _run_without_a_model(tmp_path, *args)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr.decode().strip() == "litellm: False"
    shown = json.loads(result.stdout)
    assert shown["replies"] == "off"
    assert shown["not_run"] == 2  # `format` of f1 under both variants
    summary = shown["summary"]
    for variant in ("history", "aniso"):
        assert summary[variant]["format"] == {"mean": None, "n": 0, "not_run": 1}
        assert "not_run" not in summary[variant]["update_handling"]
    # The deterministic checks did run, and can tell the variants apart.
    assert summary["aniso"]["format_prompt"] == {"mean": 1.0, "n": 1}
    assert summary["history"]["format_prompt"] == {"mean": 0.0, "n": 1}
    assert summary["aniso"]["privacy_leak"]["mean"] == 1.0
    assert summary["history"]["privacy_leak"]["mean"] == 0.0
    assert summary["aniso"]["stale_memory"]["mean"] == 1.0
    assert summary["history"]["stale_memory"]["mean"] == 0.0

    report = json.loads((out / "report.json").read_text("utf-8"))
    assert (report["replies"], report["not_run"]) == ("off", 2)
    turns = [t for o in report["outcomes"] for t in o["turns"]]
    assert len(turns) == 10
    assert all(t["reply"] == "" and t["replied"] is False and t["error"] is None for t in turns)
    formats = [o["checks"]["format"] for o in report["outcomes"] if "format" in o["checks"]]
    assert [(c["status"], c["score"]) for c in formats] == [(NOT_RUN, None)] * 2
    markdown = (out / "report.md").read_text("utf-8")
    assert "NOT RUN: 2 check(s)" in markdown
    assert "not run (1)" in markdown


def test_replies_off_console_summary_says_not_run(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    args = [*_scenarios_run(suite, out), "--replies", "off"]
    result = _run_without_a_model(tmp_path, *args)
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    header, rows = lines[0].split(), [line.split() for line in lines[1:3]]
    assert header[0] == "variant" and "format" in header
    for row in rows:
        assert " ".join(row).count("not run") == 1, row
    assert lines[3].startswith("NOT RUN: 2 check(s) that need a reply")


def test_jobs_2_gives_the_report_of_jobs_1(suite: Path, tmp_path: Path) -> None:
    reports = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        args = [*_scenarios_run(suite, out), "--replies", "off", "--json"]
        result = run_cli(*args, "--jobs", jobs, env={"ANISO_DATA_DIR": str(tmp_path / "h")})
        assert result.returncode == 0, result.stderr.decode()
        assert result.stderr == b""  # no bar under --json, no worker noise
        reports[jobs] = json.loads((out / "report.json").read_text("utf-8"))
    order = [(o["scenario"], o["variant"]) for o in reports["2"]["outcomes"]]
    assert order == [(s["id"], v) for s in SCENARIOS for v in ("history", "aniso")]
    assert reports["2"] == reports["1"]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--jobs", "0"], "--jobs must be a whole number of at least 1, not '0'"),
        (["--jobs", "two"], "--jobs must be a whole number of at least 1, not 'two'"),
        (["--replies", "off", "--judge", "fake/x"], "--judge grades replies"),
    ],
)
def test_bad_jobs_and_judge_without_replies_are_one_line(
    suite: Path, tmp_path: Path, extra: list[str], expected: str
) -> None:
    out = tmp_path / "report"
    result = run_cli(*_scenarios_run(suite, out), *extra)
    assert result.returncode == 1
    assert expected in one_line_error(result)
    assert not out.exists()


def test_replies_off_sends_nothing_to_the_model_in_process(
    suite: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = ScriptedLLM(default="- a\n- b")
    install(script)
    monkeypatch.setenv("ANISO_DATA_DIR", str(tmp_path / "unused"))
    settings = load_settings({"model": "fake/x", "llm_extraction": "off"})
    report = run_suites([load_suite(suite)], settings=settings, replies=False)
    assert script.calls == []
    assert report.not_run() == 5  # `format` of f1 under each of the five variants
    on = run_suites([load_suite(suite)], settings=settings, replies=True)
    assert len(script.calls) == 25  # 5 user messages under 5 variants
    assert on.not_run() == 0 and on.summary()["aniso"]["format"] == {"mean": 1.0, "n": 1}
    # Replies change no memory check: the two runs agree on everything else.
    for variant in on.variants:
        assert {m: c for m, c in on.summary()[variant].items() if m != "format"} == {
            m: c for m, c in report.summary()[variant].items() if m != "format"
        }


def test_a_summary_with_unrun_checks_never_reads_as_passed() -> None:
    passed = {"name": "pref_match", "score": 1.0, "reasons": [], "detail": {}, "status": "ran"}
    unrun = {"name": "format", "score": None, "reasons": ["not run"], "detail": {}}
    outcomes = [
        Outcome("s", "a", "aniso", {"pref_match": passed, "format": {**unrun, "status": NOT_RUN}}),
        Outcome("s", "b", "aniso", {"format": {**passed, "name": "format"}}),
    ]
    report = Report("m", None, ["aniso"], ["s"], outcomes, replies=False)
    assert report.summary()["aniso"]["format"] == {"mean": 1.0, "n": 1, "not_run": 1}
    assert report.not_run() == 1
    assert "1.00 (1), not run (1)" in report.markdown()


def _terminate_run(suite: Path, tmp_path: Path, jobs: str, delay: float) -> list[Path]:
    """Start a run, send SIGTERM `delay` seconds after its first scratch folder
    appears, and return the scratch folders left behind (stderr must hold no traceback)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir(parents=True)
    process = subprocess.Popen(
        [sys.executable, "-c", NO_MODEL, "--data-dir", str(tmp_path / "home")]
        + ["scenarios", "run", "--suite", str(suite), "--variants", "history,aniso"]
        + ["--replies", "off", "--jobs", jobs, "--out", str(tmp_path / "out")],
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 600  # at most 10 minutes until a folder appears
        while not any(scratch.glob("aniso-scenarios-*")) and process.poll() is None:
            assert time.monotonic() < deadline, "no scenario started"
            time.sleep(0.002)
        time.sleep(delay)
        assert process.poll() is None, "the run ended before it could be interrupted"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=300)
    finally:
        process.kill()
    assert b"Traceback" not in stderr, stderr.decode()
    return list(scratch.glob("aniso-scenarios-*"))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_terminated_run_leaves_no_scratch_folder(suite: Path, tmp_path: Path, jobs: str) -> None:
    """SIGTERM (a `timeout`, a CI runner) ends a run as Ctrl-C does: the scratch
    folders, where the `history` variant keeps what the user said verbatim, go too."""
    assert not _terminate_run(suite, tmp_path, jobs, delay=0.5)


def test_a_run_terminated_while_it_starts_leaves_nothing(suite: Path, tmp_path: Path) -> None:
    """The same, in the first milliseconds: while the folder is made and the workers
    start. Cut there, a folder escaped its cleanup, or a worker escaped its pool and
    printed a traceback, in about one run in two, so five runs nearly always catch it."""
    for attempt in range(5):
        assert not _terminate_run(suite, tmp_path / str(attempt), "2", delay=0.003 * attempt)


def test_the_runs_embedder_weighs_russian_as_the_products_does() -> None:
    """Scenarios cache the product's embedder; the cache must say what the model reads,
    or a Russian scenario's recall would weigh words as no user's recall does."""
    from aniso.core.settings import Settings
    from aniso.scenarios.variants import CachedEmbedder
    from aniso.services import make_embedder

    product = make_embedder(Settings().embedding)
    cached = CachedEmbedder(product)
    assert cached.english_only is product.english_only is True
