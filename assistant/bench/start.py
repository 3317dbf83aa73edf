"""`aniso bench start`: how long people wait before Aniso answers, measured, never asserted.

Every figure comes from a real process, spawned the way a user starts one:
- `aniso --help`, spawn to exit;
- `aniso ask`, spawn to the first streamed token and to the end of the reply, with
  the first token split into its parts from the timings the process itself records
  when `ANISO_TIMINGS` names a file (`aniso.core.timings`);
- the TUI's first paint and first token, by the mechanism of `bench tui`
  (`aniso.bench.tui`), each run in a process of its own so that none starts warm.

The runs share one fresh data dir, as a user's runs share theirs: a later run finds
what an earlier one left (the stores, the prompt cache), as it would in real use.

A "hello" to an empty memory is the best case. The figure people meet comes after a
history: `ask` with history first tells `HISTORY` through `aniso ask` (so the
memory holds the model's own replies, as a user's does), then asks `QUESTION`, which
recalls from it, each run on a fresh copy of that data dir so every run sees the same
memory. Its prompt carries the profile and the recalled memories, and was measured
1.3 s slower to its first token than "hello".
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aniso.bench import tui as tui_bench
from aniso.bench.measure import child_python
from aniso.core.errors import AnisoError
from aniso.core.timings import ENV as TIMINGS_ENV

CLI = "from aniso.cli import main; main()"
"""Run with `-P`: the current directory is not put on the path, so a source checkout's
`profile/` folder cannot hide the standard library's `profile` (which spaCy imports)."""
MESSAGE = "hello"
HISTORY = (
    "Hi, I'm Marta. I work as a nurse in Porto, mostly night shifts.",
    "I'm vegetarian, and please keep your answers short.",
    "My sister Ana is getting married in June, about 60 guests.",
    "My budget for Ana's wedding gift is around 150 euros.",
    "We adopted a beagle last month, she's called Tofu.",
    "I'm training for a 10k in April, running three times a week.",
    "The car needs its inspection before March, remind me in February.",
    "I've started reading Ferrante's Neapolitan novels, loving them so far.",
)
"""Everyday things a user tells in a first week: a name, a diet, a format, family,
plans; eight messages, so eight replies of the model's own go into memory too."""
QUESTION = "What should I get Ana for her wedding, and what do you remember about my budget?"
PARTS = (
    "imports",
    "stores",
    "warm_up",
    "guard",
    "store",
    "profile",
    "recall",
    "model",
    "prompt",
    "other",
)
"""The parts of the time to the first token, in the order a turn meets them: imports
(the interpreter, the CLI and the app's modules, litellm if a remote model needs it),
stores (opening the data dir), warm_up (waiting for what `aniso.warmup` loads in
the background: the model, the guard's engine, the profile's indexes), guard (the
privacy scan), store (writing the message), profile (learning from it), recall, model
(loading the embedded model), prompt (evaluating the prompt up to the first token),
and other (what falls between)."""
TUI_FIRST_TOKEN = (
    "import json; from aniso.bench.tui import first_token;"
    "from aniso.core.settings import load_settings;"
    "print(json.dumps(first_token(load_settings({}))))"
)


def summary(values: list[float]) -> dict[str, float]:
    """min, median and max of `values` in seconds, rounded; empty for no values."""
    if not values:
        return {}
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


def _run(args: list[str], env: dict[str, str], *, timeout: float = 600.0) -> float:
    """Seconds from spawn to exit of `python -c <cli> args`; AnisoError if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        [*child_python(), "-c", CLI, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise AnisoError(f"`aniso {' '.join(args)}` failed in the bench: {last}")
    return time.perf_counter() - start


def help_times(runs: int, env: dict[str, str]) -> list[float]:
    """Seconds for `aniso --help`, per run."""
    return [_run(["--help"], env) for _ in range(runs)]


def ask_once(env: dict[str, str], work: Path, message: str = MESSAGE) -> dict[str, float]:
    """One `aniso ask`: seconds from spawn to first token and to the reply's end, and
    the first token's parts."""
    timings_file = work / "timings.json"
    timings_file.unlink(missing_ok=True)
    spawned = time.time()
    _run(["ask", message], {**env, TIMINGS_ENV: str(timings_file)})
    try:
        recorded = json.loads(timings_file.read_text("utf-8"))
    except (OSError, ValueError):
        raise AnisoError("`aniso ask` wrote no timings; is this aniso installed?") from None
    return split(recorded, spawned=spawned)


