"""`aniso compact` and `aniso doctor`: the tier lifecycle and its health, on demand."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from aniso.cli.progress import Bar


def _root(ctx: click.Context) -> Any:
    return ctx.find_root().obj


@click.command()
@click.option("--report", "show_report", is_flag=True, help="Show the last run instead.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def compact(ctx: click.Context, show_report: bool, as_json: bool) -> None:
    """Run the compactor now (use the global --now to simulate time), or show its report."""
    from aniso.tiers.compaction import last_report

    services = _root(ctx).services()
    if show_report:
        report = last_report(services.db)
        if report is None:
            click.echo("{}" if as_json else "the compactor has not run yet")
            return
    else:
        total = len(services.compactor().candidates(services.clock()))
        bar = Bar("compacting", total, quiet=as_json)
        try:
            compactor = services.compactor(on_block=bar.advance if bar.shown else None)
            report = compactor.run(services.clock()).as_dict()
        finally:
            bar.stop()
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    click.echo(
        f"compaction at {report['now']}: moved {len(report['moved'])}, "
        f"compressed {len(report['compressed'])}, archived "
        f"{report['archived_episodes']} episodes, linked {report['linked']}, "
        f"rolled back {len(report['rolled_back'])}"
    )
    for entry in report["moved"] + report["compressed"]:
        click.echo(
            f"  block {entry['block_id']}: {entry['from']} → {entry['to']} "
            f"({entry['archived']} archived, {entry['source']})"
        )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, exists=True),
    help="Check this data dir (e.g. a restored backup) instead of the configured one.",
)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, data_dir: str | None) -> None:
    """Check SQLite integrity and the tier invariants; exit 1 if anything is wrong."""
    from aniso.core.db import loose_permissions
    from aniso.tiers.doctor import check

    root = _root(ctx)
    if data_dir is not None:
        root.use_data_dir(data_dir)
    services = root.services(catch_up=False)  # a check writes nothing
    problems = check(services.db, services.controller.memory.dense)
    loose = loose_permissions(services.settings.data_dir)
    if loose:
        problems.append(f"{len(loose)} files in the data dir are readable by others")
    if as_json:
        click.echo(json.dumps({"ok": not problems, "problems": problems}, indent=2))
    elif problems:
        for problem in problems:
            click.echo(f"problem: {problem}")
    else:
        click.echo("ok: SQLite integrity, tiers, archive and indexes agree")
    if problems:
        sys.exit(1)
