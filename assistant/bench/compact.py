"""`aniso bench compact`: what two years of memory cost after the compactor has run.

Anisotropic memory promises that old memory stays findable while getting cheaper:
warm blocks keep a summary and a shrinking share of their episodes, cold blocks a
capsule. This bench fills a fresh data dir with synthetic episodes over about two
years, runs the deterministic (extractive) compactor once at a "now" one day after
the last episode, and reports per tier:

- blocks, and searchable tokens: the block text the index holds (warm: summary,
  keywords, anchors; cold: the capsule, gist + keywords + anchors) plus the live
  episodes as recall returns them (the user's words, found by search, with the
  reply trimmed as recall trims it);
- the hot form of the same blocks: what hot recall would show of all their
  episodes, live or archived, and searchable / hot form (1.0 for hot);
- the stricter view without replies: block text plus live user text, over the
  user text of all the block's episodes (`ratio_to_user_text`);
- bytes: text columns of their episodes and blocks in SQLite, archive payloads;
  plus the Chroma folder and the SQLite files in total.
"""

from __future__ import annotations

import json
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlite_utils

from aniso.bench.scale import bench_settings, close, folder_bytes, sqlite_bytes
from aniso.bench.synthetic import Progress, populate, synthetic_episodes
from aniso.core.clock import SimulatedClock
from aniso.core.tokens import count_tokens
from aniso.services import build
from aniso.tiers import archive
from aniso.tiers.memory import episode_text
from aniso.tiers.model import TIERS

_TEXT_BYTES = "length(CAST({} AS BLOB))"


def _block_tokens(db: sqlite_utils.Database) -> dict[str, int]:
    """Searchable block text per tier: exactly what the block's lexical index holds
    (warm: summary, keywords, anchors; cold: the capsule, gist + keywords + anchors)."""
    found = dict.fromkeys(TIERS, 0)
    rows = db.execute(
        "SELECT tier, summary, keywords, anchors FROM blocks WHERE status = 'active'"
    ).fetchall()
    for tier, summary, keywords, anchors in rows:
        if tier in ("warm", "cold"):
            found[tier] += count_tokens(
                " ".join([summary, *json.loads(keywords), *json.loads(anchors)])
            )
    return found


def _episode_tokens(db: sqlite_utils.Database) -> dict[str, dict[str, int]]:
    """Per tier of their block, live episodes' tokens: `searchable` (the user's words;
    replies are not indexed) and `hot_form` (user text with its reply, as hot recall
    shows it)."""
    found = {name: dict.fromkeys(TIERS, 0) for name in ("searchable", "hot_form")}
    for tier, text, reply in db.execute(
        "SELECT b.tier, e.user_text, e.reply FROM episodes e JOIN blocks b ON b.id = e.block_id "
        "WHERE b.status = 'active'"
    ):
        found["searchable"][tier] += count_tokens(text)
        found["hot_form"][tier] += count_tokens(episode_text(text, reply))
    return found


def _archived_tokens(db: sqlite_utils.Database) -> dict[str, dict[str, int]]:
    """Archived episodes (decompressed) per tier of their block: their hot form and
    their user text alone."""
    found = {name: dict.fromkeys(TIERS, 0) for name in ("user_text", "hot_form")}
    for tier, payload in db.execute(
        "SELECT b.tier, a.payload FROM archive a JOIN blocks b ON b.id = a.block_id "
        "WHERE a.status = 'archived' AND b.status = 'active'"
    ):
        row = archive.unpack(payload)
        found["user_text"][tier] += count_tokens(row["user_text"])
        found["hot_form"][tier] += count_tokens(episode_text(row["user_text"], row["reply"]))
    return found


def _per_tier(db: sqlite_utils.Database, sql: str) -> dict[str, int]:
    found = dict.fromkeys(TIERS, 0)
    for tier, value in db.execute(sql):
        if tier in found:
            found[tier] = int(value or 0)
    return found


