"""A full disk during a write: nothing already stored is lost, the error is one clear
line, and the next write works once there is space again.

The full disk is real to the process: `RLIMIT_FSIZE` caps the size of any file it
writes, with SIGXFSZ ignored, so every write past the cap fails with EFBIG the way a
full disk fails with ENOSPC, down in SQLite, Chroma and the log alike.
"""

from __future__ import annotations

import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from helpers import RUNNER, one_line_error

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build
from aniso.tiers import memory as memory_module

CAP_BYTES = 64 * 1024  # smaller than the database file: any growth or checkpoint fails
BIG = "the quick brown fox jumps over a lazy dog " * 2300  # about 97 kB, under the input cap


def run(
    *args: str, cap: int | None = None, stdin: bytes = b"", now: SimulatedClock | None = None
) -> subprocess.CompletedProcess:
    """`aniso ARGS` in a child, its files capped at `cap` bytes. With `now`, at the
    store's own simulated time: no nights to catch up on, so only the write is tested."""

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))

    command = [sys.executable, str(RUNNER), "--fake-llm", "Noted.", "--", "--model", "fake/x"]
    if now is not None:
        command += ["--now", now().isoformat()]
    return subprocess.run(
        [*command, *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        preexec_fn=full_disk if cap else None,  # noqa: PLW1509 - only sets limits
    )


def rows(db_path: Path) -> list[tuple]:
    with sqlite3.connect(db_path) as db:
        return db.execute(
            "SELECT id, user_text, reply, status FROM episodes ORDER BY id"
        ).fetchall()


def integrity(db_path: Path) -> str:
    with sqlite3.connect(db_path) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.fixture
def stored(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> list[tuple]:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    for text in ("the boiler service code is 7781", "the plumber comes on Tuesday"):
        services.assistant.send(text)
    services.db.conn.close()
    return rows(data_dir / "aniso.db")


def test_a_full_disk_while_storing_a_message(
    stored: list[tuple], data_dir: Path, clock: SimulatedClock
) -> None:
    db_path = data_dir / "aniso.db"
    assert db_path.stat().st_size > CAP_BYTES
    result = run("ask", "-", cap=CAP_BYTES, stdin=BIG.encode(), now=clock)
    assert result.returncode == 1 and result.stdout == b""
    line = one_line_error(result)
    assert line.startswith("aniso: error: cannot write to the data dir:")
    assert "is the disk full?" in line and "this message was not stored" in line
    assert rows(db_path) == stored and integrity(db_path) == "ok"

    again = run("ask", "space is back, remember the ladder", now=clock)
    assert again.returncode == 0, again.stderr
    assert again.stdout.decode().strip() == "Noted."
    after = rows(db_path)
    assert after[:2] == stored
    assert after[2][1:] == ("space is back, remember the ladder", "Noted.", "answered")


def test_a_full_disk_while_writing_a_backup(stored: list[tuple], tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    result = run("backup", str(target), cap=CAP_BYTES)
    assert result.returncode == 1
    line = one_line_error(result)
    assert line.startswith(f"aniso: error: cannot write the backup {target}")
    assert "free space" in line
    assert not target.exists() and not list(tmp_path.glob("*.partial"))
    assert run("backup", str(target)).returncode == 0
    assert rows(target) == stored


def test_a_full_disk_while_storing_the_reply(
    stored: list[tuple], llm: ScriptedLLM, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    real = memory_module.count_tokens

    def count_tokens(text: str) -> int:
        # Runs inside the reply's transaction: the write fails there, as SQLite would.
        if text == "Tuesday at ten.":
            raise sqlite3.OperationalError("database or disk is full")
        return real(text)

    monkeypatch.setattr(memory_module, "count_tokens", count_tokens)
    llm.reply("Tuesday at ten.")
    reply = services.assistant.send("when does the plumber come?")
    assert reply.text == "Tuesday at ten." and reply.error is not None
    assert "database or disk is full" in reply.error and "the reply was not kept" in reply.error
    assert "\n" not in reply.error
    monkeypatch.setattr(memory_module, "count_tokens", real)
    after = rows(services.settings.db_path)
    assert after[:2] == stored and after[2][1:] == ("when does the plumber come?", None, "pending")
    services.assistant.send("thanks")
    assert rows(services.settings.db_path)[3][3] == "answered"
