"""Links: weighted, undirected edges between blocks.

Sources are shared terms (stemmed keywords and anchors), temporal adjacency and
use (two blocks recalled together). One row per pair with `a < b`. Age weakens a
link at read time, use strengthens it at write time. Every query here is indexed:
the write path must stay O(1) in the size of memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime

import sqlite_utils

from aniso.core.db import select_in
from aniso.tiers.text import stems

TERM_FANOUT = 20  # a term shared by more blocks than this is too common to link on
TERMS_PER_EPISODE = 8
LINK_HALF_LIFE_DAYS = 90.0
OPEN_LINK_WEIGHT = 1.0
"""A link this strong ties a block to an open problem: two rare shared terms, or use
together; one shared term (≤ 0.59) or adjacency in time (0.5) is not enough."""
OPEN_LINKS = 5
"""At most this many blocks, the most strongly linked, are held by one open problem. Its
context is a handful of conversations; in a store where everyday words link much of
the history strongly (the synthetic compaction bench: 21 of 22 old blocks), an unbounded
hold kept everything warm and nothing ever went cold."""


def _pair(first: int, second: int) -> tuple[int, int]:
    return (first, second) if first < second else (second, first)


def add(
    db: sqlite_utils.Database,
    first: int,
    second: int,
    *,
    weight: float,
    reason: str,
    at: datetime,
) -> None:
    """Create the link or add `weight` to it (strengthening)."""
    if first == second:
        return
    a, b = _pair(first, second)
    db.execute(
        "INSERT INTO links (a, b, weight, uses, reason, updated) VALUES (?, ?, ?, 0, ?, ?) "
        "ON CONFLICT (a, b) DO UPDATE SET weight = weight + excluded.weight, "
        "updated = excluded.updated",
        [a, b, weight, reason, at.isoformat()],
    )


TERMS_PER_TEXT = 8


def rebuild_terms(db: sqlite_utils.Database, block_id: int, texts: Sequence[str]) -> None:
    """Derive the block's terms again from what it holds now: after a forget (a forgotten
    word's stem must not stay behind) and after the stems themselves changed
    (`reindex.restem_block_terms`). Links already made are left as they are."""
    db.execute("DELETE FROM block_terms WHERE block_id = ?", [block_id])
    terms: list[str] = []
    for text in texts:
        terms += [t for t in dict.fromkeys(stems(text)) if len(t) >= 4][:TERMS_PER_TEXT]
    for term in dict.fromkeys(terms):
        db.execute(
            "INSERT OR IGNORE INTO block_terms (term, block_id) VALUES (?, ?)", [term, block_id]
        )


def add_terms(
    db: sqlite_utils.Database, block_id: int, terms: Sequence[str], *, at: datetime
) -> int:
    """Record the block's terms and link it to other blocks that share new ones.

    Returns how many links were touched. Bounded: at most TERMS_PER_EPISODE terms and
    TERM_FANOUT blocks per term, via the (term, block_id) primary key.
    """
    touched = 0
    for term in list(dict.fromkeys(terms))[:TERMS_PER_EPISODE]:
        inserted = db.execute(
            "INSERT OR IGNORE INTO block_terms (term, block_id) VALUES (?, ?)", [term, block_id]
        ).rowcount
        if not inserted:
            continue
        others = [
            row[0]
            for row in db.execute(
                "SELECT block_id FROM block_terms WHERE term = ? AND block_id != ? LIMIT ?",
                [term, block_id, TERM_FANOUT + 1],
            )
        ]
        if len(others) > TERM_FANOUT:
            continue
        weight = 1.0 / (1.0 + math.log1p(len(others)))
        for other in others:
            add(db, block_id, other, weight=weight, reason="terms", at=at)
            touched += 1
    return touched


def strengthen(db: sqlite_utils.Database, block_ids: Iterable[int], *, at: datetime) -> None:
    """Blocks used together in one answer: their existing links grow stronger."""
    ids = sorted(set(block_ids))
    for index, first in enumerate(ids):
        for second in ids[index + 1 :]:
            db.execute(
                "UPDATE links SET weight = weight + 0.25, uses = uses + 1, updated = ? "
                "WHERE a = ? AND b = ?",
                [at.isoformat(), first, second],
            )


def effective_weight(weight: float, updated: str, now: datetime) -> float:
    """Age weakens a link: its weight halves every LINK_HALF_LIFE_DAYS without use."""
    age_days = max(0.0, (now - datetime.fromisoformat(updated)).total_seconds() / 86400)
    return weight * 0.5 ** (age_days / LINK_HALF_LIFE_DAYS)


def neighbours(
    db: sqlite_utils.Database,
    block_id: int,
    *,
    now: datetime,
    min_weight: float = 0.0,
    limit: int = 10,
) -> list[tuple[int, float]]:
    """The block's linked blocks with their effective weights, strongest first."""
    rows = db.execute(
        "SELECT b, weight, updated FROM links WHERE a = ? "
        "UNION ALL SELECT a, weight, updated FROM links WHERE b = ?",
        [block_id, block_id],
    ).fetchall()
    scored = [(other, effective_weight(w, updated, now)) for other, w, updated in rows]
    strong = [(other, w) for other, w in scored if w >= min_weight]
    # A tie breaks by the other block's id, not by the order the rows came in.
    return sorted(strong, key=lambda item: (-item[1], item[0]))[:limit]


