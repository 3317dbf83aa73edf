"""Small helpers shared by tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
RUNNER = TESTS / "cli_runner.py"


def run_cli(
    *args: str,
    fake_reply: str | None = None,
    socket_log: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[bytes]:
    """Run `aniso ARGS` as a real subprocess and return its result (bytes)."""
    options: list[str] = []
    if fake_reply is not None:
        options += ["--fake-llm", fake_reply]
    if socket_log is not None:
        options += ["--socket-log", str(socket_log)]
    command = [sys.executable, str(RUNNER), *options, "--", *args]
    return subprocess.run(
        command,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
    )


def one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    """The stderr of a failed command, asserted to be one line and no traceback."""
    text = result.stderr.decode("utf-8", "replace").strip()
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, text
    return text


def nights(services: Any, clock: Any, days: int) -> None:
    """Advance the clock day by day, running the nightly compactor each night."""
    from datetime import timedelta

    compactor = services.compactor()
    for _ in range(days):
        clock.advance(timedelta(days=1))
        compactor.run(clock())


def cold_thread(services: Any, clock: Any, texts: list[str]) -> int:
    """A thread of `texts`, compacted to a cold capsule over 120 nights; its block id."""
    from datetime import timedelta

    for text in texts:
        services.assistant.send(text)
        clock.advance(timedelta(minutes=2))
    clock.advance(timedelta(hours=8))
    services.assistant.send("Unrelated: my car needs new winter tyres soon")
    nights(services, clock, 120)
    (block,) = services.db.execute(
        "SELECT block_id FROM archive WHERE status = 'archived' "
        "GROUP BY block_id HAVING count(*) = ?",
        [len(texts)],
    ).fetchone()
    return int(block)


def python_output(code: str, *, timeout: float = 600) -> str:
    """Run `code` in a fresh interpreter (its own process state: loaded model, threads,
    log callbacks) and return its stdout; a failure shows the child's stderr."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, stdin=subprocess.DEVNULL,
        timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def found_on_reopen(data_dir: Path, db: Any, query: str) -> tuple[Any, list[int]]:
    """Close `db` and open its data dir again through the composition root, which
    derives on open what a migration left noted (`tiers.index.reindex`); return the
    reopened database and the turns its lexical index finds for `query`, that is, what
    a data dir from before a change finds after it."""
    from aniso.core.db import open_db
    from aniso.core.settings import load_settings
    from aniso.services import make_memory
    from aniso.tiers.index import lexical

    assert not lexical.search_scored(db, lexical.EPISODES, query, limit=5)
    db.conn.close()
    reopened = open_db(data_dir)
    make_memory(load_settings(), reopened)
    found = lexical.search_scored(reopened, lexical.EPISODES, query, limit=5)
    return reopened, [i for i, _ in found]
