"""The nightly compactor's schedule: the user's timezone, and catch-up after a missed night."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from aniso.core.settings import load_settings
from aniso.scheduler import JOB_ID, last_scheduled, needs_catch_up, next_run, start


def test_last_slot_is_in_the_users_timezone() -> None:
    settings = load_settings({"timezone": "Europe/Moscow", "compact_at": "03:30"})
    now = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)  # 04:00 in Moscow
    assert last_scheduled(settings, now) == datetime(2026, 3, 10, 0, 30, tzinfo=UTC)
    early = datetime(2026, 3, 10, 0, 0, tzinfo=UTC)  # 03:00 in Moscow: yesterday's slot
    assert last_scheduled(settings, early) == datetime(2026, 3, 9, 0, 30, tzinfo=UTC)


def test_catch_up_only_when_a_night_was_missed() -> None:
    settings = load_settings({"compact_at": "03:30"})
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert needs_catch_up(settings, now, None)
    assert needs_catch_up(settings, now, datetime(2026, 3, 9, 4, 0, tzinfo=UTC))
    assert not needs_catch_up(settings, now, datetime(2026, 3, 10, 3, 31, tzinfo=UTC))


def test_scheduler_runs_a_missed_night_at_start_up() -> None:
    settings = load_settings({"timezone": "Asia/Shanghai"})
    ran = threading.Event()
    scheduler = start(settings, ran.set, last_run=None, now=datetime.now(UTC))
    try:
        assert ran.wait(10), "the catch-up run did not happen"
        job = scheduler.get_job(JOB_ID)
        assert job.misfire_grace_time >= 3600 and job.coalesce
        upcoming = next_run(scheduler)
        assert upcoming is not None and upcoming.utcoffset().total_seconds() == 8 * 3600
    finally:
        scheduler.shutdown(wait=False)
