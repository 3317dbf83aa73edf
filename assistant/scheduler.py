"""The nightly compactor: an APScheduler cron job in the user's timezone.

APScheduler 3's default misfire grace is one second, which silently drops a run the
laptop slept through; we coalesce and allow a day of grace, and at start-up we run
at once when the last run is older than the last scheduled time (catch-up). Jobs run
in threads, so each run opens its own database connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from aniso.core.settings import Settings

log = logging.getLogger(__name__)
JOB_ID = "nightly-compaction"
REFRESH_JOB_ID = "thread-refresh"
REFRESH_EVERY_MINUTES = 60
"""Thread briefs fall due on their own interval (24 h to 168 h, in hours): an hourly
check writes each within the hour; a check with nothing due reads a few rows."""


def last_scheduled(settings: Settings, now: datetime) -> datetime:
    """The most recent nightly slot at or before `now`, in UTC."""
    zone = ZoneInfo(settings.timezone)
    hour, minute = (int(part) for part in settings.compact_at.split(":"))
    local = now.astimezone(zone)
    slot = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if slot > local:
        slot -= timedelta(days=1)
    return slot.astimezone(ZoneInfo("UTC"))


def nights(start: datetime, end: datetime, *, at: str, zone: str) -> Iterator[datetime]:
    """The nightly slots (`at`, local time in `zone`) in (start, end], in UTC.

    The one home of "which nights passed": the scheduler's catch-up, the scenario
    runner and the LoCoMo replay all step through simulated time with it. Each slot is
    set on the local calendar day, so a night stays at `at` across DST changes.
    """
    hour, minute = (int(part) for part in at.split(":"))
    local = start.astimezone(ZoneInfo(zone))
    slot = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if slot <= local:
        slot += timedelta(days=1)
    while slot <= end:
        yield slot.astimezone(ZoneInfo("UTC"))
        slot = (slot + timedelta(days=1)).replace(hour=hour, minute=minute)


def needs_catch_up(settings: Settings, now: datetime, last_run: datetime | None) -> bool:
    return last_run is None or last_run < last_scheduled(settings, now)


def start(
    settings: Settings,
    run: Callable[[], Any],
    *,
    last_run: datetime | None,
    now: datetime,
    refresh: Callable[[], Any] | None = None,
    catch_up: Callable[[], Any] | None = None,
) -> Any:
    """Start the background scheduler; at once, if a night was missed, runs `catch_up`
    (the missed nights one by one), or else `run` once.

    `refresh` (push refresh of open threads) runs beside it: at once (catch-up) and
    then every REFRESH_EVERY_MINUTES."""
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    hour, minute = (int(part) for part in settings.compact_at.split(":"))
    scheduler = BackgroundScheduler(timezone=ZoneInfo(settings.timezone))
    scheduler.add_job(
        run,
        CronTrigger(hour=hour, minute=minute, timezone=ZoneInfo(settings.timezone)),
        id=JOB_ID,
        coalesce=True,
        max_instances=1,
        misfire_grace_time=24 * 3600,
        replace_existing=True,
    )
    if needs_catch_up(settings, now, last_run):
        scheduler.add_job(catch_up or run, id=f"{JOB_ID}-catch-up", max_instances=1)
    if refresh is not None:
        scheduler.add_job(
            refresh,
            IntervalTrigger(minutes=REFRESH_EVERY_MINUTES),
            id=REFRESH_JOB_ID,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=REFRESH_EVERY_MINUTES * 60,
            replace_existing=True,
        )
        scheduler.add_job(refresh, id=f"{REFRESH_JOB_ID}-catch-up", max_instances=1)
    scheduler.start()
    return scheduler


def next_run(scheduler: Any) -> datetime | None:
    job = scheduler.get_job(JOB_ID)
    return job.next_run_time if job is not None else None
