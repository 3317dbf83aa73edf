"""`kill -9` in the middle of compacting 10k episodes loses nothing; a rerun finishes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
from helpers import RUNNER, run_cli

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.services import make_memory

EPISODES = 10_000
TOPICS = [
    "garden tomatoes watering",
    "marathon training plan",
    "kitchen renovation tiles",
    "python asyncio bug",
    "trip to Porto in May",
    "guitar chord practice",
    "tax return documents",
    "daughter school concert",
]


def populate(data_dir: Path, clock: SimulatedClock) -> None:
    memory = make_memory(load_settings(), open_db(data_dir))
    rng = np.random.default_rng(7)
    for index in range(EPISODES):
        topic = TOPICS[(index // 10) % len(TOPICS)]
        vector = rng.normal(size=384).astype(np.float32)
        vector /= np.linalg.norm(vector)
        memory.store(
            f"Note {index} about {topic}: detail number {index * 7}",
            at=clock(),
            session="bulk",
            vector=vector,
        )
        clock.advance(timedelta(minutes=1 if index % 10 else 400))
    memory.dense.index.close()


def placement(data_dir: Path) -> tuple[int, int, int]:
    with sqlite3.connect(data_dir / "aniso.db") as db:
        live = db.execute("SELECT count(*) FROM episodes").fetchone()[0]
        archived = db.execute("SELECT count(*) FROM archive WHERE status = 'archived'").fetchone()[
            0
        ]
        both = db.execute(
            "SELECT count(*) FROM episodes WHERE id IN (SELECT episode_id FROM archive)"
        ).fetchone()[0]
    return live, archived, both


def test_kill_during_compaction_then_rerun(data_dir: Path, clock: SimulatedClock) -> None:
    populate(data_dir, clock)
    later = (clock() + timedelta(days=200)).isoformat()
    command = [sys.executable, str(RUNNER), "--", "--now", later, "compact"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy()
    )
    deadline = time.monotonic() + 300
    moved = 0
    while time.monotonic() < deadline and process.poll() is None:
        with sqlite3.connect(data_dir / "aniso.db", timeout=30) as db:
            moved = db.execute("SELECT count(*) FROM tier_events").fetchone()[0]
        if moved >= 20:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the compaction finished before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert 20 <= moved < 1000, moved

    live, archived, both = placement(data_dir)
    assert (live + archived, both) == (EPISODES, 0), "an episode was lost or duplicated"
    rerun = run_cli("--now", later, "compact")
    assert rerun.returncode == 0, rerun.stderr
    live, archived, both = placement(data_dir)
    assert (live, archived, both) == (0, EPISODES, 0), "everything old is cold and archived"
    doctor = run_cli("doctor")
    assert doctor.returncode == 0, doctor.stdout
    again = run_cli("--now", later, "compact", "--json")
    assert b'"moved": []' in again.stdout
