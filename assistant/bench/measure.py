"""The one way every bench turns timings and memory into figures.

Percentiles use one rule everywhere, so figures from different benches compare:
**nearest rank on the sorted values, index = round(q × (n − 1))**. p50 of [1, 2, 3, 4]
is 3 (index round(1.5) = 2), p95 of 20 values is the 19th smallest (index 18), and
the maximum is always the last value. No interpolation: every reported figure is one
that was measured.
"""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Iterable


def percentile(values: Iterable[float], fraction: float) -> float:
    """The nearest-rank percentile (`fraction` in [0, 1]); 0.0 for no values."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def spread(values: Iterable[float], *, digits: int = 2) -> dict[str, float]:
    """p50, p95 and max of `values`, rounded; zeros for no values."""
    ordered = sorted(values)
    return {
        "p50": round(percentile(ordered, 0.50), digits),
        "p95": round(percentile(ordered, 0.95), digits),
        "max": round(ordered[-1], digits) if ordered else 0.0,
    }


def rss_mb() -> float:
    """Resident set size now (not the peak), from /proc; 0.0 where there is none."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def peak_rss_mb() -> float:
    """The process's peak resident set size so far (Linux reports it in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def own_peak_rss_mb() -> float:
    """This process's own peak RSS since its exec, from /proc (VmHWM); else `peak_rss_mb`.

    `ru_maxrss` (of the process, or of a child as its parent reads it) carries over
    the peak of the process image that exec replaced: a child started by a 480 MB
    bench reports at least 480 MB, whatever it did itself. VmHWM belongs to the
    running image alone.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return peak_rss_mb()


def child_python() -> list[str]:
    """The command that starts a bench's child Python. `-P`: run from a checkout, the
    folder would come first on sys.path, and its `profile/` hide the standard library's
    `profile`, which spaCy imports; the guard would then fail closed on every text."""
    return [sys.executable, "-P"]
