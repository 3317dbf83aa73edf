"""Rebuild the derived stores (FTS5 tables, the vector index) from SQLite, the truth."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable

import sqlite_utils

from aniso.core.db import transaction
from aniso.core.errors import StoreError
from aniso.core.ports import Progress
from aniso.tiers import archive
from aniso.tiers.index import lexical, vector_erasure
from aniso.tiers.index.dense import archive_key, block_key, episode_key
from aniso.tiers.memory import TieredMemory

BATCH = 256
_log = logging.getLogger(__name__)


def rebuild(
    db: sqlite_utils.Database,
    memory: TieredMemory,
    *,
    progress: Callable[[int], Progress] | None = None,
) -> dict:
    """Drop and refill both indexes; safe to rerun, and a crash leaves the outbox to finish.

    `progress`, given the number of items, returns what to tell as they are done."""
    with transaction(db):
        db.execute(f"DELETE FROM {lexical.EPISODES}")
        db.execute(f"DELETE FROM {lexical.BLOCKS}")
        for row in db.query("SELECT id, user_text, at FROM episodes"):
            lexical.index_episode(db, row["id"], row["user_text"], row["at"])
        for episode_id, text, at in _archived(db):
            lexical.index_episode(db, episode_id, text, at)
        fill_contexts(db)
        for row in db.query(
            "SELECT id, summary, keywords, anchors FROM blocks WHERE summary != ''"
        ):
            words = [row["summary"], *json.loads(row["keywords"]), *json.loads(row["anchors"])]
            lexical.index_block(db, row["id"], " ".join(words))
        db.execute("DELETE FROM outbox")
        db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_UKRAINIAN])
    lexical.optimize(db)
    # A fresh folder, not a reset: a reset collection's old files keep forgotten bytes.
    vector_erasure.renew(memory.dense, drop=set(), everything=True)
    rows = list(db.query("SELECT id, user_text FROM episodes ORDER BY id"))
    blocks = list(
        db.query("SELECT id, summary FROM blocks WHERE summary != '' AND status = 'active'")
    )
    items = [(episode_key(r["id"]), r["user_text"]) for r in rows]
    items += [(block_key(r["id"]), r["summary"]) for r in blocks]
    packed = _archived(db)
    items += [(archive_key(episode_id), text) for episode_id, text, _ in packed]
    advance = progress(len(items)) if progress is not None else None
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        vectors = memory.dense.embed([text for _, text in chunk])
        memory.dense.index.upsert(
            [key for key, _ in chunk], vectors, [{"kind": key[0]} for key, _ in chunk]
        )
        if advance is not None:
            advance(len(chunk))
    return {"episodes": len(rows), "blocks": len(blocks), "archived": len(packed)}


PENDING_CONTEXT = "episode_context"
"""`derived_pending`'s name for the context table (`core.schema.m008_episode_context`)."""
PENDING_UKRAINIAN = "ukrainian_stems"
"""Its name for the rows to stem anew (`core.schema.m009_ukrainian_stems`)."""
UKRAINIAN = re.compile("[іїєґІЇЄҐ]|[а-яА-Я]['’ʼ][а-яА-Я]")
"""A letter only Ukrainian has, or an apostrophe inside a Cyrillic word ("мʼясо"):
what `text.stem` now reads differently."""


def derive_pending(db: sqlite_utils.Database) -> None:
    """Derive, once, what a migration left noted: the context table of a data dir made
    before it existed, the rows of Ukrainian texts indexed with older stems. Two
    processes opening at once queue on the write lock, and the second finds nothing
    left to do. A data dir that cannot be written keeps its notes for a later open;
    until then its turns are found as the old index finds them."""
    listed = "SELECT name FROM derived_pending"
    if db.execute(listed).fetchone() is None:
        return
    try:
        with transaction(db):
            pending = {row[0] for row in db.execute(listed)}
            if PENDING_CONTEXT in pending:
                fill_contexts(db)
            if PENDING_UKRAINIAN in pending:
                restem_ukrainian(db)
    except StoreError as error:
        _log.warning("the lexical index was not brought up to date yet: %s", error)


def restem_ukrainian(db: sqlite_utils.Database) -> None:
    """Index again, inside the caller's transaction, every turn and block whose words
    hold a Ukrainian letter, and the turns' context table if there was one; then clear
    the note. Only these rows' stems changed, so a Russian or English history is read
    and left as it is."""
    found = False
    live = db.execute("SELECT id, user_text, at FROM episodes").fetchall()
    for episode_id, text, at in [*live, *_archived(db)]:
        if UKRAINIAN.search(text):
            lexical.index_episode(db, episode_id, text, at)
            found = True
    for row in db.query("SELECT id, summary, keywords, anchors FROM blocks WHERE summary != ''"):
        keywords, anchors = json.loads(row["keywords"]), json.loads(row["anchors"])
        words = " ".join([row["summary"], *keywords, *anchors])
        if UKRAINIAN.search(words):
            lexical.index_block(db, row["id"], words)
    if found:
        lexical.index_contexts(db, turns(db))
    db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_UKRAINIAN])


def fill_contexts(db: sqlite_utils.Database) -> None:
    """Derive the whole context table from every turn, inside the caller's transaction,
    and clear the migration's note: reindex, import and `derive_pending` all end here."""
    lexical.index_contexts(db, turns(db))
    db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_CONTEXT])


def turns(db: sqlite_utils.Database) -> list[tuple[int, str, str]]:
    """Every searchable turn, live or archived (id, words, when said): what the
    context index is derived from (`lexical.index_contexts`)."""
    live = [(r[0], r[1], r[2]) for r in db.execute("SELECT id, user_text, at FROM episodes")]
    return live + [(i, text, at) for i, text, at in _archived(db) if at is not None]


def _archived(db: sqlite_utils.Database) -> list[tuple[int, str, str | None]]:
    """Archived episodes not restored, with their words and time: findable while packed."""
    return [
        (episode_id, (episode := archive.unpack(payload))["user_text"], episode.get("at"))
        for episode_id, payload in db.execute(
            "SELECT episode_id, payload FROM archive WHERE status = 'archived' ORDER BY episode_id"
        )
    ]
