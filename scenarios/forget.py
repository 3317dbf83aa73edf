"""The scenarios' `forget` step on tiered memory: erase what matches, in every store.

`aniso forget` is the user-facing command; until it is available this is the core
the runner calls. It removes matching episodes (live and archived), blanks block
summaries that mention the text, drops their lexical and vector entries and the
link terms stemmed from it, records
the erasure in the audit log (without the text), and vacuums SQLite so the bytes
leave the file, not just the table.
"""

from __future__ import annotations

import json
from datetime import datetime

import sqlite_utils

from aniso.storage import transaction
from aniso.tiers import archive, lexical
from aniso.tiers.dense import block_key, episode_key
from aniso.tiers.memory import TieredMemory
from aniso.tiers.text import stems


def _mentions(text: str | None, needle: str) -> bool:
    return bool(text) and needle in str(text).casefold()


def forget_matching(memory: TieredMemory, text: str, *, now: datetime) -> int:
    """Erase every episode, archived episode and summary mentioning `text`."""
    db: sqlite_utils.Database = memory.db
    needle = text.casefold().strip()
    if not needle:
        return 0
    episodes = [
        row["id"]
        for row in db.query("SELECT id, user_text, reply FROM episodes")
        if _mentions(row["user_text"], needle) or _mentions(row["reply"], needle)
    ]
    archived = [
        episode_id
        for episode_id, payload in db.execute("SELECT episode_id, payload FROM archive")
        if any(_mentions(archive.unpack(payload).get(k), needle) for k in ("user_text", "reply"))
    ]
    summaries = [
        row["id"]
        for row in db.query("SELECT id, summary, keywords, anchors FROM blocks")
        if any(_mentions(row[k], needle) for k in ("summary", "keywords", "anchors"))
    ]
    with transaction(db):
        marks = ",".join("?" * len(episodes))
        if episodes:
            lexical.unindex_episodes(db, episodes)
            db.execute(f"DELETE FROM episodes WHERE id IN ({marks})", episodes)
            for episode_id in episodes:
                memory.dense.enqueue("delete", episode_key(episode_id), at=now)
        for episode_id in archived:
            db.execute("DELETE FROM archive WHERE episode_id = ?", [episode_id])
        for block_id in summaries:
            db.execute(
                "UPDATE blocks SET summary = '', keywords = '[]', anchors = '[]', "
                "version = version + 1 WHERE id = ?",
                [block_id],
            )
            lexical.unindex_block(db, block_id)
            memory.dense.enqueue("delete", block_key(block_id), at=now)
        terms = stems(text)
        if terms:
            marks = ",".join("?" * len(terms))
            db.execute(f"DELETE FROM block_terms WHERE term IN ({marks})", terms)
        for table in (lexical.EPISODES, lexical.BLOCKS):
            # FTS5 keeps deleted terms in its segments until they are merged.
            db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        erased = len(episodes) + len(archived) + len(summaries)
        db["audit"].insert(
            {"at": now.isoformat(), "kind": "forget", "detail": json.dumps({"erased": erased})}
        )
    memory.dense.flush(memory.texts_for)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return erased
