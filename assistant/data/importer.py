"""`aniso import`: load an export back, all or nothing, holding one record at a time.

Two passes over the file, each reading one record (a block with its episodes, a
profile value, a link...) at a time, so a 100k-episode file never sits in RAM:

1. `read_document` (`aniso.data.reading`) validates the whole file before the store
   is touched: pydantic per record, then the cross-record checks, keeping only ids.
   A file broken at 90% is refused with nothing opened for writing.
2. `write_document` reads it again inside one `BEGIN IMMEDIATE` transaction,
   checking every record again as it writes, so a failure halfway (or a file changed
   between the passes) leaves the database as it was.

Every imported text passes through the privacy guard first: a file from elsewhere
may hold what Aniso never stores.

`--replace` swaps the memory for the file's, keeping its ids (so export → import →
export is byte-identical). `--merge` adds the file's memory beside the current one,
shifting its ids past the existing ones.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

import sqlite_utils

from aniso.core.db import transaction
from aniso.core.ports import Redact, RedactMany
from aniso.data.document import (
    BlockRecord,
    EpisodeRecord,
    LinkRecord,
    ProcedureRecord,
    ProfileValueRecord,
    ThreadRecord,
    TierEventRecord,
)
from aniso.data.export import CACHED_TEXTS
from aniso.data.reading import ExportFile, items
from aniso.tiers import archive
from aniso.tiers.index import lexical, reindex
from aniso.tiers.model import TIERS

Mode = Literal["merge", "replace"]
MEMORY_TABLES = (
    "episodes",
    "blocks",
    "links",
    "block_terms",
    "archive",
    "profile_values",
    "tier_events",
    "threads",
    "procedures",
    "procedure_links",
    "outbox",
    "unpack_state",
    lexical.EPISODES,
    lexical.BLOCKS,
    lexical.CONTEXT,
)


@dataclass
class ImportReport:
    path: str
    mode: str
    blocks: dict[str, int] = field(default_factory=dict)
    episodes: int = 0
    archived: int = 0
    profile_values: int = 0
    links: int = 0
    tier_events: int = 0
    threads: int = 0
    procedures: int = 0
    redacted: int = 0
    """Texts the privacy guard changed on the way in."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Offsets:
    block: int = 0
    episode: int = 0
    profile: int = 0
    event: int = 0
    procedure: int = 0

    @classmethod
    def past(cls, db: sqlite_utils.Database) -> _Offsets:
        def top(sql: str) -> int:
            return int(db.execute(sql).fetchone()[0] or 0)

        return cls(
            block=top("SELECT max(id) FROM blocks"),
            episode=max(
                top("SELECT max(id) FROM episodes"), top("SELECT max(episode_id) FROM archive")
            ),
            profile=top("SELECT max(id) FROM profile_values"),
            event=top("SELECT max(id) FROM tier_events"),
            procedure=top("SELECT max(id) FROM procedures"),
        )

    def b(self, value: int | None) -> int | None:
        return None if value is None else value + self.block

    def e(self, value: int | None) -> int | None:
        return None if value is None else value + self.episode


