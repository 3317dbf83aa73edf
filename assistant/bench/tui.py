"""`aniso bench tui`: the TUI's figures on this machine, measured, never asserted.

- first paint: a real `aniso` process on a pseudo-terminal, from spawn until the
  first full frame (the footer) is on the terminal;
- first token: the model warmed up as the app does after its first paint, then the
  time from sending a message to its first streamed piece (and the cold figure,
  warm-up included);
- input latency while generating: keys pressed into the composer while the model
  streams a reply, each timed until the app has processed it;
- RSS after an N-message chat through the app (headless), and its peak.
"""

from __future__ import annotations

import asyncio
import os
import select
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from aniso.bench.measure import child_python, peak_rss_mb, rss_mb, spread

PROMPTS = (
    "Remind me to water the basil on the balcony.",
    "I started learning the cello last month.",
    "What should I cook tonight? I have lentils and rice.",
    "My sister Ana visits on Saturday.",
    "Suggest a short stretching routine.",
)


def first_paint(*, runs: int = 3, limit_s: float = 60.0) -> list[float]:
    """Seconds from spawning bare `aniso` on a pty to the first full frame, per run."""
    import pty

    times: list[float] = []
    for _ in range(runs):
        data_dir = tempfile.mkdtemp(prefix="aniso-bench-tui-")
        try:
            leader, follower = pty.openpty()
            env = {**os.environ, "TERM": "xterm-256color", "ANISO_DATA_DIR": data_dir}
            start = time.perf_counter()
            process = subprocess.Popen(
                [*child_python(), "-c", "from aniso.cli import main; main()"],
                stdin=follower,
                stdout=follower,
                stderr=follower,
                env=env,
                close_fds=True,
            )
            os.close(follower)
            seen = b""
            while b"palette" not in seen and time.perf_counter() - start < limit_s:
                ready, _, _ = select.select([leader], [], [], 0.05)
                if ready:
                    try:
                        seen += os.read(leader, 65536)
                    except OSError:
                        break
            if b"palette" in seen:
                times.append(time.perf_counter() - start)
            os.write(leader, b"\x11")  # Ctrl+Q
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            os.close(leader)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)  # a run's own memory, not the user's
    return times


def first_token(settings: Any) -> dict[str, float]:
    """Warm-up (as after the first paint) and time to the first streamed piece."""
    from aniso.tui.backend import Backend

    backend = Backend(settings)
    start = time.perf_counter()
    backend.warm_up()
    warm = time.perf_counter() - start
    first: list[float] = []
    sent = time.perf_counter()

    def on_token(piece: str) -> None:
        if not first:
            first.append(time.perf_counter() - sent)

    backend.send("Hello! What can you do for me?", on_token=on_token)
    return {"warm_up_s": warm, "first_token_s": first[0] if first else float("nan")}


def chat_run(settings: Any, *, messages: int, progress: Callable[[int], None] | None) -> dict:
    """An N-message chat through the app, headless; key latency sampled while generating."""
    from aniso.tui.app import AnisoApp
    from aniso.tui.backend import Backend
    from aniso.tui.chat import Composer

    app = AnisoApp(Backend(settings))
    latencies: list[float] = []

    async def drive() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await _idle(pilot)
            for index in range(messages):
                composer = app.query_one(Composer)
                composer.load_text(PROMPTS[index % len(PROMPTS)])
                await pilot.press("enter")
                await pilot.pause()
                while app.generating:
                    if index % 10 == 0:  # sample key latency during some replies
                        began = time.perf_counter()
                        await pilot.press("x")
                        latencies.append(time.perf_counter() - began)
                    await asyncio.sleep(0.05)
                composer.load_text("")
                await _idle(pilot)
                if progress is not None:
                    progress(index + 1)

    asyncio.run(drive())
    return {
        "messages": messages,
        "rss_mb": rss_mb(),
        "peak_rss_mb": peak_rss_mb(),
        "key_latency_ms": _percentiles([x * 1000 for x in latencies]),
    }


async def _idle(pilot: Any) -> None:
    app = pilot.app
    while any(worker.is_running for worker in app.workers):
        await asyncio.sleep(0.05)
    await pilot.pause()


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), **spread(values, digits=1)}


def render(figures: dict[str, Any]) -> str:
    paint = figures["first_paint_s"]
    token = figures["first_token"]
    chat = figures["chat"]
    keys = chat["key_latency_ms"]
    lines = [
        f"model: {figures['model']}  (load average {figures['load_average']})",
        "first paint: "
        + (", ".join(f"{t:.2f} s" for t in paint) if paint else "not seen")
        + (f"  (median {statistics.median(paint):.2f} s)" if paint else ""),
        f"model warm-up after first paint: {token['warm_up_s']:.2f} s",
        f"first streamed token (warm): {token['first_token_s']:.2f} s",
        f"chat of {chat['messages']} messages: RSS {chat['rss_mb']:.0f} MB "
        f"(peak {chat['peak_rss_mb']:.0f} MB)",
    ]
    if keys.get("n"):
        lines.append(
            f"key latency while generating: p50 {keys['p50']} ms, p95 {keys['p95']} ms, "
            f"max {keys['max']} ms (n={keys['n']})"
        )
    return "\n".join(lines)
