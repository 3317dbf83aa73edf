"""Helpers for the TUI tests: an app over the scripted LLM, and polling instead of sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from textual.pilot import Pilot

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build
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


YOGA = [
    "My yoga studio is called Lotus Flow, it is on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays and Thursdays",
]


def seed_cold_yoga(clock: SimulatedClock, *, data_dir: Path | None = None) -> int:
    """A yoga block that went cold over 120 simulated nights, then a fresh hot mention."""
    overrides = {"model": "fake/x"} | ({"data_dir": str(data_dir)} if data_dir else {})
    services = build(load_settings(overrides), clock=clock)
    for text in YOGA:
        services.assistant.send(text)
    services.assistant.send("Unrelated: my car needs new winter tyres soon")
    compactor = services.compactor()
    for _ in range(120):
        clock.advance(timedelta(days=1))
        compactor.run(clock())
    (block,) = services.db.execute(
        "SELECT id FROM blocks WHERE tier = 'cold' AND summary LIKE '%Lotus Flow%'"
    ).fetchone()
    clock.advance(timedelta(hours=1))
    # Stored, not chatted: a chat turn here could already unpack the cold block.
    services.controller.memory.store(
        "I bought a purple yoga mat yesterday", at=clock(), session="earlier"
    )
    clock.advance(timedelta(hours=1))
    return int(block)
