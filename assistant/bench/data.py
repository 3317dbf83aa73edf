"""`aniso bench data`: export and import time and size for a large memory.

Builds N synthetic episodes through the real write path (vectors supplied, as in
`bench compact`), compacts once so every tier holds blocks, then times the JSON and
Markdown exports and an `import --replace` into a fresh data dir. Vector indexing
after the import (embedding every episode again) is timed separately, and only with
`--vectors`: at 100k it dominates and says nothing about the import itself.
"""

from __future__ import annotations

import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import peak_rss_mb
from aniso.bench.scale import bench_settings, close, sqlite_bytes
from aniso.bench.synthetic import Progress, populate, synthetic_episodes
from aniso.core.clock import SimulatedClock
from aniso.core.db import writer_lock
from aniso.data.export import export_json
from aniso.data.importer import read_document, write_document
from aniso.data.markdown import export_markdown
from aniso.services import build


def run(count: int, *, vectors: bool = False, progress: Progress | None = None) -> dict[str, Any]:
    from aniso.services import make_compactor

    episodes = synthetic_episodes(count)
    now = episodes[-1].at + timedelta(days=1)
    result: dict[str, Any] = {"episodes": count}
    with tempfile.TemporaryDirectory(prefix="aniso-bench-data-") as folder:
        root = Path(folder)
        services = build(bench_settings(root / "source"), clock=SimulatedClock(now))
        target = None
        try:
            populate(services.controller.memory, episodes, progress=progress)
            make_compactor(services).run(now)
            result["sqlite_bytes"] = sqlite_bytes(root / "source")
            out = root / "memory.json"
            began = time.perf_counter()
            report = export_json(services.db, out, redact=services.redact_text)
            result["export_json_s"] = round(time.perf_counter() - began, 2)
            result["export_json_bytes"] = report.bytes
            result["blocks"] = report.blocks
            result["archived"] = report.archived
            result["peak_rss_after_export_mb"] = peak_rss_mb()
            began = time.perf_counter()
            md = export_markdown(services.db, root / "memory.md", redact=services.redact_text)
            result["export_md_s"] = round(time.perf_counter() - began, 2)
            result["export_md_bytes"] = md.bytes
            target = build(bench_settings(root / "target"), clock=SimulatedClock(now))
            began = time.perf_counter()
            document = read_document(out)
            result["import_validate_s"] = round(time.perf_counter() - began, 2)
            began = time.perf_counter()
            with writer_lock(root / "target"):
                write_document(
                    target.db,
                    document,
                    mode="replace",
                    redact=target.redact_text,
                    path=str(out),
                    at=now.isoformat(),
                )
            result["import_write_s"] = round(time.perf_counter() - began, 2)
            result["peak_rss_after_import_mb"] = peak_rss_mb()
            if vectors:
                memory = target.controller.memory
                began = time.perf_counter()
                memory.dense.flush(memory.texts_for)
                result["import_vectors_s"] = round(time.perf_counter() - began, 2)
            again = root / "again.json"
            export_json(target.db, again, redact=target.redact_text)
            result["round_trip_identical"] = again.read_bytes() == out.read_bytes()
        finally:
            close(services)
            if target is not None:
                close(target)
    return result
