"""`aniso export`, `aniso import`, `aniso forget` and `aniso backup`: the user owns their data.

Progress bars appear only on a terminal and never under `--json`. Every receipt and
report has a stable `--json` shape. Import and forget hold the data dir's writer
lock, so they wait for a running compaction (and it for them) instead of
interleaving; export reads one snapshot and blocks nobody.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from aniso.cli.progress import Bar
from aniso.core.errors import InputError


def _root(ctx: click.Context) -> Any:
    return ctx.find_root().obj


def _echo_json(payload: dict[str, Any]) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))


@click.command("export")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False), help="File to write.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "md"]),
    default="json",
    show_default=True,
    help="JSON (complete, re-importable) or a Markdown digest.",
)
@click.option(
    "--misses",
    is_flag=True,
    help="Export the corrections (retrieval and reply misses) as a JSON Lines dataset.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def export_command(ctx: click.Context, out: str, fmt: str, misses: bool, as_json: bool) -> None:
    """Export the whole memory: profile with history, blocks per tier, archive, links."""
    from aniso.data.export import count_blocks, export_json
    from aniso.data.markdown import export_markdown

    if misses and fmt != "json":
        raise InputError("--misses writes JSON Lines: drop --format md")
    services = _root(ctx).services(catch_up=False)  # the data as it is stored
    if misses:
        _export_misses(services, Path(out), as_json=as_json)
        return
    bar = Bar("exporting", count_blocks(services.db), quiet=as_json)
    try:
        if fmt == "json":  # the store is already guarded: no second scan
            report = export_json(services.db, Path(out), progress=bar.advance)
        else:
            report = export_markdown(
                services.db, Path(out), redact=services.redact_text, progress=bar.advance
            )
    finally:
        bar.stop()
    if as_json:
        _echo_json(report.as_dict())
        return
    blocks = ", ".join(f"{n} {tier}" for tier, n in report.blocks.items())
    click.echo(
        f"exported {report.episodes} episodes, {report.archived} archived, {blocks} blocks, "
        f"{report.profile_values} profile values to {report.path} ({report.bytes} bytes)"
    )


def _export_misses(services: Any, out: Path, *, as_json: bool) -> None:
    from aniso.data.miss_dataset import export_misses

    report = export_misses(services.db, out, redact=services.redact_text)
    if as_json:
        _echo_json(report.as_dict())
        return
    click.echo(
        f"exported {report.misses} misses ({report.retrieval} retrieval, {report.reply} "
        f"reply) to {report.path} ({report.bytes} bytes)"
    )


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--merge", "mode", flag_value="merge", default=True, help="Add to the memory (default)."
)
@click.option("--replace", "mode", flag_value="replace", help="Replace the memory with the file's.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def import_command(ctx: click.Context, file: str, mode: str, as_json: bool) -> None:
    """Import an export (validated first; all or nothing; through the privacy guard)."""
    from aniso.core.db import writer_lock
    from aniso.data import forget
    from aniso.data.importer import write_document
    from aniso.data.reading import read_document

    document = read_document(Path(file))  # before opening the store: a bad file touches nothing
    services = _root(ctx).services(catch_up=False)  # replaces or adds to it as is
    bar = Bar("importing", sum(document.blocks.values()), quiet=as_json)
    try:
        erasure = None
        with writer_lock(services.settings.data_dir):
            replaced = forget.before_replace(services) if mode == "replace" else None
            report = write_document(
                services.db,
                document,
                mode=mode,  # type: ignore[arg-type]
                redact=services.redact_text,
                redact_many=services.redact_texts,
                path=file,
                at=services.clock().isoformat(),
                progress=bar.advance,
            )
            if replaced is not None:
                erasure = forget.after_replace(services, replaced)
            else:
                services.controller.memory.dense.flush(services.controller.memory.texts_for)
    finally:
        bar.stop()
    payload = report.as_dict()
    if erasure is not None:
        payload["erasure"] = erasure
    if as_json:
        _echo_json(payload)
        _unverified(erasure, then="the same `aniso import --replace`")
        return
    blocks = ", ".join(f"{n} {tier}" for tier, n in report.blocks.items())
    click.echo(
        f"imported ({mode}) {report.episodes} episodes, {report.archived} archived, {blocks} "
        f"blocks, {report.profile_values} profile values from {file}"
        + (f"; the privacy guard redacted {report.redacted} texts" if report.redacted else "")
    )
    _unverified(erasure, then="the same `aniso import --replace`")


def _unverified(receipt: dict[str, Any] | None, *, then: str = "the same `aniso forget`") -> None:
    """An erasure whose scan found forgotten bytes fails the command, in one line."""
    if receipt is None or receipt.get("verified"):
        return
    from aniso.core.errors import StoreError

    found = receipt.get("residue", {})
    files = sorted({*found.get("files_holding_vectors", []), *found.get("files_holding_text", [])})
    pending = receipt.get("vectors", {}).get("pending")
    if files:
        where = f"{', '.join(files)} still hold"
    elif pending:
        where = f"{pending.split(';')[0]}, so it may still hold"
    else:
        where = "the vector index may still hold"
    raise StoreError(
        f"the erasure could not be verified: {where} forgotten data; "
        f"run `aniso reindex`, then {then} again"
    )


@click.command("forget")
@click.option("--block", "blocks", type=int, multiple=True, help="Forget this block (repeatable).")
@click.option("--search", "query", help="Forget what mentions this (preview; --yes to erase).")
@click.option("--before", help="Forget what was said before this date (ISO 8601).")
@click.option("--after", help="Forget what was said from this date on (ISO 8601).")
@click.option("--all", "everything", is_flag=True, help="Forget everything (needs --yes).")
@click.option(
    "--profile",
    "remove_profile",
    is_flag=True,
    help="Also remove profile values only the forgotten messages stated.",
)
@click.option("--yes", is_flag=True, help="Erase without asking.")
@click.option("--json", "as_json", is_flag=True, help="Print the preview or receipt as JSON.")
@click.pass_context
def forget_command(
    ctx: click.Context,
    blocks: tuple[int, ...],
    query: str | None,
    before: str | None,
    after: str | None,
    everything: bool,
    remove_profile: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Erase memories from every store (SQLite, FTS, vectors, archive, logs) for good."""
    from aniso.data import forget as f

    chosen = [bool(blocks), query is not None, bool(before or after), everything]
    if sum(chosen) != 1:
        raise InputError("say what to forget: one of --block, --search, --before/--after, --all")
    services = _root(ctx).services(catch_up=False)  # a preview changes nothing
    db = services.db
    if blocks:
        plan = f.plan_blocks(db, list(blocks))
    elif query is not None:
        plan = f.plan_search(db, query)
    elif everything:
        plan = f.plan_all(db)
    else:
        plan = f.plan_dates(
            db,
            f.parse_date(before, "--before") if before else None,
            f.parse_date(after, "--after") if after else None,
        )
    needs_yes = plan.mode in ("search", "all")
    interactive = sys.stdin.isatty() and not as_json
    if plan.selection.empty() and not plan.selection.profile:
        _done(as_json, {"preview": False, "nothing": True}, "nothing to forget")
        return
    if needs_yes and not yes:
        if not interactive:
            _preview(plan, as_json)
            return
        _preview(plan, False)
        click.confirm("Forget all of this for good?", abort=True)
    at_stake = f.profile_at_stake(db, plan)
    if at_stake and not remove_profile and interactive:
        fields = ", ".join(sorted({row["field"] for row in at_stake}))
        remove_profile = click.confirm(
            f"{len(at_stake)} profile values ({fields}) were learned only from these messages. "
            "Remove them too?",
            default=True,
        )
    receipt = f.forget(services, plan, remove_profile=remove_profile)
    if as_json:
        _echo_json(receipt)
    else:
        _print_receipt(receipt)
    _unverified(receipt)


