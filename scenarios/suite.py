"""Loading MemPersonal-format suites: `personas.json` plus `scenarios.json`.

The original format loads unchanged; DESIGN §7 adds `at` and `advance` steps and an
`expect` block, and the runner adds a `forget` step. Every model forbids unknown
keys, because a misspelt check or step that is silently ignored makes a scenario pass
for the wrong reason. Errors name the file, the scenario and the key.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
)

from aniso.core.errors import ConfigError
from aniso.tiers.model import Tier

CheckName = Literal[
    "pref_match", "update_handling", "stale_memory", "privacy_leak", "format", "consistency"
]
TierName = Tier
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhm])\s*$")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


class ScenarioError(ConfigError):
    """A suite file that cannot be run as written."""


def parse_duration(text: str) -> timedelta:
    """ "120d", "36h", "90m" as a timedelta."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"{text!r} is not a duration; use e.g. 30d, 12h or 45m")
    return timedelta(**{_UNITS[match.group(2)]: float(match.group(1))})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Persona(_Strict):
    """A MemPersonal persona: what a Profile+RAG system knows about the user up front."""

    id: str
    name: str = ""
    language: str = ""
    tone: str = ""
    format: str = ""
    timezone: str = ""
    interests: list[str] = []
    constraints: list[str] = []
    notes: str = ""


class Message(_Strict):
    """A user message; `at` (ISO 8601) moves the simulated clock there first."""

    from_: Literal["user"] = Field(alias="from")
    text: str = Field(min_length=1)
    at: datetime | None = None
    reply: str | None = Field(None, min_length=1)
    """The assistant's answer to this message, scripted: the model is not asked. It sets
    up an answer the user then accepts or rejects, the same under every variant and
    with replies off."""


class Advance(_Strict):
    """Move the simulated clock; the nightly compactor runs once per night crossed."""

    advance: str

    @field_validator("advance")
    @classmethod
    def _duration(cls, value: str) -> str:
        parse_duration(value)
        return value


class Forget(_Strict):
    """Erase every memory matching the text, in every store (as `aniso forget` would)."""

    forget: str = Field(min_length=1)


STEP_TAGS = ("message", "advance", "forget")


def _step_kind(value: object) -> str:
    """Which step a raw item is, by its key, so errors speak of that step alone."""
    if isinstance(value, dict):
        return next((key for key in ("advance", "forget") if key in value), "message")
    return type(value).__name__.lower()


Step = Annotated[
    Annotated[Message, Tag("message")]
    | Annotated[Advance, Tag("advance")]
    | Annotated[Forget, Tag("forget")],
    Discriminator(_step_kind),
]


class FieldExpect(_Strict):
    contains: list[str] = []
    absent: list[str] = []


class Expect(_Strict):
    """Deterministic checks of memory state after the last step; no judge needed."""

    memory_absent: list[str] = []
    """Strings absent from every byte of the data dir."""
    profile: dict[str, FieldExpect] = {}
    """Profile fields (or "constraints", all constraint fields) and their values."""
    tier_of: dict[str, TierName] = {}
    """A phrase and the tier of the block holding it (tiered memory only)."""
    recall_contains: list[str] = []
    """Strings the last turn's assembled context contains."""
    recall_absent: list[str] = []
    """Strings the last turn's assembled context does not contain."""
    restored: bool | None = None
    """Whether a deep unpack restored an old block during the scenario."""
    moved: list[str] = []
    """What moved on an open thread while the user was away (news from another
    conversation, the question still open). The simulated user corrects the reply to
    the last message when its context lacks any of them (the `correction` check)."""
    reply_contains: list[str] = []
    """Strings the last turn's reply contains; not run when no reply was generated."""
    reply_absent: list[str] = []
    """Strings the last turn's reply does not contain; not run without a reply."""


class Scenario(_Strict):
    id: str = Field(min_length=1)
    persona_id: str
    goal: str = ""
    messages: list[Step] = Field(min_length=1)
    checks: list[CheckName] = []
    expect: Expect | None = None

    def user_messages(self) -> list[Message]:
        return [step for step in self.messages if isinstance(step, Message)]


class Suite(_Strict):
    name: str
    path: str
    personas: dict[str, Persona]
    scenarios: list[Scenario]


def _read(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(
            f"{path}: missing; a suite folder needs personas.json and scenarios.json"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{path}: cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{path}: not valid JSON: {error}") from None


def _where(error: ValidationError) -> str:
    first = error.errors()[0]
    loc = list(first["loc"])
    loc = [
        p for i, p in enumerate(loc) if not (i and isinstance(loc[i - 1], int) and p in STEP_TAGS)
    ]
    key = ".".join(str(part) for part in loc) or "(top level)"
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    return f"key {key}: {message}"


def _scenario_label(item: object, index: int) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return f"scenario {item['id']!r}"
    return f"scenario #{index + 1}"


def load_suite(folder: Path) -> Suite:
    """Read and validate one suite folder; ScenarioError names what is wrong and where."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioError(f"{folder}: not a suite folder (personas.json + scenarios.json)")
    personas_path, scenarios_path = folder / "personas.json", folder / "scenarios.json"
    raw_personas, raw_scenarios = _read(personas_path), _read(scenarios_path)
    if not isinstance(raw_personas, list):
        raise ScenarioError(f"{personas_path}: expected a list of personas")
    if not isinstance(raw_scenarios, list):
        raise ScenarioError(f"{scenarios_path}: expected a list of scenarios")
    personas: dict[str, Persona] = {}
    for index, item in enumerate(raw_personas):
        try:
            persona = Persona.model_validate(item)
        except ValidationError as error:
            label = f"persona #{index + 1}"
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                label = f"persona {item['id']!r}"
            raise ScenarioError(f"{personas_path}: {label}: {_where(error)}") from None
        personas[persona.id] = persona
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for index, item in enumerate(raw_scenarios):
        label = _scenario_label(item, index)
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as error:
            raise ScenarioError(f"{scenarios_path}: {label}: {_where(error)}") from None
        if scenario.persona_id not in personas:
            raise ScenarioError(
                f"{scenarios_path}: {label}: key persona_id: no persona "
                f"{scenario.persona_id!r} in {personas_path.name}"
            )
        if scenario.id in seen:
            raise ScenarioError(f"{scenarios_path}: {label}: key id: duplicate scenario id")
        seen.add(scenario.id)
        scenarios.append(scenario)
    if not scenarios:
        raise ScenarioError(f"{scenarios_path}: no scenarios")
    return Suite(name=folder.name, path=str(folder), personas=personas, scenarios=scenarios)


def bundled_suites() -> list[Path]:
    """The suites shipped with the package (scenarios/suites/*), the default to run."""
    root = Path(__file__).resolve().parent / "suites"
    return sorted(p for p in root.iterdir() if (p / "scenarios.json").is_file())
