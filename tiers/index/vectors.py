"""The dense vector index: nearest neighbours of an embedding, behind a small Protocol.

The index is derived data. SQLite holds every memory and its embedding; the index
holds only ids, vectors and a few filter fields so recall can find neighbours fast.
That is why a broken index is rebuilt, never repaired: `ChromaIndex.open` sets it
aside, starts empty and says so through `rebuilt`, and the caller re-fills it.
And it is why a failing query raises `StoreError` instead of anything else: the
caller can always fall back to lexical search.

Chroma runs embedded (a folder on disk) or as a server (`url`). Either way it is
told never to embed (we pass our own vectors, so it cannot reach for a model hub)
and never to send telemetry.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import urlsplit

import numpy as np

from aniso.core.errors import ConfigError, StoreError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

Scalar = str | int | float | bool
_log = logging.getLogger(__name__)
# Cosine, because our embeddings are compared by angle; set at creation, it cannot change.
_CONFIGURATION: dict[str, Any] = {"hnsw": {"space": "cosine"}}
_SQLITE = "chroma.sqlite3"
# Failures that say the folder is busy or forbidden, not broken: setting it aside would
# pull a healthy index from under another process, so these stay errors.
_NOT_BROKEN = ("locked", "busy", "permission denied", "read-only", "readonly")
# A hung server must not hang a chat turn: chromadb's own HTTP session never times out.
_HTTP_TIMEOUT_S, _HTTP_CONNECT_TIMEOUT_S = 30.0, 5.0


class VectorIndex(Protocol):
    """Where embeddings are searched by similarity; ids are the caller's, as strings.

    - `upsert(ids, vectors, metadatas)`: row i of `vectors` (shape `(len(ids), dim)`,
      non-zero, finite) and `metadatas[i]` replace whatever `ids[i]` had. Metadata
      values are str, int, float or bool; they exist only to filter queries.
    - `delete(ids)`: removes them; ids that are not there are ignored.
    - `query(vector, k, where=None)`: up to `k` `(id, score)` pairs, best first.
      Score: higher is more similar; it is the cosine similarity in [-1, 1]
      (1 - Chroma's cosine distance). `where` is a Chroma metadata filter such as
      `{"tier": "hot"}`. `k` larger than the count is fine; an empty index gives [].
    - `count()`: how many vectors are stored.
    - `ids()`: every stored id, read page by page, to check the index against SQLite.
    - `reset()`: drops the collection and creates it again, empty.
    - `close()`: releases files and connections; the object is unusable after.

    Runtime failures raise `StoreError` with a one-line message; misuse (wrong shapes,
    lengths) raises `ValueError`.
    """

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[Mapping[str, Scalar]]
    ) -> None: ...
    def delete(self, ids: Sequence[str]) -> None: ...
    def query(
        self, vector: np.ndarray, k: int, *, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]: ...
    def count(self) -> int: ...
    def ids(self) -> set[str]: ...
    def reset(self) -> None: ...
    def close(self) -> None: ...


def warm() -> None:
    """Import chromadb now (about half a second of its own imports), on a thread that
    is not waiting for it, so that opening the index later finds it loaded. It stays
    the one module that imports chromadb (LAYOUT's adapters)."""
    import chromadb  # noqa: F401


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}"[:200] if text else type(exc).__name__


class ChromaIndex:
    """`VectorIndex` on Chroma. Build it with `ChromaIndex.open`, not the constructor."""

    def __init__(self, client: ClientAPI, collection: str, *, hint: str) -> None:
        self.client: Any = (
            client  # its close() is not on the ClientAPI protocol, e.g. checking telemetry is off
        )
        self.rebuilt = False  # True when open() found the index broken and started empty
        self._name = collection
        self._hint = hint  # what the user can do when an operation fails
        self._folder: Path | None = None  # an embedded folder this process has claimed
        with self._guard("open its collection"):
            self._collection = self._create()
            self._batch = max(1, int(client.get_max_batch_size()))

    @classmethod
    def open(
        cls,
        *,
        path: Path | None = None,
        url: str | None = None,
        collection: str = "memory",
        on_warning: Callable[[str], None] = _log.warning,
    ) -> ChromaIndex:
        """Connect to the server at `url`, or else open (or create) the folder `path`.

        An unreadable folder is not an error: it is reported through `on_warning`, set
        aside as `<path>.broken` (replacing an older one) and replaced by an empty index
        with `rebuilt = True`. A server that cannot be reached raises `StoreError`.
        """
        import chromadb  # here, not at the top: importing chromadb takes about a second
        from chromadb.config import Settings

        if url:
            host, port, ssl = _parse_url(url)
            settings = Settings(anonymized_telemetry=False)
            try:
                client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
            except Exception as exc:
                raise StoreError(
                    f"cannot reach the vector server at {url} ({_one_line(exc)}); "
                    "start it or change the vector URL in the settings"
                ) from exc
            _bound_http_timeouts(client)
            return cls(client, collection, hint=f"check the vector server at {url} is running")
        if path is None:
            raise ConfigError("the vector index needs a folder or a server URL; set one of them")
        return cls._open_folder(Path(path), collection, on_warning)

    @classmethod
    def _open_folder(
        cls, path: Path, collection: str, on_warning: Callable[[str], None]
    ) -> ChromaIndex:
        _claim_folder(path)
        try:
            index = cls._open_claimed(path, collection, on_warning)
        except BaseException:
            _release_folder(path)
            raise
        index._folder = path
        _OPEN.setdefault(path.resolve(), weakref.WeakSet()).add(index)
        return index

    @classmethod
    def _open_claimed(
        cls, path: Path, collection: str, on_warning: Callable[[str], None]
    ) -> ChromaIndex:
        hint = f"delete {path} to have it rebuilt"
        problem = _missing_files(path)
        if problem is None:
            client = None
            try:
                client = _persistent_client(path)
                index = cls(client, collection, hint=hint)
                index._probe()
                return index
            except Exception as exc:
                problem = _one_line(exc.__cause__ or exc)
                _forget(path, client)
                if any(word in problem.lower() for word in _NOT_BROKEN):
                    raise StoreError(
                        f"cannot open the vector index at {path} ({problem}); "
                        "close other Aniso processes or fix the folder's permissions"
                    ) from exc
        on_warning(
            f"the vector index at {path} was unreadable ({problem}); rebuilding it from memory"
        )
        _set_aside(path)
        try:
            index = cls(_persistent_client(path), collection, hint=hint)
        except Exception as exc:
            raise StoreError(
                f"cannot create the vector index at {path} ({_one_line(exc)}); "
                "check that the folder is writable"
            ) from exc
        index.rebuilt = True
        return index

    @property
    def folder(self) -> Path | None:
        """The embedded folder this index owns; None for a server."""
        return self._folder

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[Mapping[str, Scalar]]
    ) -> None:
        """Chunked to Chroma's maximum batch size, which it would otherwise reject."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids) or len(metadatas) != len(ids):
            raise ValueError(
                f"upsert needs one vector row and one metadata per id: {len(ids)} ids, "
                f"vectors of shape {matrix.shape}, {len(metadatas)} metadatas"
            )
        if len(ids) and not np.all(np.isfinite(matrix).all(axis=1) & matrix.any(axis=1)):
            raise ValueError("upsert needs finite, non-zero vectors: cosine is undefined otherwise")
        # Chroma rejects an empty metadata dict; None means the same thing to it.
        metas = [dict(m) or None for m in metadatas]
        with self._guard("store vectors"):
            for start in range(0, len(ids), self._batch):
                end = start + self._batch
                self._collection.upsert(
                    ids=list(ids[start:end]),
                    embeddings=matrix[start:end],
                    metadatas=cast(Any, metas[start:end]),
                )

    def delete(self, ids: Sequence[str]) -> None:
        with self._guard("delete vectors"):
            for start in range(0, len(ids), self._batch):
                self._collection.delete(ids=list(ids[start : start + self._batch]))

    def query(
        self, vector: np.ndarray, k: int, *, where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        with self._guard("search"):
            found = self._collection.query(
                query_embeddings=query, n_results=k, where=where or None, include=["distances"]
            )
        distances = found["distances"][0] if found["distances"] else []
        return [
            (id_, float(min(1.0, max(-1.0, 1.0 - d))))
            for id_, d in zip(found["ids"][0], distances, strict=True)
        ]

    def count(self) -> int:
        with self._guard("count vectors"):
            return int(self._collection.count())

    def ids(self) -> set[str]:
        """Paged, because one `get` of a large collection would be one huge response."""
        found: set[str] = set()
        with self._guard("list ids"):
            while True:
                page = self._collection.get(include=[], limit=self._batch, offset=len(found))
                found.update(page["ids"])
                if len(page["ids"]) < self._batch:
                    return found

    def vectors(
        self, ids: Sequence[str] | None = None
    ) -> tuple[list[str], np.ndarray, list[dict[str, Scalar]]]:
        """Stored ids, vectors and metadata (all of them, or those of `ids`), paged.

        Erasure uses it twice: to know which bytes must vanish from the folder, and to
        carry the remaining vectors over when the folder is rebuilt."""
        found_ids: list[str] = []
        rows: list[np.ndarray] = []
        metas: list[dict[str, Scalar]] = []
        with self._guard("read vectors"):
            if ids is not None:
                pages = [
                    self._collection.get(
                        ids=list(ids[s : s + self._batch]), include=["embeddings", "metadatas"]
                    )
                    for s in range(0, len(ids), self._batch)
                ]
            else:
                pages = []
                while True:
                    page = self._collection.get(
                        include=["embeddings", "metadatas"],
                        limit=self._batch,
                        offset=sum(len(p["ids"]) for p in pages),
                    )
                    pages.append(page)
                    if len(page["ids"]) < self._batch:
                        break
            for page in pages:
                found_ids += page["ids"]
                if len(page["ids"]):
                    rows.append(np.asarray(page["embeddings"], dtype=np.float32))
                metas += [dict(m or {}) for m in cast(Any, page["metadatas"])]
        matrix = np.concatenate(rows) if rows else np.zeros((0, 0), dtype=np.float32)
        return found_ids, matrix, metas

    def reset(self) -> None:
        from chromadb.errors import NotFoundError

        with self._guard("reset"):
            try:
                self.client.delete_collection(self._name)
            except NotFoundError:
                pass  # already gone, which is what we wanted
            self._collection = self._create()

    def close(self) -> None:
        """Without it an embedded index keeps its files open until the process ends.

        Closing the last client of a folder stops Chroma's system for it, which drops
        its Rust bindings and with them the HNSW segment writers: after this returns,
        nothing in this process writes to the folder's files."""
        self.client.close()
        if self._folder is not None:
            _OPEN.get(self._folder.resolve(), weakref.WeakSet()).discard(self)
            _release_folder(self._folder)
            self._folder = None

    def _create(self) -> Collection:
        return self.client.get_or_create_collection(
            self._name, configuration=cast(Any, _CONFIGURATION), embedding_function=None
        )

    def _probe(self) -> None:
        """Read one vector back and search for it: an index with missing or garbled
        segment files opens without complaint and only fails (or goes quiet) here."""
        total = self._collection.count()
        if total == 0:
            return
        sample = self._collection.get(limit=1, include=["embeddings"])["embeddings"]
        k = min(total, 10)
        found = self._collection.query(query_embeddings=sample, n_results=k, include=[])
        if len(found["ids"][0]) < k:
            raise StoreError(f"a search for a stored vector found {len(found['ids'][0])} of {k}")

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(
                f"the vector index could not {action} ({_one_line(exc)}); {self._hint}"
            ) from exc


