"""Erasing from the vector index so that the bytes are gone, not only the ids.

Chroma stores no text of ours (we never pass documents), but it does keep each
forgotten memory's embedding, and a delete does not remove it from disk: Chroma's
write-ahead log (`embeddings_queue` in its own SQLite file) keeps the original add
until a purge, and freed pages keep the floats after that. So erasure here is:
read the forgotten vectors, delete them, verify the ids are gone, then scan the
folder for their bytes; if any file still holds them, the folder is rebuilt from
the remaining vectors (read back, not re-embedded) and scanned again.

A Chroma server is outside the data dir: there the delete is verified by id only,
and the receipt says so.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from aniso.errors import StoreError
from aniso.tiers.dense import DenseMemory
from aniso.tiers.vectors import ChromaIndex

log = logging.getLogger(__name__)
SIGNATURE_BYTES = 64
"""A vector is found by its first 16 floats: random-looking, and unique in practice."""


def _signatures(matrix: np.ndarray) -> list[bytes]:
    return [row.astype("<f4").tobytes()[:SIGNATURE_BYTES] for row in matrix]


def files_holding(folder: Path, signatures: Sequence[bytes]) -> list[str]:
    """Files under `folder` that contain any of the byte strings."""
    if not signatures or not folder.exists():
        return []
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if any(sig in data for sig in signatures):
            found.append(str(path.relative_to(folder)))
    return found


def erase(
    dense: DenseMemory,
    keys: Sequence[str],
    *,
    folder: Path | None,
    flush: Callable[[Sequence[str]], dict[str, str]],
) -> dict[str, Any]:
    """Apply the queued deletes (and upserts of recomputed forms), then verify."""
    receipt: dict[str, Any] = {"deleted": len(keys), "verified": False, "rebuilt": False}
    try:
        index = dense.index
        signatures: list[bytes] = []
        if isinstance(index, ChromaIndex) and keys:
            _, matrix, _ = index.vectors(list(keys))
            signatures = _signatures(matrix)
        dense.flush(flush)
        if dense.degraded:
            raise StoreError(dense.degraded)
        left = set(keys) & index.ids()
        if left:
            index.delete(sorted(left))
            left = set(keys) & index.ids()
        receipt["verified"] = not left
        if folder is None:
            receipt["scope"] = "server: verified by id"
            return receipt
        _remove_broken_copy(folder)
        holding = files_holding(folder, signatures)
        if holding:
            rebuild_folder(dense, folder)
            holding = files_holding(folder, signatures)
            receipt["rebuilt"] = True
        receipt["files_holding_bytes"] = holding
        receipt["verified"] = receipt["verified"] and not holding
    except StoreError as error:
        receipt["pending"] = (
            f"the vector index could not be cleaned now ({error}); the "
            "deletes stay queued and run when it is back"
        )
    return receipt


def _remove_broken_copy(folder: Path) -> None:
    """A set-aside broken index holds old vectors too; it is derived data."""
    aside = folder.with_name(folder.name + ".broken")
    if aside.exists():
        shutil.rmtree(aside, ignore_errors=True)


def rebuild_folder(dense: DenseMemory, folder: Path) -> int:
    """Recreate the embedded index from its own remaining vectors; returns their count."""
    from chromadb.api.shared_system_client import SharedSystemClient

    from aniso.storage import tighten_permissions

    index = dense.index
    if not isinstance(index, ChromaIndex):
        return 0
    ids, matrix, metas = index.vectors()
    index.close()
    # Chroma caches one system per folder; a cached one would keep writing to the
    # deleted files. Another handle on this folder in this process goes stale: its
    # writes fail into its outbox, and `aniso reindex` or a restart brings it back.
    SharedSystemClient._identifier_to_system.pop(str(folder), None)
    SharedSystemClient._identifier_to_refcount.pop(str(folder), None)
    dense._index = None
    shutil.rmtree(folder, ignore_errors=True)
    fresh = dense.index
    batch = 1024
    for start in range(0, len(ids), batch):
        fresh.upsert(
            ids[start : start + batch], matrix[start : start + batch], metas[start : start + batch]
        )
    tighten_permissions(folder.parent)
    log.info("the vector index was rebuilt with %d vectors after an erasure", len(ids))
    return len(ids)
