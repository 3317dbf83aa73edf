"""A CLI user back after three months: the nights missed run one by one at their own
instant (hot → warm → cold through the nights between), once, whichever command comes
first; one process at a time."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
from pathlib import Path

from helpers import run_cli

YOGA = [
    "My yoga studio is Lotus Flow on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays with Marta",
    "Marta says Lotus Flow will open a second yoga room in Lisbon in spring",
]
BACK = "2026-04-10T09:00:00"  # 95 days after the last message


def aniso(*args: str, now: str) -> subprocess.CompletedProcess[bytes]:
    result = run_cli("--now", now, "--model", "fake/x", *args, fake_reply="noted")
    assert result.returncode == 0, result.stderr.decode()
    return result


def talk() -> None:
    for minute, text in enumerate(YOGA):
        aniso("ask", text, now=f"2026-01-05T10:0{minute}:00")


def events(data_dir: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(data_dir / "aniso.db") as db:
        rows = db.execute(
            "SELECT at, kind, from_tier, to_tier FROM tier_events WHERE block_id = 1 ORDER BY id"
        ).fetchall()
    return [tuple(row) for row in rows]


def runs(data_dir: Path) -> list[str]:
    with sqlite3.connect(data_dir / "aniso.db") as db:
        return [row[0] for row in db.execute("SELECT now FROM compaction_runs ORDER BY id")]


def test_a_long_absence_passes_through_warm_night_by_night(data_dir: Path) -> None:
    talk()
    listed = json.loads(aniso("memory", "list", "--json", now=BACK).stdout)
    assert [(b["id"], b["tier"]) for b in listed["blocks"]] == [(1, "cold")]
    # 14 days after the last message, the first night: warm; its kept share shrinks
    # (3 episodes: 2 kept, then 1); 90 days after, the first night: cold.
    assert events(data_dir) == [
        ("2026-01-20T03:30:00+00:00", "migrate", "hot", "warm"),
        ("2026-03-01T03:30:00+00:00", "compress", "warm", "warm"),
        ("2026-04-06T03:30:00+00:00", "migrate", "warm", "cold"),
    ]
    nights = runs(data_dir)
    assert nights[0] == "2026-01-20T03:30:00+00:00" and nights[-1] == "2026-04-06T03:30:00+00:00"
    assert len(nights) == len(set(nights)) == 77, "each night from warm to cold, once"
    again = aniso("memory", "list", "--json", now="2026-04-10T09:05:00")
    assert runs(data_dir) == nights, "a second command the same day runs nothing"
    assert again.stderr == b""


def test_a_second_process_leaves_the_catch_up_to_the_first(data_dir: Path) -> None:
    talk()
    handle = os.open(data_dir / ".catch-up.lock", os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # as a process in the middle of catching up
        busy = aniso("memory", "list", now=BACK)
    finally:
        os.close(handle)
    assert busy.stderr.decode().splitlines() == [
        "aniso: another Aniso process is catching up on the nights missed; "
        "this command goes on without waiting"
    ]
    assert busy.stdout.decode().split()[:2] == ["1", "hot"] and runs(data_dir) == []
    aniso("memory", "list", "--json", now=BACK)
    assert events(data_dir)[-1] == ("2026-04-06T03:30:00+00:00", "migrate", "warm", "cold")
