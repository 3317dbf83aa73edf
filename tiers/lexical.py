"""The lexical index: SQLite FTS5 over Snowball stems.

Text is stemmed before it is indexed (and queries are stemmed the same way), so
"вегетарианка" finds "вегетарианки" and "researching" finds "researched". Episodes
and block forms (warm summaries, cold capsules) have separate tables keyed by id.
The index is derived from SQLite and rebuilt by `aniso reindex`.
"""

from __future__ import annotations

import sqlite_utils

from aniso.tiers.text import fts_query, stems

EPISODES = "episode_fts"
BLOCKS = "block_fts"


def stemmed(text: str) -> str:
    return " ".join(stems(text))


def index_episode(db: sqlite_utils.Database, episode_id: int, text: str) -> None:
    db.execute(f"DELETE FROM {EPISODES} WHERE rowid = ?", [episode_id])
    db.execute(f"INSERT INTO {EPISODES} (rowid, stems) VALUES (?, ?)", [episode_id, stemmed(text)])


def index_block(db: sqlite_utils.Database, block_id: int, text: str) -> None:
    db.execute(f"DELETE FROM {BLOCKS} WHERE rowid = ?", [block_id])
    if text.strip():
        db.execute(f"INSERT INTO {BLOCKS} (rowid, stems) VALUES (?, ?)", [block_id, stemmed(text)])


def unindex_episodes(db: sqlite_utils.Database, episode_ids: list[int]) -> None:
    for chunk_start in range(0, len(episode_ids), 500):
        chunk = episode_ids[chunk_start : chunk_start + 500]
        marks = ",".join("?" * len(chunk))
        db.execute(f"DELETE FROM {EPISODES} WHERE rowid IN ({marks})", chunk)


def unindex_block(db: sqlite_utils.Database, block_id: int) -> None:
    db.execute(f"DELETE FROM {BLOCKS} WHERE rowid = ?", [block_id])


def search(db: sqlite_utils.Database, table: str, query: str, *, limit: int) -> list[int]:
    """Row ids best first (BM25). An empty or stopword-only query matches nothing."""
    return [rowid for rowid, _ in search_scored(db, table, query, limit=limit)]


def search_scored(
    db: sqlite_utils.Database, table: str, query: str, *, limit: int
) -> list[tuple[int, float]]:
    """(row id, BM25 relevance) best first; relevance is positive, higher is better.

    FTS5's `rank` column is its bm25() (lower is better), and ordering by it lets
    SQLite keep only the best `limit` rows instead of sorting every match.
    """
    expression = fts_query(query)
    if not expression:
        return []
    rows = db.execute(
        f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
        [expression, limit],
    ).fetchall()
    return [(row[0], -float(row[1])) for row in rows]


def optimize(db: sqlite_utils.Database) -> None:
    """Merge FTS segments, so deleted rows' terms leave the shadow tables for good."""
    for table in (EPISODES, BLOCKS):
        db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
