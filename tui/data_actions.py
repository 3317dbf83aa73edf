"""Export and forget, as the TUI offers them: one seam over whatever the core provides.

The core's own export and forget (behind `aniso export` / `aniso forget`) own the
formats and the guarantees (every store erased, bytes gone from the data dir); this
module only adapts them to the TUI's dialogs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aniso.core.errors import InputError

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
    """Write an export of everything to `path` with the core exporter (`aniso export`):
    Markdown when the path ends in `.md`, the re-importable JSON otherwise."""
    from aniso.data.export import export_json
    from aniso.data.markdown import export_markdown

    if path.suffix.lower() == ".md":
        report = export_markdown(services.db, path, redact=services.redact_text)
    else:
        report = export_json(services.db, path)  # the store is already guarded
    return Path(report.path)


def preview_search(services: Services, query: str) -> list[BlockPreview]:
    """The blocks a forget-by-search would erase: lexical matches only, never guesses.

    Dense neighbours and graph expansion are left out on purpose: erasing is
    irreversible, so only blocks whose own words match the query are offered.
    """
    from aniso.tiers import blocks
    from aniso.tiers.index import lexical

    if not query.strip():
        raise InputError("type what to forget: a word or phrase from the conversation")
    db = services.db
    episode_ids = lexical.search(db, lexical.EPISODES, query, limit=PREVIEW_LIMIT * 4)
    block_ids: list[int] = list(lexical.search(db, lexical.BLOCKS, query, limit=PREVIEW_LIMIT))
    block_ids += blocks.of_episodes(db, episode_ids)
    return [p for p in (_preview(services, b) for b in dict.fromkeys(block_ids)) if p][
        :PREVIEW_LIMIT
    ]


def _preview(services: Services, block_id: int) -> BlockPreview | None:
    from aniso.tiers import blocks

    row = blocks.preview(services.db, block_id)
    if row is None or row["status"] != "active":
        return None
    text = " ".join((row["summary"] or row["first_text"] or "").split())
    return BlockPreview(
        block_id, row["tier"], row["last_episode_at"][:10], int(row["size"] or 0), text[:160]
    )


def forget_blocks(services: Services, block_ids: Sequence[int]) -> int:
    """Erase blocks everywhere with the core's cascade (`aniso forget --block`): SQLite
    with its FTS, WAL and free pages, the archive and restored copies, links, vectors
    and logs. Profile values are left alone; the profile view edits them. Returns how
    many blocks were removed."""
    from aniso.data import forget

    plan = forget.plan_blocks(services.db, list(dict.fromkeys(block_ids)))
    receipt = forget.forget(services, plan, remove_profile=False)
    if not receipt["verified"]:
        from aniso.core.errors import StoreError

        raise StoreError(
            "the blocks were erased, but the erasure could not be verified: run "
            "`aniso reindex`, then forget them again"
        )
    return len(receipt["blocks_removed"])
