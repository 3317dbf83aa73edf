"""The memory panel and the data actions: counts, recalled items, unpack, pin, forget, export."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from tui_helpers import SIZE, YOGA, make_app, say, seed_cold_yoga, settle, transcript, wait_until

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build
from aniso.tui.dialogs import ConfirmScreen, PromptScreen
from aniso.tui.memory_panel import MemoryPanel, age, counts_line

pytestmark = pytest.mark.anyio


def block_row(app, block_id: int) -> tuple | None:  # type: ignore[no-untyped-def]
    return (
        app.backend.services()
        .db.execute("SELECT tier, status, pinned FROM blocks WHERE id = ?", [block_id])
        .fetchone()
    )


def select(app, block_id: int) -> None:  # type: ignore[no-untyped-def]
    panel = app.query_one(MemoryPanel)
    index = [item.block_id for item in panel.items].index(block_id)
    panel.query_one("#recalled").highlighted = index
    panel.query_one("#recalled").focus()


async def test_recalled_items_show_tier_age_tokens_and_unpack(
    llm: ScriptedLLM, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Old memories stay packed until asked, so the cold item is there to act on.
    monkeypatch.setenv("ANISO_UNPACK_SCORE", "100")
    cold = seed_cold_yoga(clock)
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "which yoga studio do I go to?")
        panel = app.query_one(MemoryPanel)
        by_block = {item.block_id: item for item in panel.items}
        assert by_block[cold].tier == "cold" and by_block[cold].form == "gist"
        labels = [str(o.prompt) for o in panel.query_one("#recalled")._options]
        cold_label = labels[list(by_block).index(cold)]
        assert cold_label.startswith(" COLD  4mo · ") and " · gist" in cold_label
        assert f"{by_block[cold].tokens} tok · block {cold}" in cold_label
        counts = str(panel.query_one("#counts").render())
        assert counts == " hot  1   warm  0   cold  2  archive 3"  # yoga and car went cold

        select(app, cold)
        await pilot.press("u")
        await settle(pilot)
        assert block_row(app, cold)[:2] == ("cold", "restored")
        restored = (
            app.backend.services()
            .db.execute("SELECT id, tier, size FROM blocks WHERE restored_from = ?", [cold])
            .fetchall()
        )
        assert [(tier, size) for _, tier, size in restored] == [("hot", len(YOGA))]


async def test_pin_and_forget_with_confirmation(
    llm: ScriptedLLM, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Old memories stay packed until asked, so the cold item is there to act on.
    monkeypatch.setenv("ANISO_UNPACK_SCORE", "100")
    cold = seed_cold_yoga(clock)
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "which yoga studio do I go to?")
        select(app, cold)
        await pilot.press("p")
        await settle(pilot)
        assert block_row(app, cold)[2] == 1
        assert " · pinned" in str(
            app.query_one(MemoryPanel)
            .query_one("#recalled")
            ._options[[i.block_id for i in app.query_one(MemoryPanel).items].index(cold)]
            .prompt
        )

        select(app, cold)
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # cancelling keeps everything
        await settle(pilot)
        assert block_row(app, cold) is not None

        select(app, cold)
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot)
        assert block_row(app, cold) is None
        assert cold not in [item.block_id for item in app.query_one(MemoryPanel).items]
    db = app.backend.services().db
    assert db.execute("SELECT count(*) FROM archive WHERE block_id = ?", [cold]).fetchone() == (0,)
    assert db.execute("SELECT kind FROM audit WHERE kind = 'forget'").fetchall() == [("forget",)]


async def test_c_clears_the_markers_of_the_highlighted_item(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    earlier = build(load_settings({"model": "fake/x"}), clock=clock)  # an earlier session
    earlier.assistant.send("Remember this: my passport renewal appointment is on 12 May")
    earlier.close()
    clock.advance(timedelta(hours=8))
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "When is my passport renewal appointment?")
        db = app.backend.services().db
        marked = 1
        assert marked in [item.block_id for item in app.query_one(MemoryPanel).items]
        assert db.execute("SELECT important FROM blocks WHERE id = ?", [marked]).fetchone() == (1,)
        select(app, marked)
        await pilot.press("c")
        await settle(pilot)
        cleared = db.execute("SELECT important, open FROM blocks WHERE id = ?", [marked])
        assert cleared.fetchone() == (0, 0)


@pytest.mark.erasure
async def test_forget_by_search_previews_then_erases(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "My neighbour Quentin plays the tuba at night")
        clock.advance(timedelta(days=2))
        await say(pilot, "Recipe idea: lentil soup with cumin")
        await app.run_action("forget_search")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"tuba")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        preview = str(app.screen.query_one("#detail").render())
        assert "Quentin plays the tuba" in preview and "lentil" not in preview
        await pilot.press("y")
        await settle(pilot)
    db = app.backend.services().db
    texts = [row[0] for row in db.execute("SELECT user_text FROM episodes")]
    assert texts == ["Recipe idea: lentil soup with cumin"]
    raw = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert b"Quentin" not in raw


async def test_forget_by_search_with_no_match_says_so(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I like green tea")
        await app.run_action("forget_search")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"submarine", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert [n.message for n in app._notifications] == ["nothing in memory matches 'submarine'"]


async def test_export_asks_for_a_path(
    llm: ScriptedLLM, clock: SimulatedClock, tmp_path: Path
) -> None:
    written: list[Path] = []

    def exporter(services, path: Path) -> Path:  # type: ignore[no-untyped-def]
        written.append(path)
        path.write_text("{}")
        return path

    app = make_app(clock, exporter=exporter)
    target = tmp_path / "out.json"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("Input").value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert [n.message for n in app._notifications] == [f"exported to {target}"]
    assert written == [target]


async def test_export_writes_the_core_export(
    llm: ScriptedLLM, clock: SimulatedClock, tmp_path: Path
) -> None:
    """The real exporter behind F6: JSON that names what was said, and an error in the
    app (never a crash) when the path cannot be written."""
    import json

    app = make_app(clock)
    target = tmp_path / "memory.json"
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I practise the cello every morning")
        for path in (target, tmp_path):  # the second is a folder: cannot be written
            await pilot.press("f6")
            await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
            app.screen.query_one("Input").value = str(path)
            await pilot.press("enter")
            await settle(pilot)
        assert f"exported to {target}" in [n.message for n in app._notifications]
        kind, text = transcript(app)[-1]
        assert kind == "error" and text.startswith("export:")
    document = json.loads(target.read_text())
    assert "cello" in json.dumps(document)


async def test_compact_now_from_the_palette(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I practise the cello every morning")
        clock.advance(timedelta(days=20))
        await pilot.press("ctrl+p")
        await pilot.press(*"compact now")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        await wait_until(
            pilot, lambda: "warm 1" in str(app.query_one("#counts").render()).replace("  ", " ")
        )
        assert any(n.message.startswith("compaction: moved 1") for n in app._notifications)


def test_age_and_counts_formatting() -> None:
    from datetime import UTC, datetime

    from aniso.tui.backend import TierCounts

    now = datetime(2026, 5, 1, tzinfo=UTC)
    assert [age(now - timedelta(**d), now) for d in ({"minutes": 5}, {"hours": 3}, {"days": 12},
            {"days": 65}, {"days": 800})] == ["5m", "3h", "12d", "2mo", "2y"]  # fmt: skip
    assert counts_line(TierCounts(3, 2, 1, 7)).plain == (" hot  3   warm  2   cold  1  archive 7")
