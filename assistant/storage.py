"""Opening the data dir and its SQLite database, the source of truth.

Everything Aniso persists lives under one data dir, created 0700 with files 0600,
because it holds a person's memory. SQLite runs in WAL mode with a busy timeout, so
the TUI, the nightly compactor and a second CLI process can share it.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlite_utils

from aniso.errors import StoreError
from aniso.schema import migrate

BUSY_TIMEOUT_MS = 10_000
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def ensure_data_dir(path: Path) -> Path:
    """Create the data dir (0700) or fail with a message that names it."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        os.chmod(path, PRIVATE_DIR)
        probe = path / ".write-probe"
        probe.touch(mode=PRIVATE_FILE)
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        raise StoreError(
            f"cannot use data dir {path}: {reason}; set --data-dir or ANISO_DATA_DIR "
            "to a writable folder"
        ) from None
    return path


def loose_permissions(path: Path) -> list[Path]:
    """Files and folders under the data dir readable by anyone but the owner."""
    loose = []
    for candidate in [path, *path.rglob("*")]:
        try:
            mode = stat.S_IMODE(candidate.lstat().st_mode)
        except OSError:
            continue
        if mode & 0o077:
            loose.append(candidate)
    return loose


def tighten_permissions(path: Path) -> None:
    """Make every file under the data dir 0600 and every folder 0700.

    Called after stores that create their own files (SQLite's WAL and SHM, Chroma)
    have written, since they follow the process umask rather than ours.
    """
    for candidate in [path, *path.rglob("*")]:
        try:
            if candidate.is_symlink():
                continue
            wanted = PRIVATE_DIR if candidate.is_dir() else PRIVATE_FILE
            if stat.S_IMODE(candidate.stat().st_mode) != wanted:
                os.chmod(candidate, wanted)
        except OSError:
            continue


@contextmanager
def _migration_lock(data_dir: Path) -> Iterator[None]:
    """An exclusive file lock while migrating, so concurrent first runs do not race."""
    with open(data_dir / ".migrate.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def open_db(data_dir: Path) -> sqlite_utils.Database:
    """Open (creating and migrating if needed) the database in the data dir."""
    ensure_data_dir(data_dir)
    db_path = data_dir / "aniso.db"
    previous_umask = os.umask(0o077)
    try:
        connection = sqlite3.connect(
            db_path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("PRAGMA secure_delete = ON")
        db = sqlite_utils.Database(connection)
        with _migration_lock(data_dir):
            migrate(db)
    except sqlite3.DatabaseError as error:
        raise StoreError(f"cannot open database {db_path}: {error}") from None
    finally:
        os.umask(previous_umask)
    tighten_permissions(data_dir)
    return db


@contextmanager
def transaction(db: sqlite_utils.Database, *, immediate: bool = True) -> Iterator[None]:
    """One atomic unit of work. `BEGIN IMMEDIATE` takes the write lock at the start,
    so concurrent writers queue on the busy timeout instead of failing mid-way."""
    try:
        db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except sqlite3.OperationalError as error:
        raise StoreError(f"the database is busy or locked ({error}); try again") from None
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    else:
        db.execute("COMMIT")
