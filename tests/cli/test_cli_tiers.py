"""`aniso compact`, `aniso doctor`, `aniso memory` and `aniso reindex`, run as a user would."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli


def ask(text: str, now: str) -> None:
    result = run_cli("--now", now, "--model", "fake/x", "ask", text, fake_reply="noted")
    assert result.returncode == 0, result.stderr


def test_compact_moves_blocks_and_reports(data_dir: Path) -> None:
    ask("My yoga studio is Lotus Flow on Rua Augusta in Lisbon", "2026-01-05T10:00:00")
    ask("Lotus Flow yoga classes start at 7 am on Tuesdays", "2026-01-05T10:05:00")
    # Before each run, the nights missed are caught up (`aniso.nightly`): each run is
    # set where no night since the last message was due yet (14 days, then 90).
    warm = run_cli("--now", "2026-01-20T02:00:00", "compact", "--json")
    assert warm.returncode == 0, warm.stderr
    moved = json.loads(warm.stdout)["moved"]
    assert [(m["block_id"], m["from"], m["to"]) for m in moved] == [(1, "hot", "warm")]
    cold = run_cli("--now", "2026-04-05T12:00:00", "compact")
    assert cold.stdout.decode().splitlines()[1].strip().startswith("block 1: warm → cold")
    report = json.loads(run_cli("compact", "--report", "--json").stdout)
    assert report["now"] == "2026-04-05T12:00:00+00:00"
    recalled = json.loads(
        run_cli("--now", "2026-04-05T12:00:00", "memory", "recall", "--json", "yoga studio").stdout
    )
    assert [(i["tier"], i["form"]) for i in recalled["items"]] == [("cold", "gist")]
    listed = json.loads(run_cli("memory", "list", "--tier", "cold", "--json").stdout)
    assert [b["id"] for b in listed["blocks"]] == [1]
    doctor = run_cli("doctor", "--json")
    assert doctor.returncode == 0 and json.loads(doctor.stdout) == {"ok": True, "problems": []}


def test_doctor_finds_a_broken_invariant(data_dir: Path) -> None:
    import sqlite3

    ask("Remember the plumber's name is Jorge", "2026-01-05T10:00:00")
    with sqlite3.connect(data_dir / "aniso.db") as db:
        db.execute("DELETE FROM episode_fts")
    doctor = run_cli("doctor")
    assert doctor.returncode == 1
    assert "lexical index out of step: 0 stale rows, 1 missing" in doctor.stdout.decode()
    assert run_cli("reindex").returncode == 0
    assert run_cli("doctor").returncode == 0


def test_recall_never_presents_a_superseded_taste_as_current(data_dir: Path) -> None:
    ask("I love steak, a ribeye with pepper sauce is my favourite dinner", "2026-01-05T19:00:00")
    ask("I became vegetarian last week, no more meat for me", "2026-02-05T19:00:00")
    recalled = json.loads(
        run_cli("--now", "2026-02-06T19:00:00", "memory", "recall", "--json", "dinner ideas").stdout
    )
    assert recalled["items"], "dinner ideas recall the food memories"
    # Excluded or shown marked outdated, never as current (DESIGN §3, stale memory).
    assert all(item["outdated"] for item in recalled["items"] if "steak" in item["text"])
