"""One step of `aniso bench data` (an export or an import) in a process of its own.

The bench itself holds the synthetic memory, the compactor and the embedding model,
so its own peak RSS says nothing about an export or an import. Each step runs here
instead, as `aniso export` and `aniso import` would run it.

Usage: `python -m aniso.bench.data_step export|import DATA_DIR FILE AT`; prints the
step's figures as one JSON line (wall seconds, and `cpu_s`, the step's CPU seconds
over all its threads: on a busy machine the wall time says how busy it was, the CPU
time what the step costs), with the process's own peak RSS (VmHWM: the peak
`ru_maxrss` a parent reads for its child starts at the parent's size, see
`aniso.bench.measure.own_peak_rss_mb`).
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from aniso.bench.measure import own_peak_rss_mb
from aniso.bench.scale import bench_settings, close
from aniso.core.clock import SimulatedClock
from aniso.core.db import writer_lock
from aniso.data.export import export_json
from aniso.data.importer import write_document
from aniso.data.reading import read_document
from aniso.services import build


def step(name: str, folder: Path, file: Path, at: str) -> dict[str, Any]:
    """Run one export or `import --replace` of `file` against the data dir `folder`."""
    services = build(bench_settings(folder), clock=SimulatedClock(datetime.fromisoformat(at)))
    try:
        began = time.perf_counter()
        cpu = time.process_time()
        if name == "export":
            report = export_json(services.db, file)
            return {
                "s": round(time.perf_counter() - began, 2),
                "cpu_s": round(time.process_time() - cpu, 2),
                "bytes": report.bytes,
                "blocks": report.blocks,
                "archived": report.archived,
            }
        document = read_document(file)
        validated = time.perf_counter()
        with writer_lock(folder):
            write_document(
                services.db,
                document,
                mode="replace",
                redact=services.redact_text,
                redact_many=services.redact_texts,
                path=str(file),
                at=at,
            )
        return {
            "validate_s": round(validated - began, 2),
            "write_s": round(time.perf_counter() - validated, 2),
            "cpu_s": round(time.process_time() - cpu, 2),
        }
    finally:
        close(services)


if __name__ == "__main__":
    step_name, data_dir, path, when = sys.argv[1:5]
    figures = step(step_name, Path(data_dir), Path(path), when)
    print(json.dumps({**figures, "peak_rss_mb": own_peak_rss_mb()}))
