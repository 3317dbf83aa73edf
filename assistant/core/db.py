"""Opening the data dir and its SQLite database, the source of truth.

Everything Aniso persists lives under one data dir, created 0700 with files 0600,
because it holds a person's memory. SQLite runs in WAL mode with a busy timeout, so
the TUI, the nightly compactor and a second CLI process can share it.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import logging
import os
import shutil
import sqlite3
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO

import sqlite_utils

from aniso.core.errors import StoreError
from aniso.core.schema import migrate

log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 10_000
CACHE_KIB = 32 * 1024
"""The connection's page cache. SQLite's default, 2 MiB, is smaller than the pages one
recall reads at 10k episodes (the FTS index, episodes, blocks, links): each turn read
them again from the OS, about 1 ms of its SQL. Pages are cached as they are read, so
a small memory never takes the whole of it."""
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
PRIVATE_UMASK = 0o077


IN_CHUNK = 500
"""Ids per `IN (...)`: well under SQLite's 32,766 bound variables, and small enough
that one statement never holds a huge parameter list."""


def _chunks(ids: Iterable[object]) -> Iterator[list[object]]:
    items = list(ids)
    for start in range(0, len(items), IN_CHUNK):
        yield items[start : start + IN_CHUNK]


def select_in(
    db: sqlite_utils.Database,
    sql: str,
    ids: Iterable[object],
    *,
    params: Sequence[object] = (),
    dicts: bool = False,
) -> list:
    """Run `sql`, whose `{}` is an `IN (...)` list, over `ids` in chunks; the rows of
    every chunk, as tuples (or dicts with `dicts`). `params` bind before the ids. Also
    runs DELETE and UPDATE statements chunk by chunk (their result is empty).

    The one home of chunked `IN`: hand-written loops drifted (some unchunked, one with
    its own chunk size), and an unchunked list of 40,000 ids fails in SQLite."""
    rows: list = []
    for chunk in _chunks(ids):
        statement = sql.format(",".join("?" * len(chunk)))
        if dicts:
            rows.extend(db.query(statement, [*params, *chunk]))
        else:
            rows.extend(db.execute(statement, [*params, *chunk]).fetchall())
    return rows


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


LOOSE_SHOWN = 3


def permission_warning(path: Path) -> str | None:
    """One line when the data dir or anything in it is open to other users, naming a
    few of them and the fix. Checked at start-up, before the stores tighten them."""
    if not path.is_dir():
        return None
    loose = loose_permissions(path)
    if not loose:
        return None
    shown = ", ".join(
        f"{entry.relative_to(path).as_posix() if entry != path else path} "
        f"{stat.S_IMODE(entry.lstat().st_mode):04o}"
        for entry in loose[:LOOSE_SHOWN]
    )
    more = f" and {len(loose) - LOOSE_SHOWN} more" if len(loose) > LOOSE_SHOWN else ""
    return (
        f"warning: the data dir holds your memory but {len(loose)} entries in it are open "
        f"to other users ({shown}{more}); Aniso makes them private now (folders 0700, "
        f"files 0600); if that fails, run: chmod -R go-rwx {path}"
    )


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


def _lock_file(path: Path) -> IO[str]:
    """The lock file, created private (it sits in the data dir)."""
    previous = os.umask(0o077)
    try:
        return open(path, "a")  # noqa: SIM115 - the caller closes it, after unlocking
    finally:
        os.umask(previous)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on `path`, held for the block (threads and processes)."""
    with _lock_file(path) as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def try_lock(path: Path) -> Iterator[bool]:
    """An exclusive advisory lock on `path` if free: yields whether it was taken.

    For work one process should do and others skip (catching up on missed nights),
    where waiting would only make a second command slow for nothing.
    """
    with _lock_file(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _migration_lock(data_dir: Path) -> AbstractContextManager[None]:
    """An exclusive file lock while migrating, so concurrent first runs do not race."""
    return _file_lock(data_dir / ".migrate.lock")


def writer_lock(data_dir: Path) -> AbstractContextManager[None]:
    """Held by the long writers (forget, import, a compaction run) for their whole run.

    Single writes need no more than `transaction` (BEGIN IMMEDIATE); this lock keeps
    the multi-step ones (erasure, then VACUUM and the vector rebuild; a compaction's
    plan-then-apply) from interleaving, in one process or across several.
    """
    return _file_lock(data_dir / ".writer.lock")


def vacuum(db: sqlite_utils.Database) -> dict[str, object]:
    """Leave no deleted row in free pages or old WAL frames: VACUUM rewrites the file,
    then a TRUNCATE checkpoint empties the WAL. Another process reading at that moment
    can keep the WAL from being truncated; that is reported, not hidden."""
    db.execute("VACUUM")
    busy, frames, moved = -1, -1, -1
    for _ in range(20):
        busy, frames, moved = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy:
            break
        import time

        time.sleep(0.25)
    return {"vacuumed": True, "wal_truncated": not busy}


@functools.cache
def expected_columns() -> dict[str, tuple[str, ...]]:
    """Every table's columns as this version's migrations create them."""
    db = sqlite_utils.Database(memory=True)
    migrate(db)
    return _columns(db)


def _columns(db: sqlite_utils.Database) -> dict[str, tuple[str, ...]]:
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        name: tuple(row[1] for row in db.execute(f"PRAGMA table_info([{name}])"))
        for name in names
        if not name.startswith(("sqlite_", "_sqlite"))
    }


