"""`aniso import`: load an export back, all or nothing.

The file is parsed and validated completely (pydantic, then cross-record checks:
duplicate ids, blocks filed under the wrong tier, links to blocks that are not
there) before the database is touched; the first problem is reported with the file
name and its location, e.g. `tiers.hot[3].episodes[0].at`. The write is one
`BEGIN IMMEDIATE` transaction, so a failure halfway leaves the database as it was.
Every imported text passes through the privacy guard first: a file from elsewhere
may hold what Aniso never stores.

`--replace` swaps the memory for the file's, keeping its ids (so export → import →
export is byte-identical). `--merge` adds the file's memory beside the current one,
shifting its ids past the existing ones.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import sqlite_utils
from pydantic import ValidationError

from aniso.core.db import transaction
from aniso.core.errors import InputError
from aniso.core.ports import Redact
from aniso.data.document import (
    FORMAT,
    SCHEMA_VERSION,
    BlockRecord,
    EpisodeRecord,
    ExportDocument,
)
from aniso.data.export import cached
from aniso.tiers import archive
from aniso.tiers.index import lexical
from aniso.tiers.model import TIERS

Mode = Literal["merge", "replace"]
MAX_FILE_BYTES = 4 * 1024**3
MEMORY_TABLES = (
    "episodes",
    "blocks",
    "links",
    "block_terms",
    "archive",
    "profile_values",
    "tier_events",
    "outbox",
    "unpack_state",
    lexical.EPISODES,
    lexical.BLOCKS,
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
    redacted: int = 0
    """Texts the privacy guard changed on the way in."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _where(loc: Iterable[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the top level"


def read_document(path: Path) -> ExportDocument:
    """Parse and validate an export file; InputError names the file and the place."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"cannot import {name}: {size} bytes is larger than an export can be")
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot import {name}: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"cannot import {name}: not UTF-8 text (byte {error.start}); is it an Aniso export?"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"cannot import {name}: not valid JSON at line {error.lineno} column {error.colno}: "
            f"{error.msg} (truncated or edited?)"
        ) from None
    except RecursionError:
        raise InputError(f"cannot import {name}: JSON nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f'cannot import {name}: not an Aniso export (no "format": "{FORMAT}")')
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"cannot import {name}: schema_version must be a positive integer")
    if version > SCHEMA_VERSION:
        raise InputError(
            f"cannot import {name}: it was written by a newer Aniso (schema version {version}; "
            f"this one reads up to {SCHEMA_VERSION}); upgrade Aniso first"
        )
    try:
        document = ExportDocument.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        more = error.error_count() - 1
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise InputError(
            f"cannot import {name}: at {_where(first['loc'])}: {first['msg']}{tail}"
        ) from None
    check_consistency(document, name)
    return document


def _duplicate(ids: Iterable[int]) -> int | None:
    seen: set[int] = set()
    for value in ids:
        if value in seen:
            return value
        seen.add(value)
    return None


def check_consistency(document: ExportDocument, name: str) -> None:
    """What the schema alone cannot say: ids unique, tiers right, references resolve."""

    def fail(problem: str) -> None:
        raise InputError(f"cannot import {name}: {problem}")

    blocks = [(tier, i, b) for tier in TIERS for i, b in enumerate(getattr(document.tiers, tier))]
    for tier, index, block in blocks:
        if block.tier != tier:
            fail(f"at tiers.{tier}[{index}]: a {block.tier} block is filed under {tier}")
    block_ids = {b.id for _, _, b in blocks}
    checks = {
        "block id": (b.id for _, _, b in blocks),
        "episode id": (e.id for e in all_episodes(document)),
        "profile value id": (p.id for p in document.profile),
        "tier event id": (e.id for e in document.tier_events),
    }
    for what, ids in checks.items():
        dup = _duplicate(ids)
        if dup is not None:
            fail(f"duplicate {what} {dup}")
    pairs = _duplicate(a * (1 << 32) + b for a, b in ((lk.a, lk.b) for lk in document.links))
    if pairs is not None:
        fail(f"duplicate link {pairs >> 32}–{pairs & 0xFFFFFFFF}")
    for index, link in enumerate(document.links):
        if link.a >= link.b:
            fail(f"at links[{index}]: a link needs a < b, got {link.a} and {link.b}")
        if link.a not in block_ids or link.b not in block_ids:
            fail(f"at links[{index}]: it joins a block that is not in the file")


def all_episodes(document: ExportDocument) -> Iterable[EpisodeRecord]:
    for tier in TIERS:
        for block in getattr(document.tiers, tier):
            yield from block.episodes
            yield from (item.episode for item in block.archive)
    yield from document.loose_episodes


@dataclass
class _Offsets:
    block: int = 0
    episode: int = 0
    profile: int = 0
    event: int = 0

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
        )

    def b(self, value: int | None) -> int | None:
        return None if value is None else value + self.block

    def e(self, value: int | None) -> int | None:
        return None if value is None else value + self.episode


class _Writer:
    """Inserts one validated document inside the caller's transaction."""

    def __init__(self, db: sqlite_utils.Database, redact: Redact, shift: _Offsets) -> None:
        self.db = db
        self._redact = cached(redact)
        self.shift = shift
        self.redacted = 0

    def text(self, value: str) -> str:
        clean = self._redact(value)
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
        lexical.index_episode(self.db, row["id"], row["user_text"])

    def block(self, block: BlockRecord) -> None:
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


