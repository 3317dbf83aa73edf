"""The start-of-session digest (push mode): what is open, what changed, what moved.

Memory works while the user is away: the nightly compactor moves blocks down the
tiers, old threads get restored, the profile changes. The digest tells the user
about it once a day, before the first reply of that day (in the user's timezone),
so nothing surprising happens to their memory in silence:

- still open: unresolved problems and tasks (blocks marked `open`);
- changed since the last session: profile values that started or ended;
- moved between tiers: counts per move, with a few named examples.

"The last session" is the latest episode written by another session. The day the
digest was last shown is kept in the `meta` table, so a second call on the same
local day, from any process, returns None.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

import sqlite_utils

from aniso.core.db import transaction
from aniso.tiers import triage
from aniso.tiers.text import stems

META_KEY = "digest_day"
MAX_OPEN = 5
MAX_EXAMPLES = 3
LABEL_CHARS = 70
MAX_TIMELINE = 12
TIMELINE_ALPHA = 0.5
FOLLOW_SHARED = 2


@dataclass(frozen=True)
class Digest:
    since: datetime | None
    open_items: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    timeline: list[str] = field(default_factory=list)
    """On a busy day (triage): what escalated, what followed from what, what was
    decided, in order. It takes the place of the open list."""

    def is_empty(self) -> bool:
        return not (self.open_items or self.changes or self.moves or self.timeline)

    def markdown(self, zone: tzinfo) -> str:
        when = f" ({self.since.astimezone(zone):%d %b %Y})" if self.since else ""
        lines = [f"**Since your last session**{when}"]
        if self.timeline:
            lines += ["", "A busy day, in order:"] + [f"- {entry}" for entry in self.timeline]
        elif self.open_items:
            lines += ["", "Still open:"] + [f"- {item}" for item in self.open_items]
        if self.changes:
            lines += ["", "Changed in your profile:"] + [f"- {item}" for item in self.changes]
        if self.moves:
            moved = ", ".join(f"{count} {move}" for move, count in self.moves.items())
            lines += ["", f"Memory moved: {moved}."] + [f"- {item}" for item in self.examples]
        return "\n".join(lines)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def last_session_end(db: sqlite_utils.Database, session: str) -> datetime | None:
    """When the user last wrote in another session (None for a new user)."""
    row = db.execute("SELECT max(at) FROM episodes WHERE session != ?", [session]).fetchone()
    return datetime.fromisoformat(row[0]) if row and row[0] else None


def _label(db: sqlite_utils.Database, block_id: int) -> str:
    """A short human name for a block: its first live episode, else its keywords."""
    row = db.execute(
        "SELECT user_text FROM episodes WHERE block_id = ? ORDER BY id LIMIT 1", [block_id]
    ).fetchone()
    if row is not None:
        return f'"{_clip(row[0])}"'
    found = db.execute("SELECT keywords FROM blocks WHERE id = ?", [block_id]).fetchone()
    keywords = json.loads(found[0]) if found else []
    return ", ".join(keywords[:3]) or f"block {block_id}"


def open_items(db: sqlite_utils.Database) -> list[str]:
    """Unresolved problems and tasks, newest first."""
    rows = db.execute(
        "SELECT id, last_episode_at FROM blocks WHERE open = 1 AND status = 'active' "
        "ORDER BY last_episode_at DESC LIMIT ?",
        [MAX_OPEN],
    ).fetchall()
    return [f"{_label(db, block_id)} (since {at[:10]})" for block_id, at in rows]


def moves_since(
    db: sqlite_utils.Database, since: datetime | None
) -> tuple[dict[str, int], list[str]]:
    """Tier moves and restores since `since`: counts per move and a few examples."""
    rows = db.execute(
        "SELECT block_id, kind, from_tier, to_tier, detail FROM tier_events "
        "WHERE kind IN ('migrate', 'restore') AND at > ? ORDER BY id",
        [since.isoformat() if since else ""],
    ).fetchall()
    counts: Counter[str] = Counter()
    examples: list[str] = []
    for block_id, kind, from_tier, to_tier, detail in rows:
        move = f"{from_tier} → {to_tier}" + (" (restored)" if kind == "restore" else "")
        counts[move] += 1
        if len(examples) < MAX_EXAMPLES:
            shown = json.loads(detail).get("new_block", block_id) if kind == "restore" else block_id
            examples.append(f"{_label(db, shown)}: {move}")
    return dict(counts), examples


def timeline(db: sqlite_utils.Database, *, now: datetime, zone: tzinfo) -> list[str]:
    """The busy window in order: each message that escalated or decided something,
    with what it follows from (the latest earlier entry on the same thread or sharing
    two of its words)."""
    entries: list[str] = []
    earlier: list[tuple[int, set[str], str]] = []
    for row in triage.recent(db, now=now):
        what = triage.kind(row["user_text"])
        if what is None:
            continue
        at = f"{datetime.fromisoformat(row['at']).astimezone(zone):%H:%M}"
        words = set(stems(row["user_text"]))
        follows = next(
            (
                when
                for block_id, seen, when in reversed(earlier)
                if block_id == row["block_id"] or len(seen & words) >= FOLLOW_SHARED
            ),
            None,
        )
        tail = f" (follows from {follows})" if follows else ""
        entries.append(f"{at} {what}: “{_clip(row['user_text'])}”{tail}")
        earlier.append((row["block_id"], words, at))
    return entries[-MAX_TIMELINE:]


def build(
    db: sqlite_utils.Database,
    *,
    session: str,
    profile_changes: Sequence[str] = (),
    now: datetime | None = None,
    zone: tzinfo | None = None,
) -> Digest:
    """The digest as of `now`; `profile_changes` come from the profile (see chat.py).
    Under triage (α at least TIMELINE_ALPHA) the open list becomes a timeline."""
    since = last_session_end(db, session)
    moves, examples = moves_since(db, since)
    busy: list[str] = []
    if now is not None and triage.load(db, now=now).alpha >= TIMELINE_ALPHA:
        busy = timeline(db, now=now, zone=zone or UTC)
    return Digest(
        since=since,
        open_items=open_items(db),
        changes=list(profile_changes),
        moves=moves,
        examples=examples,
        timeline=busy,
    )


def claim_day(db: sqlite_utils.Database, *, now: datetime, zone: tzinfo) -> bool:
    """True once per local day: records that today's digest has been taken."""
    today = now.astimezone(zone).date().isoformat()
    with transaction(db):
        row = db.execute("SELECT value FROM meta WHERE key = ?", [META_KEY]).fetchone()
        if row is not None and row[0] >= today:
            return False
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [META_KEY, today],
        )
    return True