def _parse_url(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"the vector server URL {url!r} is not http(s)://host[:port]")
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"the vector server URL {url!r} has a bad port") from exc
    ssl = parts.scheme == "https"
    return parts.hostname, port or (443 if ssl else 8000), ssl


def _bound_http_timeouts(client: ClientAPI) -> None:
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(_HTTP_TIMEOUT_S, connect=_HTTP_CONNECT_TIMEOUT_S)


# Embedded Chroma keeps its HNSW segments in process memory: two processes writing one
# folder corrupt it ("Failed to apply logs to the hnsw segment writer"), the next
# opener sets it aside, and the first hangs. So one process at a time owns a folder,
# by an advisory lock held while its index is open. Another process (a CLI command
# beside the TUI) gets StoreError: its index writes wait in the SQLite outbox, which
# the owner replays at its next recall, and its recall is lexical, with a warning.
_CLAIMS: dict[Path, tuple[int, int]] = {}  # folder -> (lock fd, indexes open on it)
_CLAIMS_LOCK = threading.Lock()
_OPEN: dict[Path, weakref.WeakSet[ChromaIndex]] = {}  # folder -> indexes open on it here


def _claim_folder(path: Path) -> None:
    key = path.resolve()
    with _CLAIMS_LOCK:
        if key in _CLAIMS:
            fd, count = _CLAIMS[key]
            _CLAIMS[key] = (fd, count + 1)
            return
        key.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(key.with_name(key.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(
                f"the vector index at {path} is in use by another Aniso process; recall "
                "is lexical until it exits (index updates are kept and replayed)"
            ) from None
        _CLAIMS[key] = (fd, 1)


def _release_folder(path: Path) -> None:
    key = path.resolve()
    with _CLAIMS_LOCK:
        if key not in _CLAIMS:
            return
        fd, count = _CLAIMS.pop(key)
        if count > 1:
            _CLAIMS[key] = (fd, count - 1)
            return
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _persistent_client(path: Path) -> Any:
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)


def _missing_files(path: Path) -> str | None:
    """Why a folder that once held an index cannot be one now; None if fine or new.

    Chroma quietly starts empty when its SQLite file is gone or empty: that would pass
    for a healthy index while the vectors are lost, so it is caught here.
    """
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return None
    if not path.is_dir():
        return "it is not a folder"
    sqlite = path / _SQLITE
    if not sqlite.is_file() or sqlite.stat().st_size == 0:
        return f"{_SQLITE} is missing or empty"
    return None


def _forget(path: Path, client: Any) -> None:
    """Drop chromadb's per-process cache entry for `path`.

    Chroma keeps one shared system per folder; one that failed to start stays cached
    and would poison every later client for the same folder (even a fresh one).
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    if client is not None:
        try:
            client.close()
        except Exception as exc:  # it is being thrown away; nothing more to do
            _log.debug("closing a broken vector index failed: %s", exc)
    key = str(path)
    if SharedSystemClient._identifier_to_refcount.get(key, 0) <= 0:  # nobody else uses it
        SharedSystemClient._identifier_to_system.pop(key, None)
        SharedSystemClient._identifier_to_refcount.pop(key, None)


def _set_aside(path: Path) -> None:
    """Keep the last broken copy for a bug report, but only one: it can be large.

    One that cannot be moved is deleted instead: it is derived data.
    """
    aside = path.with_name(path.name + ".broken")
    _remove(aside)
    try:
        path.rename(aside)
        _log.info("the broken vector index was moved to %s", aside)
    except FileNotFoundError:
        pass
    except OSError:
        _remove(path)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@contextmanager
def owned(path: Path) -> Iterator[None]:
    """Hold this process's claim on the folder `path` for the block, even while every
    index on it is closed: no other Aniso process can take the folder in between."""
    _claim_folder(path)
    try:
        yield
    finally:
        _release_folder(path)


def close_all(path: Path) -> int:
    """Close every index this process has open on the folder `path`; returns how many.

    An index closed here by another holder fails its next call with `StoreError`, so
    its owner degrades to lexical recall and queues writes in the outbox; a fresh
    open (the next process, or `DenseMemory` reopening) sees the new folder."""
    indexes = list(_OPEN.pop(path.resolve(), weakref.WeakSet()))
    for index in indexes:
        index.close()
    import gc

    gc.collect()  # a client caught in a reference cycle would keep its Rust writers alive
    return len(indexes)


def rebuild_folder(
    path: Path,
    ids: Sequence[str],
    vectors: np.ndarray,
    metadatas: Sequence[Mapping[str, Scalar]],
    *,
    collection: str = "memory",
) -> None:
    """Replace the embedded index at `path` by a new one that holds exactly these vectors.

    Every index on `path` must be closed first (`close_all`, under `owned`). The new
    index is written in a sibling folder by its own client, which is closed (so fully
    flushed) before the swap; the old folder is renamed away and deleted only after
    that. Its segments were never opened by the new client and their writer is gone,
    so no byte of the old index can reach the folder the app opens next: erasing
    from a folder means never writing that folder again, not delete-marking in it.
    """
    fresh = path.with_name(path.name + ".fresh")
    retired = path.with_name(path.name + ".retired")
    _remove(fresh)
    _remove(retired)
    client = _persistent_client(fresh)
    try:
        index = ChromaIndex(client, collection, hint=f"delete {path} to have it rebuilt")
        index.upsert(list(ids), vectors, list(metadatas))
    finally:
        client.close()
        _forget(fresh, None)
    if path.exists():
        path.rename(retired)
    fresh.rename(path)
    _remove(retired)
