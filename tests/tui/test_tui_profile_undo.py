"""A profile change learned from a message shows in the status bar; F9 takes it back."""

from __future__ import annotations

import pytest
from fakes import ScriptedLLM
from textual.widgets._footer import FooterKey
from tui_helpers import SIZE, make_app, say, settle, transcript, wait_until

from aniso.core.clock import SimulatedClock
from aniso.tui.app import AnisoApp
from aniso.tui.commands import COMMANDS
from aniso.tui.status import StatusBar

pytestmark = pytest.mark.anyio
NOTED = "Noted: diet → vegetarian (F9 undoes)"
NOTHING = "Nothing to undo: no profile change has been learned from a message yet."


def status(app: AnisoApp) -> str:
    return str(app.query_one(StatusBar).render())


def diet(app: AnisoApp) -> list[str]:
    return app.backend.services().profile.current().values("diet")


async def test_f9_undoes_the_last_learned_change(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I am vegetarian.")
        assert status(app).endswith(f"│ {NOTED}")
        assert transcript(app)[-1] == ("notice", NOTED)
        assert diet(app) == ["vegetarian"]

        await pilot.press("f9")
        await wait_until(pilot, lambda: "Undone:" in status(app))
        await settle(pilot)
        assert status(app).endswith("│ Undone: diet vegetarian removed")
        assert [n.message for n in app._notifications] == ["Undone: diet vegetarian removed"]
        assert diet(app) == []

        await pilot.press("f9")
        await wait_until(pilot, lambda: NOTHING in status(app))
        assert diet(app) == []


async def test_f9_is_in_the_footer_and_the_palette(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = [(key.key, key.description) for key in app.query(FooterKey)]
        assert ("f9", "Undo") in footer
    palette = {action: help_text for _, action, help_text in COMMANDS}
    assert palette["undo_profile"].endswith("(F9)")


async def test_a_message_that_teaches_nothing_leaves_the_status_alone(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "What's the weather like?")
        assert "Noted" not in status(app)
        assert all(kind != "notice" for kind, _ in transcript(app))
