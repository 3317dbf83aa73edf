"""`aniso export --format md`: a digest a person can read, by tier and by date.

Not a backup (JSON is): it shows the profile and, per tier, each day's blocks in
the form that tier keeps (hot: the messages, warm: summary and kept messages, cold:
the capsule), with what the archive holds. Streamed like the JSON export, from one
snapshot, and through the privacy guard.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import sqlite_utils

from aniso.core.db import transaction
from aniso.data.export import (
    ExportReport,
    Progress,
    Redact,
    block_record,
    cached,
    private_output,
    profile_record,
)
from aniso.tiers.model import TIERS

TITLES = {"hot": "Hot: recent, in full", "warm": "Warm: summaries", "cold": "Cold: capsules"}


def _one_line(text: str, limit: int = 400) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _profile(out: IO[str], db: sqlite_utils.Database, redact: Redact) -> int:
    out.write("## Profile\n\n")
    count = 0
    for row in db.query("SELECT * FROM profile_values ORDER BY field, since, id"):
        record = profile_record(row, redact)
        value = record["value"]
        shown = value.get("said") or value.get("value") if isinstance(value, dict) else value
        state = "current" if record["ended"] is None else f"until {record['ended'][:10]}"
        out.write(f"- **{record['field']}**: {_one_line(str(shown))} ")
        out.write(f"(since {record['since'][:10]}, {state}, {record['source']})\n")
        count += 1
    if not count:
        out.write("(empty)\n")
    out.write("\n")
    return count


def _block(out: IO[str], record: dict[str, Any]) -> None:
    marks = [name for name, on in record["markers"].items() if on]
    flags = f" — {', '.join(marks)}" if marks else ""
    status = "" if record["status"] == "active" else f" ({record['status']})"
    out.write(f"#### Block {record['id']}{status}{flags}\n\n")
    if record["summary"]:
        label = "Gist" if record["tier"] == "cold" else "Summary"
        out.write(f"{label}: {_one_line(record['summary'], 1200)}\n\n")
    if record["keywords"]:
        out.write(f"Keywords: {', '.join(record['keywords'])}\n\n")
    if record["anchors"]:
        out.write(f"Anchors: {', '.join(record['anchors'])}\n\n")
    for episode in record["episodes"]:
        out.write(f"- {episode['at'][11:16]} you: {_one_line(episode['user_text'])}\n")
        if episode["reply"]:
            out.write(f"  - aniso: {_one_line(episode['reply'])}\n")
    if record["archive"]:
        out.write(f"\nArchived ({len(record['archive'])}):\n\n")
        for item in record["archive"]:
            episode = item["episode"]
            out.write(f"- {episode['at'][:16]} you: {_one_line(episode['user_text'])}\n")
    out.write("\n")


def export_markdown(
    db: sqlite_utils.Database,
    path: Path,
    *,
    redact: Redact,
    progress: Progress | None = None,
    title: Callable[[], str] | None = None,
) -> ExportReport:
    """Write the digest; blocks newest first within each tier, grouped by day."""
    redact = cached(redact)
    counts = {"episodes": 0, "archived": 0}
    blocks: dict[str, int] = {}
    with private_output(path) as out, transaction(db, immediate=False):
        out.write(f"# {title() if title else 'Aniso memory'}\n\n")
        profile = _profile(out, db, redact)
        for tier in TIERS:
            out.write(f"## {TITLES[tier]}\n\n")
            day = None
            blocks[tier] = 0
            rows = db.query(
                "SELECT * FROM blocks WHERE tier = ? ORDER BY last_episode_at DESC, id DESC",
                [tier],
            )
            for row in rows:
                record = block_record(db, row, redact)
                if record["last_episode_at"][:10] != day:
                    day = record["last_episode_at"][:10]
                    out.write(f"### {day}\n\n")
                _block(out, record)
                blocks[tier] += 1
                counts["episodes"] += len(record["episodes"])
                counts["archived"] += len(record["archive"])
                if progress is not None:
                    progress(1)
            if not blocks[tier]:
                out.write("(nothing)\n\n")
        links = db.execute("SELECT count(*) FROM links").fetchone()[0]
        events = db.execute("SELECT count(*) FROM tier_events").fetchone()[0]
    return ExportReport(
        path=str(path),
        format="md",
        bytes=path.stat().st_size,
        blocks=blocks,
        episodes=counts["episodes"],
        archived=counts["archived"],
        profile_values=profile,
        links=int(links),
        tier_events=int(events),
    )
