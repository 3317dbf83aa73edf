"""`aniso import`: load an export back, all or nothing, holding one record at a time.

Two passes over the file, each reading one record (a block with its episodes, a
profile value, a link...) at a time, so a 100k-episode file never sits in RAM:

1. `read_document` validates the whole file before the database is touched:
   pydantic per record, then the cross-record checks (duplicate ids, blocks filed
   under the wrong tier, links to blocks that are not there), keeping only ids. The
   first problem is reported with the file name and its location, e.g.
   `tiers.hot[3].episodes[0].at`. A file broken at 90% is refused with nothing
   opened for writing.
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
import codecs
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import sqlite_utils
from pydantic import BaseModel, ValidationError

from aniso.core.db import transaction
from aniso.core.errors import InputError
from aniso.core.ports import Redact
from aniso.data.document import (
    FORMAT,
    SCHEMA_VERSION,
    BlockRecord,
    EpisodeRecord,
    ExportDocument,
    LinkRecord,
    ProfileValueRecord,
    TierEventRecord,
)
from aniso.data.export import cached
from aniso.data.jsonstream import JsonReader, JsonSyntaxError
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


@dataclass(frozen=True)
class ExportFile:
    """An export file read and validated to the end; `write_document` reads it again.

    Nothing of the memory stays in RAM between the two passes, only these counts.
    """

    path: Path
    blocks: dict[str, int]
    episodes: int


Item = tuple[str, str, Any]
"""(section, tier or "", validated record) in file order."""


class _Utf8:
    """A binary file read as UTF-8 text, naming the byte where the decoding fails."""

    def __init__(self, raw: IO[bytes], name: str) -> None:
        self._raw = raw
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._read = 0

    def read(self, size: int) -> str:
        while True:
            data = self._raw.read(size)
            pending = len(self._decoder.getstate()[0])
            try:
                text = self._decoder.decode(data, final=not data)
            except UnicodeDecodeError as error:
                raise InputError(
                    f"cannot import {self._name}: not UTF-8 text "
                    f"(byte {self._read - pending + error.start}); is it an Aniso export?"
                ) from None
            self._read += len(data)
            if text or not data:
                return text


class _Checks:
    """Every check of an export, run record by record as the file streams past.

    Per record: the schema (pydantic) and the tier it is filed under. Across records,
    with only ids kept: duplicate ids, and links that join blocks not in the file
    (checked at the end, since a file may list links before blocks). The rest of the
    document (format, version, the sections being there) is checked as a skeleton
    whose record lists are empty.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.blocks: dict[str, int] = {tier: 0 for tier in TIERS}
        self.episodes = 0
        self._ids: dict[str, set[int]] = {
            k: set() for k in ("block", "episode", "profile value", "tier event")
        }
        self._pairs: set[tuple[int, int]] = set()
        self._links: list[tuple[int, int, int]] = []

    def fail(self, problem: str) -> InputError:
        return InputError(f"cannot import {self.name}: {problem}")

    def head(self, head: dict[str, Any], *, final: bool) -> None:
        """Format first, then version, as soon as the file has told them."""
        if "format" not in head and not final:
            return
        if head.get("format") != FORMAT:
            raise self.fail(f'not an Aniso export (no "format": "{FORMAT}")')
        if "schema_version" not in head and not final:
            return
        version = head.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise self.fail("schema_version must be a positive integer")
        if version > SCHEMA_VERSION:
            raise self.fail(
                f"it was written by a newer Aniso (schema version {version}; "
                f"this one reads up to {SCHEMA_VERSION}); upgrade Aniso first"
            )

    def valid(self, model: type[BaseModel], raw: Any, where: tuple[str | int, ...]) -> Any:
        try:
            return model.model_validate(raw)
        except ValidationError as error:
            raise self._invalid(error, where) from None

    def _invalid(self, error: ValidationError, where: tuple[str | int, ...]) -> InputError:
        first = error.errors()[0]
        more = error.error_count() - 1
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        return self.fail(f"at {_where((*where, *first['loc']))}: {first['msg']}{tail}")

    def _unique(self, what: str, value: int) -> None:
        seen = self._ids[what]
        if value in seen:
            raise self.fail(f"duplicate {what} id {value}")
        seen.add(value)

    def record(self, section: str, tier: str, index: int, raw: Any) -> Any:
        """Validate one record and check it against those before it."""
        if section == "tiers":
            block: BlockRecord = self.valid(BlockRecord, raw, ("tiers", tier, index))
            if block.tier != tier:
                raise self.fail(
                    f"at tiers.{tier}[{index}]: a {block.tier} block is filed under {tier}"
                )
            self._unique("block", block.id)
            for episode in block.episodes:
                self._unique("episode", episode.id)
            for item in block.archive:
                self._unique("episode", item.episode.id)
            self.blocks[tier] += 1
            self.episodes += len(block.episodes)
            return block
        record = self.valid(SECTIONS[section], raw, (section, index))
        if section == "loose_episodes":
            self._unique("episode", record.id)
            self.episodes += 1
        elif section == "profile":
            self._unique("profile value", record.id)
        elif section == "tier_events":
            self._unique("tier event", record.id)
        else:
            self._link(index, record)
        return record

    def _link(self, index: int, link: LinkRecord) -> None:
        pair = (link.a, link.b)
        if pair in self._pairs:
            raise self.fail(f"duplicate link {link.a}–{link.b}")
        self._pairs.add(pair)
        if link.a >= link.b:
            raise self.fail(f"at links[{index}]: a link needs a < b, got {link.a} and {link.b}")
        self._links.append((index, link.a, link.b))

    def finish(self, skeleton: dict[str, Any]) -> None:
        """What only the whole file can tell: the document's shape and the links' ends."""
        self.head(skeleton, final=True)
        try:
            ExportDocument.model_validate(skeleton)
        except ValidationError as error:
            raise self._invalid(error, ()) from None
        blocks = self._ids["block"]
        for index, a, b in self._links:
            if a not in blocks or b not in blocks:
                raise self.fail(f"at links[{index}]: it joins a block that is not in the file")


