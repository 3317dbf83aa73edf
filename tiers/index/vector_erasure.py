"""Erasing from the vector index by rebuilding it, never by delete-marking.

A delete in Chroma does not remove a vector's bytes: hnswlib only marks the slot,
its data stays in `data_level0.bin`, Chroma's write-ahead log keeps the original
add, and a segment that is still open can write the old slot again when it is
flushed later. An embedding can be inverted into much of its text, so bytes left
behind are the forgotten content, kept.

The index is derived data, so erasure rebuilds it: apply the queued writes, read
back what remains (the vectors themselves, not re-embedded), close every client of
the old folder, write a new index in a sibling folder, swap it in and delete the old
one (`vectors.rebuild_folder`). The caller then verifies with `aniso.data.residue`, after
every writer is closed. A Chroma server gets the equivalent (drop the collection and
create it again with what remains); its files live on the server, so the receipt
says that they cannot be verified from here.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from aniso.core.errors import StoreError
from aniso.tiers.index import pieces, vectors
from aniso.tiers.index.dense import DenseMemory

log = logging.getLogger(__name__)
SIGNATURE_BYTES = 64
"""A vector is found by its first 16 floats: random-looking, and unique in practice."""
SERVER_SCOPE = (
    "server: the collection was dropped and recreated with what remains; the server's "
    "own files cannot be verified from here"
)


def signatures(matrix: np.ndarray) -> list[bytes]:
    """The byte signature of each row, as float32 stores it on disk."""
    rows = np.asarray(matrix, dtype="<f4")
    if rows.size == 0:
        return []
    return [row.tobytes()[:SIGNATURE_BYTES] for row in rows]


@dataclass
class VectorErasure:
    """The receipt's `vectors` entry, and what the final scan must look for."""

    receipt: dict[str, Any]
    forgotten: list[bytes] = field(default_factory=list, repr=False)
    kept: set[bytes] = field(default_factory=set, repr=False)


def erase(
    dense: DenseMemory,
    keys: Sequence[str],
    *,
    flush: Callable[[Sequence[str]], dict[str, str]],
    everything: bool = False,
) -> VectorErasure:
    """Apply the queued deletes (and upserts of recomputed forms), then rebuild the index
    from what remains. `receipt["verified"]` stays False: only the caller's scan of the
    data dir, after every writer is closed, may set it."""
    result = VectorErasure({"deleted": len(keys), "verified": False, "rebuilt": False})
    try:
        index = dense.index
        if keys:
            # A turn's pieces go with it, held ones (a restore's copies) included: the
            # bytes of each must vanish too. `forget --all` names every key already.
            owned = pieces.owned_by(index.ids() | dense.held_keys(), pieces.episodes_of(keys))
            dense.drop_held(owned)
            keys = list(dict.fromkeys([*keys, *owned]))
        if keys and isinstance(index, vectors.ChromaIndex):
            _, matrix, _ = index.vectors(list(keys))
            result.forgotten = signatures(matrix)
        dense.flush(flush)
        if dense.degraded:
            raise StoreError(dense.degraded)
        server = isinstance(index, vectors.ChromaIndex) and index.folder is None
        result.kept = renew(dense, drop=set(keys), everything=everything)
        result.receipt["rebuilt"] = True
        if server:
            result.receipt["verified"] = not (set(keys) & dense.index.ids())
            result.receipt["scope"] = SERVER_SCOPE
    except StoreError as error:
        result.receipt["pending"] = (
            f"the vector index could not be rebuilt now ({error}); the deletes stay queued: "
            "run aniso reindex, then forget again"
        )
    return result


def renew(dense: DenseMemory, *, drop: set[str], everything: bool = False) -> set[bytes]:
    """Rebuild the index with every vector it holds but those of `drop` (none at all with
    `everything`); returns the signatures of the vectors kept. `aniso reindex` and
    `import --replace` start from an empty index this way too."""
    index = dense.index
    folder = index.folder if isinstance(index, vectors.ChromaIndex) else None
    erased = pieces.episodes_of(drop)  # a dropped turn's pieces are dropped with it
    if everything:
        ids: list[str] = []
        matrix = np.zeros((0, 0), dtype=np.float32)
        metas: list[dict[str, Any]] = []
    elif isinstance(index, vectors.ChromaIndex):
        ids, matrix, metas = index.vectors()
        dropped = drop | set(pieces.owned_by(ids, erased))
        keep = [i for i, key in enumerate(ids) if key not in dropped]
        ids, metas = [ids[i] for i in keep], [metas[i] for i in keep]
        matrix = matrix[keep] if len(keep) else np.zeros((0, 0), dtype=np.float32)
    else:  # another VectorIndex: its own reset and delete are all it offers
        if everything:
            index.reset()
        elif drop:
            index.delete(sorted(drop | set(pieces.owned_by(index.ids(), erased))))
        return set()
    if folder is None:
        index.reset()
        index.upsert(ids, matrix, metas)
    else:
        _remove_broken_copy(folder)
        with vectors.owned(folder):
            dense.close()
            vectors.close_all(folder)
            vectors.rebuild_folder(folder, ids, matrix, metas)
        from aniso.core.db import tighten_permissions

        tighten_permissions(folder.parent)
    log.info("the vector index was rebuilt with %d vectors after an erasure", len(ids))
    return set(signatures(matrix))


def _remove_broken_copy(folder: Path) -> None:
    """A set-aside broken index holds old vectors too; it is derived data."""
    aside = folder.with_name(folder.name + ".broken")
    if aside.exists():
        shutil.rmtree(aside, ignore_errors=True)
