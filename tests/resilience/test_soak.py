"""`aniso bench soak`, small: a thousand messages over a simulated year.

The full run (20,000 messages) is a bench, not a test; this one checks the report's
invariants that are not timings: every message stored exactly once, no failed turn,
a compaction every simulated night that really moved blocks to cold, the doctor
clean, and the database growing no faster per byte of text in the second half of
the year than in the first.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

from aniso.cli.perf import sparkline

MESSAGES = 1000
GROWTH_BOUND = 1.5


def test_a_year_of_chat_keeps_every_message_once_and_grows_linearly(tmp_path: Path) -> None:
    work = tmp_path / "soak"
    result = run_cli(
        "bench", "soak", "--messages", str(MESSAGES), "--json", "--work-dir", str(work)
    )
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    assert b"\x1b[" not in result.stderr, "a progress bar was drawn without a terminal"
    report = json.loads(result.stdout)

    assert report["messages"] == MESSAGES and report["errors"] == 0
    assert report["stored_once"] == MESSAGES
    assert report["missing"] == [] and report["duplicated"] == []
    assert report["doctor_problems"] == []
    assert report["simulated_days"] == 365
    assert report["rss"]["malloc_arena_max"] == 2  # the CLI capped glibc's arenas first
    tenths = report["latency"]["cpu_p50_ms_by_tenth_without_unpacking"]
    assert len(tenths) == 10 and all(ms > 0 for ms in tenths), tenths
    assert 360 <= report["nights_compacted"] <= 366
    storage = report["storage"]
    assert storage["blocks_per_tier"].get("cold", 0) > 0, storage["blocks_per_tier"]
    assert storage["archived_rows"] > 0
    assert [s["messages"] for s in storage["samples"]] == [1, *range(100, MESSAGES + 1, 100)]
    sizes = [s["db_bytes"] for s in storage["samples"]]
    texts = [s["text_bytes"] for s in storage["samples"]]
    assert texts == sorted(texts) and sizes[-1] > sizes[0]
    growth = storage["growth"]
    assert growth["ratio"] is not None and 0 < growth["ratio"] <= GROWTH_BOUND, growth
    # Once the first messages are cold, every message pays for its whole lifecycle.
    assert growth["settled_after_messages"] == 300, growth
    assert 0 < growth["settled_ratio"] <= GROWTH_BOUND, growth
    latency, rss = report["latency"], report["rss"]
    assert latency["window"] == MESSAGES // 2
    assert {"first_wall_ms", "last_wall_ms", "first_cpu_ms", "last_cpu_ms"} <= set(latency)
    # Old memories were unpacked (on a signal only: gist first, so a few turns in
    # each half, not more as memory ages), and the turns that were not are reported
    # apart. Every unpacking turn restored at least one block.
    turns = latency["unpacking_turns"]
    assert 0 < turns["first"] < MESSAGES // 2 and 0 < turns["last"] < MESSAGES // 2, turns
    assert report["restores"] >= turns["first"] + turns["last"]
    assert report["restores_per_1000_messages"] == round(1000 * report["restores"] / MESSAGES, 1)
    assert latency["last_cpu_ms_without_unpacking"]["p50"] > 0
    assert rss["start_mb"] > 0 and rss["end_mb"] > 0 and len(rss["samples_mb"]) == 10
    assert Path(report["data_dir"]) == work and (work / "aniso.db").is_file()


def test_the_text_report_draws_each_series_as_bars_with_its_change() -> None:
    assert sparkline([400.0, 410.0, 440.0]) == "▁▃█  400 → 440 (min 400, max 440, +10.0%)"
    assert sparkline([5.0, 5.0]) == "▁▁  5 → 5 (min 5, max 5, +0.0%)"
    assert sparkline([]) == "(none)"
