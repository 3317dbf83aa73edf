"""Erasure: remove episodes from SQLite and everything that was derived from them.

Forgetting an episode is not deleting one row. Its text also lives in the FTS
tables, in restored copies (`origin_id`) and their archive rows, and in what was
computed from it: a warm summary, a cold capsule, keywords, anchors, the block's
linked terms and centroid, profile values it stated, and retrieval-miss records that
quoted it. `erase` removes or recomputes all of these in one transaction. Blocks left
with nothing are removed with their links, terms and events; blocks left with
something get their forms recomputed (extractively, through the guard) from what
remains. What it cannot reach (the vector index, free pages, the WAL, logs) is the
caller's job, guided by the returned `Erased`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import sqlite_utils

from aniso.core.db import select_in
from aniso.core.ports import Redact
from aniso.tiers import archive, links, procedures, threads, unpack_state
from aniso.tiers.index import lexical
from aniso.tiers.index.dense import archive_key, block_key, episode_key
from aniso.tiers.summarize import extractive

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Selection:
    """What to forget: live episodes, archived episodes, and whole blocks."""

    episodes: set[int] = field(default_factory=set)
    archived: set[int] = field(default_factory=set)
    blocks: set[int] = field(default_factory=set)
    recompute: set[int] = field(default_factory=set)
    """Blocks whose forms mention what is forgotten, even if no episode does."""
    profile: set[int] = field(default_factory=set)
    """Profile values to remove (with --profile), beyond those sourced from episodes."""

    def empty(self) -> bool:
        return not (self.episodes or self.archived or self.blocks or self.recompute)


@dataclass
class Erased:
    """The receipt's numbers and ids; `texts` is for scrubbing logs, never recorded."""

    episodes: int = 0
    archived: int = 0
    blocks_removed: list[int] = field(default_factory=list)
    blocks_recomputed: list[int] = field(default_factory=list)
    links: int = 0
    tier_events: int = 0
    profile_removed: int = 0
    profile_kept: list[dict] = field(default_factory=list)
    miss_records: int = 0
    vector_keys: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list, repr=False)


def expand(db: sqlite_utils.Database, selection: Selection) -> Selection:
    """Close the selection over copies: restore chains of whole blocks, and episodes
    restored from (or archived after restoring) the forgotten ones."""
    blocks = set(selection.blocks)
    while True:
        more = {
            r[0] for r in select_in(db, "SELECT id FROM blocks WHERE restored_from IN ({})", blocks)
        }
        more |= {
            r[0]
            for r in select_in(db, "SELECT restored_from FROM blocks WHERE id IN ({})", blocks)
            if r[0] is not None
        }
        if more <= blocks:
            break
        blocks |= more
    episodes = set(selection.episodes)
    episodes |= {
        r[0] for r in select_in(db, "SELECT id FROM episodes WHERE block_id IN ({})", blocks)
    }
    archived = set(selection.archived)
    archived |= {
        r[0] for r in select_in(db, "SELECT episode_id FROM archive WHERE block_id IN ({})", blocks)
    }
    has_copies = db.execute("SELECT 1 FROM episodes WHERE origin_id IS NOT NULL LIMIT 1")
    if (
        has_copies.fetchone()
        or db.execute("SELECT 1 FROM archive WHERE status = 'restored' LIMIT 1").fetchone()
    ):
        episodes, archived = _close_over_origins(db, episodes, archived)
    return Selection(episodes, archived, blocks, set(selection.recompute), set(selection.profile))


def _close_over_origins(
    db: sqlite_utils.Database, episodes: set[int], archived: set[int]
) -> tuple[set[int], set[int]]:
    origin_of: dict[int, int] = {}  # archived episode id -> its root id
    for episode_id, payload in db.execute("SELECT episode_id, payload FROM archive"):
        row = archive.unpack(payload)
        origin_of[episode_id] = row.get("origin_id") or episode_id
    live_origin = {r[0]: r[1] or r[0] for r in db.execute("SELECT id, origin_id FROM episodes")}
    roots = {live_origin.get(e, e) for e in episodes} | {origin_of.get(a, a) for a in archived}
    episodes = episodes | {e for e, root in live_origin.items() if root in roots}
    archived = archived | {a for a, root in origin_of.items() if root in roots}
    return episodes, archived


