"""The storage schema: every table, in one place, as forward-only migrations.

Each migration is a plain function registered with `sqlite_utils.Migrations`, run
in its own transaction and recorded in `_sqlite_migrations`; a database never goes
backwards. Add a new function at the end to change the schema: never edit one that
has shipped.

SQLite is the source of truth. The FTS tables and the Chroma collection are
derived from it and can be rebuilt (`aniso reindex`).
"""

from __future__ import annotations

import sqlite3

import sqlite_utils
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("aniso")


@MIGRATIONS()
def m001_core(db: sqlite_utils.Database) -> None:
    """Episodes, blocks, links, archive, profile history, events and audit."""
    _run_script(
        db,
        """
        CREATE TABLE episodes (
            -- AUTOINCREMENT: an archived or forgotten id is never handed out again
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            block_id INTEGER,
            session TEXT NOT NULL,
            at TEXT NOT NULL,                -- ISO 8601 UTC, from the injectable clock
            user_text TEXT NOT NULL,         -- redacted before it is written
            reply TEXT,                      -- redacted; NULL while pending or after a failure
            status TEXT NOT NULL DEFAULT 'pending',   -- pending | answered | failed
            error TEXT,
            tokens INTEGER NOT NULL DEFAULT 0,
            pii_types TEXT NOT NULL DEFAULT '[]',     -- types found, never values
            salience REAL NOT NULL DEFAULT 0,
            ref TEXT,                        -- external reference (import, benchmark turn id)
            origin_id INTEGER                -- for a restored copy: the archived original
        );
        CREATE INDEX episodes_block ON episodes(block_id, at);
        CREATE INDEX episodes_at ON episodes(at);
        -- a session's recent turns on every recall: without it, a scan of all episodes
        CREATE INDEX episodes_session ON episodes(session, status, id);

        CREATE TABLE blocks (
            -- AUTOINCREMENT: an archived or forgotten id is never handed out again
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            tier TEXT NOT NULL DEFAULT 'hot',         -- hot | warm | cold
            status TEXT NOT NULL DEFAULT 'active',    -- active | restored | archived
            created TEXT NOT NULL,
            last_access TEXT NOT NULL,
            last_episode_at TEXT NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            size INTEGER NOT NULL DEFAULT 0,          -- episodes ever assigned to it
            important INTEGER NOT NULL DEFAULT 0,
            open INTEGER NOT NULL DEFAULT 0,
            pinned INTEGER NOT NULL DEFAULT 0,
            summary TEXT NOT NULL DEFAULT '',
            keywords TEXT NOT NULL DEFAULT '[]',
            anchors TEXT NOT NULL DEFAULT '[]',
            pointers TEXT NOT NULL DEFAULT '[]',      -- cold: up to 5 related block ids
            centroid BLOB,                            -- mean embedding, for topic shift
            kept_share REAL NOT NULL DEFAULT 1.0,     -- warm: share of episodes kept searchable
            restored_from INTEGER,
            version INTEGER NOT NULL DEFAULT 0        -- optimistic check during migration
        );
        CREATE INDEX blocks_tier_access ON blocks(tier, last_access);
        CREATE INDEX blocks_last_episode ON blocks(last_episode_at);
        -- the current hot block on every write: one index step, not a sort of all hot blocks
        CREATE INDEX blocks_tier_latest ON blocks(tier, status, last_episode_at);
        -- open problems are few: a resolution looks among them, not among every block
        CREATE INDEX blocks_open ON blocks(open) WHERE open = 1;

        CREATE TABLE links (
            a INTEGER NOT NULL,
            b INTEGER NOT NULL,                       -- a < b: one row per undirected edge
            weight REAL NOT NULL,
            uses INTEGER NOT NULL DEFAULT 0,
            reason TEXT NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (a, b)
        ) WITHOUT ROWID;
        CREATE INDEX links_b ON links(b);

        CREATE TABLE block_terms (
            term TEXT NOT NULL,                       -- stemmed keyword or entity
            block_id INTEGER NOT NULL,
            PRIMARY KEY (term, block_id)
        ) WITHOUT ROWID;
        CREATE INDEX block_terms_block ON block_terms(block_id);

        CREATE TABLE archive (
            episode_id INTEGER PRIMARY KEY,
            block_id INTEGER NOT NULL,
            payload BLOB NOT NULL,                    -- zlib-compressed JSON of the episode
            archived_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'archived',  -- archived | restored
            tokens INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX archive_block ON archive(block_id);

        CREATE TABLE profile_values (
            id INTEGER PRIMARY KEY,
            field TEXT NOT NULL,
            value TEXT NOT NULL,                      -- JSON
            since TEXT NOT NULL,
            source_episode INTEGER,
            source TEXT NOT NULL,                     -- rules | llm | hand | import
            ended TEXT,
            ended_by_episode INTEGER,
            ended_reason TEXT
        );
        CREATE INDEX profile_values_field ON profile_values(field, ended);

        CREATE TABLE tier_events (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            block_id INTEGER NOT NULL,
            kind TEXT NOT NULL,                       -- migrate | compress | restore | unpack
            from_tier TEXT,
            to_tier TEXT,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX tier_events_block ON tier_events(block_id);

        CREATE TABLE compaction_runs (
            id INTEGER PRIMARY KEY,
            started TEXT NOT NULL,
            finished TEXT,
            now TEXT NOT NULL,
            report TEXT NOT NULL DEFAULT '{}'
        );

        CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,                       -- redaction | forget | import | miss ...
            detail TEXT NOT NULL DEFAULT '{}'         -- never a sensitive value
        );

        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            op TEXT NOT NULL,                         -- upsert | delete
            ref TEXT NOT NULL,                        -- e.g. episode:12, block:3
            queued TEXT NOT NULL
        );

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE VIRTUAL TABLE episode_fts USING fts5(stems, tokenize = 'unicode61');
        CREATE VIRTUAL TABLE block_fts USING fts5(stems, tokenize = 'unicode61');
        """,
    )