def _done(as_json: bool, payload: dict[str, Any], text: str) -> None:
    if as_json:
        _echo_json(payload)
    else:
        click.echo(text)


def _preview(plan: Any, as_json: bool) -> None:
    if as_json:
        _echo_json(
            {"preview": True, "mode": plan.mode, "matches": [m.as_dict() for m in plan.matches]}
        )
        return
    click.echo(f"would forget ({plan.mode}):")
    for match in plan.matches[:50]:
        where = f"block {match.block_id} [{match.tier}]" if match.block_id else ""
        click.echo(f"  {match.kind} {match.id} {where} {match.at[:10]} {match.snippet}".rstrip())
    if len(plan.matches) > 50:
        click.echo(f"  … and {len(plan.matches) - 50} more")
    click.echo("run again with --yes to erase them")


def _print_receipt(receipt: dict[str, Any]) -> None:
    click.echo(
        f"forgot {receipt['episodes']} episodes and {receipt['archived']} archived ones; "
        f"removed {len(receipt['blocks_removed'])} blocks and {receipt['links']} links, "
        f"recomputed {len(receipt['blocks_recomputed'])} blocks; "
        f"profile values removed: {receipt['profile_removed']}"
    )
    if receipt["profile_kept"]:
        fields = ", ".join(sorted({row["field"] for row in receipt["profile_kept"]}))
        click.echo(
            f"kept {len(receipt['profile_kept'])} profile values learned only from them "
            f"({fields}); rerun with --profile to remove them"
        )
    vectors = receipt["vectors"]
    state = "verified" if vectors.get("verified") else vectors.get("pending", "not verified")
    click.echo(
        f"vectors: {vectors['deleted']} deleted, {state}"
        + (", index rebuilt" if vectors.get("rebuilt") else "")
    )
    logs = receipt["logs"]
    sqlite = receipt["sqlite"]
    click.echo(
        f"logs: {logs['lines_removed']} lines removed; database vacuumed, WAL "
        + ("truncated" if sqlite["wal_truncated"] else "busy (another process is reading)")
    )
    scan = receipt.get("residue")
    if scan and receipt.get("verified"):
        click.echo(
            f"verified: no forgotten vector or text in any of the {scan['files_scanned']} "
            "files under the data dir"
        )


@click.command("backup")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def backup_command(ctx: click.Context, path: Path | None, as_json: bool) -> None:
    """Copy the memory database to PATH (a file or folder), consistently, while Aniso runs.

    Default: a timestamped file beside the data dir. The copy is 0600 and holds the
    whole memory (already redacted); the vector index is derived and is rebuilt from
    it (`aniso reindex`).
    """
    from aniso.data.backup import EXCLUDED, backup, target_path
    from aniso.services import make_clock

    settings = _root(ctx).settings
    target = target_path(path, settings.data_dir, make_clock(settings)())
    bar = Bar("backing up", 1, quiet=as_json)
    try:
        report = backup(settings.db_path, target, progress=bar.update)
    finally:
        bar.stop()
    if as_json:
        _echo_json(report.as_dict())
        return
    click.echo(
        f"backed up {report.episodes} episodes to {report.path} ({report.bytes} bytes, "
        f"mode {report.mode}, integrity {report.integrity})"
    )
    click.echo(f"not included: the vector index, {EXCLUDED['vectors']}")
    click.echo(
        "to restore: stop Aniso, copy the file to aniso.db in the data dir (remove "
        "aniso.db-wal and aniso.db-shm there), then run `aniso doctor`"
    )