def erase(
    db: sqlite_utils.Database,
    selection: Selection,
    *,
    now: datetime,
    redact: Redact,
    embed: Embed | None,
    remove_profile: bool,
) -> Erased:
    """Inside the caller's transaction: erase the (expanded) selection."""
    erased = Erased()
    live = select_in(
        db,
        "SELECT id, block_id, user_text, reply FROM episodes WHERE id IN ({})",
        selection.episodes,
    )
    packed = select_in(
        db,
        "SELECT episode_id, block_id, payload FROM archive WHERE episode_id IN ({})",
        selection.archived,
    )
    affected = set(selection.blocks) | set(selection.recompute)
    for episode_id, block_id, user_text, reply in live:
        erased.texts += [t for t in (user_text, reply) if t]
        erased.vector_keys.append(episode_key(episode_id))
        if block_id is not None:
            affected.add(block_id)
    for episode_id, block_id, payload in packed:
        row = archive.unpack(payload)
        erased.texts += [t for t in (row.get("user_text"), row.get("reply")) if t]
        # An archived episode keeps its vector and its FTS row (the archive is
        # findable while packed): both go with it.
        erased.vector_keys.append(archive_key(episode_id))
        affected.add(block_id)
    live_ids = [r[0] for r in live]
    select_in(db, "DELETE FROM episodes WHERE id IN ({})", live_ids)
    lexical.unindex_episodes(db, live_ids + [r[0] for r in packed])
    lexical.forget_context(db, live_ids + [r[0] for r in packed])
    select_in(db, "DELETE FROM archive WHERE episode_id IN ({})", [r[0] for r in packed])
    erased.episodes, erased.archived = len(live), len(packed)
    forgotten = set(live_ids) | {r[0] for r in packed}
    for block_id in sorted(affected):
        _settle_block(db, block_id, selection, erased, now=now, redact=redact, embed=embed)
    _drop_pointers(db, set(erased.blocks_removed))
    _queue_vector_deletes(db, erased.vector_keys, now)
    _settle_profile(db, forgotten, selection.profile, erased, remove=remove_profile)
    _scrub_misses(db, forgotten, affected, erased, profile_changed=erased.profile_removed > 0)
    threads.forget(db)  # briefs quote messages: written anew, without the forgotten ones
    procedures.forget_sources(db, forgotten)
    unpack_state.clear(db)
    return erased


def _settle_block(
    db: sqlite_utils.Database,
    block_id: int,
    selection: Selection,
    erased: Erased,
    *,
    now: datetime,
    redact: Redact,
    embed: Embed | None,
) -> None:
    row = db.execute(
        "SELECT tier, summary, keywords, anchors FROM blocks WHERE id = ?", [block_id]
    ).fetchone()
    if row is None:
        return
    tier, summary, keywords, anchors = row
    erased.texts += [t for t in (summary, *json.loads(keywords), *json.loads(anchors)) if t]
    remaining = archive.said_in(db, block_id)
    if block_id in selection.blocks or not remaining:
        _remove_block(db, block_id, erased)
        return
    texts = [r["user_text"] for r in remaining]
    forms = extractive(
        texts,
        start=datetime.fromisoformat(remaining[0]["at"]),
        end=datetime.fromisoformat(remaining[-1]["at"]),
    )
    has_forms = tier != "hot" or summary or keywords != "[]" or anchors != "[]"
    new_summary = ""
    new_keywords: list[str] = []
    new_anchors: list[str] = []
    if has_forms:
        new_summary = redact(forms.gist if tier == "cold" else forms.summary)
        new_keywords = [redact(k) for k in forms.keywords]
        new_anchors = [redact(a) for a in forms.anchors]
    centroid = None
    if embed is not None:
        vectors = np.asarray(embed(texts), dtype=np.float32)
        centroid = vectors.mean(axis=0).astype(np.float32).tobytes()
    db.execute(
        "UPDATE blocks SET summary = ?, keywords = ?, anchors = ?, centroid = ?, size = ?, "
        "version = version + 1 WHERE id = ?",
        [
            new_summary,
            json.dumps(new_keywords, ensure_ascii=False),
            json.dumps(new_anchors, ensure_ascii=False),
            centroid,
            len(remaining),
            block_id,
        ],
    )
    lexical.unindex_block(db, block_id)
    if new_summary:
        lexical.index_block(db, block_id, " ".join([new_summary, *new_keywords, *new_anchors]))
        db.execute(
            "INSERT INTO outbox (op, ref, queued) VALUES ('upsert', ?, ?)",
            [block_key(block_id), now.isoformat()],
        )
    else:
        erased.vector_keys.append(block_key(block_id))
    links.rebuild_terms(db, block_id, texts + new_keywords + new_anchors)
    erased.blocks_recomputed.append(block_id)


