"""`aniso memory ...` and `aniso reindex`: look at what the assistant remembers.

`memory recall` shows exactly what would be injected for a query, with provenance
and token counts; `memory list` lists blocks per tier. `--json` shapes are stable:
scripts and benchmarks rely on them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from aniso.tiers.model import TIERS, MemoryItem


def _root(ctx: click.Context) -> Any:
    return ctx.find_root().obj


def item_json(item: MemoryItem) -> dict[str, Any]:
    return {
        "block_id": item.block_id,
        "episode_id": item.episode_id,
        "tier": item.tier,
        "date": item.at.isoformat(),
        "form": item.form,
        "outdated": item.outdated,
        "tokens": item.tokens,
        "score": item.score,
        "text": item.text,
        # Added beside the older keys: an archived turn shown at its own rank, apart
        # from its block's gist.
        "alone": item.alone,
    }


@click.group()
def memory() -> None:
    """Inspect memory: what would be recalled, and what is kept in each tier."""


@memory.command("recall")
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="Print the items as JSON.")
@click.option("--limit", default=12, show_default=True, help="At most this many items.")
@click.pass_context
def recall_command(ctx: click.Context, query: str, as_json: bool, limit: int) -> None:
    """Show exactly what would be injected for QUERY, with provenance and tokens."""
    services = _root(ctx).services()
    controller = services.controller
    controller_limit = limit
    result = controller.memory.recall(
        query,
        now=services.clock(),
        limit=controller_limit,
        is_outdated=controller.profile.outdated_check() if controller.profile else None,
    )
    from aniso.prompt import fit_memories
    from aniso.tiers import gist

    injected = fit_memories(
        gist.present(services.db, query, result.items),
        budget_tokens=services.settings.prompt_budget_tokens,
        profile_text=controller.profile_text(),
    )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "query": query,
                    "budget_tokens": services.settings.prompt_budget_tokens,
                    "injected_tokens": sum(item.tokens for item in injected),
                    "items": [item_json(item) for item in injected],
                    "warnings": result.warnings,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if not injected:
        click.echo("nothing recalled")
        return
    for item in injected:
        flags = " OUTDATED" if item.outdated else ""
        form = "" if item.form == "full" else f" ({item.form})"
        click.echo(
            f"[{item.tier}{form}{flags}] block {item.block_id} · "
            f"{item.at.date().isoformat()} · {item.tokens} tok"
        )
        for line in item.text.splitlines():
            click.echo(f"    {line}")
    click.echo(
        f"total: {sum(i.tokens for i in injected)} tokens of "
        f"{services.settings.prompt_budget_tokens}"
    )


@memory.command("list")
@click.option("--tier", type=click.Choice(list(TIERS)), help="Only this tier.")
@click.option("--json", "as_json", is_flag=True, help="Print the blocks as JSON.")
@click.pass_context
def list_command(ctx: click.Context, tier: str | None, as_json: bool) -> None:
    """List memory blocks, newest first, with their tier, markers and size.

    A block brought back by a deep unpack says where from: `restored_from` is the
    original's id and `restored_from_tier` the tier it was unpacked from; the
    original keeps its tier, with status `restored`."""
    from aniso.tiers.blocks import listing

    rows = listing(_root(ctx).services().db, tier)
    blocks = [
        {
            "id": row["id"],
            "tier": row["tier"],
            "status": row["status"],
            "created": row["created"],
            "last_access": row["last_access"],
            "episodes": row["size"],
            "important": bool(row["important"]),
            "open": bool(row["open"]),
            "pinned": bool(row["pinned"]),
            "summary": row["summary"] or (row["first_text"] or "")[:120],
            "restored_from": row["restored_from"],
            "restored_from_tier": row["restored_from_tier"],
        }
        for row in rows
    ]
    if as_json:
        click.echo(json.dumps({"blocks": blocks}, ensure_ascii=False, indent=2))
        return
    if not blocks:
        click.echo("no memories yet")
        return
    for block in blocks:
        marks = "".join(
            m
            for m, on in (("!", block["important"]), ("?", block["open"]), ("📌", block["pinned"]))
            if on
        )
        click.echo(
            f"{block['id']:>5} {block['tier']:<4} {block['last_access'][:10]} "
            f"{block['episodes']:>3} ep {marks:<3} {block['summary'][:70]}"
        )


@click.command()
@click.pass_context
def reindex(ctx: click.Context) -> None:
    """Rebuild the derived indexes (FTS5 and the vector index) from SQLite."""
    from aniso.cli.progress import Bar
    from aniso.tiers.index.reindex import rebuild

    services = _root(ctx).services()
    bar = Bar("reindexing", 0)

    def start(total: int) -> Callable[[int], None]:
        bar.retotal(total)
        return bar.advance

    try:
        report = rebuild(services.db, services.controller.memory, progress=start)
    finally:
        bar.stop()
    click.echo(f"reindexed {report['episodes']} episodes and {report['blocks']} block forms")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Memory in numbers: tiers, profile, withheld data and the retrieval-miss rate."""
    from aniso.tiers.stats import memory_stats, render_stats

    services = _root(ctx).services()
    figures = memory_stats(services.db, now=services.clock())
    click.echo(json.dumps(figures, indent=2) if as_json else render_stats(figures))