class _Writer:
    """Inserts one validated document inside the caller's transaction.

    Texts are guarded a block at a time (`prepare`), so the guard's batch form does
    the work; keywords, terms and short replies repeat across blocks and are scanned
    once while they stay in `_clean`.
    """

    def __init__(self, db: sqlite_utils.Database, redact_many: RedactMany, shift: _Offsets) -> None:
        self.db = db
        self._redact_many = redact_many
        self._clean: dict[str, str] = {}
        self.shift = shift
        self.redacted = 0

    def prepare(self, texts: list[str]) -> None:
        """Guard, in one batch, the texts the next record will ask `text` for."""
        wanted = dict.fromkeys(texts)
        if len(self._clean) + len(wanted) > CACHED_TEXTS:
            self._clean = {t: self._clean[t] for t in wanted if t in self._clean}
        fresh = [t for t in wanted if t not in self._clean]
        if fresh:
            self._clean.update(zip(fresh, self._redact_many(fresh), strict=True))

    def text(self, value: str) -> str:
        clean = self._clean.get(value)
        if clean is None:  # a text `prepare` was not told of: guarded on its own
            self.prepare([value])
            clean = self._clean[value]
        self.redacted += clean != value
        return clean

    def maybe(self, value: str | None) -> str | None:
        return None if value is None else self.text(value)

    def episode_row(self, episode: EpisodeRecord, block_id: int | None) -> dict[str, Any]:
        return {
            "id": self.shift.e(episode.id),
            "block_id": block_id,
            "session": episode.session,
            "at": episode.at.isoformat(),
            "user_text": self.text(episode.user_text),
            "reply": self.maybe(episode.reply),
            "status": episode.status,
            "error": self.maybe(episode.error),
            "tokens": episode.tokens,
            "pii_types": json.dumps(episode.pii_types),
            "salience": episode.salience,
            "ref": episode.ref,
            "origin_id": self.shift.e(episode.origin_id),
        }

    def episode(self, episode: EpisodeRecord, block_id: int | None) -> None:
        row = self.episode_row(episode, block_id)
        self.db.execute(
            f"INSERT INTO episodes ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
        lexical.index_episode(self.db, row["id"], row["user_text"], row["at"])

    def block(self, block: BlockRecord) -> None:
        self.prepare(_texts_of(block))
        block_id = self.shift.b(block.id)
        keywords = [self.text(k) for k in block.keywords]
        anchors = [self.text(a) for a in block.anchors]
        summary = self.text(block.summary)
        centroid = base64.b64decode(block.centroid) if block.centroid else None
        self.db.execute(
            "INSERT INTO blocks (id, tier, status, created, last_access, last_episode_at, "
            "access_count, size, important, open, pinned, summary, keywords, anchors, pointers, "
            "centroid, kept_share, restored_from, version) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                block_id,
                block.tier,
                block.status,
                block.created.isoformat(),
                block.last_access.isoformat(),
                block.last_episode_at.isoformat(),
                block.access_count,
                block.size,
                int(block.markers.important),
                int(block.markers.open),
                int(block.markers.pinned),
                summary,
                json.dumps(keywords, ensure_ascii=False),
                json.dumps(anchors, ensure_ascii=False),
                json.dumps([self.shift.b(p) for p in block.pointers]),
                centroid,
                block.kept_share,
                self.shift.b(block.restored_from),
                block.version,
            ],
        )
        if summary:
            lexical.index_block(self.db, block_id, " ".join([summary, *keywords, *anchors]))
        for term in block.terms:
            self.db.execute(
                "INSERT OR IGNORE INTO block_terms (term, block_id) VALUES (?, ?)",
                [self.text(term), block_id],
            )
        for episode in block.episodes:
            self.episode(episode, block_id)
        for item in block.archive:
            row = self.episode_row(item.episode, block_id)
            self.db.execute(
                "INSERT INTO archive (episode_id, block_id, payload, archived_at, status, tokens) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    row["id"],
                    block_id,
                    archive.pack(row),
                    item.archived_at.isoformat(),
                    item.status,
                    row["tokens"],
                ],
            )
            if item.status == "archived":  # findable while packed, as after compaction
                lexical.index_episode(self.db, row["id"], row["user_text"], row["at"])

    def profile(self, value: ProfileValueRecord) -> None:
        shift = self.shift
        payload = value.value
        stored = (
            json.dumps(
                {k: self.text(v) if isinstance(v, str) else v for k, v in payload.items()},
                ensure_ascii=False,
            )
            if isinstance(payload, dict)
            else self.text(payload)
        )
        self.db.execute(
            "INSERT INTO profile_values (id, field, value, since, source_episode, source, ended, "
            "ended_by_episode, ended_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                value.id + shift.profile,
                value.field,
                stored,
                value.since.isoformat(),
                shift.e(value.source_episode),
                value.source,
                value.ended.isoformat() if value.ended else None,
                shift.e(value.ended_by_episode),
                self.maybe(value.ended_reason),
            ],
        )

    def link(self, link: LinkRecord) -> None:
        self.db.execute(
            "INSERT INTO links (a, b, weight, uses, reason, updated) VALUES (?, ?, ?, ?, ?, ?)",
            [
                self.shift.b(link.a),
                self.shift.b(link.b),
                link.weight,
                link.uses,
                link.reason,
                link.updated.isoformat(),
            ],
        )

    def event(self, event: TierEventRecord) -> None:
        detail = dict(event.detail)
        if isinstance(detail.get("new_block"), int):
            detail["new_block"] = self.shift.b(detail["new_block"])
        self.db.execute(
            "INSERT INTO tier_events (id, at, block_id, kind, from_tier, to_tier, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                event.id + self.shift.event,
                event.at.isoformat(),
                self.shift.b(event.block_id),
                event.kind,
                event.from_tier,
                event.to_tier,
                json.dumps(detail),
            ],
        )

    def thread(self, thread: ThreadRecord) -> None:
        def at(value: datetime | None) -> str | None:
            return None if value is None else value.isoformat()

        self.db.execute(
            "INSERT INTO threads (block_id, opened, last_pulled, last_refresh, next_refresh, "
            "n, r, u, tau_hours, brief, source, shown) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                self.shift.b(thread.block_id),
                at(thread.opened),
                at(thread.last_pulled),
                at(thread.last_refresh),
                at(thread.next_refresh),
                thread.n,
                thread.r,
                thread.u,
                thread.tau_hours,
                self.text(thread.brief),
                thread.source,
                at(thread.shown),
            ],
        )

    def procedure(self, procedure: ProcedureRecord) -> None:
        number = procedure.id + self.shift.procedure
        self.db.execute(
            "INSERT INTO procedures (id, kind, title, steps, params, source_episode, created, "
            "last_used, uses, pinned, rejected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                number,
                procedure.kind,
                self.text(procedure.title),
                json.dumps([self.text(step) for step in procedure.steps], ensure_ascii=False),
                json.dumps(procedure.params, ensure_ascii=False),
                self.shift.e(procedure.source_episode),
                procedure.created.isoformat(),
                procedure.last_used.isoformat(),
                procedure.uses,
                int(procedure.pinned),
                int(procedure.rejected),
            ],
        )
        for link in procedure.links:
            self.db.execute(
                "INSERT INTO procedure_links (procedure_id, episode_id, weight, updated) "
                "VALUES (?, ?, ?, ?)",
                [number, self.shift.e(link.episode_id), link.weight, link.updated.isoformat()],
            )


