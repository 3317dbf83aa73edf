"""SVG snapshots of the main screens (pytest-textual-snapshot).

Deterministic by construction: a simulated clock, a fixed terminal size, a data dir
under the (test) home folder so the status bar reads `~/aniso`, and no blinking
cursor or toasts at capture time. Update after an intended change with
`pytest tests/test_tui_snapshots.py --snapshot-update` and review the SVG diff.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from fakes import ScriptedLLM
from tui_helpers import SIZE, make_app, say, seed_cold_yoga, settle, wait_until

from aniso.clock import SimulatedClock
from aniso.tui.app import AnisoApp
from aniso.tui.chat import Composer
from aniso.tui.dialogs import ConfirmScreen, PromptScreen
from aniso.tui.profile_screen import ProfileScreen

REPLY = (
    "Your studio is **Lotus Flow** on Rua Augusta.\n\n| day | class |\n|---|---|\n| Tue | 7 am |"
)


def app_for_snapshot(clock: SimulatedClock) -> AnisoApp:
    return make_app(clock, data_dir=Path.home() / "aniso")


async def still(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    pilot.app.query_one(Composer).cursor_blink = False
    pilot.app.clear_notifications()
    await pilot.pause()


def test_chat_with_memory_panel(snap_compare, llm: ScriptedLLM, clock: SimulatedClock) -> None:  # type: ignore[no-untyped-def]
    seed_cold_yoga(clock, data_dir=Path.home() / "aniso")
    llm.reply(REPLY)

    async def chat(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "which yoga studio do I go to?")
        await still(pilot)

    assert snap_compare(app_for_snapshot(clock), terminal_size=SIZE, run_before=chat)


def test_profile_screen(snap_compare, llm: ScriptedLLM, clock: SimulatedClock) -> None:  # type: ignore[no-untyped-def]
    async def profile(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "Call me Sam. I love steak")
        clock.advance(timedelta(days=3))
        await say(pilot, "I became vegetarian")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ProfileScreen))
        await still(pilot)

    assert snap_compare(app_for_snapshot(clock), terminal_size=SIZE, run_before=profile)


def test_forget_preview(snap_compare, llm: ScriptedLLM, clock: SimulatedClock) -> None:  # type: ignore[no-untyped-def]
    async def forget(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "My neighbour Quentin plays the tuba at night")
        clock.advance(timedelta(days=2))
        await say(pilot, "Quentin's tuba lessons are on Fridays")
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen))
        await pilot.press(*"tuba", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await still(pilot)

    assert snap_compare(app_for_snapshot(clock), terminal_size=SIZE, run_before=forget)


def test_temporary_chat_after_a_model_failure(
    snap_compare, llm: ScriptedLLM, clock: SimulatedClock
) -> None:  # type: ignore[no-untyped-def]
    llm.reply(*[RuntimeError("connection refused")] * 3)

    async def failing(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("f4")
        await say(pilot, "is anyone there?")
        await still(pilot)

    assert snap_compare(app_for_snapshot(clock), terminal_size=SIZE, run_before=failing)