@memory.command("threads")
@click.option("--json", "as_json", is_flag=True, help="Print the threads as JSON.")
@click.pass_context
def threads_command(ctx: click.Context, as_json: bool) -> None:
    """List open threads, most urgent first: urgency u, refresh interval and brief."""
    services = _root(ctx).services()
    shown = [thread.as_dict() for thread in services.refresher.listing()]
    if as_json:
        click.echo(json.dumps({"threads": shown}, ensure_ascii=False, indent=2))
        return
    if not shown:
        click.echo("no open threads")
        return
    for thread in shown:
        click.echo(
            f"u {thread['u']:.2f} · refresh every {thread['tau_hours']:.0f} h · "
            f"last {thread['last_refresh'][:16]} · {thread['label']}"
        )
        for line in thread["brief"].splitlines():
            click.echo(f"    {line}")


@memory.command("procedures")
@click.option("--json", "as_json", is_flag=True, help="Print the procedures as JSON.")
@click.option("--pin", "pin", type=int, metavar="ID", help="Pin a procedure: reused first.")
@click.option("--unpin", "unpin", type=int, metavar="ID", help="Unpin a procedure.")
@click.option("--forget", "forget_id", type=int, metavar="ID", help="Erase a procedure.")
@click.pass_context
def procedures_command(
    ctx: click.Context, as_json: bool, pin: int | None, unpin: int | None, forget_id: int | None
) -> None:
    """List reusable procedures (accepted answers) with their uses and weights."""
    from aniso.core.errors import InputError
    from aniso.tiers import procedures

    services = _root(ctx).services()
    db = services.db
    for chosen, action in ((pin, "pin"), (unpin, "unpin"), (forget_id, "forget")):
        if chosen is None:
            continue
        done = (
            procedures.forget(db, [chosen]) > 0
            if action == "forget"
            else procedures.set_pinned(db, chosen, action == "pin")
        )
        if not done:
            raise InputError(f"no procedure {chosen}: see `aniso memory procedures`")
    shown = [p.as_dict() for p in procedures.listing(db, now=services.clock())]
    if as_json:
        click.echo(json.dumps({"procedures": shown}, ensure_ascii=False, indent=2))
        return
    if not shown:
        click.echo("no procedures yet")
        return
    for p in shown:
        marks = " pinned" if p["pinned"] else (" REJECTED" if p["rejected"] else "")
        click.echo(
            f"{p['id']:>4} {p['kind']:<13} uses {p['uses']:>2} weight {p['weight']:.2f}{marks} "
            f"· {p['title'][:60]}"
        )
