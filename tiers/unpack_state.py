"""What unpacking remembers between turns, kept in SQLite so that every process agrees.

`aniso ask` runs one process per message; `chat`, the TUI and the MCP server run
long. The signals of a deep unpack span turns: "tell me more about that" refers to
the gist shown last, a developing topic is the same old block in two consecutive
turns, and a retrieval miss is judged against what the previous turn injected. Held
in one controller's memory, none of them reached the next `ask`. One row in the
data dir is the source of truth for all of them.

The state expires after `blocks.GAP` without a turn, the gap that ends a
conversation thread: "tell me more about that" the next morning is about nothing
shown the night before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import sqlite_utils

from aniso.core.db import transaction
from aniso.tiers.blocks import GAP
from aniso.tiers.model import MemoryItem

BRIEF_TEXT = 160  # characters of each injected item kept for a miss record


@dataclass(frozen=True)
class UnpackState:
    last_gist: list[int] = field(default_factory=list)
    """Blocks shown shallow (gist or incomplete) last turn, best first."""
    window: list[int] = field(default_factory=list)
    """Old blocks among the top items last turn: the developing-topic window."""
    context: list[dict] = field(default_factory=list)
    """The memories injected last turn, in brief (block, tier, form, text)."""


def brief(items: Sequence[MemoryItem], limit: int = 5) -> list[dict]:
    """Items as a miss record and the state keep them: provenance and the text's start."""
    return [
        {"block_id": item.block_id, "tier": item.tier, "form": item.form,
         "text": item.text[:BRIEF_TEXT]}
        for item in items[:limit]
    ]  # fmt: skip


def load(db: sqlite_utils.Database, *, now: datetime) -> UnpackState:
    """The state of the last turn, or an empty one when it is older than GAP."""
    row = db.execute(
        "SELECT at, last_gist, topic_window, context FROM unpack_state WHERE id = 1"
    ).fetchone()
    if row is None or now - datetime.fromisoformat(row[0]) > GAP:
        return UnpackState()
    return UnpackState(json.loads(row[1]), json.loads(row[2]), json.loads(row[3]))


def clear(db: sqlite_utils.Database) -> None:
    """Forget the state: it quotes memories, and a forgotten one must not linger here."""
    db.execute("DELETE FROM unpack_state")


def save(db: sqlite_utils.Database, state: UnpackState, *, at: datetime) -> None:
    """Replace the state (one row: the last turn of any process wins)."""
    with transaction(db):
        db.execute(
            "INSERT OR REPLACE INTO unpack_state (id, at, last_gist, topic_window, context) "
            "VALUES (1, ?, ?, ?, ?)",
            [
                at.isoformat(),
                json.dumps(state.last_gist),
                json.dumps(state.window),
                json.dumps(state.context, ensure_ascii=False),
            ],
        )
