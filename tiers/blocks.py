"""Blocks: coherent topic threads, the unit that moves between tiers.

A new episode joins the current hot block unless the topic shifted (its embedding
is far from the block's centroid and it shares few terms with it), a long time gap
passed, or the block is full. Centroids are running means, so assignment costs the
same at 100 episodes as at 100,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import sqlite_utils

from aniso.core.db import select_in
from aniso.tiers.actuality import recent_uses
from aniso.tiers.model import TIERS

GAP = timedelta(hours=6)
MAX_BLOCK_SIZE = 24
SHIFT_SIMILARITY = 0.30
SHIFT_TERM_OVERLAP = 0.15


@dataclass(frozen=True)
class Block:
    id: int
    tier: str
    status: str
    created: datetime
    last_access: datetime
    last_episode_at: datetime
    access_count: int
    size: int
    important: bool
    open: bool
    pinned: bool
    summary: str
    keywords: list[str]
    anchors: list[str]
    kept_share: float
    restored_from: int | None
    version: int


def from_row(row: dict) -> Block:
    import json

    return Block(
        id=row["id"],
        tier=row["tier"],
        status=row["status"],
        created=datetime.fromisoformat(row["created"]),
        last_access=datetime.fromisoformat(row["last_access"]),
        last_episode_at=datetime.fromisoformat(row["last_episode_at"]),
        access_count=row["access_count"],
        size=row["size"],
        important=bool(row["important"]),
        open=bool(row["open"]),
        pinned=bool(row["pinned"]),
        summary=row["summary"],
        keywords=json.loads(row["keywords"]),
        anchors=json.loads(row["anchors"]),
        kept_share=row["kept_share"],
        restored_from=row["restored_from"],
        version=row["version"],
    )


def get(db: sqlite_utils.Database, block_id: int) -> Block | None:
    rows = list(db.query("SELECT * FROM blocks WHERE id = ?", [block_id]))
    return from_row(rows[0]) if rows else None


def originals(db: sqlite_utils.Database, block_ids: Sequence[int]) -> set[int]:
    """Which of these blocks are not restored copies (`restored_from` is empty)."""
    ids = list(set(block_ids))
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    rows = db.execute(
        f"SELECT id FROM blocks WHERE id IN ({marks}) AND restored_from IS NULL", ids
    ).fetchall()
    return {row[0] for row in rows}


def create(db: sqlite_utils.Database, *, at: datetime, restored_from: int | None = None) -> int:
    cursor = db.execute(
        "INSERT INTO blocks (created, last_access, last_episode_at, restored_from) "
        "VALUES (?, ?, ?, ?)",
        [at.isoformat(), at.isoformat(), at.isoformat(), restored_from],
    )
    return int(cursor.lastrowid or 0)


def _centroid(blob: bytes | None) -> np.ndarray | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32)


def current_hot(db: sqlite_utils.Database) -> dict | None:
    """The hot block that received the latest episode, if any."""
    rows = list(
        db.query(
            "SELECT id, last_episode_at, size, centroid FROM blocks "
            "WHERE tier = 'hot' AND status = 'active' ORDER BY last_episode_at DESC LIMIT 1"
        )
    )
    return rows[0] if rows else None


def block_terms(db: sqlite_utils.Database, block_id: int, *, limit: int = 200) -> set[str]:
    rows = db.execute(
        "SELECT term FROM block_terms WHERE block_id = ? LIMIT ?", [block_id, limit]
    ).fetchall()
    return {row[0] for row in rows}


def choose(
    db: sqlite_utils.Database,
    *,
    at: datetime,
    vector: np.ndarray | None,
    terms: Sequence[str],
) -> tuple[int | None, str]:
    """The block a new episode joins, or None for a new block, with the reason."""
    current = current_hot(db)
    if current is None:
        return None, "first"
    if at - datetime.fromisoformat(current["last_episode_at"]) > GAP:
        return None, "gap"
    if current["size"] >= MAX_BLOCK_SIZE:
        return None, "full"
    centroid = _centroid(current["centroid"])
    if vector is None or centroid is None:
        return current["id"], "no-vector"
    norm = float(np.linalg.norm(centroid)) or 1.0
    similarity = float(np.dot(vector, centroid) / norm)
    if similarity >= SHIFT_SIMILARITY:
        return current["id"], "similar"
    known = block_terms(db, current["id"])
    shared = len(known & set(terms)) / max(1, len(set(terms)))
    if shared >= SHIFT_TERM_OVERLAP:
        return current["id"], "shared-terms"
    return None, "topic-shift"


def add_episode(
    db: sqlite_utils.Database,
    block_id: int,
    *,
    at: datetime,
    vector: np.ndarray | None,
    important: bool,
    opens: bool,
    resolves: bool,
    clears: bool = False,
) -> None:
    """Update the block for one more episode: centroid, size, markers, times.
    `clears` ("that's done") takes the block's importance and open problem back."""
    row = db.execute("SELECT size, centroid FROM blocks WHERE id = ?", [block_id]).fetchone()
    size, blob = row
    centroid = _centroid(blob)
    if vector is not None:
        vector = vector.astype(np.float32)
        centroid = vector if centroid is None else (centroid * size + vector) / (size + 1)
    open_value = "open"
    if opens:
        open_value = "1"
    elif resolves or clears:
        open_value = "0"
    important_value = "0" if clears else "max(important, ?)"
    params = [] if clears else [int(important)]
    db.execute(
        f"UPDATE blocks SET size = size + 1, centroid = ?, last_episode_at = ?, "
        f"last_access = ?, important = {important_value}, open = {open_value}, "
        f"version = version + 1 WHERE id = ?",
        [
            None if centroid is None else centroid.astype(np.float32).tobytes(),
            at.isoformat(),
            at.isoformat(),
            *params,
            block_id,
        ],
    )