@MIGRATIONS()
def m002_fts_vocabulary(db: sqlite_utils.Database) -> None:
    """Row counts per term of both FTS tables (read-only views, no data of their own),
    so a search can leave out words common to the whole history."""
    _run_script(
        db,
        """
        CREATE VIRTUAL TABLE episode_vocab USING fts5vocab(episode_fts, 'row');
        CREATE VIRTUAL TABLE block_vocab USING fts5vocab(block_fts, 'row');
        """,
    )


@MIGRATIONS()
def m003_unpack_state(db: sqlite_utils.Database) -> None:
    """What unpacking carries from one turn to the next (`tiers.unpack_state`), in the
    data dir so that `ask`, `chat`, the TUI and MCP share it: one row."""
    _run_script(
        db,
        """
        CREATE TABLE unpack_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            at TEXT NOT NULL,                         -- the turn it describes
            last_gist TEXT NOT NULL DEFAULT '[]',     -- blocks shown shallow, best first
            topic_window TEXT NOT NULL DEFAULT '[]',  -- old blocks at the top (developing topic)
            context TEXT NOT NULL DEFAULT '[]'        -- injected items, in brief (redacted text)
        );
        """,
    )


@MIGRATIONS()
def m004_threads(db: sqlite_utils.Database) -> None:
    """Open threads and their briefs (push refresh): one row per open block."""
    _run_script(
        db,
        """
        CREATE TABLE threads (
            block_id INTEGER PRIMARY KEY,             -- the block holding the open problem
            opened TEXT NOT NULL,
            last_pulled TEXT NOT NULL,                -- when the user last touched the thread
            last_refresh TEXT NOT NULL,               -- when its brief was last written
            next_refresh TEXT NOT NULL,               -- last_refresh + tau_hours
            n INTEGER NOT NULL DEFAULT 0,             -- the signals at the last refresh
            r INTEGER NOT NULL DEFAULT 0,
            u REAL NOT NULL DEFAULT 0,
            tau_hours REAL NOT NULL DEFAULT 168,
            brief TEXT NOT NULL DEFAULT '',           -- redacted, in words (never block ids)
            source TEXT NOT NULL DEFAULT 'extractive',  -- extractive | llm
            shown TEXT                                -- when the brief last led a reply
        );
        """,
    )


@MIGRATIONS()
def m005_procedures(db: sqlite_utils.Database) -> None:
    """Reusable procedures (accepted answers as steps) and their links to requests."""
    _run_script(
        db,
        """
        CREATE TABLE procedures (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,                       -- meal plan | packing list | ...
            title TEXT NOT NULL,                      -- the request, redacted
            steps TEXT NOT NULL,                      -- JSON list, redacted, with {field} names
            params TEXT NOT NULL DEFAULT '{}',        -- JSON: field -> values when accepted
            source_episode INTEGER,
            created TEXT NOT NULL,
            last_used TEXT NOT NULL,
            uses INTEGER NOT NULL DEFAULT 0,
            pinned INTEGER NOT NULL DEFAULT 0,
            rejected INTEGER NOT NULL DEFAULT 0       -- never offered again
        );
        CREATE TABLE procedure_links (
            procedure_id INTEGER NOT NULL,
            episode_id INTEGER NOT NULL,              -- a request that used it
            weight REAL NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (procedure_id, episode_id)
        ) WITHOUT ROWID;
        """,
    )