def tier_figures(db: sqlite_utils.Database) -> dict[str, dict[str, Any]]:
    """Blocks, episodes, tokens and bytes per tier, read back from SQLite."""
    blocks = _per_tier(
        db, "SELECT tier, count(*) FROM blocks WHERE status = 'active' GROUP BY tier"
    )
    live_count = _per_tier(
        db,
        "SELECT b.tier, count(*) FROM episodes e JOIN blocks b ON b.id = e.block_id "
        "WHERE b.status = 'active' GROUP BY b.tier",
    )
    archived = _per_tier(
        db,
        "SELECT b.tier, count(*) FROM archive a JOIN blocks b ON b.id = a.block_id "
        "WHERE a.status = 'archived' AND b.status = 'active' GROUP BY b.tier",
    )
    archived_tokens = _archived_tokens(db)
    payload = _per_tier(
        db,
        "SELECT b.tier, sum(length(a.payload)) FROM archive a JOIN blocks b "
        "ON b.id = a.block_id WHERE a.status = 'archived' AND b.status = 'active' "
        "GROUP BY b.tier",
    )
    episode_text = _per_tier(
        db,
        "SELECT b.tier, sum({} + coalesce({}, 0)) FROM episodes e JOIN blocks b "
        "ON b.id = e.block_id WHERE b.status = 'active' GROUP BY b.tier".format(
            _TEXT_BYTES.format("e.user_text"), _TEXT_BYTES.format("e.reply")
        ),
    )
    block_text = _per_tier(
        db,
        "SELECT tier, sum({}) FROM blocks WHERE status = 'active' GROUP BY tier".format(
            " + ".join(
                _TEXT_BYTES.format(column)
                for column in ("summary", "keywords", "anchors", "pointers")
            )
        ),
    )
    live_tokens = _episode_tokens(db)
    block_tokens = _block_tokens(db)
    figures: dict[str, dict[str, Any]] = {}
    for tier in TIERS:
        live = live_tokens["searchable"][tier]
        live_form = live_tokens["hot_form"][tier]
        searchable = block_tokens[tier] + live_form
        hot_form = archived_tokens["hot_form"][tier] + live_form
        user_text = archived_tokens["user_text"][tier] + live
        figures[tier] = {
            "blocks": blocks[tier],
            "live_episodes": live_count[tier],
            "archived_episodes": archived[tier],
            "searchable_tokens": searchable,
            "hot_form_tokens": hot_form,
            "ratio": round(searchable / hot_form, 4) if hot_form else None,
            "user_text_tokens": user_text,
            "ratio_to_user_text": round((block_tokens[tier] + live) / user_text, 4)
            if user_text
            else None,
            "bytes": {
                "episode_text": episode_text[tier],
                "block_text": block_text[tier],
                "archive_payload": payload[tier],
                "total": episode_text[tier] + block_text[tier] + payload[tier],
            },
        }
    return figures


def run(count: int, *, progress: Progress | None = None) -> dict[str, Any]:
    """Populate, compact once, and read the tiers back."""
    from aniso.services import make_compactor

    episodes = synthetic_episodes(count)
    now = episodes[-1].at + timedelta(days=1)
    with tempfile.TemporaryDirectory(prefix="aniso-bench-compact-") as folder:
        data_dir = Path(folder)
        services = build(bench_settings(data_dir), clock=SimulatedClock(now))
        try:
            began = time.perf_counter()
            populate(services.controller.memory, episodes, progress=progress)
            populate_s = time.perf_counter() - began
            dense = services.controller.memory.dense
            flush_s: list[float] = []
            original_flush = dense.flush

            def timed_flush(text_of: Any) -> int:
                started = time.perf_counter()
                try:
                    return original_flush(text_of)
                finally:
                    flush_s.append(time.perf_counter() - started)

            total = len(make_compactor(services).candidates(now))
            done = [0]

            def advance() -> None:
                done[0] += 1
                if progress is not None and done[0] % 50 == 0:
                    progress("compacting", done[0], total)

            compactor = make_compactor(services, on_block=advance)
            dense.flush = timed_flush  # type: ignore[method-assign]
            began = time.perf_counter()
            report = compactor.run(now)
            compaction_s = time.perf_counter() - began
            dense.flush = original_flush  # type: ignore[method-assign]
            tiers = tier_figures(services.db)
            live, archived = (
                services.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("episodes", "archive")
            )
            result = {
                "episodes": count,
                "now": now.isoformat(),
                "populate_s": round(populate_s, 1),
                "candidates": total,
                "compaction_s": round(compaction_s, 2),
                "vector_index_s": round(sum(flush_s), 2),
                "compaction": {
                    "moved": len(report.moved),
                    "compressed": len(report.compressed),
                    "archived_episodes": report.archived_episodes,
                    "linked": report.linked,
                    "rolled_back": len(report.rolled_back),
                },
                "live_episodes": live,
                "archived_episodes": archived,
                "tiers": tiers,
                "chroma_bytes": folder_bytes(data_dir / "chroma"),
                "sqlite_bytes": sqlite_bytes(data_dir),
            }
        finally:
            close(services)
    return result
