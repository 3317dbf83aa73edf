"""`aniso bench start`: the `--json` shape, and how a first token is split into parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from aniso.bench.start import HISTORY, PARTS, split, summary


def test_split_charges_each_span_and_leaves_the_rest_to_other() -> None:
    recorded = {
        "marks": {"cli": 100.2, "first_token": 103.0, "reply_end": 104.0},
        "spans": [
            {"name": "imports", "start": 100.2, "end": 100.5},
            {"name": "stores", "start": 100.5, "end": 100.6},
            {"name": "guard", "start": 100.6, "end": 101.1},
            {"name": "recall", "start": 101.2, "end": 101.4},
            {"name": "model", "start": 101.4, "end": 101.9},
            {"name": "model", "start": 103.5, "end": 103.6},  # after the first token
        ],
    }
    parts = split(recorded, spawned=100.0)
    assert parts["first_token_s"] == pytest.approx(3.0)
    assert parts["reply_end_s"] == pytest.approx(4.0)
    assert parts["imports_s"] == pytest.approx(0.5)  # 0.2 to the CLI, 0.3 in the span
    assert parts["guard_s"] == pytest.approx(0.5)
    assert parts["model_s"] == pytest.approx(0.5)
    assert parts["prompt_s"] == pytest.approx(1.1)  # model loaded to first token
    assert parts["other_s"] == pytest.approx(0.1)  # guard end to recall start
    assert sum(parts[f"{name}_s"] for name in PARTS) == pytest.approx(3.0)


def test_summary_is_min_median_max() -> None:
    assert summary([3.0, 1.0, 2.0, 10.0]) == {"min": 1.0, "median": 2.5, "max": 10.0}
    assert summary([]) == {}


@pytest.mark.embedded_model
def test_bench_start_json_shape(data_dir: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    result = run_cli("bench", "start", "--runs", "1", "--json", env={"TMPDIR": str(scratch)})
    assert result.returncode == 0, result.stderr.decode()
    # The runs' data dirs hold what they were told: none is left behind.
    assert not [path.name for path in scratch.iterdir() if path.name.startswith("aniso-bench")]
    assert result.stderr == b""  # quiet under --json
    figures = json.loads(result.stdout)
    assert set(figures) == {
        *("model", "runs", "load_average", "help_s", "ask", "tui"),
        *("ask_with_history", "history_messages"),
    }
    assert figures["runs"] == 1
    assert figures["history_messages"] == len(HISTORY)
    asks = [figures["ask"], figures["ask_with_history"]]
    spreads = [figures["help_s"], *(s for a in asks for s in a.values()), *figures["tui"].values()]
    for ask in asks:
        assert set(ask) == {"first_token_s", "reply_end_s", *(f"{p}_s" for p in PARTS)}
    assert set(figures["tui"]) == {"first_paint_s", "warm_up_s", "first_token_s"}
    for spread in spreads:
        assert set(spread) == {"min", "median", "max"}
        assert 0 <= spread["min"] <= spread["median"] <= spread["max"]
    for ask in asks:
        assert ask["first_token_s"]["min"] <= ask["reply_end_s"]["min"]
