"""`aniso bench scale` and `aniso bench compact`: JSON shape and sanity, never timings.

Both run as real subprocesses on tiny sizes. Their temporary data dirs go under the
test's isolated folder (TMPDIR), never the user's.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli


def run_json(data_dir: Path, *args: str) -> dict:
    data_dir.mkdir(parents=True, exist_ok=True)
    result = run_cli(*args, "--json", env={"TMPDIR": str(data_dir)})
    assert result.returncode == 0, result.stderr.decode()
    assert not result.stderr.strip(), "--json must stay quiet on stderr"
    return json.loads(result.stdout)


def test_bench_scale_reports_sizes_ratio_and_plans(data_dir: Path) -> None:
    figures = run_json(data_dir, "bench", "scale", "--episodes", "200,50", "--queries", "5")
    sizes = figures["sizes"]
    assert [row["episodes"] for row in sizes] == [50, 200]
    for row in sizes:
        assert 1 <= row["blocks"] <= row["episodes"]
        assert row["write_ms"]["writes"] == row["episodes"]  # fewer than the 500 window
        for key in (
            "write_ms",
            "observe_ms",
            "recall_ms",
            "observe_recall_ms",
            "observe_recall_cpu_ms",
        ):
            stats = row[key]
            assert 0 < stats["p50"] <= stats["p95"] <= stats["max"], key
        assert row["sqlite_bytes"] > 0 and row["chroma_bytes"] > 0
        # Exclusive time per phase: every phase is there and they add up to the turn.
        phases = row["phases_ms"]
        assert set(phases) == {"wall", "cpu"}
        for clock, total in (("wall", "observe_recall_ms"), ("cpu", "observe_recall_cpu_ms")):
            assert set(phases[clock]) == {"guard", "embed", "profile", "store", "recall", "other"}
            assert all(phases[clock][p]["mean"] > 0 for p in ("embed", "store", "recall"))
            summed = sum(stats["mean"] for stats in phases[clock].values())
            assert abs(summed - row[total]["mean"]) <= 0.1 * row[total]["mean"] + 0.5, clock
        assert 0 < row["write_behind_ms"]["p50"] <= row["write_behind_ms"]["max"]
    assert figures["queries"] == 5
    ratio = figures["write_cost_ratio"]
    assert (ratio["from_episodes"], ratio["to_episodes"]) == (50, 200)
    assert ratio["mean"] > 0 and ratio["p95"] > 0

    plans = figures["plans"]
    assert plans["episodes"] == 200
    statements = {plan["sql"] for plan in plans["store"]}
    assert any(sql.startswith("INSERT INTO episodes") for sql in statements)
    assert any("FROM blocks WHERE tier" in sql for sql in statements), "current hot block"
    for plan in plans["store"] + plans["recall"]:
        assert plan["calls"] >= 1 and isinstance(plan["plan"], list)
        if plan["sql"].startswith(("SELECT", "UPDATE", "DELETE")):
            assert plan["plan"], plan["sql"]
    # The write path and recall stay O(1)/O(log N): no plan scans a big table.
    assert plans["flagged"] == {"store": [], "recall": []}


def test_bench_compact_reports_tiers_that_add_up(data_dir: Path) -> None:
    figures = run_json(data_dir, "bench", "compact", "--episodes", "300")
    tiers = figures["tiers"]
    assert set(tiers) == {"hot", "warm", "cold"}
    assert figures["live_episodes"] + figures["archived_episodes"] == 300
    assert sum(t["live_episodes"] for t in tiers.values()) == figures["live_episodes"]
    assert sum(t["archived_episodes"] for t in tiers.values()) == figures["archived_episodes"]
    assert figures["compaction"]["archived_episodes"] == figures["archived_episodes"]
    assert figures["compaction"]["moved"] == tiers["warm"]["blocks"] + tiers["cold"]["blocks"]
    assert all(t["blocks"] > 0 for t in tiers.values())
    assert tiers["hot"]["ratio"] == 1.0 and tiers["hot"]["archived_episodes"] == 0
    assert tiers["cold"]["live_episodes"] == 0
    assert tiers["cold"]["ratio"] < tiers["warm"]["ratio"] <= 1
    assert tiers["cold"]["ratio"] <= 0.1, "a cold capsule is a tenth of its hot form at most"
    for tier in tiers.values():  # without replies the hot form shrinks, the ratio grows
        assert tier["ratio"] <= tier["ratio_to_user_text"]
        assert tier["user_text_tokens"] < tier["hot_form_tokens"]
    for tier in tiers.values():
        parts = tier["bytes"]
        total = parts["episode_text"] + parts["block_text"] + parts["archive_payload"]
        assert parts["total"] == total
    assert tiers["cold"]["bytes"]["archive_payload"] > 0
    assert figures["chroma_bytes"] > 0 and figures["sqlite_bytes"] > 0
    assert figures["compaction_s"] >= figures["vector_index_s"] >= 0
