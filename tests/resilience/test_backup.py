"""`aniso backup`: consistent while another process writes, private, redacted, restorable."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from fakes import ScriptedLLM
from helpers import one_line_error, run_cli

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build

CARD = "4111 1111 1111 1111"
EMAIL = "olga.petrova@example.com"
PASSPORT = "4509 123456"

# A second process that keeps storing messages (with PII) until told to stop.
WRITER = f"""
import sys
from pathlib import Path
from aniso.services import build
from aniso.core.settings import load_settings

stop = Path(sys.argv[1])
services = build(load_settings())
n = 0
while not stop.exists() or n < 30:
    n += 1
    services.controller.observe(
        f"note {{n}}: pay the plumber with card {CARD}, mail {EMAIL}, passport {PASSPORT}"
        + " and more" * 40
    )
print(n)
"""


def count(path: Path) -> int:
    """Episodes stored so far; none while the writer is still creating the schema.

    The writer's first connection makes the file before its tables, so a poll can
    see a database with no `episodes` table yet: that is "not going yet", not a fault.
    """
    with closing(sqlite3.connect(path)) as db:
        try:
            return db.execute("SELECT count(*) FROM episodes").fetchone()[0]
        except sqlite3.OperationalError as error:
            if "no such table" not in str(error):
                raise
            return 0


def wait_for(predicate, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the writer never got going"
        time.sleep(0.2)


def assert_no_pii(data: bytes) -> None:
    for value in (CARD, CARD.replace(" ", ""), EMAIL, PASSPORT):
        assert value.encode() not in data


def test_backup_while_another_process_writes(data_dir: Path, tmp_path: Path) -> None:
    stop = tmp_path / "stop"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(stop)], stdout=subprocess.PIPE)
    try:
        db = data_dir / "aniso.db"
        wait_for(lambda: db.exists() and count(db) >= 5)
        target = tmp_path / "copies" / "memory.db"
        target.parent.mkdir()
        result = run_cli("backup", str(target), "--json")
        stop.touch()
        written = int(writer.communicate(timeout=300)[0])
    finally:
        stop.touch()
        writer.wait(timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["path"] == str(target.resolve()) and report["integrity"] == "ok"
    assert report["contains"] == ["database"] and "aniso reindex" in report["excluded"]["vectors"]
    assert 5 <= report["episodes"] <= written == count(db)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not list(target.parent.glob("*.partial")) and sorted(target.parent.iterdir()) == [target]

    with sqlite3.connect(target) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        ids = [row[0] for row in copy.execute("SELECT id FROM episodes ORDER BY id")]
        assert ids == list(range(1, report["episodes"] + 1))  # one snapshot, no holes
        queued = {row[0] for row in copy.execute("SELECT ref FROM outbox")}
        assert queued == {f"e:{i}" for i in ids}
    assert_no_pii(target.read_bytes())

    restored = tmp_path / "restored"
    restored.mkdir(mode=0o700)
    shutil.copy2(target, restored / "aniso.db")
    doctor = run_cli("doctor", "--data-dir", str(restored), "--json")
    assert (doctor.returncode, json.loads(doctor.stdout)) == (0, {"ok": True, "problems": []})
    reindex = run_cli("--data-dir", str(restored), "reindex")
    assert reindex.returncode == 0, reindex.stderr
    assert run_cli("doctor", "--data-dir", str(restored)).returncode == 0


def test_default_path_text_output_and_recall_after_restore(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path, tmp_path: Path
) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    services.assistant.send(f"my card is {CARD} and the cat is called Barsik")
    result = run_cli("--now", "2026-02-03T04:05:06+00:00", "backup")
    assert result.returncode == 0, result.stderr
    target = data_dir.parent / "aniso-backup-20260203T040506.db"
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith(f"backed up 1 episodes to {target} (")
    assert "mode 0600, integrity ok)" in lines[0]
    assert "vector index" in lines[1] and "aniso reindex" in lines[1]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert_no_pii(target.read_bytes())
    assert result.stderr == b""  # no progress bar without a terminal

    restored = tmp_path / "restored"
    restored.mkdir(mode=0o700)
    shutil.copy2(target, restored / "aniso.db")
    again = build(load_settings({"model": "fake/x", "data_dir": restored}), clock=clock)
    recalled = again.controller.memory.recall("what is the cat called", now=clock())
    assert recalled.warnings == [] and "Barsik" in recalled.items[0].text
    assert again.controller.memory.dense.index.ids() == {"e:1"}  # refilled on first use


def test_backup_refuses_to_overwrite_or_to_live_in_the_data_dir(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path, tmp_path: Path
) -> None:
    build(load_settings({"model": "fake/x"}), clock=clock).assistant.send("hello")
    existing = tmp_path / "old.db"
    existing.write_bytes(b"an older backup")
    result = run_cli("backup", str(existing))
    assert result.returncode == 1 and "already exists" in one_line_error(result)
    assert existing.read_bytes() == b"an older backup"
    inside = run_cli("backup", str(data_dir / "copy.db"))
    assert inside.returncode == 1 and "inside the data dir" in one_line_error(inside)
    assert not (data_dir / "copy.db").exists()
    nowhere = run_cli("--data-dir", str(tmp_path / "empty"), "backup", str(tmp_path / "x.db"))
    assert nowhere.returncode == 1 and "no memory to back up" in one_line_error(nowhere)
