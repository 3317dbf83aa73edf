"""Unpacking: bringing an old memory back.

Shallow unpacking shows the gist and leaves the block where it is ("that was about
X ... in May", form `gist`; see `gist.present`). Deep unpacking, on a signal only
(`blocks_to_unpack`), restores the block's full episodes into
a *new* hot block with fresh actuality, linked to the old block's pointers and to the
current conversation; the archive copy is marked `restored`, never deleted.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlite_utils

from aniso.core.db import transaction
from aniso.tiers import archive, asking, blocks, links
from aniso.tiers.index import lexical, pieces
from aniso.tiers.index.dense import archive_key, block_key, episode_key
from aniso.tiers.memory import TieredMemory
from aniso.tiers.model import MemoryItem
from aniso.tiers.text import query_terms, stems

# An old item this relevant (fused score after actuality, the scale of `memory.fuse`)
# may restore its block, when its gist cannot answer (see `gist_lacks`): the default
# of `Settings.unpack_score`. Calibrated on LoCoMo conversation 26, checked on 30.
UNPACK_SCORE = 0.5
UNPACK_WINDOW = 10  # old items that could reach an answer's top 10
UNPACK_MOST = 2  # blocks restored per turn at most: a turn must stay quick


def asks_for_detail(text: str) -> bool:
    """An explicit request to unpack: "tell me more", "подробнее", "remember when…"."""
    return asking.asks_for_detail(text)


def block_to_unpack(
    query: str, items: list[MemoryItem], previous: set[int], *, score: float = UNPACK_SCORE
) -> tuple[int | None, set[int]]:
    """The first block `blocks_to_unpack` would restore, if any, and this turn's old blocks."""
    chosen, current = blocks_to_unpack(query, items, previous, score=score)
    return (chosen[0] if chosen else None), current


def choose(
    memory: TieredMemory,
    query: str,
    items: list[MemoryItem],
    previous: set[int],
    *,
    score: float = UNPACK_SCORE,
    last_gist: Sequence[int] = (),
) -> tuple[list[int], set[int]]:
    """`blocks_to_unpack` with the store consulted: the one entry point of the
    policy, for the controller and the LoCoMo replay alike.

    Relevance alone may restore a block only when its archive still holds episodes
    (a warm block that kept all of them has nothing to bring back), when it is not
    a restored copy that went back down (brought back once, then left unused until
    it aged out of hot: relevance was not enough), and when its gist cannot answer
    (`gist_lacks`). Without the first two rules a year of chat on recurring topics
    restored blocks more often than it received messages (6,121 restores in 4,000
    messages, chains ten restores deep, most copying nothing); without the third,
    any passing mention of an old topic pulled its whole block back.
    """
    old = [item.block_id for item in items[:UNPACK_WINDOW] if item.tier != "hot"]
    restorable = archive.packed_blocks(memory.db, blocks.originals(memory.db, old))
    candidates = [
        item.block_id
        for item in items[:UNPACK_WINDOW]
        if item.tier != "hot" and item.score >= score and item.block_id in restorable
    ]
    # A block's gist and the turns of it shown alone (`MemoryItem.alone`) quote it.
    quotes: dict[int, list[str]] = {}
    for item in items[:UNPACK_WINDOW]:
        quotes.setdefault(item.block_id, []).extend(quote.text for quote in item.quotes)
    lacking = gist_lacks(memory.db, query, candidates, quotes) if is_question(query) else set()
    return blocks_to_unpack(
        query,
        items,
        previous,
        score=score,
        restorable=restorable & lacking,
        last_gist=last_gist,
    )


def is_question(text: str) -> bool:
    """A question mark, in any of the languages: a passing mention is a statement."""
    return "?" in text or "？" in text


def gist_lacks(
    db: sqlite_utils.Database,
    query: str,
    block_ids: Collection[int],
    quotes: Mapping[int, Sequence[str]] | None = None,
) -> set[int]:
    """The blocks whose shown form cannot answer `query`: a content word of the
    query (four letters or more) is nowhere in what the block shows (gist or summary,
    keywords, anchors, kept episodes, and the archived turns it quotes, `quotes`).
    "What time do the yoga classes start?" against a capsule about "yoga at Lotus
    Flow": "time" and "start" are not in it, the archive holds them ("classes start
    at 7 am"). "Where is the yoga studio?" is answered by the capsule itself. Words
    matched only by meaning (the dense side) count as missing too: the capsule cannot
    be shown to hold the answer."""
    asked = {term for term in query_terms(query) if len(term) >= 4}
    lacking: set[int] = set()
    for block_id in dict.fromkeys(block_ids):
        row = db.execute(
            "SELECT summary, keywords, anchors FROM blocks WHERE id = ?", [block_id]
        ).fetchone()
        kept = " ".join(
            r[0]
            for r in db.execute("SELECT user_text FROM episodes WHERE block_id = ?", [block_id])
        )
        quoted = (quotes or {}).get(block_id, ())
        shown = set(
            stems(" ".join([row[0], *json.loads(row[1]), *json.loads(row[2]), kept, *quoted]))
        )
        if asked - shown:
            lacking.add(block_id)
    return lacking