def _remove_block(db: sqlite_utils.Database, block_id: int, erased: Erased) -> None:
    erased.links += db.execute(
        "SELECT count(*) FROM links WHERE a = ? OR b = ?", [block_id, block_id]
    ).fetchone()[0]
    links.remove_block(db, block_id)
    lexical.unindex_block(db, block_id)
    erased.tier_events += db.execute(
        "DELETE FROM tier_events WHERE block_id = ?", [block_id]
    ).rowcount
    db.execute("DELETE FROM episodes WHERE block_id = ?", [block_id])
    packed = [
        row[0]
        for row in db.execute("SELECT episode_id FROM archive WHERE block_id = ?", [block_id])
    ]
    lexical.unindex_episodes(db, packed)
    lexical.forget_context(db, packed)
    erased.vector_keys += [archive_key(episode_id) for episode_id in packed]
    db.execute("DELETE FROM archive WHERE block_id = ?", [block_id])
    db.execute("DELETE FROM blocks WHERE id = ?", [block_id])
    erased.vector_keys.append(block_key(block_id))
    erased.blocks_removed.append(block_id)


def _drop_pointers(db: sqlite_utils.Database, removed: set[int]) -> None:
    if not removed:
        return
    for block_id, pointers in db.execute(
        "SELECT id, pointers FROM blocks WHERE pointers != '[]'"
    ).fetchall():
        kept = [p for p in json.loads(pointers) if p not in removed]
        if len(kept) != len(json.loads(pointers)):
            db.execute("UPDATE blocks SET pointers = ? WHERE id = ?", [json.dumps(kept), block_id])


def _queue_vector_deletes(db: sqlite_utils.Database, keys: list[str], now: datetime) -> None:
    """Pending upserts of forgotten keys must not resurrect them; deletes are queued
    so a vector index that is down now still learns of the erasure later."""
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        db.execute(f"DELETE FROM outbox WHERE ref IN ({marks})", chunk)
        db.conn.executemany(
            "INSERT INTO outbox (op, ref, queued) VALUES ('delete', ?, ?)",
            [(key, now.isoformat()) for key in chunk],
        )


def _settle_profile(
    db: sqlite_utils.Database,
    forgotten: set[int],
    chosen: set[int],
    erased: Erased,
    *,
    remove: bool,
) -> None:
    """Values whose only source was forgotten go with --profile, else are reported."""
    sourced = select_in(
        db, "SELECT id, field FROM profile_values WHERE source_episode IN ({})", forgotten
    )
    extra = select_in(db, "SELECT id, field FROM profile_values WHERE id IN ({})", chosen)
    candidates = {row[0]: row[1] for row in sourced + extra}
    if remove:
        select_in(db, "DELETE FROM profile_values WHERE id IN ({})", candidates)
        erased.profile_removed = len(candidates)
    else:
        erased.profile_kept = [{"id": i, "field": f} for i, f in sorted(candidates.items())]
    select_in(
        db,
        "UPDATE profile_values SET ended_by_episode = NULL, "
        "ended_reason = 'ended by a message that was forgotten' "
        "WHERE ended_by_episode IN ({})",
        forgotten,
    )


def _scrub_misses(
    db: sqlite_utils.Database,
    forgotten: set[int],
    blocks: set[int],
    erased: Erased,
    *,
    profile_changed: bool,
) -> None:
    """Retrieval-miss records quote what memory held: keep the record, drop the quotes."""
    for row_id, detail in db.execute("SELECT id, detail FROM audit WHERE kind = 'miss'").fetchall():
        record = json.loads(detail)
        quoted = record.get("held", []) + record.get("injected", [])
        touched = record.get("episode_id") in forgotten or profile_changed
        touched = touched or any(item.get("block_id") in blocks for item in quoted)
        if not touched:
            continue
        for item in quoted:
            item["text"] = ""
        record["profile"] = ""
        for terms in ("fact", "fact_supplied"):  # stems of the correction's words
            if terms in record:
                record[terms] = []
        db.execute("UPDATE audit SET detail = ? WHERE id = ?", [json.dumps(record), row_id])
        erased.miss_records += 1
