"""`aniso scenarios run`: MemPersonal-format suites under the memory variants.

Without `--suite` the suites bundled in `aniso/scenarios/suites` run; other suites,
such as the original MemPersonal folder, are named with `--suite DIR` (repeatable).
Writes report.json, report.md and report.png to `--out`. `--json` prints the summary
(variant → metric → {mean, n}) plus the report paths, and nothing else. `--jobs N`
plays scenarios in N processes with the same report; `--replies off` plays them
without generating replies, and reports the checks that need one as not run.
"""

from __future__ import annotations

import json
import signal
import sys
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
@click.option(
    "--jobs",
    default="1",
    show_default=True,
    help="Scenarios played at once, each in its own process and data dir.",
)
@click.option(
    "--replies",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="off: no model replies; checks that need one are reported as not run.",
)
@click.pass_context
def run(
    ctx: click.Context,
    suites: tuple[Path, ...],
    variants: str,
    judge_model: str | None,
    out_dir: Path,
    as_json: bool,
    jobs: str,
    replies: str,
) -> None:
    """Run the suites, check memory deterministically (and judge, if asked), report."""
    from aniso.core.errors import InputError, StoreError
    from aniso.scenarios.runner import run_suites
    from aniso.scenarios.suite import bundled_suites, load_suite
    from aniso.scenarios.variants import RecordingGateway

    workers = _jobs(jobs)
    if judge_model and replies == "off":
        raise InputError("--judge grades replies; it cannot run with --replies off")
    settings = ctx.find_root().obj.settings
    loaded = [load_suite(path) for path in (suites or tuple(bundled_suites()))]
    names = [name.strip() for name in variants.split(",") if name.strip()]
    judge = RecordingGateway(settings, model=judge_model) if judge_model else None
    if judge is not None:
        judge.check_model()
    total = sum(len(s.scenarios) for s in loaded) * len(names)
    # The bar is for a person watching: not under --json, nor when output is piped.
    bar = Bar("scenarios", total, quiet=as_json or not sys.stdout.isatty())
    # A SIGTERM (a `timeout`, a CI runner) ends the run like Ctrl-C does, so the
    # scratch folders, which hold the `history` variant's verbatim transcripts, go too.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        report = run_suites(
            loaded,
            settings=settings,
            variants=names,
            judge=judge,
            on_step=bar.step if bar.shown else None,
            replies=replies == "on",
            jobs=workers,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
        bar.stop()
    try:
        paths = report.write(out_dir)
    except OSError as error:
        raise StoreError(
            f"cannot write the report to {out_dir}: {error.strerror or error}"
        ) from None
    if as_json:
        shown = {
            "summary": report.summary(),
            "files": paths,
            "replies": replies,
            "not_run": report.not_run(),
        }
        click.echo(json.dumps(shown, indent=2))
        return
    click.echo(_table(report))
    if report.not_run():
        from aniso.scenarios.report import not_run_notice

        click.echo(not_run_notice(report.not_run()))
    click.echo(f"report: {paths['markdown']}, {paths['json']}; chart: {paths['chart']}")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _jobs(text: str) -> int:
    """--jobs as a count of at least 1, or one line saying what is wrong."""
    from aniso.core.errors import InputError

    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise InputError(f"--jobs must be a whole number of at least 1, not {text!r}")
    return count


def _table(report: Any) -> str:
    summary = report.summary()
    metrics = report.used_metrics()
    width = max(len(m) for m in metrics) if metrics else 8
    width = max(width, len(NOT_RUN_CELL))
    header = "variant".ljust(12) + "".join(m[:width].rjust(width + 1) for m in metrics)
    rows = [header]
    for variant, row in summary.items():
        cells = [_cell(row.get(m)) for m in metrics]
        rows.append(variant.ljust(12) + "".join(c.rjust(width + 1) for c in cells))
    return "\n".join(rows)


NOT_RUN_CELL = "not run"


def _cell(cell: dict[str, Any] | None) -> str:
    """A mean, or "not run" (never a blank or a dash) when the check was not run."""
    if cell is None:
        return "-"
    if cell.get("not_run"):
        return NOT_RUN_CELL if cell["mean"] is None else f"{cell['mean']:.2f}*"
    return f"{cell['mean']:.2f}"
