"""A MemPersonal persona as a profile delta, for seeding scenario runs.

Personas are written as field values, not as sentences ("вегетарианство",
"бюджет: средний", "время: будни после 19:00"), so each piece is read by the
normaliser of its field, falling back to the rule extractor for constraints.
Applied with source "import", they make the profile that a scenario's updates
then supersede.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from aniso.profile import vocab
from aniso.profile.delta import Op, ProfileDelta, make_op
from aniso.profile.rules import extract_rules

_KEYED = re.compile(r"^\s*(?P<key>[\w ]+?)\s*:\s*(?P<value>.+)$")
_KEYS: dict[str, str] = {
    "бюджет": "budget",
    "budget": "budget",
    "время": "schedule",
    "час": "schedule",
    "time": "schedule",
    "schedule": "schedule",
    "диета": "diet",
    "diet": "diet",
}


def _set(field: str, said: str) -> list[Op]:
    value = vocab.normalise(field, said)
    return [make_op("set", field, value, said)] if value else []


def _constraint(text: str) -> list[Op]:
    keyed = _KEYED.match(text)
    if keyed and keyed.group("key").lower() in _KEYS:
        field = _KEYS[keyed.group("key").lower()]
        return _set(field, keyed.group("value"))
    ops = list(extract_rules(text).ops)
    if not ops:
        ops = _set("diet", text)  # a bare "вегетарианство" names the diet itself
    if not ops:
        ops = [make_op("add", "notes", text.strip(), text.strip())]
    return ops


def _strings(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def delta_from_persona(persona: Mapping[str, object]) -> ProfileDelta:
    """The profile a persona describes; keys other than the profile's are ignored."""
    ops: list[Op] = []
    for field in ("name", "language", "tone", "format", "timezone"):
        said = persona.get(field)
        if isinstance(said, str) and said.strip():
            ops += _set(field, said)
    for item in _strings(persona.get("interests")):
        value = vocab.normalise("interests", item)
        if value:
            ops.append(make_op("add", "interests", value, item))
    for constraint in _strings(persona.get("constraints")):
        ops += _constraint(constraint)
    notes = persona.get("notes")
    if isinstance(notes, str) and notes.strip(" ."):
        note = notes.strip().rstrip(".")
        ops.append(make_op("add", "notes", note, notes.strip()))
    return ProfileDelta(ops=tuple(op.model_copy(update={"source": "import"}) for op in ops))