def _texts_of(block: BlockRecord) -> list[str]:
    """Every text `_Writer.block` guards, so that one batch covers the block."""
    texts = [block.summary, *block.keywords, *block.anchors, *block.terms]
    episodes = [*block.episodes, *(item.episode for item in block.archive)]
    for episode in episodes:
        texts.append(episode.user_text)
        texts += [value for value in (episode.reply, episode.error) if value is not None]
    return texts


def write_document(
    db: sqlite_utils.Database,
    document: ExportFile,
    *,
    mode: Mode,
    redact: Redact,
    path: str,
    at: str,
    progress: Callable[[int], None] | None = None,
    redact_many: RedactMany | None = None,
) -> ImportReport:
    """Write a validated file in one transaction; nothing is written if anything fails.

    The file is read again, record by record, and checked again as it goes: if it
    changed since `read_document`, the check fails and the transaction rolls back.
    `redact_many`, when given, is `redact` for a batch (the app's `redact_texts`);
    otherwise `redact` is called per text.
    """
    report = ImportReport(path=path, mode=mode, blocks={tier: 0 for tier in TIERS})
    if redact_many is None:
        redact_many = functools.partial(_one_by_one, redact)
    with transaction(db):
        if mode == "replace":
            for table in MEMORY_TABLES:
                db.execute(f"DELETE FROM {table}")
        shift = _Offsets() if mode == "replace" else _Offsets.past(db)
        writer = _Writer(db, redact_many, shift)
        for section, tier, record in items(document.path):
            if section == "tiers":
                writer.block(record)
                report.blocks[tier] += 1
                report.episodes += len(record.episodes)
                report.archived += len(record.archive)
                if progress is not None:
                    progress(1)
            elif section == "loose_episodes":
                writer.episode(record, None)
                report.episodes += 1
            elif section == "profile":
                writer.profile(record)
                report.profile_values += 1
            elif section == "links":
                writer.link(record)
                report.links += 1
            elif section == "threads":
                writer.thread(record)
                report.threads += 1
            elif section == "procedures":
                writer.procedure(record)
                report.procedures += 1
            else:
                writer.event(record)
                report.tier_events += 1
        report.redacted = writer.redacted
        # Imported turns may fall between turns already here: derive every context.
        reindex.fill_contexts(db)
        reindex.restem_block_terms(db)  # an older export's terms carry older stems
        _queue_vectors(db, shift)
        db.execute(
            "INSERT INTO audit (at, kind, detail) VALUES (?, 'import', ?)",
            [at, json.dumps({k: v for k, v in report.as_dict().items() if k != "path"})],
        )
    return report


def _one_by_one(redact: Redact, texts: list[str]) -> list[str]:
    return [redact(text) for text in texts]


def _queue_vectors(db: sqlite_utils.Database, shift: _Offsets) -> None:
    """The vector index learns the new rows through the outbox, like any write."""
    db.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'e:' || id, at FROM episodes "
        "WHERE id > ?",
        [shift.episode],
    )
    db.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'b:' || id, created FROM blocks "
        "WHERE id > ? AND summary != '' AND status = 'active' AND tier != 'hot'",
        [shift.block],
    )
    db.execute(
        "INSERT INTO outbox (op, ref, queued) SELECT 'upsert', 'a:' || episode_id, archived_at "
        "FROM archive WHERE episode_id > ? AND status = 'archived'",
        [shift.episode],
    )
