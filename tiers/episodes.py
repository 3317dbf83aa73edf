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


def insert_pending(
    db: sqlite_utils.Database,
    *,
    session: str,
    at: datetime,
    user_text: str,
    tokens: int,
    pii_types: list[str],
) -> int:
    """Store the (already redacted) user message; returns the episode id."""
    with transaction(db):
        cursor = db.execute(
            "INSERT INTO episodes (session, at, user_text, status, tokens, pii_types) "
            "VALUES (?, ?, ?, 'pending', ?, ?)",
            [session, at.isoformat(), user_text, tokens, json.dumps(sorted(set(pii_types)))],
        )
    return int(cursor.lastrowid)


def finish(db: sqlite_utils.Database, episode_id: int, *, reply: str, tokens: int) -> None:
    """Record the (already redacted) reply of a pending episode."""
    with transaction(db):
        db.execute(
            "UPDATE episodes SET reply = ?, status = 'answered', tokens = tokens + ?, error = NULL "
            "WHERE id = ?",
            [reply, tokens, episode_id],
        )


def fail(db: sqlite_utils.Database, episode_id: int, *, error: str) -> None:
    """Mark an episode whose reply failed; the user's message stays stored."""
    with transaction(db):
        db.execute(
            "UPDATE episodes SET status = 'failed', error = ? WHERE id = ?",
            [error[:500], episode_id],
        )


def get(db: sqlite_utils.Database, episode_id: int) -> Episode | None:
    rows = list(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id]))
    return _row_to_episode(rows[0]) if rows else None


def recent_in_session(db: sqlite_utils.Database, session: str, *, limit: int) -> list[Episode]:
    """The last answered turns of this session, oldest first, for conversational context."""
    rows = db.query(
        "SELECT * FROM episodes WHERE session = ? AND status = 'answered' ORDER BY id DESC LIMIT ?",
        [session, limit],
    )
    return list(reversed([_row_to_episode(row) for row in rows]))


def count(db: sqlite_utils.Database) -> int:
    return db.execute("SELECT count(*) FROM episodes").fetchone()[0]
