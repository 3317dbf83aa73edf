"""Consistency checks: SQLite integrity plus the invariants of the tiers.

Used by `aniso doctor`, and by the crash test: after a `kill -9` mid-compaction and
a rerun, every episode must be in exactly one place and the indexes must agree
with SQLite.
"""

from __future__ import annotations

import sqlite3

import sqlite_utils

from aniso.tiers.index import pieces
from aniso.tiers.index.dense import DenseMemory, expected_keys, pending_keys

RESTORE_HINT = (
    "copy the database aside, then restore the latest `aniso backup` into the data dir "
    "(vectors are rebuilt from it)"
)
INTEGRITY_LINES = 3


def check(db: sqlite_utils.Database, dense: DenseMemory | None = None) -> list[str]:
    """Every problem found, one line each; an empty list means healthy.

    A damaged file makes SQLite raise from any query, the integrity check included:
    that is a finding too, never a crash of the checker.
    """
    try:
        problems = _integrity(db)
        if problems:
            return problems  # the other checks would read the damaged pages
        problems = _tiers(db)
    except sqlite3.DatabaseError as error:
        return [f"SQLite cannot read the database ({error}); {RESTORE_HINT}"]
    if dense is not None:
        problems.extend(_check_dense(db, dense))
    return problems


def _integrity(db: sqlite_utils.Database) -> list[str]:
    rows = [row[0] for row in db.execute("PRAGMA integrity_check").fetchall()]
    if rows == ["ok"]:
        return []
    shown = "; ".join(rows[:INTEGRITY_LINES])
    more = f" (and {len(rows) - INTEGRITY_LINES} more)" if len(rows) > INTEGRITY_LINES else ""
    return [f"SQLite integrity check failed: {shown}{more}; {RESTORE_HINT}"]


def _tiers(db: sqlite_utils.Database) -> list[str]:
    problems: list[str] = []
    both = db.execute(
        "SELECT count(*) FROM episodes e JOIN archive a ON a.episode_id = e.id "
        "WHERE a.status = 'archived'"
    ).fetchone()[0]
    if both:
        problems.append(f"{both} episodes are both live and archived")
    cold_live = db.execute(
        "SELECT count(*) FROM episodes e JOIN blocks b ON b.id = e.block_id "
        "WHERE b.tier = 'cold' AND b.status = 'active'"
    ).fetchone()[0]
    if cold_live:
        problems.append(f"{cold_live} live episodes belong to cold blocks")
    orphans = db.execute(
        "SELECT count(*) FROM episodes e LEFT JOIN blocks b ON b.id = e.block_id WHERE b.id IS NULL"
    ).fetchone()[0]
    if orphans:
        problems.append(f"{orphans} episodes have no block")
    # Archived episodes not restored keep their FTS rows: findable while packed.
    fts_extra = db.execute(
        "SELECT count(*) FROM episode_fts WHERE rowid NOT IN (SELECT id FROM episodes) "
        "AND rowid NOT IN (SELECT episode_id FROM archive WHERE status = 'archived')"
    ).fetchone()[0]
    fts_missing = db.execute(
        "SELECT count(*) FROM episodes WHERE id NOT IN (SELECT rowid FROM episode_fts)"
    ).fetchone()[0]
    if fts_extra or fts_missing:
        problems.append(f"lexical index out of step: {fts_extra} stale rows, {fts_missing} missing")
    return problems


def _check_dense(db: sqlite_utils.Database, dense: DenseMemory) -> list[str]:
    pending = pending_keys(db)
    expected = expected_keys(db)
    try:
        actual = dense.index.ids()
    except Exception as error:  # report, never crash the checker
        return [f"vector index unreadable: {error}"]
    # A turn's pieces are optional (`pieces.refresh` derives them overnight): never
    # missing, and stale only once their turn is gone.
    turns = pieces.episodes_of(expected)
    stale_pieces = {
        k
        for k in actual
        if pieces.is_piece(k) and pieces.episode_of(k) not in turns and k not in pending
    }
    actual = {k for k in actual if not pieces.is_piece(k)}
    missing = expected - actual - pending
    stale = (actual - expected - pending) | stale_pieces
    if missing or stale:
        return [f"vector index out of step: {len(missing)} missing, {len(stale)} stale"]
    return []