def touch(db: sqlite_utils.Database, block_ids: Sequence[int], *, at: datetime) -> None:
    """Record a use: used blocks stay fresh, their recent-use count grows by one (after
    decaying to `at`), and a migration in flight sees it."""
    for block_id in set(block_ids):
        row = db.execute(
            "SELECT recent_uses, uses_at FROM blocks WHERE id = ?", [block_id]
        ).fetchone()
        if row is None:
            continue
        since = datetime.fromisoformat(row[1]) if row[1] else None
        uses = recent_uses(row[0], since, at) + 1
        db.execute(
            "UPDATE blocks SET last_access = max(last_access, ?), access_count = access_count + 1,"
            " recent_uses = ?, uses_at = ?, version = version + 1 WHERE id = ?",
            [at.isoformat(), uses, at.isoformat(), block_id],
        )


def counts_by_tier(db: sqlite_utils.Database) -> dict[str, int]:
    """Active blocks per tier, every tier present (zero when empty)."""
    counts: dict[str, int] = dict.fromkeys(TIERS, 0)
    for tier, count in db.execute(
        "SELECT tier, count(*) FROM blocks WHERE status = 'active' GROUP BY tier"
    ):
        counts[tier] = count
    return counts


def is_marked(db: sqlite_utils.Database, block_id: int) -> bool:
    """Whether the block holds a marker a user can take back (important or open)."""
    row = db.execute("SELECT important, open FROM blocks WHERE id = ?", [block_id]).fetchone()
    return bool(row and (row[0] or row[1]))


def clear_markers(db: sqlite_utils.Database, block_id: int) -> bool:
    """Take importance and the open problem back; False when the block held neither."""
    if not is_marked(db, block_id):
        return False
    db.execute(
        "UPDATE blocks SET important = 0, open = 0, version = version + 1 WHERE id = ?",
        [block_id],
    )
    return True


def set_marker(db: sqlite_utils.Database, block_id: int, marker: str, value: bool) -> None:
    if marker not in {"important", "open", "pinned"}:
        raise ValueError(f"unknown marker {marker!r}")
    db.execute(
        f"UPDATE blocks SET {marker} = ?, version = version + 1 WHERE id = ?",
        [int(value), block_id],
    )


def listing(db: sqlite_utils.Database, tier: str | None = None) -> list[dict]:
    """Every block (or those of one tier), newest first, with its first user message
    and, for a restored copy, the tier its original was restored from: what `aniso
    memory list` shows."""
    where = "WHERE b.tier = ?" if tier else ""
    return list(
        db.query(
            "SELECT b.*, (SELECT user_text FROM episodes e WHERE e.block_id = b.id ORDER BY e.id "
            "LIMIT 1) AS first_text, (SELECT o.tier FROM blocks o WHERE o.id = b.restored_from) "
            f"AS restored_from_tier FROM blocks b {where} ORDER BY b.last_episode_at DESC",
            [tier] if tier else [],
        )
    )


def preview(db: sqlite_utils.Database, block_id: int) -> dict | None:
    """One block's tier, status, dates, size, summary and first user message."""
    rows = list(
        db.query(
            "SELECT b.tier, b.status, b.last_episode_at, b.size, b.summary, "
            "(SELECT user_text FROM episodes e WHERE e.block_id = b.id ORDER BY e.id LIMIT 1) "
            "AS first_text FROM blocks b WHERE b.id = ?",
            [block_id],
        )
    )
    return rows[0] if rows else None


def is_pinned(db: sqlite_utils.Database, block_id: int) -> bool:
    row = db.execute("SELECT pinned FROM blocks WHERE id = ?", [block_id]).fetchone()
    return bool(row and row[0])


def of_episodes(db: sqlite_utils.Database, episode_ids: Sequence[int]) -> list[int]:
    """The blocks holding these episodes, each once."""
    return [
        row[0]
        for row in select_in(
            db, "SELECT DISTINCT block_id FROM episodes WHERE id IN ({})", episode_ids
        )
    ]
