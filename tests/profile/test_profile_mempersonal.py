"""The MemPersonal scenarios through rules alone: the profile ends as the user said.

Every user message goes through `extract_rules` and `ProfileStore.apply`, one
simulated hour and one episode apart, exactly as the chat loop would feed them
with the embedded model (which cannot extract anything itself).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import DAY0
from helpers import TESTS

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import ProfileStore, delta_from_persona, extract_rules

LOCAL = TESTS / "fixtures" / "mempersonal"
SHARED = TESTS.parents[1] / "shared" / "mempersonal"
DATA = LOCAL if (LOCAL / "scenarios.json").exists() else SHARED
SCENARIOS: list[dict[str, Any]] = json.loads((DATA / "scenarios.json").read_text("utf-8"))
PERSONAS = {p["id"]: p for p in json.loads((DATA / "personas.json").read_text("utf-8"))}

# What the user's own messages say, field by field (canonical English values).
EXPECTED: dict[str, dict[str, list[str]]] = {
    "s1_weekend_plan": {
        "diet": ["vegetarian"],
        "schedule": ["after 19:00"],
        "interests": ["film", "yoga"],
        "dislikes": ["crowds"],
    },
    "s2_email_style": {},  # the letter's tone is not the user's
    "s3_contradiction_update": {"diet": ["vegetarian"], "avoid": ["gluten"]},
    "s4_schedule_table": {"schedule": ["06:30-08:30"], "avoid": ["dairy"], "budget": ["low"]},
    "s5_privacy_guardrail": {},
    "s6_multiturn_preference_shift": {
        "health": ["sick: light home activity only"],
        "interests": ["film", "yoga"],
    },
    "s7_cross_session_budget_change": {
        "format": ["tables"],
        "schedule": ["06:30-08:30"],
        "budget": ["high"],
        "avoid": ["dairy"],
    },
    "s8_sensitive_memory_block": {},
    "s9_conflict_and_resolution": {"spice": ["mild"], "likes": ["burritos"]},
    "s10_multi_constraint_planning": {
        "format": ["tables"],
        "schedule": ["06:30-08:30"],
        "avoid": ["dairy"],
        "budget": ["minimal"],
        "notes": ["short blocks of 10-15 min"],
    },
}
# What the updates superseded: (field, value, ended by episode, reason).
SUPERSEDED: dict[str, list[tuple[str, str, int | None, str]]] = {
    "s3_contradiction_update": [("likes", "steak", 2, "conflicts with diet 'vegetarian'")],
    "s9_conflict_and_resolution": [
        ("likes", "spicy food", 2, "removed: острая еда больше не подходит"),
        ("spice", "hot", 2, "replaced by 'mild'"),
    ],
}
# Messages a later update made outdated.
OUTDATED = {("s3_contradiction_update", 1), ("s9_conflict_and_resolution", 1)}


def user_messages(scenario: dict[str, Any]) -> list[str]:
    return [m["text"] for m in scenario["messages"] if m.get("from") == "user"]


def run(scenario: dict[str, Any], tmp_path: Path, *, seed: bool = False) -> ProfileStore:
    clock = SimulatedClock(DAY0)
    store = ProfileStore(open_db(tmp_path / scenario["id"]), clock=clock)
    if seed:
        persona = delta_from_persona(PERSONAS[scenario["persona_id"]])
        store.apply(persona, episode_id=None, source="import")
    for episode, text in enumerate(user_messages(scenario), start=1):
        clock.advance(timedelta(hours=1))
        store.apply(extract_rules(text), episode_id=episode, source="rules")
    return store


def as_dict(store: ProfileStore) -> dict[str, list[str]]:
    return store.current().as_values()


def test_the_local_copy_matches_the_benchmark() -> None:
    assert (LOCAL / "LICENSE").exists()
    if SHARED.exists():
        for name in ("personas.json", "scenarios.json"):
            assert (LOCAL / name).read_bytes() == (SHARED / name).read_bytes()
    assert set(EXPECTED) == {s["id"] for s in SCENARIOS}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_profile_matches_what_the_user_said(scenario: dict[str, Any], tmp_path: Path) -> None:
    store = run(scenario, tmp_path)
    assert as_dict(store) == EXPECTED[scenario["id"]]
    superseded = [
        (row.field, row.value, row.ended_by_episode, row.ended_reason)
        for row in store.superseded_values()
    ]
    assert superseded == SUPERSEDED.get(scenario["id"], [])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_outdated_messages_are_exactly_the_superseded_ones(
    scenario: dict[str, Any], tmp_path: Path
) -> None:
    store = run(scenario, tmp_path)
    check = store.staleness()
    verdicts = {
        episode: check.is_outdated(text, DAY0 + timedelta(hours=episode, minutes=1))
        for episode, text in enumerate(user_messages(scenario), start=1)
    }
    expected = {episode: (scenario["id"], episode) in OUTDATED for episode in verdicts}
    assert verdicts == expected


def test_s3_steak_is_superseded_with_time_and_episode(tmp_path: Path) -> None:
    store = run(SCENARIOS[2], tmp_path)
    steak = [row for row in store.history("likes") if row.value == "steak"]
    assert [(r.said, r.since, r.source_episode, r.ended, r.ended_by_episode) for r in steak] == [
        ("стейки", DAY0 + timedelta(hours=1), 1, DAY0 + timedelta(hours=2), 2)
    ]
    diet = store.current().diet
    assert diet is not None
    assert (diet.value, diet.said, diet.source_episode, diet.source) == (
        "vegetarian",
        "перестал есть мясо",
        2,
        "rules",
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_no_sensitive_number_reaches_the_profile(scenario: dict[str, Any], tmp_path: Path) -> None:
    store = run(scenario, tmp_path)
    stored = json.dumps([row.model_dump(mode="json") for row in store.history()])
    for secret in ("1234 567890", "567890", "4242"):
        assert secret not in stored


SEEDED: dict[str, dict[str, list[str]]] = {
    "s1_weekend_plan": {
        "diet": ["vegetarian"],
        "schedule": ["weekdays after 19:00"],  # "после 19:00" restates it
        "budget": ["medium"],
        "format": ["bullet points"],
        "tone": ["brief and to the point"],
        "interests": ["design", "film", "yoga"],
        "dislikes": ["crowds"],
    },
    "s3_contradiction_update": {"diet": ["vegetarian"], "avoid": ["gluten"], "likes": []},
    "s4_schedule_table": {
        "format": ["tables or numbered steps"],
        "avoid": ["dairy"],
        "budget": ["low"],
        "schedule": ["06:30-08:30"],
    },
    "s7_cross_session_budget_change": {
        "format": ["tables or numbered steps"],
        "budget": ["high"],
        "avoid": ["dairy"],
    },
    "s9_conflict_and_resolution": {"spice": ["mild"], "likes": ["burritos"]},
    "s10_multi_constraint_planning": {"budget": ["minimal"], "avoid": ["dairy"]},
}
SEEDED_SUPERSEDED: dict[str, list[tuple[str, str, int | None]]] = {
    "s1_weekend_plan": [],
    "s3_contradiction_update": [("likes", "steak", 2)],
    "s4_schedule_table": [("schedule", "early morning only", 1)],
    "s7_cross_session_budget_change": [
        ("schedule", "early morning only", 1),
        ("budget", "low", 2),
    ],
    "s9_conflict_and_resolution": [("likes", "spicy food", 2), ("spice", "hot", 2)],
    "s10_multi_constraint_planning": [
        ("schedule", "early morning only", 1),
        ("budget", "low", 3),
    ],
}


@pytest.mark.parametrize("scenario_id", sorted(SEEDED))
def test_updates_supersede_the_persona(scenario_id: str, tmp_path: Path) -> None:
    scenario = next(s for s in SCENARIOS if s["id"] == scenario_id)
    store = run(scenario, tmp_path, seed=True)
    current = store.current()
    assert {field: current.values(field) for field in SEEDED[scenario_id]} == SEEDED[scenario_id]
    superseded = [(r.field, r.value, r.ended_by_episode) for r in store.superseded_values()]
    assert superseded == SEEDED_SUPERSEDED[scenario_id]


def test_constraints_read_like_the_personas(tmp_path: Path) -> None:
    store = run(SCENARIOS[3], tmp_path, seed=True)  # s4: persona p3, then two messages
    assert store.current().constraints() == ["avoid: dairy", "budget: low", "time: 06:30-08:30"]
    store = run(SCENARIOS[2], tmp_path, seed=True)  # s3
    constraints = store.current().constraints()
    assert "vegetarian" in constraints and not any("steak" in c for c in constraints)


def test_persona_import_reads_every_persona_field() -> None:
    delta = delta_from_persona(PERSONAS["p3"])
    assert [(op.kind, op.field, op.value, op.source) for op in delta.ops] == [
        ("set", "name", "Вероника", "import"),
        ("set", "language", "ru", "import"),
        ("set", "tone", "reserved and to the point", "import"),
        ("set", "format", "tables or numbered steps", "import"),
        ("set", "timezone", "Asia/Shanghai", "import"),
        ("add", "interests", "hiking", "import"),
        ("add", "interests", "productivity", "import"),
        ("add", "interests", "classical music", "import"),
        ("add", "avoid", "dairy", "import"),
        ("set", "schedule", "early morning only", "import"),
        ("set", "budget", "low", "import"),
        ("add", "notes", "Любит чёткие планы с временем", "import"),
    ]
