"""The profile as a compact block of text, for the top of every system prompt.

Canonical English values keep the block short and the same whatever language
set them; user-worded values (a name, a note) are shown as said. Superseded
likings can be listed too, so the model knows to ignore memories about them.

A small model reads "Name: Marta" at the top of its prompt as its own name, so
`as_facts` turns the same block into sentences about the user ("The user's name
is Marta.").
"""

from __future__ import annotations

from collections.abc import Sequence

from aniso.profile.model import Profile, ProfileValue, is_list_field
from aniso.profile.vocab import LANGUAGE_NAMES

LINES: tuple[tuple[str, str], ...] = (
    ("name", "Name"),
    ("language", "Language"),
    ("tone", "Tone"),
    ("format", "Format"),
    ("diet", "Diet"),
    ("avoid", "Avoid"),
    ("allergies", "Allergies"),
    ("spice", "Spice"),
    ("budget", "Budget"),
    ("schedule", "Schedule"),
    ("health", "Health"),
    ("timezone", "Timezone"),
    ("interests", "Interests"),
    ("likes", "Likes"),
    ("dislikes", "Dislikes"),
    ("notes", "Notes"),
)
"""Field and label, in prompt order: how to answer first, then constraints, then tastes."""
GONE = "No longer true (ignore older memories saying so)"

FACTS: dict[str, str] = {
    "name": "The user's name is {}.",
    "language": "The user wants replies in {}.",
    "tone": "The user wants replies that are {}.",
    "format": "The user wants replies as {}.",
    "diet": "The user's diet is {}.",
    "avoid": "The user avoids {}.",
    "allergies": "The user is allergic to {}.",
    "spice": "The user's spice tolerance is {}.",
    "budget": "The user's budget is {}.",
    "schedule": "The user's free time: {}.",
    "health": "The user's health: {}.",
    "timezone": "The user's timezone is {}.",
    "interests": "The user is interested in {}.",
    "likes": "The user likes {}.",
    "dislikes": "The user dislikes {}.",
    "notes": "Notes about the user: {}",
    "gone": "No longer true about the user (ignore older memories saying so): {}.",
}
"""Each line of the block as a sentence about the user, for `as_facts`."""


def render_for_prompt(profile: Profile, *, superseded: Sequence[ProfileValue] = ()) -> str:
    """ "Format: tables\\nTone: brief and to the point\\nDiet: vegetarian\\n..."; empty
    when nothing is known. `superseded` adds a line of values that no longer hold."""
    lines = []
    for field, label in LINES:
        values = profile.values(field)
        if field == "language":
            values = [LANGUAGE_NAMES.get(v, v) for v in values]
        if values:
            lines.append(f"{label}: {'; '.join(values) if field == 'notes' else ', '.join(values)}")
    current = {(field, value) for field, _ in LINES for value in profile.values(field)}
    gone = []
    for row in superseded:
        if is_list_field(row.field) and (row.field, row.value) not in current:
            entry = f"{row.field} {row.value}"
            if entry not in gone:
                gone.append(entry)
    if gone:
        lines.append(f"{GONE}: {', '.join(gone)}")
    return "\n".join(lines)


def as_facts(block: str) -> str:
    """A `render_for_prompt` block as sentences about the user: "Name: Marta" becomes
    "The user's name is Marta." A line it does not know is kept as it is."""
    fields = {label: field for field, label in LINES} | {GONE: "gone"}
    facts = []
    for line in block.splitlines():
        label, colon, values = line.partition(": ")
        field = fields.get(label) if colon else None
        facts.append(FACTS[field].format(values) if field else line)
    return "\n".join(facts)
