"""`aniso bench ...`: measured figures, never timed assertions.

- `bench locomo PATH...`: LoCoMo replay with a simulated clock (evidence recall per
  category, recall within context budgets, context tokens, recall latency).
- `bench guard`: per-message latency of the privacy guard on the labelled PII set.

Progress shows on a TTY; `--json` and pipes stay quiet.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import click


def _root(ctx: click.Context) -> Any:
    return ctx.find_root().obj


@click.group()
def bench() -> None:
    """Benchmarks that report figures: LoCoMo retrieval and guard latency."""


@bench.command("locomo")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--work-dir", type=click.Path(file_okay=False), help="Keep the replayed memory.")
@click.pass_context
def locomo_command(
    ctx: click.Context, paths: tuple[str, ...], as_json: bool, work_dir: str | None
) -> None:
    """Replay LoCoMo conversations and report evidence recall per category."""
    from aniso import locomo

    settings = _root(ctx).settings
    target = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="aniso-locomo-"))
    progress = None
    bar = None
    if sys.stderr.isatty() and not as_json:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("replaying LoCoMo", total=len(paths))
        bar.start()

        def progress(name: str) -> None:
            bar.advance(task, 1)

    try:
        result = locomo.run(
            [Path(p) for p in paths], work_dir=target, settings=settings, progress=progress
        )
    finally:
        if bar is not None:
            bar.stop()
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    overall = result["overall"]
    click.echo(
        f"LoCoMo replay: {result['turns']} turns, {result['questions']} questions "
        "(category 5 excluded)"
    )
    header = ["category", "n", "R@5", "R@10", "R@20", "R@1k tok", "R@2k tok"]
    click.echo("  ".join(f"{h:>9}" for h in header))
    for name, row in overall["categories"].items():
        cells = [
            name,
            row["questions"],
            row["recall@5"],
            row["recall@10"],
            row["recall@20"],
            row["recall@1000tok"],
            row["recall@2000tok"],
        ]
        click.echo(
            "  ".join(f"{c:>9}" if isinstance(c, (str, int)) else f"{c:>9.3f}" for c in cells)
        )
    latency = overall["latency_ms"]
    click.echo(
        f"mean context tokens: {overall['mean_context_tokens']}; recall latency ms: "
        f"p50 {latency['p50']}, p95 {latency['p95']}, max {latency['max']}"
    )


@bench.command("guard")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--repeats", default=3, show_default=True, help="Passes over the data set.")
def guard_command(as_json: bool, repeats: int) -> None:
    """Privacy guard latency per message (p50/p95/max) and recall/precision per type,
    on the labelled PII set (EN, RU, UK, with hard negatives)."""
    from aniso.bench_guard import measure_guard_latency
    from aniso.privacy.evaluate import evaluate, format_report

    texts = [
        json.loads(line)["text"]
        for line in _pii_set().read_text("utf-8").splitlines()
        if line.strip()
    ]
    figures = measure_guard_latency(texts, repeats=repeats)
    figures["messages"] = len(texts) * repeats
    report = evaluate(_pii_set())
    quality = {key: report[key] for key in ("texts", "precision", "recall", "per_type")}
    if as_json:
        click.echo(json.dumps({**figures, "quality": quality}, indent=2))
        return
    click.echo(
        ", ".join(
            f"{key} {value:.2f}" if isinstance(value, float) else f"{key} {value}"
            for key, value in figures.items()
        )
    )
    click.echo(format_report(report))


def _pii_set() -> Path:
    """The labelled PII set ships with the package (a copy of tests/data)."""
    from importlib import resources

    return Path(str(resources.files("aniso.privacy") / "data" / "pii_labelled.jsonl"))
