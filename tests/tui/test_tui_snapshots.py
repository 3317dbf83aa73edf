"""SVG snapshots of the main screens, compared with committed files (svg_snapshots).

Deterministic by construction: a simulated clock, a fixed terminal size, a data dir
under the (test) home folder so the status bar reads `~/aniso`, and no blinking
cursor or toasts at capture time. Update after an intended change with
`ANISO_SNAPSHOT_UPDATE=1 pytest tests/test_tui_snapshots.py` and review the SVG diff.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from svg_snapshots import check, screen_svg
from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from tui_helpers import SIZE, make_app, say, seed_cold_yoga, settle, wait_until

from aniso.core.clock import SimulatedClock
from aniso.tui.app import AnisoApp
from aniso.tui.chat import Composer
from aniso.tui.dialogs import ConfirmScreen, PromptScreen
from aniso.tui.profile_screen import ProfileScreen

pytestmark = pytest.mark.anyio
REPLY = (
    "Your studio is **Lotus Flow** on Rua Augusta.\n\n| day | class |\n|---|---|\n| Tue | 7 am |"
)


def app_for_snapshot(clock: SimulatedClock) -> AnisoApp:
    return make_app(clock, data_dir=Path.home() / "aniso")


async def still(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    pilot.app.query_one(Composer).cursor_blink = False
    # A focused composer draws its cursor in whatever phase the blink is in when the
    # screenshot is taken: without focus it draws none, so snapshots are stable.
    pilot.app.set_focus(None)
    pilot.app.clear_notifications()
    # The focus change makes the footer recompose its keys a few frames later; on a busy
    # machine one pause was not always enough, and a snapshot caught the footer empty.
    # So wait for a frame, footer keys drawn, that the next frame repeats.
    app = pilot.app
    frames: list[str] = []

    def at_rest() -> bool:
        frames.append(app.export_screenshot())
        del frames[:-2]
        drawn = all(footer.query(FooterKey) for footer in app.screen.query(Footer))
        return drawn and len(frames) == 2 and frames[0] == frames[1]

    await wait_until(pilot, at_rest)


async def test_chat_with_memory_panel(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    seed_cold_yoga(clock, data_dir=Path.home() / "aniso")
    llm.reply(REPLY)

    async def chat(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "which yoga studio do I go to?")
        await still(pilot)

    check("test_chat_with_memory_panel", await screen_svg(app_for_snapshot(clock), chat, size=SIZE))


async def test_profile_screen(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    async def profile(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "Call me Sam. I love steak")
        clock.advance(timedelta(days=3))
        await say(pilot, "I became vegetarian")
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ProfileScreen))
        await still(pilot)

    check("test_profile_screen", await screen_svg(app_for_snapshot(clock), profile, size=SIZE))


async def test_forget_preview(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    async def forget(pilot) -> None:  # type: ignore[no-untyped-def]
        await say(pilot, "My neighbour Quentin plays the tuba at night")
        clock.advance(timedelta(days=2))
        await say(pilot, "Quentin's tuba lessons are on Fridays")
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen))
        await pilot.press(*"tuba", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await still(pilot)

    check("test_forget_preview", await screen_svg(app_for_snapshot(clock), forget, size=SIZE))


async def test_temporary_chat_after_a_model_failure(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    llm.reply(*[RuntimeError("connection refused")] * 3)

    async def failing(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("f4")
        await say(pilot, "is anyone there?")
        await still(pilot)

    check(
        "test_temporary_chat_after_a_model_failure",
        await screen_svg(app_for_snapshot(clock), failing, size=SIZE),
    )
