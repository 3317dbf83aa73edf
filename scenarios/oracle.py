"""What a scenario means, independently of any variant: its ground truth.

The truth is what the user said, read by the profile rules (which are tested
against hand-labelled MemPersonal expectations): the persona seeds a profile, each
user message updates it at its simulated time, and the history records what was
superseded and which earlier messages that made outdated. PII values are the spans
the privacy guard finds in the raw messages, plus the scenario's `memory_absent`.
The oracle lives in a scratch database of its own, never in a variant's data dir.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.privacy.guard import Guard
from aniso.profile import ProfileStore, delta_from_persona, extract_rules
from aniso.profile.model import Profile, is_list_field
from aniso.scenarios.suite import Persona, Scenario

CONSTRAINT_FIELDS = ("diet", "avoid", "allergies", "spice", "budget", "schedule", "health")


@dataclass(frozen=True)
class Value:
    """One profile value: canonical (English) and as the user or persona said it."""

    field: str
    value: str
    said: str


@dataclass(frozen=True)
class Supersession:
    """An old value and what replaced it (nothing, for a removed list item)."""

    old: Value
    new: list[Value]
    turn: int
    """The user turn (0-based) whose message ended the old value."""


@dataclass
class Truth:
    constraints_at: list[list[Value]] = field(default_factory=list)
    """Current constraint values after each user turn."""
    supersessions: list[Supersession] = field(default_factory=list)
    outdated_by_turn: dict[int, set[int]] = field(default_factory=dict)
    """For each turn: earlier turns whose message is outdated by then."""
    format: Value | None = None
    """The reply format the user wants at the end, if any."""
    pii: list[str] = field(default_factory=list)
    final_profile: dict[str, list[str]] = field(default_factory=dict)


def persona_mapping(persona: Persona) -> dict[str, object]:
    return persona.model_dump()


def _values(profile: Profile, fields: tuple[str, ...]) -> list[Value]:
    return [
        Value(name, entry.value, entry.said) for name in fields for entry in profile.entries(name)
    ]


def pii_values(texts: list[str], extra: list[str]) -> list[str]:
    """The sensitive values in the raw texts, as the guard finds them, plus `extra`."""
    guard = Guard()
    found: list[str] = []
    for text in texts:
        for finding in guard.scan(text).findings:
            value = text[finding.start : finding.end].strip()
            if len(value) >= 4 and value not in found:
                found.append(value)
    return found + [value for value in extra if value not in found]


def build_truth(
    scenario: Scenario, persona: Persona, times: list[datetime], scratch: Path
) -> Truth:
    """Replay the user messages (at `times`) through the profile rules alone."""
    clock = SimulatedClock(times[0] if times else datetime(2026, 1, 5, tzinfo=UTC))
    store = ProfileStore(open_db(scratch), clock=clock)
    store.apply(delta_from_persona(persona_mapping(persona)), episode_id=None, source="import")
    messages = scenario.user_messages()
    truth = Truth()
    for turn, (message, at) in enumerate(zip(messages, times, strict=True)):
        clock.set(at)
        before = {(v.field, v.value): v for v in store.history() if v.is_current}
        store.apply(extract_rules(message.text), episode_id=turn + 1, source="rules")
        current = store.current()
        for row in store.superseded_values():
            if row.ended_by_episode == turn + 1 and (row.field, row.value) in before:
                new = (
                    []
                    if is_list_field(row.field)
                    else [Value(row.field, e.value, e.said) for e in current.entries(row.field)]
                )
                truth.supersessions.append(
                    Supersession(Value(row.field, row.value, row.said), new, turn)
                )
        truth.constraints_at.append(_values(current, CONSTRAINT_FIELDS))
        check = store.staleness()
        truth.outdated_by_turn[turn] = {
            earlier
            for earlier in range(turn)
            if check.is_outdated(messages[earlier].text, times[earlier])
        }
    final = store.current()
    formats = _values(final, ("format",))
    truth.format = formats[0] if formats else None
    truth.final_profile = final.as_values()
    expect = scenario.expect
    truth.pii = pii_values([m.text for m in messages], expect.memory_absent if expect else [])
    store.db.close()
    return truth
