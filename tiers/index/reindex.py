"""Rebuild the derived stores (FTS5 tables, the vector index) from SQLite, the truth."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime

import sqlite_utils

from aniso.core.db import transaction
from aniso.core.errors import StoreError
from aniso.core.ports import Progress
from aniso.tiers import archive, links, when
from aniso.tiers.index import lexical, pieces, vector_erasure
from aniso.tiers.index.dense import archive_key, block_key, episode_key
from aniso.tiers.memory import TieredMemory
from aniso.tiers.text import CYRILLIC, UKRAINIAN_WRITING

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
        for episode_id, text, at in archive.packed_turns(db):
            lexical.index_episode(db, episode_id, text, at)
        fill_contexts(db)
        for block_id, words in _block_words(db):
            lexical.index_block(db, block_id, words)
        restem_block_terms(db)
        db.execute("DELETE FROM outbox")
        db.execute(
            "DELETE FROM derived_pending WHERE name IN (?, ?)", [PENDING_UKRAINIAN, PENDING_TIME]
        )
    lexical.optimize(db)
    # A fresh folder, not a reset: a reset collection's old files keep forgotten bytes.
    vector_erasure.renew(memory.dense, drop=set(), everything=True)
    rows = list(db.query("SELECT id, user_text FROM episodes ORDER BY id"))
    blocks = list(
        db.query("SELECT id, summary FROM blocks WHERE summary != '' AND status = 'active'")
    )
    items = [(episode_key(r["id"]), r["user_text"]) for r in rows]
    items += [(block_key(r["id"]), r["summary"]) for r in blocks]
    packed = archive.packed_turns(db)
    items += [(archive_key(episode_id), text) for episode_id, text, _ in packed]
    split = pieces.wanted(db, memory.dense.reads)  # a turn's pieces: derived, rebuilt too
    items += list(split.items())
    advance = progress(len(items)) if progress is not None else None
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        vectors = memory.dense.embed([text for _, text in chunk])
        memory.dense.index.upsert(
            [key for key, _ in chunk], vectors, [{"kind": key[0]} for key, _ in chunk]
        )
        if advance is not None:
            advance(len(chunk))
    return {
        "episodes": len(rows),
        "blocks": len(blocks),
        "archived": len(packed),
        "pieces": len(split),
    }


PENDING_CONTEXT = "episode_context"
"""`derived_pending`'s name for the context table (`core.schema.m008_episode_context`)."""
PENDING_UKRAINIAN = "ukrainian_stems"
"""Its name for the rows to stem anew (`core.schema.m009_ukrainian_stems`)."""
PENDING_TIME = "time_units"
"""Its name for the turns whose dates to read again (`core.schema.m010_time_units`,
`core.schema.m011_nights_and_weekends`)."""


