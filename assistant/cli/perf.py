"""`aniso bench ...`: measured figures, never timed assertions.

- `bench locomo PATH...`: LoCoMo replay with a simulated clock (evidence recall per
  category, recall within context budgets, context tokens, recall latency).
- `bench guard`: per-message latency of the privacy guard on the labelled PII set.
- `bench scale`: write cost, observe + recall latency and query plans at 1k to 100k.
- `bench compact`: compaction time, and tokens and bytes per tier, after two years.
- `bench tui`: the terminal UI's first paint, first token, key latency and RSS.
- `bench start`: `--help`, `ask` to its first token (in parts) and the TUI's first paint.
- `bench soak`: a simulated year of chat; latency, RSS and storage growth, first vs last.
- `bench procedures`: tokens and time of a repeated request, first vs third; wrong reuse.

Progress shows on a TTY; `--json` and pipes stay quiet.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from aniso.cli.progress import Bar

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    """Values as one line of bars between their own min and max, then the range and the
    change from first to last: the shape of a series (flat, levelling off, climbing)
    at a glance in a terminal; the percentage says how much the shape means."""
    if not values:
        return "(none)"
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    bars = "".join(_BARS[round((v - low) / span * (len(_BARS) - 1))] for v in values)
    change = f", {(values[-1] / values[0] - 1) * 100:+.1f}%" if values[0] else ""
    return f"{bars}  {values[0]:g} → {values[-1]:g} (min {low:g}, max {high:g}{change})"


def _root(ctx: click.Context) -> Any:
    return ctx.find_root().obj


@click.group()
def bench() -> None:
    """Benchmarks that report figures: LoCoMo retrieval, guard latency, scale, compaction."""


@bench.command("locomo")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--work-dir", type=click.Path(file_okay=False), help="Keep the replayed memory.")
@click.option(
    "--tiers",
    "with_tiers",
    is_flag=True,
    help="Run the nightly compactor between sessions and unpack on recall (default: hot only).",
)
@click.option(
    "--why",
    is_flag=True,
    help="With --tiers: replay hot-only too, in the same run, and list each evidence turn "
    "tiers lost with the tier and form it lived in.",
)
@click.pass_context
def locomo_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    as_json: bool,
    work_dir: str | None,
    with_tiers: bool,
    why: bool,
) -> None:
    """Replay LoCoMo conversations and report evidence recall per category."""
    from aniso.bench import locomo

    settings = _root(ctx).settings
    target = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="aniso-locomo-"))
    bar = Bar("replaying LoCoMo", len(paths), quiet=as_json)
    try:
        result = locomo.run(
            [Path(p) for p in paths],
            work_dir=target,
            settings=settings,
            progress=bar.step if bar.shown else None,
            tiers=with_tiers,
            why=why,
        )
    finally:
        bar.stop()
        if not work_dir:  # 17-25 MB a conversation; `--work-dir` is how to keep them
            shutil.rmtree(target, ignore_errors=True)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    overall = result["overall"]
    click.echo(
        f"LoCoMo replay ({result['mode']}): {result['turns']} turns, "
        f"{result['questions']} questions (category 5 excluded)"
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
    _locomo_by_conversation(result)
    for name, row in result["conversations"].items():
        if "tiers" in row:
            tiers = row["tiers"]
            counts = ", ".join(f"{n} {t}" for t, n in tiers["blocks_before_questions"].items())
            click.echo(
                f"{name}: {tiers['compactor_runs']} nightly runs; before the questions "
                f"{counts} blocks; {tiers['restored']} restored while answering"
            )


def _locomo_by_conversation(result: dict[str, Any]) -> None:
    """R@10 and R@1k tok by conversation and category: a figure that holds on one
    conversation only is a figure fitted to it."""
    names = result.get("category_names", {})
    rows = {"all": result["overall"], **result["conversations"]}
    categories = [c for c in result["overall"]["categories"] if c != "all"]
    header = ["R@10 / R@1k", "all", *(names.get(c, c) for c in categories)]
    click.echo("  ".join(f"{h:>13}" for h in header))
    for name, row in rows.items():
        cells = [name]
        for category in ["all", *categories]:
            figures = row["categories"].get(category)
            cells.append(
                f"{figures['recall@10']:.3f}/{figures['recall@1000tok']:.3f}" if figures else "-"
            )
        click.echo("  ".join(f"{c:>13}" for c in cells))
    why = result.get("why")
    if why:
        hot = why["hot_only"]["overall"]
        click.echo(
            f"hot-only in the same run: R@10 {hot['categories']['all']['recall@10']:.3f}, "
            f"R@1k tok {hot['categories']['all']['recall@1000tok']:.3f}, "
            f"p95 {hot['latency_ms']['p95']} ms; tiered p95 / hot p95 = {why['p95_ratio']}"
        )
        for measure, forms in why["lost_by_form"].items():
            listed = ", ".join(f"{form} {n}" for form, n in forms.items())
            click.echo(f"lost under tiers ({measure}), by form: {listed}")
        for measure, outcomes in why["lost_by_outcome"].items():
            listed = ", ".join(f"{outcome} {n}" for outcome, n in outcomes.items())
            click.echo(f"lost under tiers ({measure}), by outcome: {listed}")


@bench.command("guard")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--repeats", default=3, show_default=True, help="Passes over the data set.")
def guard_command(as_json: bool, repeats: int) -> None:
    """Privacy guard latency per message (p50/p95/max) and recall/precision per type,
    on the labelled PII set (EN, RU, UK, with hard negatives)."""
    from aniso.bench.evaluate import evaluate, format_report
    from aniso.bench.guard import measure_guard_latency

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
    """The labelled PII set that ships with the privacy package."""
    from aniso.bench.evaluate import packaged_dataset

    return packaged_dataset()


def _sizes(_ctx: click.Context, _param: click.Parameter, value: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in value.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of counts") from None
    if not sizes or min(sizes) < 1:
        raise click.BadParameter("every size must be a positive count of episodes")
    return sizes


@contextlib.contextmanager
def _phases(as_json: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A phase bar on a TTY (None under --json or a pipe), stopped however the bench ends."""
    bar = Bar("starting", 1, quiet=as_json)
    try:
        yield bar.phase if bar.shown else None
    finally:
        bar.stop()


