"""The profile as a compact block of text, for the top of every system prompt.

Canonical English values keep the block short and the same whatever language
set them; user-worded values (a name, a note) are shown as said. Superseded
likings can be listed too, so the model knows to ignore memories about them.
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
        lines.append(f"No longer true (ignore older memories saying so): {', '.join(gone)}")
    return "\n".join(lines)
