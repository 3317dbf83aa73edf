"""Gist first (DESIGN §3): an old hit is shown shallow and stays where it is; only a
signal ("tell me more about that" after the gist) unpacks it deeply."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build, make_compactor
from aniso.tiers import gist, unpack_state
from aniso.tiers.blocks import GAP

YOGA = [
    "My yoga studio is Lotus Flow on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays with Marta",
    "Marta says the Lotus Flow yoga studio will open a second room in Lisbon",
]
OTHER = [
    "I need to repaint the kitchen cabinets this weekend",
    "Which paint works best on old oak cabinets?",
]


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def cold_yoga(services: Services, clock: SimulatedClock) -> int:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=2))
    for text in OTHER:
        services.assistant.send(text)
    compactor = make_compactor(services)
    for _ in range(120):
        clock.advance(timedelta(days=1))
        compactor.run(clock())
    block, tier = services.db.execute("SELECT id, tier FROM blocks ORDER BY id LIMIT 1").fetchone()
    assert tier == "cold"
    return int(block)


def state(services: Services, block: int) -> tuple[str, str, int]:
    tier, status, uses = services.db.execute(
        "SELECT tier, status, access_count FROM blocks WHERE id = ?", [block]
    ).fetchone()
    return tier, status, uses


def test_a_passing_mention_shows_the_capsule_and_changes_nothing(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    before = state(services, block)
    services.assistant.send("I walked past Lotus Flow yoga in Lisbon today")
    assert services.controller.restored == []
    shown = [item for item in services.controller.last_context if item.block_id == block]
    assert [item.form for item in shown] == ["gist"]
    assert "Mentioned: " in shown[0].text and "Lotus Flow" in shown[0].text
    assert state(services, block) == before, "no restore, and a gist shown is no use"


def test_tell_me_more_about_that_unpacks_the_gist_shown_last(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    services.assistant.send("I walked past Lotus Flow yoga in Lisbon today")
    clock.advance(timedelta(minutes=2))
    services.assistant.send("tell me more about that")
    (restored,) = services.controller.restored
    assert restored.old_block == block and restored.episodes == len(YOGA)
    assert state(services, block)[1] == "restored"
    assert state(services, restored.new_block)[0] == "hot"
    restores = services.db.execute("SELECT detail FROM tier_events WHERE kind = 'restore'")
    assert [json.loads(row[0])["new_block"] for row in restores] == [restored.new_block]


def test_a_capsule_names_its_anchors_and_what_matched() -> None:
    text = gist.render(
        "That was about a trip, in May 2026.", ["tram", "museum"], ["Lisbon", "Porto"], "Porto tram"
    )
    assert text.splitlines() == [
        "That was about a trip, in May 2026.",
        "Mentioned: Porto, Lisbon.",
        "Matched: tram, Porto.",
    ]


def test_the_state_of_the_last_turn_expires_after_a_gap(
    services: Services, clock: SimulatedClock
) -> None:
    shown = unpack_state.UnpackState(last_gist=[4], window=[4], context=[{"block_id": 4}])
    unpack_state.save(services.db, shown, at=clock())
    assert unpack_state.load(services.db, now=clock() + timedelta(hours=1)) == shown
    assert unpack_state.load(services.db, now=clock() + GAP + timedelta(minutes=1)) == (
        unpack_state.UnpackState()
    )


def test_a_miss_record_holds_what_another_process_injected(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    def turn(text: str) -> list[dict]:
        """One message in a fresh process (a session of its own), as `aniso ask`."""
        clock.advance(timedelta(minutes=1))
        services = build(load_settings({"model": "fake/scripted"}), clock=clock)
        services.assistant.send(text)
        injected = unpack_state.brief(services.controller.last_context)
        services.close()
        return injected

    turn("I am vegetarian and I cook a lot of lentil soup")
    injected = turn("What soup should I cook tonight?")
    assert injected, "the previous turn injected the lentil soup"
    turn("I already told you I'm vegetarian")
    check = build(load_settings({"model": "fake/scripted"}), clock=clock)
    (detail,) = check.db.execute("SELECT detail FROM audit WHERE kind = 'miss'").fetchone()
    assert json.loads(detail)["injected"] == injected
    check.close()


def test_a_gist_quotes_the_archived_turn_that_answers_and_stays_cold(
    services: Services, clock: SimulatedClock
) -> None:
    """The turn that matched is shown word for word inside the gist: the question is
    answered while the block stays packed, and nothing is restored."""
    block = cold_yoga(services, clock)
    result = services.memory.recall("when do the Lotus Flow classes start?", now=clock())
    shown = [
        item for item in gist.present(services.db, "when do the classes start?", result.items)
        if item.block_id == block
    ]  # fmt: skip
    assert shown and shown[0].form == "gist"
    quoted = [quote.text for quote in shown[0].quotes]
    assert YOGA[1] in quoted, quoted
    assert f'"{YOGA[1]}"' in shown[0].text and shown[0].tokens > len(YOGA[1]) // 8
    assert state(services, block)[:2] == ("cold", "active")


def test_a_gist_quotes_nothing_the_question_does_not_touch(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    items = services.memory.recall("kitchen cabinets paint", now=clock()).items
    assert all(not item.quotes for item in items if item.block_id == block)
