"""`aniso bench data`: the export and import steps run in child processes, and the
imported memory must export byte for byte as the original did. Never timings.

Run from the repository's own folder on purpose: a child started there with the folder
first on sys.path found `profile/` in place of the standard library's `profile`, spaCy
failed to import, and the guard withheld every imported text as unscanned.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_bench_data_round_trip_is_identical_run_from_the_checkout(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    result = run_cli(
        "bench", "data", "--episodes", "300", "--json", env={"TMPDIR": str(data_dir)}, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr.decode()
    figures = json.loads(result.stdout)
    assert figures["episodes"] == 300
    assert figures["round_trip_identical"] is True
    for key in ("export_json_s", "import_validate_s", "import_write_s", "import_peak_rss_mb"):
        assert figures[key] >= 0, key
    # CPU seconds of the step alone: the import guards and indexes 300 episodes
    assert 0 < figures["import_cpu_s"] and 0 <= figures["export_json_cpu_s"]
