"""The dense side of memory: embeddings in a vector index, kept in step with SQLite.

Writes go through an outbox row committed with the episode, so a vector index that
is down or corrupt never loses a write: the outbox is replayed once it is back.

Write-behind: a chat turn's own vector need not reach the index before the reply
(an embedded Chroma upsert costs about as much as the whole recall). The turn
*holds* it: the outbox row is committed as always, the vector stays in process
memory, `search` scores held vectors next to the index's hits (so they are found
exactly as if pushed), and `push_held` sends them after the reply. A crash loses
only the in-memory copy; the outbox replays the write on the next flush.
Ids are `e:<episode id>` for episodes, `b:<block id>` for warm summaries and
cold capsules, and `a:<episode id>` for archived episodes: an archived episode keeps
its vector (moved from `e:` to `a:` by `copy`, never embedded again), so the archive
stays packed yet findable by meaning, and a restore copies the vector back.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

import numpy as np
import sqlite_utils

from aniso.core.db import select_in, transaction
from aniso.core.errors import StoreError
from aniso.core.ports import Embedder
from aniso.tiers.index.vectors import VectorIndex
from aniso.tiers.text import CYRILLIC

log = logging.getLogger(__name__)
OUTBOX_BATCH = 256
RECENT_EMBEDDINGS = 32


def episode_key(episode_id: int) -> str:
    return f"e:{episode_id}"


def block_key(block_id: int) -> str:
    return f"b:{block_id}"


def archive_key(episode_id: int) -> str:
    return f"a:{episode_id}"


def expected_keys(db: sqlite3.Connection | sqlite_utils.Database) -> set[str]:
    """The keys SQLite says the vector index must hold: every live episode, every
    archived one not restored, and every active warm or cold block with a summary
    (its searchable capsule or summary)."""
    keys = {episode_key(row[0]) for row in db.execute("SELECT id FROM episodes")}
    keys |= {
        archive_key(row[0])
        for row in db.execute("SELECT episode_id FROM archive WHERE status = 'archived'")
    }
    keys |= {
        block_key(row[0])
        for row in db.execute(
            "SELECT id FROM blocks WHERE status = 'active' AND tier != 'hot' AND summary != ''"
        )
    }
    return keys


def pending_keys(db: sqlite3.Connection | sqlite_utils.Database) -> set[str]:
    """Keys with an index write still queued in the outbox: neither stale nor missing."""
    return {row[0] for row in db.execute("SELECT ref FROM outbox")}


def parse_key(key: str) -> tuple[str, int]:
    """(kind, id) of a key; a piece's (`p:{episode}:{n}`, `aniso.tiers.index.pieces`)
    id is its episode's."""
    kind, _, number = key.partition(":")
    return kind, int(number.partition(":")[0])


def best_first(score: float, key: str) -> tuple[float, str, int]:
    """Sort key of a scored index key: higher score first, a tie by kind and id.

    Never by set or dict order: a set of strings iterates in an order the hash seed
    picks anew in every process, so ties would rank differently from run to run."""
    kind, number = parse_key(key)
    return -score, kind, number


