"""Episodes: one exchange, a user message and its reply, stored after redaction.

The user's message is written first, as `pending`, before the model is called, so
a failing model never loses it; the reply (or the failure) is filled in after.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import sqlite_utils

from aniso.core.db import transaction


@dataclass(frozen=True)
class Episode:
    id: int
    session: str
    at: datetime
    user_text: str
    reply: str | None
    status: str
    block_id: int | None = None


def _row_to_episode(row: dict) -> Episode:
    return Episode(
        id=row["id"],
        session=row["session"],
        at=datetime.fromisoformat(row["at"]),
        user_text=row["user_text"],
        reply=row["reply"],
        status=row["status"],
        block_id=row["block_id"],
    )


def fail(db: sqlite_utils.Database, episode_id: int, *, error: str) -> None:
    """Mark an episode whose reply failed; the user's message stays stored."""
    with transaction(db):
        db.execute(
            "UPDATE episodes SET status = 'failed', error = ? WHERE id = ?",
            [error[:500], episode_id],
        )


def recent_in_session(db: sqlite_utils.Database, session: str, *, limit: int) -> list[Episode]:
    """The last answered turns of this session, oldest first, for conversational context."""
    rows = db.query(
        "SELECT * FROM episodes WHERE session = ? AND status = 'answered' ORDER BY id DESC LIMIT ?",
        [session, limit],
    )
    return list(reversed([_row_to_episode(row) for row in rows]))


def pii_types(db: sqlite_utils.Database, episode_id: int) -> list[str]:
    """The kinds of private data withheld from one stored message (never the values)."""
    row = db.execute("SELECT pii_types FROM episodes WHERE id = ?", [episode_id]).fetchone()
    return list(json.loads(row[0])) if row and row[0] else []
