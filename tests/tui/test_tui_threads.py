"""The TUI: a return to an open thread shows its brief before the reply; triage in the status."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fakes import ScriptedLLM
from tui_helpers import SIZE, make_app, say, transcript, wait_until

from aniso.core.clock import SimulatedClock
from aniso.tui.status import Status, StatusBar, render_status

pytestmark = pytest.mark.anyio


async def test_a_return_after_a_pause_starts_from_the_brief(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    llm.reply("Sorry to hear that.", "Let us look at the valve.")
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "The boiler doesn't work, the boiler pressure drops every night")
        clock.advance(timedelta(days=3))
        await say(pilot, "Back to the boiler: the pressure dropped again")
        shown = transcript(app)
        kinds = [kind for kind, _ in shown]
        brief = next(text for kind, text in shown if text.startswith("**Where we left off**"))
        assert "“The boiler doesn't work" in brief and "Open since" in brief
        assert kinds[-2:] == ["aniso", "assistant"], "the brief comes before the reply"
        assert shown[-1] == ("assistant", "Let us look at the valve.")
        assert "busy day" not in str(app.query_one(StatusBar).render())


def test_the_status_shows_triage_only_once_it_is_on() -> None:
    calm = Status(model="m", local=True, data_dir="d", triage=0.01)
    busy = Status(model="m", local=True, data_dir="d", triage=0.934)
    assert "busy day" not in str(render_status(calm))
    assert "busy day: triage α 0.93" in str(render_status(busy))


async def test_procedures_are_listed_pinned_and_forgotten(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    from aniso.tui.procedures_screen import ProceduresScreen

    llm.reply("- Monday: lentil curry\n- Tuesday: pasta", "You are welcome.")
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "Make me a weekly meal plan")
        await say(pilot, "Thanks!")
        await pilot.press("f10")
        await wait_until(pilot, lambda: isinstance(app.screen, ProceduresScreen))
        screen = app.screen
        assert isinstance(screen, ProceduresScreen)
        assert [(p.kind, p.uses, p.pinned) for p in screen.procedures] == [("meal plan", 1, False)]
        await pilot.press("p")
        await wait_until(pilot, lambda: screen.procedures[0].pinned)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.procedures == [])
    assert app.backend.procedures() == []
