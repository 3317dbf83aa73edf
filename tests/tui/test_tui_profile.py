"""The profile view: fields with history (superseded values struck through), edit, remove."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fakes import ScriptedLLM
from tui_helpers import SIZE, make_app, say, settle, wait_until

from aniso.core.clock import SimulatedClock
from aniso.profile.model import FIELDS
from aniso.tui.dialogs import ConfirmScreen, PromptScreen
from aniso.tui.profile_screen import ProfileScreen

pytestmark = pytest.mark.anyio


def label_of(screen: ProfileScreen, field: str):  # type: ignore[no-untyped-def]
    return screen.query_one("#fields")._options[FIELDS.index(field)].prompt


def struck(label) -> list[str]:  # type: ignore[no-untyped-def]
    return [label.plain[s.start : s.end] for s in label.spans if "strike" in str(s.style)]


async def open_profile(pilot) -> ProfileScreen:  # type: ignore[no-untyped-def]
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ProfileScreen))
    await pilot.pause()
    return pilot.app.screen


async def highlight(pilot, field: str) -> None:  # type: ignore[no-untyped-def]
    pilot.app.screen.query_one("#fields").highlighted = FIELDS.index(field)
    await pilot.pause()


async def test_history_is_struck_through_with_dates(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I love steak")
        clock.advance(timedelta(days=3))
        await say(pilot, "I became vegetarian")
        screen = await open_profile(pilot)
        diet = label_of(screen, "diet")
        assert diet.plain.splitlines()[:2] == ["diet", "  vegetarian  since 2026-01-08, rules"]
        likes = label_of(screen, "likes")
        assert struck(likes) == ["steak"]
        assert "  steak  2026-01-05 → 2026-01-08: " in likes.plain
        assert label_of(screen, "allergies").plain == "allergies  (list)\n  not set"


async def test_edit_and_remove_fields(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_profile(pilot)
        await highlight(pilot, "spice")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"mild", "enter")
        await settle(pilot)
        await wait_until(pilot, lambda: "mild" in label_of(screen, "spice").plain)
        clock.advance(timedelta(days=1))

        await highlight(pilot, "spice")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"hot", "enter")
        await settle(pilot)
        await wait_until(pilot, lambda: struck(label_of(screen, "spice")) == ["mild"])

        await highlight(pilot, "spice")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot)
        await wait_until(pilot, lambda: struck(label_of(screen, "spice")) == ["mild", "hot"])
        await pilot.press("escape")
        assert not isinstance(app.screen, ProfileScreen)
    rows = [(r.field, r.value, r.source, r.ended is None) for r in app.backend.profile_history()]
    assert rows == [("spice", "mild", "hand", False), ("spice", "hot", "hand", False)]


async def test_a_bad_value_is_an_error_in_the_app(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_profile(pilot)
        await highlight(pilot, "diet")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"purple", "enter")
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
        errors = [m.text for m in app.query("ChatMessage") if m.role == "error"]
        assert len(errors) == 1 and errors[0].startswith("profile: cannot read 'purple' as a diet")