SECTIONS: dict[str, type[BaseModel]] = {
    "profile": ProfileValueRecord,
    "loose_episodes": EpisodeRecord,
    "links": LinkRecord,
    "tier_events": TierEventRecord,
}
"""The top-level lists read record by record; `tiers` holds three more."""


def _walk(reader: JsonReader, checks: _Checks) -> Iterator[Item]:
    """Validated records in file order; the rest of the document becomes a skeleton."""
    if reader.peek() != "{":
        reader.value()  # a syntax error first, as a whole-file parse would report it
        reader.end()
        checks.head({}, final=True)
    skeleton: dict[str, Any] = {}
    for key in reader.members():
        if key == "tiers" and reader.peek() == "{":
            tiers: dict[str, Any] = {}
            for tier in reader.members():
                if tier in TIERS and reader.peek() == "[":
                    for index, _ in enumerate(reader.elements()):
                        yield "tiers", tier, checks.record("tiers", tier, index, reader.value())
                    tiers[tier] = []
                else:
                    tiers[tier] = reader.value()
            skeleton[key] = tiers
        elif key in SECTIONS and reader.peek() == "[":
            for index, _ in enumerate(reader.elements()):
                yield key, "", checks.record(key, "", index, reader.value())
            skeleton[key] = []
        else:
            skeleton[key] = reader.value()
            checks.head(skeleton, final=False)
    reader.end()
    checks.finish(skeleton)


def _items(path: Path, checks: _Checks) -> Iterator[Item]:
    """Stream the file's validated records; InputError names the file and the place."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"cannot import {name}: {size} bytes is larger than an export can be")
        raw = path.open("rb")
    except OSError as error:
        raise InputError(f"cannot import {name}: {error.strerror or error}") from None
    with raw:
        try:
            yield from _walk(JsonReader(_Utf8(raw, name)), checks)
        except JsonSyntaxError as error:
            raise InputError(
                f"cannot import {name}: not valid JSON at line {error.line} column "
                f"{error.column}: {error.msg} (truncated or edited?)"
            ) from None
        except OSError as error:
            raise InputError(f"cannot import {name}: {error.strerror or error}") from None


def read_document(path: Path) -> ExportFile:
    """Validate an export file to its end, holding one record at a time.

    InputError names the file and the place, e.g. `tiers.hot[3].episodes[0].at`.
    """
    checks = _Checks(str(path))
    for _ in _items(path, checks):
        pass
    return ExportFile(path=path, blocks=dict(checks.blocks), episodes=checks.episodes)


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


def write_document(
    db: sqlite_utils.Database,
    document: ExportFile,
    *,
    mode: Mode,
    redact: Redact,
    path: str,
    at: str,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Write a validated file in one transaction; nothing is written if anything fails.

    The file is read again, record by record, and checked again as it goes: if it
    changed since `read_document`, the check fails and the transaction rolls back.
    """
    report = ImportReport(path=path, mode=mode, blocks={tier: 0 for tier in TIERS})
    with transaction(db):
        if mode == "replace":
            for table in MEMORY_TABLES:
                db.execute(f"DELETE FROM {table}")
        shift = _Offsets() if mode == "replace" else _Offsets.past(db)
        writer = _Writer(db, redact, shift)
        for section, tier, record in _items(document.path, _Checks(str(document.path))):
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
            else:
                writer.event(record)
                report.tier_events += 1
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
