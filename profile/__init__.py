"""The user's typed profile: fields, rule and LLM extraction, merge with history.

The profile is the current truth; it always wins over stale memories. The write
path is `extract_rules` (always), `extract_llm` (when a capable model is
configured), `merge_deltas`, then `ProfileStore.apply`; the read path is
`ProfileStore.current`, `render_for_prompt` and `ProfileStore.is_outdated`.
"""

from __future__ import annotations

from aniso.profile.correction import is_correction
from aniso.profile.delta import Op, ProfileDelta, merge_deltas
from aniso.profile.llm_extract import extract_llm
from aniso.profile.model import (
    FIELDS,
    LIST_FIELDS,
    SCALAR_FIELDS,
    Entry,
    Profile,
    ProfileValue,
    Source,
)
from aniso.profile.persona import delta_from_persona
from aniso.profile.render import render_for_prompt
from aniso.profile.rules import extract_rules
from aniso.profile.stale import StaleCheck
from aniso.profile.store import Change, ProfileStore

__all__ = [
    "FIELDS",
    "LIST_FIELDS",
    "SCALAR_FIELDS",
    "Change",
    "Entry",
    "Op",
    "Profile",
    "ProfileDelta",
    "ProfileStore",
    "ProfileValue",
    "Source",
    "StaleCheck",
    "delta_from_persona",
    "extract_llm",
    "extract_rules",
    "is_correction",
    "merge_deltas",
    "render_for_prompt",
]
