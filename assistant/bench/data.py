"""`aniso bench data`: export and import time, size and peak RSS for a large memory.

Builds N synthetic episodes through the real write path (vectors supplied, as in
`bench compact`), compacts once so every tier holds blocks, then times the JSON and
Markdown exports and an `import --replace` into a fresh data dir. The JSON export
and the import each run in a child process (`aniso.bench.data_step`), so their peak
RSS is theirs alone, not the bench's; `*_process_s` adds the child's start-up
(imports, opening the store) to the step's own time. Vector
indexing after the import (embedding every episode again) is timed separately, and
only with `--vectors`: at 100k it dominates and says nothing about the import itself.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import child_python, peak_rss_mb
from aniso.bench.scale import bench_settings, close, sqlite_bytes
from aniso.bench.synthetic import Progress, populate, synthetic_episodes
from aniso.core.clock import SimulatedClock
from aniso.core.errors import StoreError
from aniso.data.export import export_json
from aniso.data.markdown import export_markdown
from aniso.services import build


def child_step(name: str, folder: Path, file: Path, at: str) -> dict[str, Any]:
    """Run `aniso.bench.data_step` in a child: its figures (with its own peak RSS) and
    its wall time from start to exit, started as every bench child is (`child_python`)."""
    command = [
        *child_python(),
        "-m",
        "aniso.bench.data_step",
        name,
        str(folder),
        str(file),
        at,
    ]
    began = time.perf_counter()
    child = subprocess.run(command, capture_output=True, check=False)
    if child.returncode != 0:
        lines = child.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StoreError(f"bench {name} step failed: {lines[-1] if lines else child.returncode}")
    figures: dict[str, Any] = json.loads(child.stdout)
    figures["process_s"] = round(time.perf_counter() - began, 2)
    return figures


def run(count: int, *, vectors: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    from aniso.services import make_compactor

    episodes = synthetic_episodes(count)
    now = episodes[-1].at + timedelta(days=1)
    at = now.isoformat()
    result: dict[str, Any] = {"episodes": count}
    with tempfile.TemporaryDirectory(prefix="aniso-bench-data-") as folder:
        root = Path(folder)
        services = build(bench_settings(root / "source"), clock=SimulatedClock(now))
        target = None
        try:
            populate(services.controller.memory, episodes, progress=progress)
            make_compactor(services).run(now)
            result["sqlite_bytes"] = sqlite_bytes(root / "source")
            began = time.perf_counter()
            md = export_markdown(services.db, root / "memory.md", redact=services.redact_text)
            result["export_md_s"] = round(time.perf_counter() - began, 2)
            result["export_md_bytes"] = md.bytes
        finally:
            close(services)
        out = root / "memory.json"
        exported = child_step("export", root / "source", out, at)
        result["export_json_s"] = exported["s"]
        result["export_json_cpu_s"] = exported["cpu_s"]
        result["export_json_bytes"] = exported["bytes"]
        result["blocks"] = exported["blocks"]
        result["archived"] = exported["archived"]
        result["export_process_s"] = exported["process_s"]
        result["export_peak_rss_mb"] = exported["peak_rss_mb"]
        result["peak_rss_after_export_mb"] = peak_rss_mb()
        imported = child_step("import", root / "target", out, at)
        result["import_validate_s"] = imported["validate_s"]
        result["import_write_s"] = imported["write_s"]
        result["import_s"] = round(imported["validate_s"] + imported["write_s"], 2)
        result["import_cpu_s"] = imported["cpu_s"]
        result["import_process_s"] = imported["process_s"]
        result["import_peak_rss_mb"] = imported["peak_rss_mb"]
        result["peak_rss_after_import_mb"] = peak_rss_mb()
        try:
            target = build(bench_settings(root / "target"), clock=SimulatedClock(now))
            if vectors:
                memory = target.controller.memory
                began = time.perf_counter()
                memory.dense.flush(memory.texts_for)
                result["import_vectors_s"] = round(time.perf_counter() - began, 2)
            again = root / "again.json"
            export_json(target.db, again)
            result["round_trip_identical"] = again.read_bytes() == out.read_bytes()
        finally:
            if target is not None:
                close(target)
    return result
