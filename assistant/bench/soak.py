"""`aniso bench soak`: a year of chat through the controller; does anything creep?

N messages (20,000 by default) are spread over a simulated year, a session a day,
through the same `Assistant` the app uses, with a canned model reply (litellm's
`mock_response`, so the whole gateway path runs but nothing leaves the machine). The
nightly compactor runs after each simulated day. We report what would show a leak:

- per-message latency (wall and CPU) of the first and the last thousand messages;
- the process RSS at the start and at the end, and after every tenth of the run;
- database bytes against the text memory holds (every message and reply, live or
  archived): the growth per text byte in the second half over that in the first,
  and the same once the first messages have gone cold (before that, messages have
  not yet left their summaries, capsules and archive rows), which is about 1 when
  the store grows no faster than what it keeps;
- how many blocks deep unpacking restored, per 1,000 messages (gist first: a
  passing mention of an old topic restores nothing);
- per-message CPU of the turns that restored nothing, since only an old memory can
  be unpacked and the first weeks have none;
- that every message is stored exactly once (live or archived, by a unique tag), and
  the `aniso doctor` checks.

Timings are figures, never assertions: on a shared machine they are noisy.
"""

from __future__ import annotations

import re
import sqlite3
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import percentile, rss_mb
from aniso.bench.scale import folder_bytes, sqlite_bytes
from aniso.bench.synthetic import Progress, messages
from aniso.core.clock import SimulatedClock, parse_instant
from aniso.core.runtime import arena_limit
from aniso.core.settings import Settings
from aniso.llm.gateway import LLMGateway
from aniso.services import Services, build
from aniso.tiers import archive
from aniso.tiers.doctor import check

START = "2025-01-06T08:00:00+00:00"
DAYS = 365
MOCK_REPLY = "Noted, I will keep that in mind."
TAG = re.compile(r"\(soak (\d+)\)")
SAMPLES = 10


def _window(values: list[float], size: int) -> dict[str, float]:
    return {
        "p50": round(percentile(values[:size], 0.5) * 1000, 2),
        "p95": round(percentile(values[:size], 0.95) * 1000, 2),
    }


def latency(
    wall: list[float], cpu: list[float], size: int, unpacked: list[int] | None = None
) -> dict[str, Any]:
    """p50/p95 in ms of the first and the last `size` messages, wall and CPU.

    `unpacked[i]` is how many blocks message i restored. Unpacking is work only an
    old memory can cause, so the first weeks have none: the CPU figures of the
    turns that restored nothing compare like with like.
    """
    report: dict[str, Any] = {
        "window": size,
        "first_wall_ms": _window(wall, size),
        "last_wall_ms": _window(wall[-size:], size),
        "first_cpu_ms": _window(cpu, size),
        "last_cpu_ms": _window(cpu[-size:], size),
    }
    if unpacked is not None:
        first, last = unpacked[:size], unpacked[-size:]
        plain_first = [t for t, n in zip(cpu[:size], first, strict=True) if not n]
        plain_last = [t for t, n in zip(cpu[-size:], last, strict=True) if not n]
        report["unpacking_turns"] = {
            "first": sum(1 for n in first if n),
            "last": sum(1 for n in last if n),
        }
        report["first_cpu_ms_without_unpacking"] = _window(plain_first, len(plain_first))
        report["last_cpu_ms_without_unpacking"] = _window(plain_last, len(plain_last))
        report["cpu_p50_ms_by_tenth_without_unpacking"] = by_tenth(cpu, unpacked)
    return report


def by_tenth(cpu: list[float], unpacked: list[int]) -> list[float]:
    """CPU p50 in ms of the turns that restored nothing, for each tenth of the run:
    first against last thousand says whether latency moved, this says when (a rise
    that levels off is a store filling up; a steady climb would be a leak)."""
    count = len(cpu)
    tenths: list[float] = []
    for part in range(SAMPLES):
        lo, hi = part * count // SAMPLES, (part + 1) * count // SAMPLES
        plain = [t for t, n in zip(cpu[lo:hi], unpacked[lo:hi], strict=True) if not n]
        tenths.append(round(percentile(plain, 0.5) * 1000, 2) if plain else 0.0)
    return tenths


def held_tags(db_path: Path) -> dict[int, int]:
    """How many live episodes or archived rows hold each message tag (restored
    archive rows are superseded by their live copy, so they do not count)."""
    connection = sqlite3.connect(db_path)
    try:
        texts = [row[0] for row in connection.execute("SELECT user_text FROM episodes")]
        texts += [
            archive.unpack(row[0])["user_text"]
            for row in connection.execute("SELECT payload FROM archive WHERE status = 'archived'")
        ]
    finally:
        connection.close()
    counts: dict[int, int] = {}
    for text in texts:
        for tag in TAG.findall(text or ""):
            counts[int(tag)] = counts.get(int(tag), 0) + 1
    return counts


def _db_bytes(services: Services) -> int:
    """The database after a checkpoint, so a WAL that is about to be folded in does
    not count twice."""
    services.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sqlite_bytes(services.settings.data_dir)


def _rate(a: dict[str, int], b: dict[str, int]) -> float | None:
    text = b["text_bytes"] - a["text_bytes"]
    return round((b["db_bytes"] - a["db_bytes"]) / text, 3) if text > 0 else None