def linked_to_open(db: sqlite_utils.Database, block_ids: Iterable[int]) -> set[int]:
    """Those of `block_ids` strongly linked (weight ≥ OPEN_LINK_WEIGHT) to an active
        block with an open problem: what the user is working on keeps them near. The
        stored weight counts, not the aged one: the link matters while the problem is open,
        however long that takes. Open problems are few, so only their links are read, the
    strongest `OPEN_LINKS` of each."""
    wanted = set(block_ids)
    open_ids = [
        row[0] for row in db.execute("SELECT id FROM blocks WHERE open = 1 AND status = 'active'")
    ]
    if not wanted or not open_ids:
        return set()
    # Both directions of every open block's strong links in two reads, ranked here
    # as one query per block would (weight, then the other end's id).
    strong: dict[int, list[tuple[float, int]]] = {}
    for sql in (
        "SELECT a, b, weight FROM links WHERE weight >= ? AND a IN ({})",
        "SELECT b, a, weight FROM links WHERE weight >= ? AND b IN ({})",
    ):
        for open_id, other, weight in select_in(db, sql, open_ids, params=[OPEN_LINK_WEIGHT]):
            strong.setdefault(open_id, []).append((-weight, other))
    held: set[int] = set()
    for found in strong.values():
        held.update(other for _, other in sorted(found)[:OPEN_LINKS])
    return (held & wanted) - set(open_ids)


def inherit(db: sqlite_utils.Database, new: int, old: int, *, at: datetime) -> None:
    """A restored block takes its original's place in the graph: the same terms and
    the same links (refreshed), so expansion reaches what the original reached. The
    original, no longer searchable, gives them up: copies would pile up with every
    restore of a topic (a year of chat grew its links table quadratically)."""
    db.execute(
        "INSERT OR IGNORE INTO block_terms (term, block_id) "
        "SELECT term, ? FROM block_terms WHERE block_id = ?",
        [new, old],
    )
    for other, weight in db.execute(
        "SELECT b, weight FROM links WHERE a = ? UNION ALL SELECT a, weight FROM links WHERE b = ?",
        [old, old],
    ).fetchall():
        if other != new:
            add(db, new, other, weight=weight, reason="restored", at=at)
    remove_block(db, old)


def remove_block(db: sqlite_utils.Database, block_id: int) -> None:
    db.execute("DELETE FROM links WHERE a = ? OR b = ?", [block_id, block_id])
    db.execute("DELETE FROM block_terms WHERE block_id = ?", [block_id])