def derive_pending(db: sqlite_utils.Database) -> None:
    """Derive, once, what a migration left noted: the context table of a data dir made
    before it existed, the rows of Ukrainian texts indexed with older stems, the dates
    of turns read before counted units and nights and weekends before were. Two
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
            if PENDING_TIME in pending:
                retime(db)
    except StoreError as error:
        _log.warning("the lexical index was not brought up to date yet: %s", error)


def restem_ukrainian(db: sqlite_utils.Database) -> None:
    """Index again, inside the caller's transaction, every turn and block whose words
    hold a Ukrainian letter, the turns' context table if there was one, and the terms
    of blocks that hold an old Ukrainian stem; then clear the note. Only these rows'
    stems changed, so a Russian or English history is read and left as it is."""
    archived = archive.packed_turns(db)
    live = db.execute("SELECT id, user_text, at FROM episodes").fetchall()
    found = False
    for episode_id, text, at in [*live, *archived]:
        if UKRAINIAN_WRITING.search(text):
            lexical.index_episode(db, episode_id, text, at)
            found = True
    for block_id, words in _block_words(db):
        if UKRAINIAN_WRITING.search(words):
            lexical.index_block(db, block_id, words)
    if found:
        lexical.index_contexts(db, turns(db, archived=archived))
    restem_block_terms(db)
    db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_UKRAINIAN])


def retime(db: sqlite_utils.Database) -> None:
    """Index again, inside the caller's transaction, every turn whose time terms
    (`when.terms`) its row does not hold yet, and clear the note. Only a turn that says
    a counted unit in Cyrillic (m010) or a night or weekend before (m011, `when.SPANS`)
    can have gained one (an English turn otherwise only by spacing, "5 days  ago"), so
    the others are not read twice, and a row that holds its terms already is not
    written. A turn whose time cannot be read keeps its row: one bad row
    must not stop the data dir opening. Without dateparser's tables counted units
    cannot be read, and the note stays for an open that has them (which reads the
    nights and weekends too)."""
    if not when.vocabulary().counted:
        return
    for episode_id, text, at in turns(db):
        if not CYRILLIC.search(text) and not when.SPANS.search(text.lower()):
            continue
        try:
            found = when.terms(text, datetime.fromisoformat(at))
        except (ValueError, OverflowError) as error:
            _log.warning("turn %d keeps its time terms: %s", episode_id, error)
            continue
        if not found:
            continue
        row = db.execute(
            f"SELECT stems FROM {lexical.EPISODES} WHERE rowid = ?", [episode_id]
        ).fetchone()
        if row is None or not set(found) <= set(row[0].split()):
            lexical.index_episode(db, episode_id, text, at)
    db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_TIME])


OLD_STEM = "*[іїєґІЇЄҐ'’ʼ]*"
"""A GLOB for a term written before Ukrainian had stems of its own: the Russian stemmer
cuts Russian endings only, so a changed word's old stem keeps its Ukrainian letter or
apostrophe, and no stem made now has one."""


def restem_block_terms(db: sqlite_utils.Database) -> None:
    """Derive again the terms of every block that holds an old Ukrainian stem, from its
    turns (live, archived and restored) and its keywords and anchors, as a forget does
    (`links.rebuild_terms`): term links, topic shifts and threads compare them with the
    stems of new text. An import of an older export brings such terms too."""
    stale = [
        row[0]
        for row in db.execute(
            "SELECT DISTINCT block_id FROM block_terms WHERE term GLOB ?", [OLD_STEM]
        )
    ]
    for block_id in stale:
        row = db.execute("SELECT keywords, anchors FROM blocks WHERE id = ?", [block_id]).fetchone()
        said = archive.said_in(db, block_id)
        forms = [*json.loads(row[0]), *json.loads(row[1])] if row is not None else []
        links.rebuild_terms(db, block_id, [r["user_text"] for r in said] + forms)


def _block_words(db: sqlite_utils.Database) -> list[tuple[int, str]]:
    """Each active block's summary, keywords and anchors, as its FTS row holds them. A
    restored block keeps its summary for the record, but is no longer searched."""
    found = []
    for row in db.query(
        "SELECT id, summary, keywords, anchors FROM blocks "
        "WHERE summary != '' AND status = 'active'"
    ):
        words = [row["summary"], *json.loads(row["keywords"]), *json.loads(row["anchors"])]
        found.append((row["id"], " ".join(words)))
    return found


def fill_contexts(db: sqlite_utils.Database) -> None:
    """Derive the whole context table from every turn, inside the caller's transaction,
    and clear the migration's note: reindex, import and `derive_pending` all end here."""
    lexical.index_contexts(db, turns(db))
    db.execute("DELETE FROM derived_pending WHERE name = ?", [PENDING_CONTEXT])


def turns(
    db: sqlite_utils.Database, *, archived: list[tuple[int, str, str | None]] | None = None
) -> list[tuple[int, str, str]]:
    """Every searchable turn, live or archived (id, words, when said): what the
    context index is derived from (`lexical.index_contexts`). `archived` spares a
    caller that has unpacked the archive already a second pass."""
    live = [(r[0], r[1], r[2]) for r in db.execute("SELECT id, user_text, at FROM episodes")]
    packed = archive.packed_turns(db) if archived is None else archived
    return live + [(i, text, at) for i, text, at in packed if at is not None]