def write_document(
    db: sqlite_utils.Database,
    document: ExportDocument,
    *,
    mode: Mode,
    redact: Redact,
    path: str,
    at: str,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Write the document in one transaction; nothing is written if anything fails."""
    report = ImportReport(path=path, mode=mode)
    with transaction(db):
        if mode == "replace":
            for table in MEMORY_TABLES:
                db.execute(f"DELETE FROM {table}")
        shift = _Offsets() if mode == "replace" else _Offsets.past(db)
        writer = _Writer(db, redact, shift)
        for tier in TIERS:
            report.blocks[tier] = 0
            for block in getattr(document.tiers, tier):
                writer.block(block)
                report.blocks[tier] += 1
                report.episodes += len(block.episodes)
                report.archived += len(block.archive)
                if progress is not None:
                    progress(1)
        for episode in document.loose_episodes:
            writer.episode(episode, None)
            report.episodes += 1
        _write_rest(db, document, writer)
        report.profile_values = len(document.profile)
        report.links = len(document.links)
        report.tier_events = len(document.tier_events)
        report.redacted = writer.redacted
        _queue_vectors(db, shift)
        db.execute(
            "INSERT INTO audit (at, kind, detail) VALUES (?, 'import', ?)",
            [at, json.dumps({k: v for k, v in report.as_dict().items() if k != "path"})],
        )
    return report


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


def _write_rest(db: sqlite_utils.Database, document: ExportDocument, writer: _Writer) -> None:
    shift = writer.shift
    for value in document.profile:
        payload = value.value
        stored = (
            json.dumps(
                {k: writer.text(v) if isinstance(v, str) else v for k, v in payload.items()},
                ensure_ascii=False,
            )
            if isinstance(payload, dict)
            else writer.text(payload)
        )
        db.execute(
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
                writer.maybe(value.ended_reason),
            ],
        )
    for link in document.links:
        db.execute(
            "INSERT INTO links (a, b, weight, uses, reason, updated) VALUES (?, ?, ?, ?, ?, ?)",
            [
                shift.b(link.a),
                shift.b(link.b),
                link.weight,
                link.uses,
                link.reason,
                link.updated.isoformat(),
            ],
        )
    for event in document.tier_events:
        detail = dict(event.detail)
        if isinstance(detail.get("new_block"), int):
            detail["new_block"] = shift.b(detail["new_block"])
        db.execute(
            "INSERT INTO tier_events (id, at, block_id, kind, from_tier, to_tier, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                event.id + shift.event,
                event.at.isoformat(),
                shift.b(event.block_id),
                event.kind,
                event.from_tier,
                event.to_tier,
                json.dumps(detail),
            ],
        )
