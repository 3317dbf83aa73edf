"""Memory health in numbers: how much is kept per tier, how often memory failed the user.

The miss rate is the share of user messages that were corrections ("I already told
you...", "я же говорила"): each one is a fact the user had to repeat, so it is the
most honest single figure of memory quality in real use. `miss_causes` splits them:
`retrieval` when memory did not supply the fact, `reply` when it did and the reply
ignored it (`aniso.attribution`).
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import Any

import sqlite_utils

from aniso.tiers.blocks import counts_by_tier
from aniso.tiers.triage import load


def memory_stats(db: sqlite_utils.Database, *, now: datetime | None = None) -> dict[str, Any]:
    """A stable, JSON-ready summary; keys are a contract of `aniso stats --json`.
    Given `now`, it adds the busy-day triage: `lambda` (messages and open items per
    hour, recently) and `alpha` (the triage weight it gives)."""

    def count(sql: str, params: list[Any] | None = None) -> int:
        return int(db.execute(sql, params or []).fetchone()[0])

    # Every message the user sent and memory keeps, packed or not: compaction moves a
    # cold block's turns into the archive, and a return after a long pause (which
    # catches up on the nights missed) must not read as "no messages", nor divide the
    # misses by the few turns still hot. Restored copies are not new messages.
    messages = count("SELECT COUNT(*) FROM episodes WHERE origin_id IS NULL") + count(
        "SELECT COUNT(*) FROM archive"
    )
    misses = count("SELECT COUNT(*) FROM audit WHERE kind = 'miss'")
    # Records from before attribution blamed memory every time: they stay retrieval.
    reply = count(
        "SELECT COUNT(*) FROM audit WHERE kind = 'miss' "
        "AND json_extract(detail, '$.cause') = 'reply'"
    )
    tiers = counts_by_tier(db)
    redactions: Counter[str] = Counter()
    for (detail,) in db.execute("SELECT detail FROM audit WHERE kind = 'redaction'"):
        redactions[json.loads(detail).get("type", "UNKNOWN")] += 1
    figures: dict[str, Any] = {
        "messages": messages,
        "answered": count("SELECT COUNT(*) FROM episodes WHERE status = 'answered'"),
        "failed": count("SELECT COUNT(*) FROM episodes WHERE status = 'failed'"),
        "blocks": tiers,
        "archived_episodes": count("SELECT COUNT(*) FROM archive WHERE status = 'archived'"),
        "profile_values": count("SELECT COUNT(*) FROM profile_values WHERE ended IS NULL"),
        "misses": misses,
        "miss_rate": round(misses / messages, 4) if messages else 0.0,
        "miss_causes": {"retrieval": misses - reply, "reply": reply},
        "redactions": dict(sorted(redactions.items())),
    }
    if now is not None:
        found = load(db, now=now)
        figures["lambda"] = round(found.lam, 4)
        figures["alpha"] = round(found.alpha, 4)
    return figures


def render_stats(stats: dict[str, Any]) -> str:
    blocks, causes = stats["blocks"], stats["miss_causes"]
    redacted = ", ".join(f"{kind} {n}" for kind, n in stats["redactions"].items()) or "none"
    return "\n".join(
        [
            f"messages       {stats['messages']} ({stats['answered']} answered, "
            f"{stats['failed']} failed)",
            f"blocks         hot {blocks['hot']}, warm {blocks['warm']}, cold {blocks['cold']}",
            f"archived       {stats['archived_episodes']} episodes",
            f"profile        {stats['profile_values']} current values",
            f"misses         {stats['misses']} corrections, miss rate {stats['miss_rate']:.1%} "
            f"({causes['retrieval']} retrieval, {causes['reply']} reply)",
            f"withheld       {redacted}",
        ]
        + (
            [f"triage         α {stats['alpha']:.2f} at λ {stats['lambda']:.1f} per hour"]
            if "alpha" in stats
            else []
        )
    )
