"""The profile block as facts about the user, for small models (`render.as_facts`)."""

from __future__ import annotations

from pathlib import Path

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import ProfileStore, render_for_prompt
from aniso.profile.render import FACTS, LINES, as_facts


def test_every_line_of_the_block_reads_as_a_fact_about_the_user(
    data_dir: Path, clock: SimulatedClock
) -> None:
    store = ProfileStore(open_db(data_dir), clock=clock)
    for field, value in [
        ("name", "Marta"),
        ("language", "ru"),
        ("diet", "vegetarian"),
        ("allergies", "nuts"),
        ("likes", "spicy food"),
        ("interests", "yoga"),
    ]:
        store.set(field, value)
    store.unset("likes", "spicy food")
    block = render_for_prompt(store.current(), superseded=store.superseded_values())
    assert as_facts(block) == (
        "The user's name is Marta.\n"
        "The user wants replies in Russian.\n"
        "The user's diet is vegetarian.\n"
        "The user is allergic to nuts.\n"
        "The user is interested in yoga.\n"
        "No longer true about the user (ignore older memories saying so): likes spicy food."
    )


def test_every_field_has_a_sentence_and_unknown_lines_stay() -> None:
    assert {field for field, _ in LINES} | {"gone"} == set(FACTS)
    assert as_facts("Something else: kept\nplain line") == "Something else: kept\nplain line"
    assert as_facts("") == ""
