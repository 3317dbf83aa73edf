"""The tier vocabulary and the recalled item: shared by tiers, the prompt and the UIs.

Every place that names a tier uses these constants instead of its own string list,
so adding or renaming a tier is one edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

Tier = Literal["hot", "warm", "cold"]
TIERS: tuple[Tier, ...] = ("hot", "warm", "cold")
TIER_ORDER: dict[str, int] = {tier: rank for rank, tier in enumerate(TIERS)}
"""Hot first: the order of display and of ageing."""


@dataclass(frozen=True)
class Quote:
    """An archived turn of an old block, quoted word for word in the block's gist.

    The turn that matched a question is the detail a gist most lacks, and quoting it
    costs one turn's tokens where a restore would copy and re-index the whole block:
    a warm or cold block can answer while it stays packed (DESIGN §3, shallow first).
    """

    episode_id: int
    at: datetime
    text: str
    ref: str | None = None


def quoted(quotes: Sequence[Quote]) -> str:
    """The archived turns a block quotes, one a line, each with its day."""
    return "\n".join(f'Said on {q.at.date().isoformat()}: "{q.text.strip()}"' for q in quotes)


@dataclass(frozen=True)
class MemoryItem:
    """One recalled memory, with the provenance the UI and benchmarks rely on.

    It lives with the tiers (which produce it), not with the prompt (which renders it,
    `aniso.prompt.render_item`), so the domain never imports the application."""

    block_id: int
    tier: str  # hot | warm | cold
    at: datetime
    text: str
    tokens: int
    outdated: bool = False
    form: str = "full"  # full | incomplete (warm) | gist (cold)
    episode_id: int | None = None
    ref: str | None = None
    score: float = 0.0
    quotes: tuple[Quote, ...] = ()
    """Archived turns of an old block that matched the query, best first (`gist`)."""
    alone: bool = False
    """A further archived turn of an old block, shown at its own rank as its quote
    alone, apart from the block's gist (`memory._quotes_in_place`)."""

    @property
    def refs(self) -> tuple[str, ...]:
        """Every source turn this item shows in full: its own and its quotes'."""
        own = (self.ref,) if self.ref else ()
        return own + tuple(quote.ref for quote in self.quotes if quote.ref)