def blocks_to_unpack(
    query: str,
    items: list[MemoryItem],
    previous: set[int],
    *,
    score: float = UNPACK_SCORE,
    restorable: Collection[int] | None = None,
    last_gist: Sequence[int] = (),
) -> tuple[list[int], set[int]]:
    """Which warm or cold blocks to restore now (DESIGN §3, migration up), best first,
    and the old blocks of this turn (pass them as `previous` next turn).

    Everything else old is shown shallow (`gist.present`) and stays where it is.
    Triggers:
    - an explicit request ("tell me more", "подробнее", "розкажи докладніше"): one
      that names nothing ("tell me more about that") is about `last_gist`, the old
      blocks shown last turn; one that names a topic, about the best item (of the
      top 10) whose text has a word of the topic, else the best old item of the top
      3 (the dense side alone may have found it; multilingual MiniLM ranks a few
      same-language sentences above the right one);
    - a topic that keeps developing (the same old block among the top items in two
      consecutive turns, which is also "active use" for warm);
    - relevance of at least `score` (the setting `unpack_score`) for an old item that
      could reach the top 10 and is in `restorable` (`choose` admits only blocks
      whose gist cannot answer), at most UNPACK_MOST blocks. Without `restorable`,
      relevance restores nothing: a score alone never decides.
    A block the profile has made outdated is restored only on an explicit request
    (the user asked for the past; its episodes come back marked outdated, the
    profile still wins): on its own it would only bring back a stale fact.
    """
    if asks_for_detail(query):
        current = {i.block_id for i in items[:3] if i.tier != "hot" and not i.outdated}
        topic = set(asking.topic_terms(query))
        if last_gist and not topic:
            return [last_gist[0]], current
        named = [i for i in items[:UNPACK_WINDOW] if topic & set(stems(i.text))]
        if named:
            # The best item that names the topic; a hot one needs no unpacking.
            first = sorted(named, key=lambda i: i.outdated)[0]
            return ([first.block_id] if first.tier != "hot" else []), current
        # A current memory first; an outdated one only when it is all there is.
        asked = sorted((item for item in items[:3] if item.tier != "hot"), key=lambda i: i.outdated)
        return ([asked[0].block_id] if asked else []), current
    old = [item for item in items[:UNPACK_WINDOW] if item.tier != "hot" and not item.outdated]
    current = {item.block_id for item in items[:3] if item.tier != "hot" and not item.outdated}
    developing = [item.block_id for item in old if item.block_id in previous]
    relevant = [
        item.block_id
        for item in old
        if item.score >= score and restorable is not None and item.block_id in restorable
    ]
    chosen = list(dict.fromkeys(developing + relevant))[:UNPACK_MOST]
    return chosen, current


@dataclass(frozen=True)
class Restored:
    old_block: int
    new_block: int
    episodes: int


