"""The archive: full episodes of compressed blocks, compressed and not searchable.

Moving an episode here and deleting its live row happen in one transaction, so an
episode is always in exactly one place: live in a tier, or archived. Deep unpacking
copies archived episodes back into a new hot block and marks the archive rows
`restored` (they stay, so a second unpack or an export still sees them).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Collection, Sequence
from datetime import datetime

import sqlite_utils

from aniso.core.db import select_in

FIELDS = (
    "id",
    "block_id",
    "session",
    "at",
    "user_text",
    "reply",
    "status",
    "error",
    "tokens",
    "pii_types",
    "salience",
    "ref",
    "origin_id",
)


def pack(row: dict) -> bytes:
    return zlib.compress(json.dumps({k: row[k] for k in FIELDS}, ensure_ascii=False).encode(), 9)


def unpack(payload: bytes) -> dict:
    return json.loads(zlib.decompress(payload).decode())


def archive_episodes(db: sqlite_utils.Database, episode_ids: Sequence[int], *, at: datetime) -> int:
    """Inside the caller's transaction: move live episodes into the archive."""
    moved = 0
    blocks: set[int] = set()
    for episode_id in episode_ids:
        rows = list(db.query("SELECT * FROM episodes WHERE id = ?", [episode_id]))
        if not rows:
            continue
        row = rows[0]
        db.execute(
            "INSERT OR REPLACE INTO archive (episode_id, block_id, payload, archived_at, status, "
            "tokens) VALUES (?, ?, ?, ?, 'archived', ?)",
            [episode_id, row["block_id"], pack(row), at.isoformat(), row["tokens"]],
        )
        db.execute("DELETE FROM episodes WHERE id = ?", [episode_id])
        blocks.add(row["block_id"])
        moved += 1
    for block_id in blocks:
        _drop_superseded(db, block_id)
    return moved


def _drop_superseded(db: sqlite_utils.Database, block_id: int) -> None:
    """A restored block going down again holds a copy of every episode of the block it
    was restored from, live or now archived here, so that block's `restored` rows
    are superseded and go. Otherwise each restore and re-compression of a topic
    would add one more archived copy of it, and the store would outgrow the text."""
    source = db.execute("SELECT restored_from FROM blocks WHERE id = ?", [block_id]).fetchone()
    if source is not None and source[0] is not None:
        db.execute("DELETE FROM archive WHERE block_id = ? AND status = 'restored'", [source[0]])


def archived_of(
    db: sqlite_utils.Database, block_id: int, *, include_restored: bool = False
) -> list[dict]:
    """The archived episodes of a block, oldest first, decompressed."""
    status = "" if include_restored else "AND status = 'archived'"
    rows = db.execute(
        f"SELECT payload FROM archive WHERE block_id = ? {status} ORDER BY episode_id",
        [block_id],
    ).fetchall()
    return [unpack(payload) for (payload,) in rows]


def said_in(db: sqlite_utils.Database, block_id: int) -> list[dict]:
    """Every turn a block holds, archived (restored included) and live, oldest first:
    what a block's forms and terms are derived from again."""
    said = archived_of(db, block_id, include_restored=True) + list(
        db.query("SELECT at, user_text FROM episodes WHERE block_id = ? ORDER BY id", [block_id])
    )
    said.sort(key=lambda r: r["at"] or "")
    return said


def packed_blocks(db: sqlite_utils.Database, block_ids: Collection[int]) -> set[int]:
    """Which of these blocks still hold archived episodes, i.e. have detail to unpack."""
    ids = list(block_ids)
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT DISTINCT block_id FROM archive WHERE block_id IN ({marks}) "
        "AND status = 'archived'",
        ids,
    ).fetchall()
    return {row[0] for row in rows}


def packed_of(db: sqlite_utils.Database, episode_ids: Collection[int]) -> dict[int, int]:
    """Which of these episode ids are archived and not restored, with their block."""
    return dict(
        select_in(
            db,
            "SELECT episode_id, block_id FROM archive WHERE episode_id IN ({}) "
            "AND status = 'archived'",
            list(episode_ids),
        )
    )


def archived_text(db: sqlite_utils.Database, episode_id: int) -> str | None:
    """The user's words of an archived episode not restored (to embed it again)."""
    row = db.execute(
        "SELECT payload FROM archive WHERE episode_id = ? AND status = 'archived'", [episode_id]
    ).fetchone()
    return None if row is None else str(unpack(row[0])["user_text"])


def packed_turns(db: sqlite_utils.Database) -> list[tuple[int, str, str | None]]:
    """Archived episodes not restored, with their words and time: findable while packed,
    so the indexes derived from turns (FTS context rows, a turn's pieces) cover them."""
    return [
        (episode_id, (episode := unpack(payload))["user_text"], episode.get("at"))
        for episode_id, payload in db.execute(
            "SELECT episode_id, payload FROM archive WHERE status = 'archived' ORDER BY episode_id"
        )
    ]


def archived_rows(db: sqlite_utils.Database, episode_ids: Collection[int]) -> dict[int, dict]:
    """Archived, not restored episodes by id, decompressed: what a gist quotes."""
    return {
        episode_id: unpack(payload)
        for episode_id, payload in select_in(
            db,
            "SELECT episode_id, payload FROM archive WHERE episode_id IN ({}) "
            "AND status = 'archived'",
            list(episode_ids),
        )
    }


def mark_restored(db: sqlite_utils.Database, block_id: int) -> None:
    db.execute("UPDATE archive SET status = 'restored' WHERE block_id = ?", [block_id])


def count_archived(db: sqlite_utils.Database) -> int:
    """Archived episodes not restored: what the memory panel counts as the archive."""
    return int(db.execute("SELECT count(*) FROM archive WHERE status = 'archived'").fetchone()[0])