# Archive rows, restored copies (origin_id) and vectors refer to these ids after the
# rows leave their table: an id handed out twice would point at someone else's text.
NEVER_REUSED_IDS = ("episodes", "blocks")


def schema_mismatch(db: sqlite_utils.Database) -> str | None:
    """What differs from this version's schema, or None. A migration name alone does
    not prove the shape: a pre-release build may have applied a different m001."""
    actual = _columns(db)
    for table, columns in expected_columns().items():
        if table not in actual:
            return f"table {table} is missing"
        missing = [c for c in columns if c not in actual[table]]
        if missing:
            return f"table {table} lacks {', '.join(missing)}"
    for table in NEVER_REUSED_IDS:
        row = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [table]).fetchone()
        if row is None or "AUTOINCREMENT" not in row[0].upper():
            return f"table {table} may reuse the ids of archived rows"
    return None


def set_aside(data_dir: Path, reason: str) -> Path:
    """Move an incompatible store into a dated folder inside the data dir: nothing is
    deleted, and the user is told where it went."""
    from datetime import UTC, datetime

    target = data_dir / f"incompatible-{datetime.now(UTC):%Y%m%dT%H%M%S}"
    target.mkdir(mode=PRIVATE_DIR)
    for name in ("aniso.db", "aniso.db-wal", "aniso.db-shm", "chroma"):
        if (data_dir / name).exists():
            shutil.move(str(data_dir / name), str(target / name))
    message = (
        f"the memory in {data_dir} was written by an incompatible pre-release of Aniso "
        f"({reason}); it was moved to {target} and a new store was started"
    )
    log.warning(message)
    sys.stderr.write(f"aniso: {message}\n")
    return target


def open_db(data_dir: Path) -> sqlite_utils.Database:
    """Open (creating and migrating if needed) the database in the data dir."""
    ensure_data_dir(data_dir)
    db = _open_db(data_dir)
    reason = schema_mismatch(db)
    if reason is not None:
        db.conn.close()
        set_aside(data_dir, reason)
        db = _open_db(data_dir)
    return db


def _open_db(data_dir: Path) -> sqlite_utils.Database:
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
        connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        db = sqlite_utils.Database(connection)
        with _migration_lock(data_dir):
            migrate(db)
    except sqlite3.DatabaseError as error:
        raise StoreError(
            f"cannot open database {db_path}: {error}; if it is damaged, move it aside "
            "and restore the latest `aniso backup` in its place"
        ) from None
    finally:
        os.umask(previous_umask)
    tighten_permissions(data_dir)
    return db


FULL_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
FULL_WORDS = ("disk is full", "disk i/o error", "no space", "too large", "quota")


def is_write_failure(error: BaseException) -> bool:
    """True for a failed write to the disk (full, over quota, over the file size
    limit, an I/O error) as SQLite or the OS report it."""
    if isinstance(error, OSError) and error.errno in FULL_ERRNOS:
        return True
    if isinstance(error, sqlite3.OperationalError):
        return any(word in str(error).lower() for word in FULL_WORDS)
    return False


def store_error(error: BaseException, where: Path | str = "the data dir") -> StoreError:
    """The one-line StoreError a user sees for a failed SQLite or disk operation."""
    if is_write_failure(error):
        strerror = getattr(error, "strerror", None)
        reason = str(error) if isinstance(error, sqlite3.Error) else (strerror or error)
        return StoreError(
            f"cannot write to {where}: {reason} (is the disk full?); free some space and "
            "try again: what was already stored is intact"
        )
    if isinstance(error, sqlite3.OperationalError) and "locked" in str(error).lower():
        return StoreError(f"the database is busy or locked ({error}); try again")
    return StoreError(f"the database failed: {error}; `aniso doctor` checks it")


def _rollback(db: sqlite_utils.Database) -> None:
    """Roll back what may be left; SQLite may already have done it (full disk)."""
    try:
        if db.conn.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error as error:
        log.warning("rollback failed: %s", error)


@contextmanager
def transaction(db: sqlite_utils.Database, *, immediate: bool = True) -> Iterator[None]:
    """One atomic unit of work. `BEGIN IMMEDIATE` takes the write lock at the start,
    so concurrent writers queue on the busy timeout instead of failing mid-way.
    A failed write (a full disk) rolls back and becomes a one-line StoreError."""
    try:
        db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    except sqlite3.OperationalError as error:
        raise store_error(error) from None
    try:
        yield
    except sqlite3.OperationalError as error:
        _rollback(db)
        raise store_error(error) from None
    except BaseException:
        _rollback(db)
        raise
    try:
        db.execute("COMMIT")
    except sqlite3.OperationalError as error:
        _rollback(db)
        raise store_error(error) from None