def deep(
    memory: TieredMemory, block_id: int, *, now: datetime, context_block: int | None = None
) -> Restored | None:
    """Restore a warm or cold block's episodes into a new hot block (one transaction).

    Every read happens inside the write transaction: another process may restore the
    same block, or compact it further, between our recall and this call. Reading
    outside made a second restore copy the episodes twice (or leave an empty hot
    block), and archived episodes added meanwhile were marked restored uncopied.
    """
    db = memory.db
    with transaction(db):
        old = blocks.get(db, block_id)
        if old is None or old.tier == "hot" or old.status != "active":
            return None
        archived = archive.archived_of(db, block_id)
        pointers = json.loads(
            db.execute("SELECT pointers FROM blocks WHERE id = ?", [block_id]).fetchone()[0]
        )
        new_block = blocks.create(db, at=now, restored_from=block_id)
        moved = [
            row[0]
            for row in db.execute(
                "SELECT id FROM episodes WHERE block_id = ?", [block_id]
            ).fetchall()
        ]
        db.execute("UPDATE episodes SET block_id = ? WHERE block_id = ?", [new_block, block_id])
        restored_ids = []
        sources = []
        for episode in archived:
            cursor = db.execute(
                "INSERT INTO episodes (block_id, session, at, user_text, reply, status, error, "
                "tokens, pii_types, salience, ref, origin_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    new_block,
                    episode["session"],
                    episode["at"],
                    episode["user_text"],
                    episode["reply"],
                    episode["status"],
                    episode["error"],
                    episode["tokens"],
                    episode["pii_types"],
                    episode["salience"],
                    episode["ref"],
                    episode["origin_id"] or episode["id"],
                ],
            )
            restored_ids.append(int(cursor.lastrowid or 0))
            sources.append(archive_key(episode["id"]))
            lexical.index_episode(
                db, int(cursor.lastrowid or 0), episode["user_text"], episode["at"]
            )
        # The archived rows are found through their copies now, not twice; a copy
        # keeps the words of the turns before it.
        lexical.move_context(
            db, {episode["id"]: new for episode, new in zip(archived, restored_ids, strict=True)}
        )
        lexical.unindex_episodes(db, [episode["id"] for episode in archived])
        archive.mark_restored(db, block_id)
        total = len(moved) + len(restored_ids)
        db.execute(
            "UPDATE blocks SET size = ?, last_episode_at = ?, keywords = ?, anchors = ?, "
            "centroid = (SELECT centroid FROM blocks WHERE id = ?) WHERE id = ?",
            [
                total,
                old.last_episode_at.isoformat(),
                json.dumps(old.keywords),
                json.dumps(old.anchors),
                block_id,
                new_block,
            ],
        )
        # The original stays as provenance. Its centroid only ever served to choose a
        # hot block for a new message, and the copy now has it: 1.5 KB per restore.
        db.execute(
            "UPDATE blocks SET status = 'restored', centroid = NULL, version = version + 1 "
            "WHERE id = ?",
            [block_id],
        )
        lexical.unindex_block(db, block_id)
        memory.dense.enqueue("delete", block_key(block_id), at=now)
        for source, episode_id in zip(sources, restored_ids, strict=True):
            memory.dense.enqueue("delete", source, at=now)
            memory.dense.enqueue("upsert", episode_key(episode_id), at=now)
        # A turn's pieces move with it, as its vector does (never embedded here).
        moved_pieces = _moved_pieces(memory, archived, restored_ids)
        for source, target in moved_pieces:
            memory.dense.enqueue("delete", source, at=now)
            memory.dense.enqueue("upsert", target, at=now)
        links.add(db, new_block, block_id, weight=1.0, reason="restored", at=now)
        links.inherit(db, new_block, block_id, at=now)
        for pointer in pointers:
            links.add(db, new_block, pointer, weight=0.5, reason="pointer", at=now)
        if context_block is not None:
            links.add(db, new_block, context_block, weight=1.0, reason="context", at=now)
        db.execute(
            "INSERT INTO tier_events (at, block_id, kind, from_tier, to_tier, detail) "
            "VALUES (?, ?, 'restore', ?, 'hot', ?)",
            [
                now.isoformat(),
                block_id,
                old.tier,
                json.dumps({"new_block": new_block, "episodes": total}),
            ],
        )
    # The archived vectors come back as they are (no embedding in a chat turn); they
    # are held, searchable at once, and pushed with the turn's own vector.
    memory.dense.copy(
        [(source, episode_key(e)) for source, e in zip(sources, restored_ids, strict=True)]
        + moved_pieces
    )
    # Replay the rest of the outbox in order now: an upsert of the old block's summary
    # queued by another process must meet its delete before anyone searches, and the
    # copied vectors stay held, so this embeds nothing of the restore.
    memory.dense.flush(memory.texts_for, keep_held=True)
    return Restored(old_block=block_id, new_block=new_block, episodes=total)


def _moved_pieces(
    memory: TieredMemory, archived: list[dict], restored_ids: list[int]
) -> list[tuple[str, str]]:
    """(old key, new key) of each piece of the restored turns (`pieces.of_turn`: the
    same text splits the same way). A piece the index lacks is left to the next refresh:
    its queued upsert finds no text to embed and removes the key."""
    return [
        (pieces.key(episode["id"], n), pieces.key(new_id, n))
        for episode, new_id in zip(archived, restored_ids, strict=True)
        for n in range(len(pieces.of_turn(episode["user_text"], memory.dense.reads)))
    ]
