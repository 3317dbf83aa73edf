"""The typed profile: the user's current truth, with provenance on every value.

The profile is what every system prompt starts with and what stale memories lose
to (DESIGN §3 "Stale memory"). Values are stored in English canonical terms where
one exists ("vegetarian", "high"), so checks and prompts do not depend on the
language the user happened to speak; `said` keeps the user's own wording for
display. Each value knows when it became true and which episode said so, because
a profile the user cannot audit is a profile the user cannot trust.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

Source = Literal["rules", "llm", "hand", "import"]
"""Who wrote a value: the rule extractor, the LLM extractor, a hand edit, an import."""

ScalarField = Literal[
    "name",
    "language",
    "tone",
    "format",
    "timezone",
    "diet",
    "spice",
    "budget",
    "schedule",
    "health",
]
ListField = Literal["interests", "likes", "dislikes", "allergies", "avoid", "notes"]
FieldName = Literal[ScalarField, ListField]

SCALAR_FIELDS: tuple[str, ...] = get_args(ScalarField)
"""Fields holding one value at a time: a new value replaces the old one."""
LIST_FIELDS: tuple[str, ...] = get_args(ListField)
"""Fields holding a set of items: items are added and removed one by one."""
FIELDS: tuple[str, ...] = get_args(FieldName)


def is_list_field(field: str) -> bool:
    return field in LIST_FIELDS


class Entry(BaseModel):
    """One current value of the profile, with where it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    value: str
    """Canonical form, in English where a canonical term exists ("vegetarian")."""
    said: str
    """The user's own wording ("вегетарианка"), for display."""
    since: datetime
    """When this value became current."""
    source_episode: int | None = None
    """The episode whose message stated it; None for hand edits and imports."""
    source: Source
    """Which extractor or edit wrote it."""


class Profile(BaseModel):
    """The current profile. Single-valued fields are an `Entry` or None; list fields
    are lists of entries, oldest first."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    name: Entry | None = None
    """What the user wants to be called."""
    language: Entry | None = None
    """Reply language, an ISO 639-1 code: en, ru, uk."""
    tone: Entry | None = None
    """How replies should sound: "brief and to the point", "warm and detailed"."""
    format: Entry | None = None
    """How replies are laid out: "tables", "bullet points", "numbered steps"."""
    timezone: Entry | None = None
    """The user's IANA timezone, e.g. Europe/Moscow."""
    diet: Entry | None = None
    """omnivore, vegetarian, vegan or pescatarian."""
    spice: Entry | None = None
    """Spice tolerance: mild, medium or hot."""
    budget: Entry | None = None
    """minimal, low, medium, high or flexible."""
    schedule: Entry | None = None
    """When the user has time, e.g. "weekdays after 19:00", "06:30-08:30"."""
    health: Entry | None = None
    """A current health or activity state, e.g. "sick: light home activity only"."""
    interests: list[Entry] = []
    """Hobbies and topics: "film", "yoga", "data science"."""
    likes: list[Entry] = []
    """Things enjoyed that are not interests, mostly food: "steak", "spicy food"."""
    dislikes: list[Entry] = []
    """Things to steer away from: "crowds", "verbosity"."""
    allergies: list[Entry] = []
    """Allergens: "nuts"."""
    avoid: list[Entry] = []
    """Foods to leave out: "dairy", "gluten", "meat"."""
    notes: list[Entry] = []
    """Other standing preferences, kept as stated."""

    def entries(self, field: str) -> list[Entry]:
        """The field's current entries as a list, whatever its kind."""
        held = getattr(self, field)
        if isinstance(held, list):
            return list(held)
        return [] if held is None else [held]

    def value(self, field: str) -> str | None:
        """The canonical value of a single-valued field, or None."""
        entries = self.entries(field)
        return entries[0].value if entries else None

    def values(self, field: str) -> list[str]:
        """The canonical values of a field, oldest first."""
        return [entry.value for entry in self.entries(field)]

    def is_empty(self) -> bool:
        return not any(self.entries(field) for field in FIELDS)

    def as_values(self) -> dict[str, list[str]]:
        """Every non-empty field's canonical values: the shape scenario checks compare."""
        return {field: self.values(field) for field in FIELDS if self.entries(field)}

    def constraints(self) -> list[str]:
        """The constraints as short strings, as MemPersonal personas list them:
        "vegetarian", "avoid: dairy", "allergy: nuts", "budget: low", "time: 06:30-08:30"."""
        found = self.values("diet")
        found += [f"avoid: {value}" for value in self.values("avoid")]
        found += [f"allergy: {value}" for value in self.values("allergies")]
        labels = (("spice", "spice"), ("budget", "budget"), ("schedule", "time"))
        found += [f"{label}: {value}" for field, label in labels for value in self.values(field)]
        return found + [f"health: {value}" for value in self.values("health")]


class ProfileValue(BaseModel):
    """One stored row of profile history: current or superseded."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    id: int
    field: FieldName
    value: str
    """Canonical form."""
    said: str
    """The user's wording."""
    evidence: str = ""
    """The part of the message that supported it."""
    since: datetime
    source_episode: int | None = None
    source: Source
    ended: datetime | None = None
    """When it stopped being current; None while it is current."""
    ended_by_episode: int | None = None
    """The episode whose message ended it; None for hand edits and cascades of them."""
    ended_reason: str | None = None
    """Why it ended, in words: "replaced by 'high'", "conflicts with diet 'vegetarian'"."""

    @property
    def is_current(self) -> bool:
        return self.ended is None

    def entry(self) -> Entry:
        return Entry(
            value=self.value,
            said=self.said,
            since=self.since,
            source_episode=self.source_episode,
            source=self.source,
        )
