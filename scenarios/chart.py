"""The report's PNG: metrics on the x axis, one bar per variant, like the paper's Figure 2.

matplotlib is imported here only, when a chart is drawn, with the Agg backend: no
display is needed and `aniso --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aniso.scenarios.report import Report


def draw_chart(report: Report, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = report.summary()
    metrics = report.used_metrics()
    variants = report.variants
    width = 0.8 / max(1, len(variants))
    figure, axes = plt.subplots(figsize=(max(8.0, 1.3 * len(metrics)), 4.5))
    for index, variant in enumerate(variants):
        heights = [summary[variant].get(m, {}).get("mean") or 0.0 for m in metrics]
        positions = [x + index * width for x in range(len(metrics))]
        axes.bar(positions, heights, width=width, label=variant)
    axes.set_xticks([x + width * (len(variants) - 1) / 2 for x in range(len(metrics))])
    # A metric no variant ran has no bars; its label says so, lest it read as a zero.
    unrun = {m for m in metrics if all(summary[v].get(m, {}).get("mean") is None for v in variants)}
    labels = [f"{m} (not run)" if m in unrun else m for m in metrics]
    axes.set_xticklabels(labels, rotation=30, ha="right")
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("score (mean over scenarios)")
    axes.set_title(f"Memory variants by metric ({', '.join(report.suites)})")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
