"""`aniso bench scale`: does memory stay fast as it grows from 1k to 100k episodes?

For each size a fresh data dir is filled with synthetic episodes over about two
years (see `bench_data`), then we measure what a user feels:

- the write cost: milliseconds per `TieredMemory.store` over the last writes at
  that size, with precomputed vectors, so the embedding model is not in it;
- observe + recall (no LLM) through the services the app builds, with real
  MiniLM embeddings of varied messages, split into phases (`bench_phases`); the
  vector upsert the chat does after the reply (write-behind) is timed on its own;
- at the largest size, the query plan of every statement a `store` and a recall
  run, so an O(N) scan shows up as a plan, not as a slowly creeping number.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import percentile
from aniso.bench.phases import PHASES, instrument
from aniso.bench.plans import Plan, capture
from aniso.bench.synthetic import (
    Progress,
    SyntheticEpisode,
    messages,
    populate,
    synthetic_episodes,
    unit_vectors,
)
from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.warmup import settle

WRITE_WINDOW = 500


def bench_settings(data_dir: Path) -> Any:
    """The app's settings on a throwaway data dir, with a model that is never called."""
    return load_settings({"data_dir": data_dir, "model": "fake/x", "llm_extraction": "off"})


def folder_bytes(path: Path) -> int:
    """Apparent size of every file under `path` (0 if it does not exist)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                continue
    return total


def sqlite_bytes(data_dir: Path) -> int:
    """The database file with its WAL and shared-memory files."""
    return sum(p.stat().st_size for p in data_dir.glob("aniso.db*") if p.is_file())


def close(services: Services) -> None:
    """Release Chroma and SQLite before the temporary folder is removed."""
    index = services.controller.memory.dense._index
    if index is not None:
        index.close()
    services.db.conn.close()


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "mean": round(sum(values) / len(values), 3) if values else 0.0,
        "p50": round(percentile(values, 0.50), 3),
        "p95": round(percentile(values, 0.95), 3),
        "max": round(max(values), 3) if values else 0.0,
    }


def measure_latency(
    services: Services, clock: SimulatedClock, texts: list[str], progress: Progress | None
) -> dict[str, dict[str, float]]:
    """observe + recall per message (wall and CPU time, in total and per phase), after
    one untimed warm-up (model and guard load) and `warmup.settle`. As in the chat, the
    turn's vector is pushed to the index after the reply (`write_behind`): timed apart,
    since the user is reading the reply by then."""
    controller = services.controller
    for text in messages(3, seed=1):
        warm = controller.observe(text)
        controller.recall(text, current_episode=warm.episode_id)
        controller.write_behind()
    settle()  # as the TUI and the chat REPL do once warm: turns are timed in a lasting process
    phases = instrument(services)
    observe_ms: list[float] = []
    recall_ms: list[float] = []
    cpu_ms: list[float] = []
    behind_ms: list[float] = []
    phase_wall: dict[str, list[float]] = {phase: [] for phase in PHASES}
    phase_cpu: dict[str, list[float]] = {phase: [] for phase in PHASES}
    for index, text in enumerate(texts):
        clock.advance(timedelta(minutes=1))
        phases.begin()
        began, began_cpu = time.perf_counter(), time.process_time()
        observation = controller.observe(text)
        middle = time.perf_counter()
        # As the chat does: the query is the stored (redacted) message.
        controller.recall(observation.stored_text, current_episode=observation.episode_id)
        ended, ended_cpu = time.perf_counter(), time.process_time()
        wall, cpu = phases.end()
        controller.write_behind()
        behind_ms.append((time.perf_counter() - ended) * 1000)
        observe_ms.append((middle - began) * 1000)
        recall_ms.append((ended - middle) * 1000)
        cpu_ms.append((ended_cpu - began_cpu) * 1000)
        for phase in PHASES:
            phase_wall[phase].append(wall[phase])
            phase_cpu[phase].append(cpu[phase])
        if progress is not None:
            progress("observe + recall", index + 1, len(texts))
    both = [a + b for a, b in zip(observe_ms, recall_ms, strict=True)]
    return {
        "observe_ms": _stats(observe_ms),
        "recall_ms": _stats(recall_ms),
        "observe_recall_ms": _stats(both),
        # CPU time of the process over observe + recall: on a shared machine, wall time
        # also measures the neighbours; this measures us.
        "observe_recall_cpu_ms": _stats(cpu_ms),
        # Exclusive time per phase of observe + recall; the phases add up to the turn.
        "phases_ms": {
            "wall": {phase: _stats(values) for phase, values in phase_wall.items()},
            "cpu": {phase: _stats(values) for phase, values in phase_cpu.items()},
        },
        # After the reply, off the user's wait: the vector upsert into the index.
        "write_behind_ms": _stats(behind_ms),
    }


def store_plans(services: Services, last: SyntheticEpisode) -> list[Plan]:
    """Plans of three stores that take the write path's three branches: joining the
    current block, opening a new one after a gap, and closing an open problem."""
    import numpy as np

    memory = services.controller.memory
    vectors = unit_vectors(np.random.default_rng(99), 3)
    cases = [
        (last.text, last.at + timedelta(minutes=2)),
        ("Back to the garden: the tomatoes need watering again.", last.at + timedelta(hours=9)),
        ("It works now, the drip irrigation is finally sorted.", last.at + timedelta(hours=10)),
    ]
    statements: list[Plan] = []
    for (text, at), vector in zip(cases, vectors, strict=True):

        def store(text: str = text, at: Any = at, vector: Any = vector) -> None:
            memory.store(text, at=at, session=last.session, vector=vector)

        statements.extend(capture(services.db.conn, store))
    return _merge(statements)


def recall_plans(services: Services, text: str) -> list[Plan]:
    """Plans of one recall as the controller runs it (after the message was observed)."""
    controller = services.controller
    observation = controller.observe(text)
    plans = capture(
        services.db.conn,
        lambda: controller.recall(text, current_episode=observation.episode_id),
    )
    controller.write_behind()
    return plans


def _merge(plans: list[Plan]) -> list[Plan]:
    merged: dict[str, Plan] = {}
    for plan in plans:
        if plan.sql in merged:
            old = merged[plan.sql]
            plan = Plan(plan.sql, old.calls + plan.calls, old.plan, old.full_scans, old.note)
        merged[plan.sql] = plan
    return list(merged.values())


def measure_size(
    count: int, *, queries: int, with_plans: bool, progress: Progress | None = None
) -> dict[str, Any]:
    """Every figure for one size, in its own temporary data dir."""
    episodes = synthetic_episodes(count)
    with tempfile.TemporaryDirectory(prefix="aniso-bench-scale-") as folder:
        data_dir = Path(folder)
        clock = SimulatedClock(episodes[-1].at + timedelta(hours=1))
        services = build(bench_settings(data_dir), clock=clock)
        try:
            began = time.perf_counter()
            timings = populate(
                services.controller.memory,
                episodes,
                timed=min(WRITE_WINDOW, count),
                progress=progress,
            )
            populate_s = time.perf_counter() - began
            blocks = services.db.execute("SELECT count(*) FROM blocks").fetchone()[0]
            result: dict[str, Any] = {
                "episodes": count,
                "blocks": blocks,
                "populate_s": round(populate_s, 1),
                "write_ms": {**_stats(timings), "writes": len(timings)},
            }
            if with_plans:
                result["plans"] = {
                    "store": [p.as_dict() for p in store_plans(services, episodes[-1])],
                    "recall": [p.as_dict() for p in recall_plans(services, episodes[-2].text)],
                }
            texts = messages(queries, seed=count)
            result.update(measure_latency(services, clock, texts, progress))
            result["sqlite_bytes"] = sqlite_bytes(data_dir)
            result["chroma_bytes"] = folder_bytes(data_dir / "chroma")
        finally:
            close(services)
    return result


def flagged(plans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"sql": p["sql"], "full_scans": p["full_scans"], "note": p["note"]}
        for p in plans
        if p["full_scans"]
    ]


def run(
    sizes: list[int], *, queries: int, progress: Callable[[str, int, int], None] | None = None
) -> dict[str, Any]:
    """All sizes, smallest first, and how the write cost grew between the extremes."""
    ordered = sorted(set(sizes))
    results = []
    for count in ordered:

        def report(phase: str, done: int, total: int, count: int = count) -> None:
            if progress is not None:
                progress(f"{count:,} episodes: {phase}", done, total)

        results.append(
            measure_size(count, queries=queries, with_plans=count == ordered[-1], progress=report)
        )
    smallest, largest = results[0]["write_ms"], results[-1]["write_ms"]
    plans = results[-1].pop("plans")
    return {
        "sizes": results,
        "queries": queries,
        "write_cost_ratio": {
            "from_episodes": ordered[0],
            "to_episodes": ordered[-1],
            "mean": round(largest["mean"] / smallest["mean"], 3) if smallest["mean"] else None,
            "p95": round(largest["p95"] / smallest["p95"], 3) if smallest["p95"] else None,
        },
        "plans": {
            "episodes": ordered[-1],
            **plans,
            "flagged": {"store": flagged(plans["store"]), "recall": flagged(plans["recall"])},
        },
        "vectors": "random unit vectors (dim 384) for stored episodes; MiniLM for messages",
    }
