"""`aniso backup`: a consistent copy of memory, taken while the app runs.

What a backup holds: the SQLite database, which is the whole memory (episodes,
blocks, archive, links, the profile with its history, the audit log). It leaves out
what is derived or disposable: the vector index (rebuilt from the database) and the
log. The copy's outbox queues every item, so a restored store refills its vector
index by itself on first use; `aniso reindex` does it at once.

Consistency: SQLite's online backup API copies page by page; the source connection
holds one read transaction for the whole copy, so the pages all come from one
snapshot. In WAL mode a writer in another process neither waits for the backup nor
forces it to restart.

Privacy: everything in the store was redacted before it was written, so the copy
holds no more than the store does. The file is created 0600, never over an
existing file, and written under a temporary name until it is complete.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from aniso.core.db import BUSY_TIMEOUT_MS, PRIVATE_FILE, is_write_failure
from aniso.core.errors import InputError, StoreError
from aniso.tiers.index.dense import queue_everything

PAGES_PER_STEP = 256
EXCLUDED = {
    "vectors": "derived from the database: rebuilt on first use, or now with `aniso reindex`",
    "log": "aniso.log is diagnostics, not memory",
}

Progress = Callable[[int, int], None]
"""Called as `progress(pages_done, pages_total)` after each step of the copy."""


@dataclass(frozen=True)
class BackupReport:
    path: str
    bytes: int
    pages: int
    episodes: int
    integrity: str
    mode: str = "0600"

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "contains": ["database"], "excluded": EXCLUDED}


def default_path(data_dir: Path, now: datetime) -> Path:
    """Beside the data dir, not in it: a backup must outlive the folder it protects."""
    return data_dir.resolve().parent / f"aniso-backup-{now:%Y%m%dT%H%M%S}.db"


def target_path(requested: Path | None, data_dir: Path, now: datetime) -> Path:
    """Where the backup goes: the given file, a timestamped file in the given folder,
    or the default. Refuses an existing file and anywhere inside the data dir."""
    if requested is None:
        target = default_path(data_dir, now)
    elif requested.is_dir():
        target = requested / default_path(data_dir, now).name
    else:
        target = requested
    target = target.resolve()
    if target.is_relative_to(data_dir.resolve()):
        raise InputError(
            f"{target} is inside the data dir {data_dir}; put the backup elsewhere, "
            "where it survives the loss of the data dir"
        )
    if target.exists():
        raise InputError(f"{target} already exists; choose another path or remove it")
    if not target.parent.is_dir():
        raise InputError(f"folder {target.parent} does not exist; create it first")
    return target


def backup(db_path: Path, target: Path, *, progress: Progress | None = None) -> BackupReport:
    """Copy the database at `db_path` to `target` (0600), check the copy, report it."""
    if not db_path.is_file():
        raise InputError(f"there is no memory to back up at {db_path}")
    partial = target.with_name(target.name + ".partial")
    try:
        _create_private(partial)
        _copy(db_path, partial, progress)
        episodes, integrity = _finish(partial)
        if integrity != "ok":
            raise StoreError(f"the backup failed its integrity check ({integrity}); try again")
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as error:
        if isinstance(error, sqlite3.Error) and not is_write_failure(error):
            raise StoreError(f"the backup to {target} failed: {error}") from None
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise StoreError(
            f"cannot write the backup {target}: {reason}; check the free space and that "
            "the folder is writable (the memory itself is untouched)"
        ) from None
    finally:
        partial.unlink(missing_ok=True)
    pages = target.stat().st_size // _page_size(target)
    return BackupReport(str(target), target.stat().st_size, pages, episodes, integrity)


def _create_private(path: Path) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))


def _copy(db_path: Path, partial: Path, progress: Progress | None) -> None:
    source = sqlite3.connect(db_path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    target = sqlite3.connect(partial, isolation_level=None)
    try:
        source.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        source.execute("BEGIN")  # one read snapshot for the whole copy
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()

        def step(_status: int, remaining: int, total: int) -> None:
            if progress is not None:
                progress(total - remaining, total)

        source.backup(target, pages=PAGES_PER_STEP, progress=step, sleep=0)
        source.execute("COMMIT")
    finally:
        source.close()
        target.close()


def _finish(partial: Path) -> tuple[int, str]:
    """Make the copy one self-contained file, queue its vectors, and check it."""
    copy = sqlite3.connect(partial, isolation_level=None)
    try:
        copy.execute("PRAGMA journal_mode = DELETE")  # no -wal file beside a backup
        copy.execute("BEGIN IMMEDIATE")
        copy.execute("DELETE FROM outbox")
        queue_everything(copy)
        copy.execute("COMMIT")
        integrity = "; ".join(row[0] for row in copy.execute("PRAGMA integrity_check"))
        episodes = copy.execute("SELECT count(*) FROM episodes").fetchone()[0]
    finally:
        copy.close()
    with open(partial, "rb+") as handle:
        os.fsync(handle.fileno())
    return int(episodes), integrity


def _page_size(path: Path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return int(db.execute("PRAGMA page_size").fetchone()[0])
