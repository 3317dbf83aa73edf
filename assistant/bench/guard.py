"""Latency of the privacy guard, for `aniso bench guard`.

The guard sits on every memory write, so its per-message cost is what users feel. The
first scan also pays for importing presidio and spaCy and building the engine; that is
a one-off per process and is reported separately as `startup_ms`.
"""

from __future__ import annotations

import time

from aniso.bench.measure import percentile
from aniso.privacy import Guard
from aniso.privacy import engine as privacy_engine


def measure_guard_latency(texts: list[str], *, repeats: int = 1) -> dict[str, float]:
    """p50/p95/max milliseconds per message after warm-up, plus the one-off `startup_ms`.

    `startup_ms` is 0.0 when the engine was already built earlier in this process.
    """
    guard = Guard()
    started = time.perf_counter()
    cold = not privacy_engine.is_built()
    guard.scan(texts[0] if texts else "warm-up")
    startup_ms = (time.perf_counter() - started) * 1000 if cold else 0.0
    timings: list[float] = []
    for _ in range(max(1, repeats)):
        for text in texts:
            begin = time.perf_counter()
            guard.scan(text)
            timings.append((time.perf_counter() - begin) * 1000)
    timings.sort()
    return {
        "messages": float(len(timings)),
        "startup_ms": startup_ms,
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "max_ms": timings[-1] if timings else 0.0,
    }
