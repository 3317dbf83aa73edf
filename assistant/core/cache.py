"""Derived data kept in the user's cache dir, rebuilt whenever what it derives from changes.

Why: some indexes are pure functions of files the install ships (the profile rules'
word index from the lexicon and the pymorphy3 dictionaries, the place index from the
GeoNames gazetteer). Building them takes seconds of Python work that every new process
paid before its first reply; reading a saved copy takes a fiftieth of that.

- Correct: a copy is used only under its key, which names every input: the contents of
  the source files that build it and the versions of the packages whose data it reads.
  A change to any of them is a new key, and the old file is removed.
- Never in the way: a file that does not load (truncated, corrupt, from another Python)
  is removed with one log line and the data is built as if there were none; a cache dir
  that cannot be written only costs the saving.
- Nothing the user said: only data derived from the install is kept here, never the
  data dir's contents (that is why it is `$XDG_CACHE_HOME/aniso`, not the data dir).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import pickle
import sqlite3
import time
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
MAGIC = b"aniso-derived 1\n"


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/aniso`, else `~/.cache/aniso`: derived data, never the user's."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aniso"


def key_of(
    sources: Iterable[Path], packages: Iterable[str], *, large_files: Iterable[Path] = ()
) -> str:
    """A key naming the exact inputs: the bytes of `sources`, the installed versions of
    `packages` (a package that is not installed counts as version "none"), and
    `large_files` (model weights) by path, size and modification time, which is what
    names them without reading them."""
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    versions = []
    for name in packages:
        try:
            versions.append([name, metadata.version(name)])
        except metadata.PackageNotFoundError:
            versions.append([name, "none"])
    digest.update(json.dumps(versions).encode())
    for path in large_files:
        stat = path.stat()
        digest.update(json.dumps([str(path.resolve()), stat.st_size, stat.st_mtime_ns]).encode())
    return digest.hexdigest()[:32]


def load_or_build(name: str, key: str, build: Callable[[], T], *, folder: Path | None = None) -> T:
    """The data saved under `name` and `key`, else `build()`, saved for the next process.

    The file is read only if its header repeats the key; a file that fails to load is
    removed and logged, and the data is built. The data must pickle (plain containers)."""
    folder = folder or cache_dir()
    path = folder / f"{name}-{key}.pickle"
    try:
        raw: bytes | None = path.read_bytes()
    except OSError:  # none yet (or unreadable): build
        raw = None
    if raw is not None:
        try:
            if not raw.startswith(MAGIC + key.encode() + b"\n"):
                raise ValueError("not a cache file for this key")
            return pickle.loads(raw[len(MAGIC) + len(key) + 1 :])  # type: ignore[no-any-return]
        except Exception as error:  # noqa: BLE001 - any unreadable file is rebuilt
            log.warning("cache %s unusable (%s); rebuilt", path.name, type(error).__name__)
            with contextlib.suppress(OSError):
                path.unlink()
    data = build()
    _save(path, name, key, data)
    return data


def _save(path: Path, name: str, key: str, data: object) -> None:
    """Write atomically (a reader never sees half a file), then drop this name's older
    files: one file per name."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(MAGIC + key.encode() + b"\n" + pickle.dumps(data, protocol=5))
        partial.replace(path)
        for other in path.parent.glob(f"{name}-*.pickle"):
            if other != path:
                other.unlink(missing_ok=True)
    except OSError as error:  # a full disk, a read-only home: the saving is lost, not the data
        log.warning("cache %s not written: %s", path.name, error)


def open_table(
    name: str, key: str, fill: Callable[[sqlite3.Connection], None], *, folder: Path | None = None
) -> sqlite3.Connection:
    """A read-only SQLite copy of derived data saved under `name` and `key`, else built by
    `fill(connection)` and saved for the next process.

    Why SQLite and not a pickle: a pickle is read whole, and a big index (the place
    names) cost a fifth of a second of interpreter time in every process before its first
    reply, beside the reply's own imports. A table is opened, not read: each lookup reads
    the few pages it needs. The file is opened immutable (nothing writes it after the
    rename), one connection shared by every thread, which SQLite serialises.

    A file that does not open, or whose `meta` row does not repeat the key, is removed
    with one log line and rebuilt; a cache dir that cannot be written gets the table in
    memory (built each process, as before there was a cache)."""
    folder = folder or cache_dir()
    path = folder / f"{name}-{key}.sqlite"
    if path.exists():
        try:
            return _open_saved(path, key)
        except (sqlite3.Error, ValueError) as error:
            log.warning("cache %s unusable (%s); rebuilt", path.name, type(error).__name__)
            with contextlib.suppress(OSError):
                path.unlink()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.unlink(missing_ok=True)
        _build_table(sqlite3.connect(partial), key, fill, close=True)
        partial.replace(path)
        for other in path.parent.glob(f"{name}-*"):
            # An older key's table, or the pickle this data was kept in before.
            if other != path and other.suffix in (".sqlite", ".pickle"):
                other.unlink(missing_ok=True)
        return _open_saved(path, key)
    except (OSError, sqlite3.Error) as error:  # a full disk, a read-only home
        log.warning("cache %s not written: %s", path.name, error)
    return _build_table(sqlite3.connect(":memory:", check_same_thread=False), key, fill)