def _halves(samples: list[dict[str, int]]) -> tuple[float | None, float | None, float | None]:
    first, middle, last = samples[0], samples[len(samples) // 2], samples[-1]
    early, late = _rate(first, middle), _rate(middle, last)
    ratio = round(late / early, 3) if early and late is not None else None
    return early, late, ratio


def growth(samples: list[dict[str, int]], *, settled_at: int = 0) -> dict[str, Any]:
    """Database bytes per text byte over each half, and their ratio (second / first).

    The halves of the whole run compare a start when nothing is old yet with a time
    when every message also leaves a summary, a capsule and an archive row, so their
    ratio is above 1 even when the store grows linearly. The `settled_` figures
    start at message `settled_at`, when the first messages have been through their
    whole lifecycle (hot, warm, cold): a ratio near 1 there is linear growth.
    """
    early, late, ratio = _halves(samples)
    report: dict[str, Any] = {
        "first_half_bytes_per_text_byte": early,
        "second_half_bytes_per_text_byte": late,
        "ratio": ratio,
    }
    settled = [sample for sample in samples if sample["messages"] >= settled_at]
    if settled_at and len(settled) >= 3:
        early, late, ratio = _halves(settled)
        report |= {
            "settled_after_messages": settled[0]["messages"],
            "settled_first_half_bytes_per_text_byte": early,
            "settled_second_half_bytes_per_text_byte": late,
            "settled_ratio": ratio,
        }
    return report


def _settled_at(count: int, settings: Settings) -> int:
    """The message from which the first messages have reached cold: their block
    migrates `cold_days` after it was last used, checked at the next night."""
    return min(count, int(count * (settings.cold_days + 1) / DAYS) + 1)


def run(
    count: int,
    *,
    settings: Settings,
    work_dir: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Send `count` messages over a simulated year and report the creep figures."""
    data_dir = work_dir or Path(tempfile.mkdtemp(prefix="aniso-bench-soak-"))
    settings = settings.model_copy(
        update={"data_dir": data_dir, "model": "openai/aniso-soak-mock", "llm_extraction": "off"}
    )
    clock = SimulatedClock(parse_instant(START))
    gateway = LLMGateway(settings, extra_args={"mock_response": MOCK_REPLY})
    services = build(settings, clock=clock, gateway=gateway)
    compactor = services.compactor()
    texts = messages(count, seed=9)
    wall: list[float] = []
    cpu: list[float] = []
    unpacked: list[int] = []
    samples: list[dict[str, int]] = []
    rss = {"start_mb": 0.0, "end_mb": 0.0, "samples_mb": []}
    text_bytes = 0
    errors = 0
    nights = 0
    first_day = clock()
    day = 0
    for index, text in enumerate(texts):
        if index * DAYS // count > day:  # a new day: its night's compaction first
            day = index * DAYS // count
            clock.set((first_day + timedelta(days=day)).replace(hour=3, minute=30))
            compactor.run(clock())
            nights += 1
            clock.set(first_day + timedelta(days=day))
        message = f"{text} (soak {index})"
        began_wall, began_cpu = time.perf_counter(), time.process_time()
        reply = services.assistant.send(message)
        wall.append(time.perf_counter() - began_wall)
        cpu.append(time.process_time() - began_cpu)
        unpacked.append(len(services.controller.restored))
        errors += reply.error is not None
        text_bytes += len(message.encode()) + len(reply.text.encode())
        clock.advance(timedelta(minutes=2))
        if index == 0:
            rss["start_mb"] = rss_mb()
            samples.append(
                {"messages": 1, "db_bytes": _db_bytes(services), "text_bytes": text_bytes}
            )
        if (index + 1) % max(1, count // SAMPLES) == 0 or index + 1 == count:
            rss["samples_mb"].append(rss_mb())
            samples.append(
                {"messages": index + 1, "db_bytes": _db_bytes(services), "text_bytes": text_bytes}
            )
        if progress is not None:
            progress("soak", index + 1, count)
    clock.set((first_day + timedelta(days=DAYS)).replace(hour=3, minute=30))
    compactor.run(clock())
    nights += 1
    rss["end_mb"] = rss_mb()
    rss["malloc_arena_max"] = arena_limit()
    held = held_tags(settings.db_path)
    problems = check(services.db, services.controller.memory.dense)
    tiers = dict(
        services.db.execute(
            "SELECT tier, count(*) FROM blocks WHERE status = 'active' GROUP BY tier"
        )
    )
    archived_rows = services.db.execute("SELECT count(*) FROM archive").fetchone()[0]
    services.db.conn.close()
    return {
        "messages": count,
        "simulated_days": DAYS,
        "nights_compacted": nights,
        "errors": errors,
        "latency": latency(wall, cpu, min(1000, max(1, count // 2)), unpacked),
        "restores": sum(unpacked),
        "restores_per_1000_messages": round(1000 * sum(unpacked) / max(1, count), 1),
        "rss": rss,
        "storage": {
            "samples": samples,
            "growth": growth(samples, settled_at=_settled_at(count, settings)),
            "db_bytes": samples[-1]["db_bytes"],
            "text_bytes": text_bytes,
            "chroma_bytes": folder_bytes(data_dir / "chroma"),
            "archived_rows": archived_rows,
            "blocks_per_tier": tiers,
        },
        "stored_once": sum(1 for n in held.values() if n == 1),
        "missing": [i for i in range(count) if i not in held][:20],
        "duplicated": sorted(i for i, n in held.items() if n > 1)[:20],
        "doctor_problems": problems,
        "data_dir": str(data_dir),
    }
