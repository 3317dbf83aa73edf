"""`aniso scenarios run`: MemPersonal-format suites under the memory variants.

Without `--suite` the suites bundled in `aniso/scenarios/suites` run; other suites,
such as the original MemPersonal folder, are named with `--suite DIR` (repeatable).
Writes report.json, report.md and report.png to `--out`. `--json` prints the summary
(variant → metric → {mean, n}) plus the report paths, and nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from aniso.cli.progress import Bar


@click.group()
def scenarios() -> None:
    """Run MemPersonal-format scenario suites against the memory variants."""


@scenarios.command("run")
@click.option(
    "--suite",
    "suites",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A suite folder (personas.json + scenarios.json); repeatable. "
    "Default: the bundled suites.",
)
@click.option(
    "--variants",
    default="baseline,history,rag,profile_rag,aniso",
    show_default=True,
    help="Comma-separated variants to run.",
)
@click.option("--judge", "judge_model", help="A litellm model that grades the final replies.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("scenario-report"),
    show_default=True,
    help="Where the report files go.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def run(
    ctx: click.Context,
    suites: tuple[Path, ...],
    variants: str,
    judge_model: str | None,
    out_dir: Path,
    as_json: bool,
) -> None:
    """Run the suites, check memory deterministically (and judge, if asked), report."""
    from aniso.core.errors import StoreError
    from aniso.scenarios.runner import run_suites
    from aniso.scenarios.suite import bundled_suites, load_suite
    from aniso.scenarios.variants import RecordingGateway

    settings = ctx.find_root().obj.settings
    loaded = [load_suite(path) for path in (suites or tuple(bundled_suites()))]
    names = [name.strip() for name in variants.split(",") if name.strip()]
    judge = RecordingGateway(settings, model=judge_model) if judge_model else None
    if judge is not None:
        judge.check_model()
    total = sum(len(s.scenarios) for s in loaded) * len(names)
    bar = Bar("scenarios", total, quiet=as_json)
    try:
        report = run_suites(
            loaded,
            settings=settings,
            variants=names,
            judge=judge,
            on_step=bar.step if bar.shown else None,
        )
    finally:
        bar.stop()
    try:
        paths = report.write(out_dir)
    except OSError as error:
        raise StoreError(
            f"cannot write the report to {out_dir}: {error.strerror or error}"
        ) from None
    if as_json:
        click.echo(json.dumps({"summary": report.summary(), "files": paths}, indent=2))
        return
    click.echo(_table(report))
    click.echo(f"report: {paths['markdown']}, {paths['json']}; chart: {paths['chart']}")


def _table(report: Any) -> str:
    summary = report.summary()
    metrics = report.used_metrics()
    width = max(len(m) for m in metrics) if metrics else 8
    header = "variant".ljust(12) + "".join(m[:width].rjust(width + 1) for m in metrics)
    rows = [header]
    for variant, row in summary.items():
        cells = [f"{row[m]['mean']:.2f}" if m in row else "-" for m in metrics]
        rows.append(variant.ljust(12) + "".join(c.rjust(width + 1) for c in cells))
    return "\n".join(rows)
