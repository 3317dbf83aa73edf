"""Export and forget, as the TUI offers them: one seam over whatever the core provides.

The core's own `export` and `forget` (the `aniso export` / `aniso forget` commands)
own the formats and the guarantees (every store erased, bytes gone from the data
dir). Until they exist this module runs the same tier operations the CLI would, so
the TUI's actions work today and can be re-pointed at the core in one place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aniso.errors import AnisoError, InputError

if TYPE_CHECKING:
    from aniso.services import Services

PREVIEW_LIMIT = 50


@dataclass(frozen=True)
class BlockPreview:
    """One block a forget would erase, as the confirmation dialog shows it."""

    block_id: int
    tier: str
    last_at: str
    episodes: int
    text: str


def export(services: Services, path: Path) -> Path:
    """Write an export of everything to `path` with the core exporter."""
    try:
        from aniso.export import export_to  # type: ignore[import-not-found]
    except ImportError:
        raise AnisoError(
            "export is not available in this version of Aniso; update it and try again"
        ) from None
    return Path(export_to(services, path))


def preview_search(services: Services, query: str) -> list[BlockPreview]:
    """The blocks a forget-by-search would erase: lexical matches only, never guesses.

    Dense neighbours and graph expansion are left out on purpose: erasing is
    irreversible, so only blocks whose own words match the query are offered.
    """
    from aniso.tiers import lexical

    if not query.strip():
        raise InputError("type what to forget: a word or phrase from the conversation")
    db = services.db
    episode_ids = lexical.search(db, lexical.EPISODES, query, limit=PREVIEW_LIMIT * 4)
    block_ids: list[int] = list(lexical.search(db, lexical.BLOCKS, query, limit=PREVIEW_LIMIT))
    if episode_ids:
        marks = ",".join("?" * len(episode_ids))
        block_ids += [
            row[0]
            for row in db.execute(
                f"SELECT DISTINCT block_id FROM episodes WHERE id IN ({marks})", episode_ids
            )
        ]
    return [p for p in (_preview(services, b) for b in dict.fromkeys(block_ids)) if p][
        :PREVIEW_LIMIT
    ]


def _preview(services: Services, block_id: int) -> BlockPreview | None:
    row = services.db.execute(
        "SELECT b.tier, b.status, b.last_episode_at, b.size, b.summary, "
        "(SELECT user_text FROM episodes e WHERE e.block_id = b.id ORDER BY e.id LIMIT 1) "
        "FROM blocks b WHERE b.id = ?",
        [block_id],
    ).fetchone()
    if row is None or row[1] != "active":
        return None
    tier, _, last_at, size, summary, first_text = row
    text = " ".join((summary or first_text or "").split())
    return BlockPreview(block_id, tier, last_at[:10], int(size or 0), text[:160])


def forget_blocks(services: Services, block_ids: Sequence[int]) -> int:
    """Erase blocks everywhere: episodes, archive, FTS, links, vectors. Returns how many.

    A restored block's archive source is erased with it, so a forgotten memory
    cannot come back through deep unpacking.
    """
    from aniso.storage import transaction
    from aniso.tiers import lexical, links
    from aniso.tiers.dense import block_key, episode_key

    db = services.db
    memory = services.controller.memory
    now = services.clock()
    erased = 0
    for block_id in dict.fromkeys(block_ids):
        family = _with_sources(services, block_id)
        with transaction(db):
            for member in family:
                episode_ids = [
                    row[0]
                    for row in db.execute("SELECT id FROM episodes WHERE block_id = ?", [member])
                ]
                archived = [
                    row[0]
                    for row in db.execute(
                        "SELECT episode_id FROM archive WHERE block_id = ?", [member]
                    )
                ]
                lexical.unindex_episodes(db, episode_ids)
                lexical.unindex_block(db, member)
                links.remove_block(db, member)
                db.execute("DELETE FROM episodes WHERE block_id = ?", [member])
                db.execute("DELETE FROM archive WHERE block_id = ?", [member])
                db.execute("DELETE FROM tier_events WHERE block_id = ?", [member])
                deleted = db.execute("DELETE FROM blocks WHERE id = ?", [member]).rowcount
                for key in [episode_key(i) for i in episode_ids + archived] + [block_key(member)]:
                    memory.dense.enqueue("delete", key, at=now)
                erased += deleted
            db["audit"].insert(
                {
                    "at": now.isoformat(),
                    "kind": "forget",
                    "detail": json.dumps({"blocks": family, "via": "tui"}),
                }
            )
    memory.dense.flush(memory.texts_for)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return erased


def _with_sources(services: Services, block_id: int) -> list[int]:
    """The block and every block it was restored from (deep unpacking keeps the source)."""
    family = [block_id]
    current = block_id
    while True:
        row = services.db.execute(
            "SELECT restored_from FROM blocks WHERE id = ?", [current]
        ).fetchone()
        if row is None or row[0] is None or row[0] in family:
            return family
        current = row[0]
        family.append(current)
