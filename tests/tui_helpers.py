"""Helpers for the TUI tests: an app over the scripted LLM, and polling instead of sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from aniso.clock import SimulatedClock
from aniso.settings import load_settings
from aniso.tui.app import AnisoApp
from aniso.tui.backend import Backend
from aniso.tui.chat import ChatMessage

SIZE = (120, 36)


def make_app(clock: SimulatedClock, *, data_dir: Path | None = None, **kwargs: object) -> AnisoApp:
    overrides: dict[str, object] = {"model": "fake/x"}
    if data_dir is not None:
        overrides["data_dir"] = str(data_dir)
    backend = Backend(load_settings(overrides), clock=clock, **kwargs)  # type: ignore[arg-type]
    return AnisoApp(backend)


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], *, rounds: int = 400) -> None:
    """Poll the app until `predicate` holds (workers run in threads); fail if it never does."""
    for _ in range(rounds):
        await pilot.pause()
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"condition never held: {predicate}")


async def settle(pilot: Pilot) -> None:
    """Wait for every worker to finish and the screen to catch up."""
    app = pilot.app
    await wait_until(pilot, lambda: not any(w.is_running for w in app.workers))
    await app.workers.wait_for_complete()
    await pilot.pause()


async def say(pilot: Pilot, text: str) -> None:
    """Type a message in the composer, send it, and wait for the turn to finish."""
    app = pilot.app
    before = len(app.query(ChatMessage))
    await settle(pilot)
    app.query_one("#composer").focus()
    await pilot.press(*text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(app.query(ChatMessage)) >= before + 2)
    await settle(pilot)


def transcript(app: AnisoApp) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in app.query(ChatMessage)]
