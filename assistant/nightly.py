"""Catching up on the nights missed, one night at a time.

The nightly compactor runs on a schedule only while the TUI is open. A user of the
CLI who comes back after three months would otherwise see one jump (hot straight to
cold), not the nights in between: the warm stage, with its shrinking kept share, would
never happen. So any command first runs each missed night at its own instant, as the
schedule would have.

Where it got to is the compactor's own log (`compaction_runs`, one committed row per
night), so an interrupted catch-up resumes at the next night. A night on which no
block is idle long enough to move is a no-op and is skipped without a row. One process
catches up at a time: a second one finds the lock taken, says so, and goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlite_utils

from aniso.core.db import try_lock
from aniso.core.ports import Progress
from aniso.core.settings import Settings
from aniso.scheduler import nights
from aniso.tiers.compaction import Compactor, last_report

LOCK_NAME = ".catch-up.lock"
BUSY = (
    "another Aniso process is catching up on the nights missed; "
    "this command goes on without waiting"
)


@dataclass(frozen=True)
class CatchUp:
    """What a catch-up did: the nights run, and whether another process held it."""

    nights: int = 0
    busy: bool = False


def _first_idle(db: sqlite_utils.Database) -> datetime | None:
    """The oldest last access among blocks the compactor may still move (not cold)."""
    row = db.execute(
        "SELECT min(last_access) FROM blocks WHERE status = 'active' AND tier != 'cold'"
    ).fetchone()
    return datetime.fromisoformat(row[0]) if row and row[0] else None


def pending(db: sqlite_utils.Database, settings: Settings, now: datetime) -> list[datetime]:
    """The nights to run, in order: after the last compaction (or the oldest block's
    last access, before any), up to `now`, from the first on which a block is due."""
    oldest = _first_idle(db)
    if oldest is None:
        return []
    report = last_report(db)
    start = datetime.fromisoformat(report["now"]) if report else oldest
    due = oldest + timedelta(days=settings.hot_days)
    return [
        night
        for night in nights(start, now, at=settings.compact_at, zone=settings.timezone)
        if night >= due
    ]


def _due(db: sqlite_utils.Database, night: datetime, settings: Settings) -> bool:
    oldest = _first_idle(db)
    return oldest is not None and oldest + timedelta(days=settings.hot_days) <= night


def catch_up(
    compactor: Compactor,
    now: datetime,
    *,
    start_progress: Callable[[int], Progress] | None = None,
) -> CatchUp:
    """Run every missed night at its own instant; `start_progress(total)` is called
    once there is work, and its callback told of each night done."""
    db, settings = compactor.db, compactor.settings
    if not pending(db, settings, now):
        return CatchUp()  # the common case: no lock, one query
    with try_lock(settings.data_dir / LOCK_NAME) as held:
        if not held:
            return CatchUp(busy=True)
        todo = pending(db, settings, now)  # again: the holder before us may have run them
        advance = start_progress(len(todo)) if start_progress and todo else None
        ran = 0
        for night, last in _with_last(todo):
            if _due(db, night, settings):  # blocks that all went cold leave nothing to do
                compactor.run(night, settle=last)
                ran += 1
            if advance is not None:
                advance(1)
        return CatchUp(nights=ran)


def _with_last(items: list[datetime]) -> Iterator[tuple[datetime, bool]]:
    for index, item in enumerate(items):
        yield item, index == len(items) - 1