@MIGRATIONS()
def m006_recent_uses(db: sqlite_utils.Database) -> None:
    """How often a block was used lately: a count that halves every month without use
    (`tiers.actuality.recent_uses`), so actuality weighs recent use, not a lifetime
    total. Derived from use, so not exported; every block starts at none."""
    _run_script(
        db,
        """
        ALTER TABLE blocks ADD COLUMN recent_uses REAL NOT NULL DEFAULT 0;
        ALTER TABLE blocks ADD COLUMN uses_at TEXT;
        """,
    )


@MIGRATIONS()
def m007_outbox_ref(db: sqlite_utils.Database) -> None:
    """Index the outbox by key. Which held vectors are still wanted asks, per key,
    whether a later delete is queued; unindexed, that scanned the whole outbox for each
    key, and a compaction that archived 90k episodes (one upsert and one delete each)
    spent hours there."""
    db.execute("CREATE INDEX outbox_ref ON outbox(ref, op, id)")


@MIGRATIONS()
def m008_episode_context(db: sqlite_utils.Database) -> None:
    """The words of the turns before each episode (`tiers.index.lexical.index_context`);
    `sources` (not searched) names the turns they came from, for forgetting.

    Deriving them from an existing data dir's episodes needs the stemmer, which the
    storage layer does not import (LAYOUT.md). So the table is created empty and noted
    in `derived_pending`, and the composition root fills it on the same open
    (`tiers.index.reindex.derive_pending`)."""
    _run_script(
        db,
        """
        CREATE VIRTUAL TABLE episode_context_fts
            USING fts5(stems, sources UNINDEXED, tokenize = 'unicode61');
        -- derived tables a migration created empty, for the domain layer to fill
        CREATE TABLE derived_pending (name TEXT PRIMARY KEY);
        INSERT INTO derived_pending (name) VALUES ('episode_context');
        """,
    )


@MIGRATIONS()
def m009_ukrainian_stems(db: sqlite_utils.Database) -> None:
    """Ukrainian words have stems of their own now (`tiers.text.stem`): the FTS rows of
    texts holding a Ukrainian letter were written with the old ones, which no query
    makes any more. Re-stemming needs the stemmer, so, as in m008, this only leaves a
    note in `derived_pending`, and the composition root re-indexes those rows on the
    same open (`tiers.index.reindex.derive_pending`)."""
    db.execute("INSERT OR IGNORE INTO derived_pending (name) VALUES ('ukrainian_stems')")


@MIGRATIONS()
def m010_time_units(db: sqlite_utils.Database) -> None:
    """A count of days, weeks, months or years in Russian and Ukrainian is read in every
    form of its unit now ("5 дней назад", "2 тижні тому", "неделю назад"; `tiers.when`):
    turns that say one were indexed without its date. As in m008, this leaves a note
    in `derived_pending`, and the composition root indexes again, on the same open,
    the turns that speak of a time (`tiers.index.reindex.derive_pending`)."""
    db.execute("INSERT OR IGNORE INTO derived_pending (name) VALUES ('time_units')")


@MIGRATIONS()
def m011_nights_and_weekends(db: sqlite_utils.Database) -> None:
    """ "last night" and "last weekend" (and their Russian and Ukrainian forms) are dated
    now (`tiers.when.SPANS`): turns that say one were indexed without their dates. The
    same note as m010 re-reads them on the same open (`tiers.index.reindex.retime`)."""
    db.execute("INSERT OR IGNORE INTO derived_pending (name) VALUES ('time_units')")


def _run_script(db: sqlite_utils.Database, script: str) -> None:
    """Run several statements inside the caller's transaction.

    `sqlite3.executescript` would COMMIT first and break a migration's atomicity, so
    statements are split with SQLite's own notion of a complete statement.
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            db.execute(pending)
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:60]}")


def migrate(db: sqlite_utils.Database) -> int:
    """Apply pending migrations, each in its own transaction; return the schema version.

    The caller holds the data dir's migration lock, so two processes opening a
    fresh data dir at once cannot both run the same migration.
    """
    MIGRATIONS.apply(db)
    return schema_version(db)


def schema_version(db: sqlite_utils.Database) -> int:
    """How many of this project's migrations the database has had."""
    return len(MIGRATIONS.applied(db))


SCHEMA_VERSION = len(MIGRATIONS.pending(sqlite_utils.Database(memory=True)))