class DenseMemory:
    """Embeds texts and mirrors them into the vector index, through the outbox."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        embedder: Embedder,
        index_factory: Callable[[], VectorIndex],
        *,
        warn: Callable[[str], None] = log.warning,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self._index_factory = index_factory
        self._index: VectorIndex | None = None
        self.warn = warn
        self.degraded: str | None = None
        self._notices: list[str] = []
        self._recent: dict[str, np.ndarray] = {}  # process memory only, never persisted
        self._held: dict[str, np.ndarray] = {}  # queued in the outbox, not yet pushed
        self.turn_share = 1.0
        """Turns per hit in the last search by meaning, counted up to its hundredth
        turn, where a turn's pieces share the index (`memory._turn_candidates`): the
        next search starts wide enough to meet that many turns at once."""

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            self._index = self._index_factory()
            if getattr(self._index, "rebuilt", False):
                self.requeue_all()
        return self._index

    def note(self, message: str) -> None:
        """Log a one-off warning and keep it for the next recall to show the user
        (e.g. the index was unreadable and is rebuilt): a silent log is not enough."""
        self.warn(message)
        self._notices.append(message)

    def take_notices(self) -> list[str]:
        """The warnings noted since the last call, each shown once."""
        notices, self._notices = self._notices, []
        return notices

    def reads(self, text: str) -> bool:
        """Whether the embedder was trained on text like this: an embedder that says it
        reads English only (`english_only`) does not read a mostly Cyrillic text, and
        its neighbours for one are weak evidence (recall then leans on its stems)."""
        if not self.embedder.english_only:
            return True
        letters = [ch for ch in text if ch.isalpha()]
        foreign = sum(1 for ch in letters if CYRILLIC.match(ch))
        return foreign * 2 <= len(letters)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`; the last few single texts are remembered, because a
        message is embedded to be stored and then again as the query that recalls."""
        texts = list(texts)
        if len(texts) != 1:
            return self.embedder.embed(texts)
        cached = self._recent.get(texts[0])
        if cached is None:
            cached = self.embedder.embed(texts)
            self._recent[texts[0]] = cached
            while len(self._recent) > RECENT_EMBEDDINGS:
                self._recent.pop(next(iter(self._recent)))
        return cached.copy()

    def enqueue(self, op: str, key: str, *, at: datetime) -> int:
        """Inside the caller's transaction: remember that the index must change. Returns
        the outbox row's id, which a `push` of the vector names as what it fulfils."""
        if op != "upsert":
            # The outbox now orders this key's writes: its upsert replays from SQLite.
            self._held.pop(key, None)
        cursor = self.db.execute(
            "INSERT INTO outbox (op, ref, queued) VALUES (?, ?, ?)", [op, key, at.isoformat()]
        )
        return int(cursor.lastrowid or 0)

    def push(self, keys: Sequence[str], vectors: np.ndarray, *, upto: Mapping[str, int]) -> None:
        """Upsert vectors we already hold, then clear their outbox rows.

        `upto` gives, per key, the id of the queued upsert the vector fulfils: the
        key's rows up to it are done, deletes included, and rows queued after it (by
        another process, while we pushed) stay to replay in order."""
        if not keys:
            return
        try:
            self.index.upsert(list(keys), vectors, [{"kind": k[0]} for k in keys])
        except StoreError as error:
            self._degrade(error)
            return
        self._done({key: upto[key] for key in keys})

    def close(self) -> None:
        """Push what is held and release the index: its folder lock, its files. Another
        process (a CLI `aniso doctor` after the app quits) may then own the folder.
        A failed push loses nothing: the outbox replays it."""
        try:
            self.push_held()
        except sqlite3.Error as error:  # a locked or closed database: the outbox has it
            log.warning("held vectors stay queued in the outbox: %s", error)
        if self._index is not None:
            self._index.close()
            self._index = None

    def hold(self, key: str, vector: np.ndarray) -> None:
        """Keep the vector of an upsert already queued in the outbox, to push it later
        (`push_held`); until then `search` finds it as if it were in the index."""
        self._held[key] = np.asarray(vector, dtype=np.float32).reshape(-1)

    def held_keys(self) -> set[str]:
        """The keys whose vectors are held, not yet pushed (`hold`)."""
        return set(self._held)

    def drop_held(self, keys: Sequence[str]) -> None:
        """Forget held vectors without pushing them: an erasure's, whose keys it deletes
        from the index itself (a turn's pieces, which have no delete in the outbox)."""
        for key in keys:
            self._held.pop(key, None)

    def copy(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """Give each target key its source key's vector, without embedding: held, to
        be pushed with the other held vectors (a restore inside a chat turn must stay
        quick). The caller has queued the targets' upserts (and the sources' deletes)
        in the outbox: a source the index no longer has leaves its target there, to be
        embedded from SQLite by the next flush. Returns the targets given a vector."""
        if not pairs:
            return []
        found = {source: self._held[source] for source, _ in pairs if source in self._held}
        wanted = [source for source, _ in pairs if source not in found]
        if wanted:
            try:
                reader = getattr(self.index, "vectors", None)
                if reader is None:
                    return []
                ids, matrix, _ = reader(wanted)
            except StoreError as error:
                self._degrade(error)
                return []
            found.update((key, matrix[i]) for i, key in enumerate(ids))
        copied = []
        for source, target in pairs:
            if source in found:
                self.hold(target, found[source])
                copied.append(target)
        return copied

    def push_held(self) -> None:
        """Push every held vector whose upsert is still queued (an erasure may have
        taken it off the outbox since), then forget them."""
        queued = self._live_rows()
        held = {key: self._held[key] for key in queued}
        self._held = {}
        if held:
            self.push(list(held), np.vstack(list(held.values())), upto=queued)

    def _live_held(self) -> dict[str, np.ndarray]:
        """The held vectors whose upsert is still queued with no delete after it."""
        return {key: self._held[key] for key in self._live_rows()}

    def _live_rows(self) -> dict[str, int]:
        """For each live held vector, the id of the latest queued upsert it fulfils;
        the others are forgotten. A delete queued later, even by another process (a
        compaction archiving the episode), is newer than the held copy: the key then
        replays from the outbox in order, or a flush that skips held upserts would
        apply the delete first and the push would bring the vector back."""
        if not self._held:
            return {}
        keys = list(self._held)
        queued = dict(
            select_in(
                self.db,
                "SELECT ref, max(id) FROM outbox AS u WHERE u.op = 'upsert' "
                "AND u.ref IN ({}) AND NOT EXISTS (SELECT 1 FROM outbox AS d "
                "WHERE d.ref = u.ref AND d.op = 'delete' AND d.id > u.id) GROUP BY ref",
                keys,
            )
        )
        self._held = {key: self._held[key] for key in keys if key in queued}
        return queued

    def _done(self, upto: Mapping[str, int]) -> None:
        """Clear each key's outbox rows up to the id its index write reflects, and
        forget a held copy: the index now has the key's state as of that row, so the
        earlier rows are spent. A held upsert a replay skipped counts too: once the
        replay applied a delete queued after it, pushing the held copy later would
        bring back a vector SQLite no longer expects."""
        for key in upto:
            self._held.pop(key, None)
        spent = [(key, row_id) for key, row_id in upto.items()]
        sql = "DELETE FROM outbox WHERE ref = ? AND id <= ?"
        if self.db.conn.in_transaction:
            self.db.conn.executemany(sql, spent)
            return
        with transaction(self.db):  # one commit, not one per key (20x faster at 10k keys)
            self.db.conn.executemany(sql, spent)

    def _degrade(self, error: Exception) -> None:
        message = f"vector index unavailable, recall is lexical only: {error}"
        if self.degraded != message:
            self.warn(message)
        self.degraded = message

    def flush(
        self, text_of: Callable[[Sequence[str]], dict[str, str]], *, keep_held: bool = False
    ) -> int:
        """Replay pending index writes from SQLite; returns how many were applied.
        With `keep_held`, held vectors stay held (a search finds them anyway)."""
        applied = 0
        try:
            _ = self.index  # opening a lost index queues everything again, before we read
        except StoreError as error:
            self._degrade(error)
            return applied
        if not keep_held:
            self.push_held()
        held = set(self._live_held())
        after = 0
        while True:
            # Paged by id, with held upserts skipped here rather than in an `IN` list:
            # a compaction can hold tens of thousands of keys, past SQLite's limit.
            page = self.db.execute(
                "SELECT id, op, ref FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
                [after, OUTBOX_BATCH],
            ).fetchall()
            if not page:
                self.degraded = None
                return applied
            after = page[-1][0]
            rows = [row for row in page if not (row[1] == "upsert" and row[2] in held)]
            if not rows:
                continue
            try:
                applied += self._apply(rows, text_of)
            except StoreError as error:
                self._degrade(error)
                return applied

    def _apply(
        self, rows: list[tuple[int, str, str]], text_of: Callable[[Sequence[str]], dict[str, str]]
    ) -> int:
        last_op: dict[str, str] = {}
        for _, op, ref in rows:  # in outbox order: a key's latest operation wins
            last_op.pop(ref, None)
            last_op[ref] = op
        deletes = [ref for ref, op in last_op.items() if op == "delete"]
        upserts = [ref for ref, op in last_op.items() if op == "upsert"]
        if deletes:
            self.index.delete(deletes)
        texts = text_of(upserts)
        present = [key for key in upserts if key in texts]
        if present:
            vectors = self.embed([texts[key] for key in present])
            self.index.upsert(present, vectors, [{"kind": k[0]} for k in present])
        gone = [key for key in upserts if key not in texts]
        if gone:
            self.index.delete(gone)
        self._done({ref: row_id for row_id, _, ref in rows})  # rows are in id order
        return len(rows)

    def reconcile(self, now: datetime) -> tuple[int, int]:
        """Bring the index in line with SQLite: delete vectors of keys SQLite no longer
        expects and queue the missing ones. Only the owner of the index writes it, so
        nothing can reach the index between our reads of SQLite and of the index.
        Run by the nightly compactor, so any drift `aniso doctor` would report (a race
        between processes, a crash between stores) heals by morning. Returns
        (stale removed, missing queued); (0, 0) when the index is unavailable."""
        try:
            pending = pending_keys(self.db)
            expected = expected_keys(self.db)
            actual = self.index.ids()
        except StoreError as error:
            self._degrade(error)
            return 0, 0
        # A turn's pieces are optional derived vectors, refreshed on their own
        # (`pieces.refresh`, after this in the nightly run): neither missing nor stale here.
        actual = {key for key in actual if not key.startswith("p:")}
        stale = sorted(actual - expected - pending - set(self._held))
        missing = sorted(expected - actual - pending - set(self._held))
        if stale:
            log.warning("removing %d stale vectors from the index", len(stale))
            self.index.delete(stale)
        if missing:
            log.warning("queueing %d missing vectors for the index", len(missing))
            with transaction(self.db):
                for key in missing:
                    self.enqueue("upsert", key, at=now)
        return len(stale), len(missing)

    def search(self, vector: np.ndarray, *, k: int) -> list[tuple[str, float]]:
        """Nearest keys with their cosine, best first, held vectors included; empty
        (with a warning) when the index is down."""
        try:
            hits = self.index.query(vector, k)
        except StoreError as error:
            self._degrade(error)
            return []
        held = self._live_held()
        if not held:
            return hits
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        matrix = np.vstack(list(held.values()))
        norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
        cosines = (matrix @ query) / np.maximum(norms, 1e-12)
        merged = dict(hits)  # a held vector is newer than the index's copy of its key
        merged.update(
            (key, float(min(1.0, max(-1.0, c)))) for key, c in zip(held, cosines, strict=True)
        )
        return sorted(merged.items(), key=lambda hit: best_first(hit[1], hit[0]))[:k]

    def cosines(self, keys: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        """The cosine of each key's stored vector (held or in the index) with `vector`,
        read back, not embedded; a key the index lacks, or an index that cannot be read
        back, is left out."""
        found = {key: self._held[key] for key in keys if key in self._held}
        wanted = [key for key in keys if key not in found]
        reader = getattr(self.index, "vectors", None) if wanted else None
        if reader is not None:
            try:
                ids, matrix, _ = reader(wanted)
            except StoreError as error:
                self._degrade(error)
            else:
                found.update((key, matrix[i]) for i, key in enumerate(ids))
        if not found:
            return {}
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        matrix = np.vstack(list(found.values()))
        norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
        values = (matrix @ query) / np.maximum(norms, 1e-12)
        return {key: float(c) for key, c in zip(found, values, strict=True)}

    def requeue_all(self) -> None:
        """After the index was lost: queue every searchable item again."""
        queue_everything(self.db.conn)


def queue_everything(conn: sqlite3.Connection) -> None:
    """Queue an upsert of every searchable item, so an index that starts empty (lost,
    or never there, as in a restored backup) is refilled from SQLite on first use."""
    conn.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'e:' || id, at FROM episodes"
    )
    conn.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'b:' || id, created "
        "FROM blocks WHERE summary != '' AND status = 'active' AND tier != 'hot'"
    )
    conn.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'a:' || episode_id, "
        "archived_at FROM archive WHERE status = 'archived'"
    )