def _build_table(
    connection: sqlite3.Connection,
    key: str,
    fill: Callable[[sqlite3.Connection], None],
    *,
    close: bool = False,
) -> sqlite3.Connection:
    try:
        connection.execute("PRAGMA journal_mode = OFF")  # a partial file, renamed when whole
        connection.execute("PRAGMA synchronous = OFF")
        with connection:
            connection.execute("CREATE TABLE meta (key TEXT)")
            connection.execute("INSERT INTO meta VALUES (?)", (key,))
            fill(connection)
    finally:
        if close:
            connection.close()
    return connection


def _open_saved(path: Path, key: str) -> sqlite3.Connection:
    connection = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False
    )
    try:
        saved = connection.execute("SELECT key FROM meta").fetchone()
        if saved is None or saved[0] != key:
            raise ValueError("not a cache file for this key")
    except (sqlite3.Error, ValueError):
        connection.close()
        raise
    return connection


ARRAYS_MAGIC = b"aniso-arrays 1\n"
_ALIGN = 64


def open_arrays(
    name: str, key: str, build: Callable[[], dict[str, Any]], *, folder: Path | None = None
) -> dict[str, Any]:
    """float32 arrays saved under `name` and `key`, mapped from the file, else `build()`
    (name to numpy array), saved for the next process.

    Why mapped: model weights (the local embedder's 90 MB) read whole cost a tenth of a
    second or more before a first message could be stored, beside the turn's own work.
    Mapped, opening is a header read; each page is read when a computation first
    touches it, and a word-embedding table is touched only at the rows of the words
    seen. The file is renamed into place whole and never written again, so a map stays
    valid while a newer file replaces it.

    A file whose header does not repeat the key, or whose size does not match it, is
    removed with one log line and rebuilt; a cache dir that cannot be written only costs
    the saving (the built arrays are returned)."""
    folder = folder or cache_dir()
    path = folder / f"{name}-{key}.arrays"
    if path.exists():
        try:
            return _map_arrays(path, key)
        except (OSError, ValueError, KeyError) as error:
            log.warning("cache %s unusable (%s); rebuilt", path.name, type(error).__name__)
            with contextlib.suppress(OSError):
                path.unlink()
    arrays = build()
    try:
        _drop_abandoned(path.parent, name)
        _write_arrays(path, key, arrays)
        for other in path.parent.glob(f"{name}-*.arrays"):
            if other != path:
                with contextlib.suppress(OSError):  # a map elsewhere may hold it (Windows)
                    other.unlink()
        return _map_arrays(path, key)
    except (OSError, ValueError) as error:  # a full disk, a read-only home
        log.warning("cache %s not written: %s", path.name, error)
    return arrays


ABANDONED_AFTER_S = 600.0


def _drop_abandoned(folder: Path, name: str) -> None:
    """Remove partial files of `name` that no writer is still writing: a process killed
    while it wrote 90 MB of weights would otherwise leave them behind for good. A write
    takes about a second, so a partial file untouched for ten minutes is abandoned."""
    for partial in folder.glob(f"{name}-*.partial"):
        with contextlib.suppress(OSError):
            if time.time() - partial.stat().st_mtime > ABANDONED_AFTER_S:
                partial.unlink()


def _write_arrays(path: Path, key: str, arrays: dict[str, Any]) -> None:
    import numpy as np

    index, offset = [], 0
    for name, array in arrays.items():
        index.append([name, list(array.shape), offset])
        offset += int(array.size) * 4
    header = ARRAYS_MAGIC + key.encode() + b"\n" + json.dumps([index, offset]).encode() + b"\n"
    header += b" " * (-len(header) % _ALIGN)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial")
    with partial.open("wb") as out:
        out.write(header)
        for array in arrays.values():
            out.write(np.ascontiguousarray(array, dtype=np.float32).tobytes())
    partial.replace(path)


def _map_arrays(path: Path, key: str) -> dict[str, Any]:
    import numpy as np

    with path.open("rb") as file:
        magic = file.readline(len(ARRAYS_MAGIC))
        saved_key = file.readline(256).rstrip(b"\n").decode("ascii", "replace")
        described = file.readline(1 << 20)
        start = file.tell()
    if magic != ARRAYS_MAGIC or saved_key != key:
        raise ValueError("not a cache file for this key")
    index, total = json.loads(described)
    start += -start % _ALIGN
    if path.stat().st_size != start + total:
        raise ValueError("truncated")
    flat = np.memmap(path, dtype=np.float32, mode="r", offset=start, shape=(total // 4,))
    arrays = {}
    for name, shape, offset in index:
        size = int(np.prod(shape, dtype=np.int64))
        arrays[name] = np.asarray(flat[offset // 4 : offset // 4 + size]).reshape(shape)
    return arrays