def split(recorded: dict[str, Any], *, spawned: float) -> dict[str, float]:
    """The first token's parts from a process's recorded spans and marks.

    Spans that end after the first token (a second model call) are not part of it.
    `prompt` runs from the model being loaded (or the recall, for a remote model) to
    the first token; `other` is what no part names, so the parts add up to the whole.
    """
    marks = recorded.get("marks", {})
    if "first_token" not in marks:
        raise AnisoError("`aniso ask` streamed no token; see `aniso ask hello` for the cause")
    first = marks["first_token"]
    parts = dict.fromkeys(PARTS, 0.0)
    parts["imports"] = marks.get("cli", spawned) - spawned
    last_end = spawned
    for span in recorded.get("spans", []):
        if span["end"] > first:
            continue
        name = span["name"] if span["name"] in parts else "other"
        parts[name] += span["end"] - span["start"]
        if name in {"recall", "model"}:
            last_end = max(last_end, span["end"])
    parts["prompt"] = first - last_end if last_end > spawned else 0.0
    total = first - spawned
    parts["other"] = max(0.0, total - sum(v for k, v in parts.items() if k != "other"))
    return {
        "first_token_s": total,
        "reply_end_s": marks.get("reply_end", first) - spawned,
        **{f"{name}_s": value for name, value in parts.items()},
    }


def tui_first_token(env: dict[str, str]) -> dict[str, float]:
    """`bench tui`'s first token (model warm-up, then a message) in a fresh process."""
    done = subprocess.run(
        [*child_python(), "-c", TUI_FIRST_TOKEN],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise AnisoError(f"the TUI's first token could not be measured: {last}")
    return json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])


def run(
    settings: Any, *, runs: int, progress: Callable[[str, int, int], None] | None = None
) -> dict[str, Any]:
    """Every start-up figure over `runs` runs, as min, median and max."""
    work = Path(tempfile.mkdtemp(prefix="aniso-bench-start-"))
    try:
        return _measure(settings, runs, work, progress or (lambda _label, _done, _total: None))
    finally:
        shutil.rmtree(work, ignore_errors=True)  # what the runs said, and their memory


def _measure(
    settings: Any, runs: int, work: Path, note: Callable[[str, int, int], None]
) -> dict[str, Any]:
    env = {**os.environ, "ANISO_DATA_DIR": str(work / "data"), "ANISO_MODEL": settings.model}
    env.pop(TIMINGS_ENV, None)
    steps = 5 * runs + len(HISTORY)
    note("aniso --help", 0, steps)
    helps = help_times(runs, env)
    asks = []
    for index in range(runs):
        note("aniso ask", runs + index, steps)
        asks.append(ask_once(env, work))
    note("TUI first paint", 2 * runs, steps)
    paints = tui_bench.first_paint(runs=runs)
    tokens = []
    for index in range(runs):
        note("TUI first token", 3 * runs + index, steps)
        tui_env = {**env, "ANISO_DATA_DIR": str(work / f"tui-{index}")}
        tokens.append(tui_first_token(tui_env))
    told = work / "told"
    for index, message in enumerate(HISTORY):
        note("telling a history", 4 * runs + index, steps)
        _run(["ask", message], {**env, "ANISO_DATA_DIR": str(told)})
    recalling = []
    for index in range(runs):
        note("ask with history", 4 * runs + len(HISTORY) + index, steps)
        copy = work / "told-copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(told, copy)
        recalling.append(ask_once({**env, "ANISO_DATA_DIR": str(copy)}, work, QUESTION))
    note("done", steps, steps)
    return {
        "model": settings.model,
        "runs": runs,
        "load_average": round(os.getloadavg()[0], 1),
        "help_s": summary(helps),
        "ask": _spreads(asks),
        "ask_with_history": _spreads(recalling),
        "history_messages": len(HISTORY),
        "tui": {
            "first_paint_s": summary(paints),
            "warm_up_s": summary([t["warm_up_s"] for t in tokens]),
            "first_token_s": summary([t["first_token_s"] for t in tokens]),
        },
    }


def _spreads(asks: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each of an `ask`'s figures as min, median and max over its runs."""
    keys = ["first_token_s", "reply_end_s", *(f"{name}_s" for name in PARTS)]
    return {key: summary([figures[key] for figures in asks]) for key in keys}


def render(figures: dict[str, Any]) -> str:
    """The figures as lines of min / median / max."""

    def row(label: str, values: dict[str, float]) -> str:
        if not values:
            return f"{label:<36} not measured"
        return f"{label:<36} {values['min']:>7.2f} {values['median']:>7.2f} {values['max']:>7.2f}"

    ask = figures["ask"]
    told_ask = figures.get("ask_with_history", {})
    told = figures.get("history_messages", 0)
    lines = [
        f"model: {figures['model']}, {figures['runs']} runs "
        f"(load average {figures['load_average']})",
        f"{'seconds':<36} {'min':>7} {'median':>7} {'max':>7}",
        row("aniso --help", figures["help_s"]),
        row("ask: first token", ask["first_token_s"]),
        *(row(f"  {name}", ask[f"{name}_s"]) for name in PARTS),
        row("ask: end of reply", ask["reply_end_s"]),
        row(f"ask after {told} messages: first token", told_ask.get("first_token_s", {})),
        row("  prompt", told_ask.get("prompt_s", {})),
        row(f"ask after {told} messages: end of reply", told_ask.get("reply_end_s", {})),
        row("TUI: first paint", figures["tui"]["first_paint_s"]),
        row("TUI: model warm-up", figures["tui"]["warm_up_s"]),
        row("TUI: first token (warm)", figures["tui"]["first_token_s"]),
    ]
    return "\n".join(lines)
