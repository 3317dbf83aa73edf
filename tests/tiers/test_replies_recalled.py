"""Replies come back as what the assistant said, never as the user's words: marked,
found only through the user's message they answer, and never a profile value."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers.memory import REPLY_MARK

MADE_UP = "Lovely! As a vegetarian with a dentist appointment at Dr Kowalski, pack light."


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Iterator[Services]:
    yield build(load_settings({"model": "fake/scripted"}), clock=clock)


def test_a_reply_is_recalled_marked_and_never_sets_the_profile(
    services: Services, clock: SimulatedClock, llm: ScriptedLLM
) -> None:
    before = services.profile.current().as_values()
    llm.reply(MADE_UP)
    services.assistant.send("I'm planning a weekend trip to Lisbon in June")
    assert services.profile.current().as_values() == before, "a reply states no profile value"

    clock.advance(timedelta(days=2))
    items = services.memory.recall("trip to Lisbon", now=clock()).items
    [item] = [item for item in items if "weekend trip" in item.text]
    assert item.text == f"I'm planning a weekend trip to Lisbon in June{REPLY_MARK}{MADE_UP})"

    found = services.memory.recall("dentist Kowalski", now=clock()).items
    assert all("weekend trip" not in item.text for item in found), "a reply is not searchable"

    services.close()  # another process: the trip is a memory, not a recent turn
    later = build(load_settings({"model": "fake/scripted"}), clock=clock)
    llm.reply("Noted.")
    later.assistant.send("What should I pack for my weekend trip to Lisbon?")
    later.close()
    system = llm.last_messages[0]["content"]
    assert "the assistant's reply is what you said then, not a fact from the user" in system
    assert "> I'm planning a weekend trip to Lisbon in June\n> (the assistant's reply" in system