@bench.command("scale")
@click.option(
    "--episodes",
    "sizes",
    default="1000,10000,100000",
    show_default=True,
    callback=_sizes,
    help="Memory sizes to measure, comma-separated.",
)
@click.option("--queries", default=200, show_default=True, help="Messages to observe + recall.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def scale_command(sizes: list[int], queries: int, as_json: bool) -> None:
    """Write cost, observe + recall latency and query plans as memory grows (1k to 100k
    synthetic episodes over two years, each size in a fresh temporary data dir)."""
    from aniso.bench.scale import run

    with _phases(as_json) as bar:
        result = run(sizes, queries=max(1, queries), progress=bar)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo("episodes    blocks  write mean/p95 ms  observe p50/p95 ms  recall p50/p95 ms")
    for row in result["sizes"]:
        w, o, r = row["write_ms"], row["observe_ms"], row["recall_ms"]
        click.echo(
            f"{row['episodes']:>8,}  {row['blocks']:>8,}  {w['mean']:>8.1f} / {w['p95']:<7.1f}"
            f"  {o['p50']:>8.1f} / {o['p95']:<8.1f}  {r['p50']:>7.1f} / {r['p95']:.1f}"
        )
    for row in result["sizes"]:
        cpu = row["phases_ms"]["cpu"]
        click.echo(
            f"{row['episodes']:>8,}  CPU ms per phase, mean: "
            + ", ".join(f"{phase} {cpu[phase]['mean']:.1f}" for phase in cpu)
            + f"; after the reply: {row['write_behind_ms']['mean']:.1f} wall"
        )
    ratio = result["write_cost_ratio"]
    click.echo(
        f"write cost at {ratio['to_episodes']:,} / at {ratio['from_episodes']:,}: "
        f"mean x{ratio['mean']}, p95 x{ratio['p95']}"
    )
    plans = result["plans"]
    for path in ("store", "recall"):
        flagged = plans["flagged"][path]
        click.echo(
            f"{path}: {len(plans[path])} distinct statements, "
            f"{len(flagged)} scan a big table" + (":" if flagged else "")
        )
        for entry in flagged:
            click.echo(f"  {entry['sql'][:90]}  ({entry['note']})")


@bench.command("compact")
@click.option("--episodes", default=100_000, show_default=True, help="Synthetic episodes.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def compact_command(episodes: int, as_json: bool) -> None:
    """Compaction time, and blocks, searchable tokens and bytes per tier, after two
    years of synthetic episodes (in a fresh temporary data dir)."""
    from aniso.bench.compact import run

    if episodes < 1:
        raise click.BadParameter("must be a positive count", param_hint="--episodes")
    with _phases(as_json) as bar:
        result = run(episodes, progress=bar)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(
        f"{result['episodes']:,} episodes: compaction {result['compaction_s']} s "
        f"(vector index {result['vector_index_s']} s)"
    )
    click.echo("tier   blocks  searchable tok  hot-form tok  ratio  w/o replies      bytes")
    for tier, row in result["tiers"].items():
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.3f}"
        strict = "-" if row["ratio_to_user_text"] is None else f"{row['ratio_to_user_text']:.3f}"
        click.echo(
            f"{tier:<5} {row['blocks']:>7,}  {row['searchable_tokens']:>14,}  "
            f"{row['hot_form_tokens']:>12,}  {ratio:>5}  {strict:>11}  {row['bytes']['total']:>9,}"
        )
    click.echo(f"Chroma folder: {result['chroma_bytes']:,} bytes")


@bench.command("data")
@click.option("--episodes", default=10_000, show_default=True, help="Synthetic episodes.")
@click.option("--vectors", is_flag=True, help="Also time re-embedding after the import.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def data_command(episodes: int, vectors: bool, as_json: bool) -> None:
    """Export (JSON, Markdown) and import time, size and peak RSS (each in its own
    process) for a compacted synthetic memory."""
    from aniso.bench.data import run

    if episodes < 1:
        raise click.BadParameter("must be a positive count", param_hint="--episodes")
    with _phases(as_json) as bar:
        result = run(episodes, vectors=vectors, progress=bar)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(
        f"{result['episodes']:,} episodes ({result['archived']:,} archived): export JSON "
        f"{result['export_json_s']} s ({result['export_json_cpu_s']} s CPU), "
        f"{result['export_json_bytes']:,} bytes, peak RSS "
        f"{result['export_peak_rss_mb']} MB ({result['export_process_s']} s as a process); "
        f"Markdown {result['export_md_s']} s, {result['export_md_bytes']:,} bytes"
    )
    click.echo(
        f"import: validate {result['import_validate_s']} s, write {result['import_write_s']} s "
        f"({result['import_cpu_s']} s CPU)"
        + (f", vectors {result['import_vectors_s']} s" if "import_vectors_s" in result else "")
        + f", peak RSS {result['import_peak_rss_mb']} MB ({result['import_process_s']} s as a "
        f"process); round trip identical: {result['round_trip_identical']}"
    )


@bench.command("tui")
@click.option("--messages", default=50, show_default=True, help="Length of the chat for RSS.")
@click.option("--runs", default=3, show_default=True, help="First-paint runs.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def tui_command(ctx: click.Context, messages: int, runs: int, as_json: bool) -> None:
    """The TUI on this machine: first paint, first token, key latency, RSS after a chat."""
    import os

    from aniso.bench import tui as tui_bench

    scratch = Path(tempfile.mkdtemp(prefix="aniso-bench-tui-"))
    settings = _root(ctx).settings.model_copy(update={"data_dir": scratch})
    try:
        with _phases(as_json) as phases:
            figures = {
                "model": settings.model,
                "load_average": round(os.getloadavg()[0], 1),
                "first_paint_s": tui_bench.first_paint(runs=runs),
                "first_token": tui_bench.first_token(settings),
                "chat": tui_bench.chat_run(
                    settings,
                    messages=messages,
                    progress=(lambda done: phases("chat", done, messages)) if phases else None,
                ),
            }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # the bench's own chat, not the user's
    click.echo(json.dumps(figures, indent=2) if as_json else tui_bench.render(figures))


@bench.command("start")
@click.option("--runs", default=5, show_default=True, help="Runs of each measurement.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def start_command(ctx: click.Context, runs: int, as_json: bool) -> None:
    """Start-up on this machine: `aniso --help`, `aniso ask` to its first token (in
    parts) and to the reply's end, the TUI's first paint and first token (min, median,
    max over fresh processes sharing one temporary data dir)."""
    from aniso.bench import start

    if runs < 1:
        raise click.BadParameter("must be at least 1", param_hint="--runs")
    with _phases(as_json) as phases:
        figures = start.run(_root(ctx).settings, runs=runs, progress=phases)
    click.echo(json.dumps(figures, indent=2) if as_json else start.render(figures))


@bench.command("soak")
@click.option("--messages", default=20_000, show_default=True, help="Messages over the year.")
@click.option("--work-dir", type=click.Path(file_okay=False), help="Keep the memory here.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def soak_command(ctx: click.Context, messages: int, work_dir: str | None, as_json: bool) -> None:
    """A simulated year of chat with a canned model reply and nightly compactions:
    latency and RSS of the first vs the last thousand messages, storage growth, and
    that every message is stored exactly once (in a fresh temporary data dir)."""
    from aniso.bench.soak import run

    if messages < 2:
        raise click.BadParameter("must be at least 2", param_hint="--messages")
    target = Path(work_dir) if work_dir else None
    with _phases(as_json) as bar:
        result = run(messages, settings=_root(ctx).settings, work_dir=target, progress=bar)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    lat, rss, storage = result["latency"], result["rss"], result["storage"]
    click.echo(
        f"{result['messages']:,} messages over {result['simulated_days']} simulated days, "
        f"{result['nights_compacted']} nightly compactions, {result['errors']} failed turns"
    )
    for name in ("wall", "cpu"):
        first, last = lat[f"first_{name}_ms"], lat[f"last_{name}_ms"]
        click.echo(
            f"{name} ms per message, first {lat['window']:,}: p50 {first['p50']} p95 "
            f"{first['p95']}; last {lat['window']:,}: p50 {last['p50']} p95 {last['p95']}"
        )
    if "unpacking_turns" in lat:
        first, last = lat["first_cpu_ms_without_unpacking"], lat["last_cpu_ms_without_unpacking"]
        turns = lat["unpacking_turns"]
        click.echo(
            f"cpu ms per message that restored nothing: first p50 {first['p50']} p95 "
            f"{first['p95']}; last p50 {last['p50']} p95 {last['p95']} "
            f"(turns that restored old memories: {turns['first']} first, {turns['last']} last)"
        )
    click.echo(
        f"restores: {result['restores']:,} ({result['restores_per_1000_messages']} per 1,000 "
        "messages)"
    )
    click.echo(f"RSS: {rss['start_mb']} MB at the start, {rss['end_mb']} MB at the end")
    click.echo(f"{'RSS by tenth (MB):':<34}{sparkline(rss['samples_mb'])}")
    if "cpu_p50_ms_by_tenth_without_unpacking" in lat:
        tenths = lat["cpu_p50_ms_by_tenth_without_unpacking"]
        click.echo(f"{'cpu p50 by tenth, no unpack (ms):':<34}{sparkline(tenths)}")
    grow = storage["growth"]
    click.echo(
        f"database {storage['db_bytes']:,} bytes for {storage['text_bytes']:,} bytes of text; "
        f"bytes per text byte {grow['first_half_bytes_per_text_byte']} (first half), "
        f"{grow['second_half_bytes_per_text_byte']} (second half), ratio {grow['ratio']}"
    )
    if "settled_ratio" in grow:
        click.echo(
            f"from message {grow['settled_after_messages']:,} (the first ones are cold by then): "
            f"{grow['settled_first_half_bytes_per_text_byte']} then "
            f"{grow['settled_second_half_bytes_per_text_byte']}, ratio {grow['settled_ratio']}"
        )
    click.echo(
        f"stored exactly once: {result['stored_once']:,} of {result['messages']:,}; "
        f"doctor: {'ok' if not result['doctor_problems'] else result['doctor_problems']}"
    )


def _statements(path: str | None) -> Path:
    """The labelled profile statements: `--data`, else the set beside the tests."""
    if path:
        return Path(path)
    here = Path(__file__).resolve().parents[2] / "tests" / "data" / "profile_statements.jsonl"
    if not here.is_file():
        from aniso.core.errors import InputError

        raise InputError("no labelled set here; pass --data FILE (JSONL, see README)")
    return here


@bench.command("procedures")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
def procedures_command(ctx: click.Context, as_json: bool) -> None:
    """Model tokens and time of a repeated request (a weekly meal plan), first against
    third time, with the model writing the reused plan and from its steps alone; that the
    plan follows a diet change; and how often a rejected answer is reused (must be 0)."""
    from aniso.bench.procedures import render, run

    with _phases(as_json) as bar:
        result = run(_root(ctx).settings, progress=bar)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else render(result))


@bench.command("profile")
@click.option(
    "--data",
    "data_path",
    type=click.Path(dir_okay=False, exists=True),
    help="A labelled set (JSONL); default: tests/data/profile_statements.jsonl.",
)
@click.option(
    "--split",
    type=click.Choice(["test", "train", "all"]),
    default="test",
    show_default=True,
    help="Which part of the set to score.",
)
@click.option("--misses", default=0, show_default=True, help="List this many misses.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def profile_command(data_path: str | None, split: str, misses: int, as_json: bool) -> None:
    """Profile learning on labelled EN/RU/UK messages: recall and precision of stated
    facts, wrong values kept out and the distractor false-update rate, by language,
    field and kind, with the extraction time per message."""
    from aniso.bench.profile import run
    from aniso.core.errors import InputError

    try:
        report = run(_statements(data_path), split=split)
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"cannot use the labelled set: {error}") from None
    figures = {"split": split, **report.as_dict(misses=misses)}
    if as_json:
        click.echo(json.dumps(figures, indent=2, ensure_ascii=False))
        return
    click.echo(_profile_text(figures))


def _profile_text(figures: dict[str, Any]) -> str:
    def cell(value: float | None) -> str:
        return "   -" if value is None else f"{value:.2f}"

    def row(name: str, tally: dict[str, Any]) -> str:
        return (
            f"{name:<12} {cell(tally['recall']):>7} {cell(tally['precision']):>9} "
            f"{cell(tally['kept_out']):>8} {cell(tally['false_update_rate']):>13} "
            f"{tally['stated']:>6} {tally['distractors']:>11}"
        )

    lines = [
        f"{figures['messages']} messages ({figures['split']} part)",
        f"{'':<12} {'recall':>7} {'precision':>9} {'kept out':>8} {'false updates':>13} "
        f"{'stated':>6} {'distractors':>11}",
        row("all", figures),
    ]
    for group in ("by_lang", "by_kind", "by_field"):
        lines.append("")
        lines += [row(name, tally) for name, tally in figures[group].items()]
    timing, slowest = figures["extract_ms"], figures["slowest"]
    lines.append("")
    lines.append(
        f"extraction ms per message: p50 {timing['p50']} p95 {timing['p95']} max {timing['max']}"
    )
    lines.append(f"slowest: {slowest['ms']} ms: {slowest['text'][:100]!r}")
    for miss in figures["misses"]:
        lines.append(
            f"- {miss['what']}: {miss['field']} {miss['label']!r} in {miss['thread']}#"
            f"{miss['turn']} {miss['text'][:120]!r} -> {miss['profile']}"
        )
    return "\n".join(lines)
