"""The embedded vector index served from a child process, for `aniso ask`.

Why: a one-shot `ask` needs one vector search before its first token, and opening the
index (chromadb's import and client) costs 0.6-0.8 s of CPU, nearly all of it Python.
In the same process that work holds the interpreter lock the turn's own imports, the
guard, the profile and recall also need, so on 2 cores it adds to the wait instead of
overlapping it. Started first, in a process of its own, the index loads on the other
core while the turn runs, and the search is then one round trip of a few hundred bytes.

The child runs the very same `ChromaIndex` and claims the folder exactly as an index
opened in process does, so what is stored, the one-owner rule and every failure stay
the same: an error comes back as the same one-line `StoreError` (or `ValueError` for
misuse), and a child that dies or cannot start is a `StoreError` too, after which
recall is lexical and index writes wait in the outbox, as for any broken index.

Long-lived processes (the TUI, chat, the MCP server) open the index in process: their
start-up does not wait on it, and erasure needs the index's own folder handling.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection, Pipe
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aniso.core.errors import StoreError

if TYPE_CHECKING:
    import numpy as np

    from aniso.tiers.index.vectors import Scalar

_log = logging.getLogger(__name__)
# The child leaves the folder only after closing its client; the next command must not
# find the folder still claimed, so closing waits for it, but never forever.
_EXIT_WAIT_S = 30.0
# The child's answer is wanted only at recall, after the turn's imports, the guard and
# the store: until then every cycle it takes on a shared core is one the turn needed.
# A little below the parent, not at the bottom, so a busy machine does not starve it
# (`aniso bench start`, DESIGN-NOTES "Start-up and first token").
_NICENESS = 5
_START = (
    "import sys; from aniso.tiers.index.vector_host import serve; "
    "serve(int(sys.argv[1]), sys.argv[2], sys.argv[3])"
)


class HostedIndex:
    """`VectorIndex` whose Chroma runs in a child process started by `start`.

    Requests go one at a time (a lock), since the child answers them in order. The
    first use waits for the child to have opened the folder; `open` does that wait and
    is what a `DenseMemory` index factory should call. Only numpy arrays, ids and
    metadata cross, pickled: this module imports neither numpy nor chromadb, so starting
    the child costs the command almost nothing."""

    def __init__(self, path: Path, collection: str = "memory") -> None:
        self.rebuilt = False
        self._lock = threading.Lock()
        self._opened = False
        self._closed = False
        self._conn, child = Pipe(duplex=True)
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-P", "-c", _START, str(child.fileno()), str(path), collection],
                pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
        except OSError as exc:
            self._process = None
            self._failure = f"the vector index process could not start ({exc.strerror})"
        else:
            self._failure = ""
        finally:
            child.close()  # only the child holds its end: its exit is our end of file
        atexit.register(self.close)

    def open(self, on_warning: Callable[[str], None] = _log.warning) -> HostedIndex:
        """Wait for the child to open the folder; its warnings (an index found broken and
        rebuilt) go to `on_warning`. Raises `StoreError` if it could not."""
        with self._lock:
            if self._failure:
                raise StoreError(self._failure)
            if not self._opened:
                try:
                    rebuilt, warnings = self._receive("open the vector index")
                except StoreError as error:
                    self._failure = str(error)  # the child has left: it stays failed
                    raise
                self._opened = True
                self.rebuilt = bool(rebuilt)
                for warning in warnings:
                    on_warning(warning)
        return self

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[Mapping[str, Scalar]]
    ) -> None:
        self._call("upsert", list(ids), vectors, [dict(m) for m in metadatas])

    def delete(self, ids: Sequence[str]) -> None:
        self._call("delete", list(ids))

    def query(
        self, vector: np.ndarray, k: int, *, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        return list(self._call("query", vector, k, where=where))

    def count(self) -> int:
        return int(self._call("count"))

    def ids(self) -> set[str]:
        return set(self._call("ids"))

    def reset(self) -> None:
        self._call("reset")

    def close(self) -> None:
        """Have the child close its client and leave the folder, and wait for it: once
        this returns, nothing writes to the folder and another process may claim it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            atexit.unregister(self.close)
            try:
                self._conn.send(("close", (), {}))
            except OSError:
                pass  # already gone
            self._conn.close()
            process, self._process = self._process, None
        if process is None:
            return
        try:
            process.wait(timeout=_EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            _log.warning("the vector index process did not exit; stopping it")
            process.kill()
            process.wait()

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        self.open()
        with self._lock:
            if self._closed:
                raise StoreError("the vector index is closed")
            try:
                self._conn.send((method, args, kwargs))
            except OSError:
                raise StoreError(self._gone()) from None
            return self._receive(method)

    def _receive(self, action: str) -> Any:
        """The child's answer to the last request; its error raised here as the same type."""
        if self._process is None:
            raise StoreError(self._failure or f"the vector index is closed; cannot {action}")
        try:
            kind, value = self._conn.recv()
        except (EOFError, OSError):
            raise StoreError(self._gone()) from None
        if kind == "ok":
            return value
        if kind == "ValueError":
            raise ValueError(value)
        raise StoreError(value)

    def _gone(self) -> str:
        code = self._process.poll() if self._process is not None else None
        how = f" (exit status {code})" if code is not None else ""
        return f"the vector index process ended{how}; recall is lexical until the next command"


def start(path: Path, collection: str = "memory") -> HostedIndex:
    """Start the child that opens the index folder `path`; returns at once."""
    return HostedIndex(path, collection)


def serve(fd: int, path: str, collection: str) -> None:
    """The child: open the index, answer requests until told to close or the parent is
    gone, then close the index (releasing the folder) and return."""
    from aniso.core.db import PRIVATE_UMASK
    from aniso.core.runtime import limit_malloc_arenas, wipe_freed_memory

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(OSError):
        os.nice(_NICENESS)
    limit_malloc_arenas()
    wipe_freed_memory()  # vectors are derived from the user's words: as in the parent
    os.umask(PRIVATE_UMASK)  # the data dir's rule, before Chroma writes a file
    conn = Connection(fd)
    from aniso.tiers.index.vectors import ChromaIndex

    warnings: list[str] = []
    try:
        index = ChromaIndex.open(path=Path(path), collection=collection, on_warning=warnings.append)
    except Exception as exc:
        conn.send(("StoreError", _message(exc)))
        return
    try:
        conn.send(("ok", (index.rebuilt, warnings)))
        _answer(conn, index)
    finally:
        index.close()


def _answer(conn: Connection, index: Any) -> None:
    while True:
        try:
            method, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone: close and leave
        if method == "close":
            return
        try:
            result = getattr(index, method)(*args, **kwargs)
        except ValueError as exc:
            reply: tuple[str, Any] = ("ValueError", str(exc))
        except Exception as exc:
            reply = ("StoreError", _message(exc))
        else:
            reply = ("ok", result)
        try:
            conn.send(reply)
        except OSError:
            return


def _message(exc: BaseException) -> str:
    from aniso.tiers.index.vectors import _one_line

    if isinstance(exc, StoreError):
        return str(exc)
    return f"the vector index failed ({_one_line(exc)})"
