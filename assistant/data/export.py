"""`aniso export`: the whole memory as schema-versioned JSON, or a Markdown digest.

The export is streamed: one record per line, read from one SQLite snapshot (a read
transaction, which in WAL mode never blocks the chat or the compactor) and written
to a temporary file beside the target, renamed into place only when complete. So a
100k-episode memory never sits in RAM at once, and a failed export leaves no
half-file. The file is created 0600: it is as private as the memory it copies.

The JSON export copies the store, which holds only text the privacy guard has
already passed (every write path, imports included, runs it), so it does not scan
each text again unless a caller asks (`redact`): that second scan was 91% of the
export's time and could find nothing the first did not.

Records are written in a fixed key order from the stored values, and every record is
checked against the export models first, so what `aniso export` writes, `aniso
import` accepts, and export → import → export is byte-identical.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import sqlite_utils

from aniso.core.db import transaction
from aniso.core.errors import InputError, StoreError
from aniso.core.ports import Progress, Redact
from aniso.data.document import (
    FORMAT,
    SCHEMA_VERSION,
    BlockRecord,
    EpisodeRecord,
    LinkRecord,
    ProcedureRecord,
    ProfileValueRecord,
    ThreadRecord,
    TierEventRecord,
)
from aniso.tiers import archive
from aniso.tiers.model import TIERS

CACHED_TEXTS = 8192


def cached(redact: Redact) -> Redact:
    """Keywords, terms, anchors and short replies repeat across blocks: scan each once."""
    return functools.lru_cache(maxsize=CACHED_TEXTS)(redact)


@dataclass(frozen=True)
class ExportReport:
    path: str
    format: str
    bytes: int
    blocks: dict[str, int]
    episodes: int
    archived: int
    profile_values: int
    links: int
    tier_events: int
    threads: int = 0
    procedures: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def count_blocks(db: sqlite_utils.Database) -> int:
    """For a progress bar: how many blocks an export will walk."""
    return int(db.execute("SELECT count(*) FROM blocks").fetchone()[0])


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))


def _loads(text: str | None, default: Any) -> Any:
    if text is None:
        return default
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def episode_record(row: dict[str, Any], redact: Redact) -> dict[str, Any]:
    """An episode row (live or unpacked from the archive) in export form."""
    return {
        "id": row["id"],
        "session": row["session"],
        "at": row["at"],
        "user_text": redact(row["user_text"]),
        "reply": None if row["reply"] is None else redact(row["reply"]),
        "status": row["status"],
        "error": None if row["error"] is None else redact(row["error"]),
        "tokens": row["tokens"],
        "pii_types": _loads(row["pii_types"], []),
        "salience": float(row["salience"]),
        "ref": row["ref"],
        "origin_id": row["origin_id"],
    }


def block_record(db: sqlite_utils.Database, row: dict[str, Any], redact: Redact) -> dict[str, Any]:
    block_id = row["id"]
    episodes = [
        episode_record(e, redact)
        for e in db.query("SELECT * FROM episodes WHERE block_id = ? ORDER BY id", [block_id])
    ]
    archived = [
        {
            "archived_at": a["archived_at"],
            "status": a["status"],
            "episode": episode_record(archive.unpack(a["payload"]), redact),
        }
        for a in db.query(
            "SELECT archived_at, status, payload FROM archive WHERE block_id = ? "
            "ORDER BY episode_id",
            [block_id],
        )
    ]
    terms = [
        r[0]
        for r in db.execute(
            "SELECT term FROM block_terms WHERE block_id = ? ORDER BY term", [block_id]
        )
    ]
    centroid = row["centroid"]
    return {
        "id": block_id,
        "tier": row["tier"],
        "status": row["status"],
        "created": row["created"],
        "last_access": row["last_access"],
        "last_episode_at": row["last_episode_at"],
        "access_count": row["access_count"],
        "size": row["size"],
        "markers": {
            "important": bool(row["important"]),
            "open": bool(row["open"]),
            "pinned": bool(row["pinned"]),
        },
        "summary": redact(row["summary"]),
        "keywords": [redact(k) for k in _loads(row["keywords"], [])],
        "anchors": [redact(a) for a in _loads(row["anchors"], [])],
        "pointers": _loads(row["pointers"], []),
        "kept_share": float(row["kept_share"]),
        "restored_from": row["restored_from"],
        "version": row["version"],
        "centroid": None if centroid is None else base64.b64encode(centroid).decode("ascii"),
        "terms": [redact(t) for t in terms],
        "episodes": episodes,
        "archive": archived,
    }


def profile_record(row: dict[str, Any], redact: Redact) -> dict[str, Any]:
    value = _loads(row["value"], "")
    if isinstance(value, dict):
        value = {k: redact(v) if isinstance(v, str) else v for k, v in value.items()}
    else:
        value = redact(str(value))
    return {
        "id": row["id"],
        "field": row["field"],
        "value": value,
        "since": row["since"],
        "source_episode": row["source_episode"],
        "source": row["source"],
        "ended": row["ended"],
        "ended_by_episode": row["ended_by_episode"],
        "ended_reason": None if row["ended_reason"] is None else redact(row["ended_reason"]),
    }


def link_record(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("a", "b", "weight", "uses", "reason", "updated")}


def event_record(row: dict[str, Any]) -> dict[str, Any]:
    detail = _loads(row["detail"], {})
    return {
        "id": row["id"],
        "at": row["at"],
        "block_id": row["block_id"],
        "kind": row["kind"],
        "from_tier": row["from_tier"],
        "to_tier": row["to_tier"],
        "detail": detail if isinstance(detail, dict) else {"value": detail},
    }


def thread_record(row: dict[str, Any], redact: Redact) -> dict[str, Any]:
    record = {k: row[k] for k in ThreadRecord.model_fields}
    record["brief"] = redact(row["brief"])
    return record


def procedure_record(
    db: sqlite_utils.Database, row: dict[str, Any], redact: Redact
) -> dict[str, Any]:
    links = [
        {"episode_id": e, "weight": w, "updated": u}
        for e, w, u in db.execute(
            "SELECT episode_id, weight, updated FROM procedure_links WHERE procedure_id = ? "
            "ORDER BY episode_id",
            [row["id"]],
        )
    ]
    return {
        "id": row["id"],
        "kind": row["kind"],
        "title": redact(row["title"]),
        "steps": [redact(step) for step in _loads(row["steps"], [])],
        "params": _loads(row["params"], {}),
        "source_episode": row["source_episode"],
        "created": row["created"],
        "last_used": row["last_used"],
        "uses": row["uses"],
        "pinned": bool(row["pinned"]),
        "rejected": bool(row["rejected"]),
        "links": links,
    }


def iter_blocks(db: sqlite_utils.Database, tier: str) -> Iterator[dict[str, Any]]:
    yield from db.query("SELECT * FROM blocks WHERE tier = ? ORDER BY id", [tier])


@contextmanager
def private_output(path: Path) -> Iterator[IO[str]]:
    """A 0600 temporary file beside `path`, renamed onto it only on success."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write the export to {path}: folder {folder} does not exist")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    except OSError as error:
        raise InputError(f"cannot write the export to {path}: {error.strerror}") from None
    done = False
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            yield out
        os.replace(temporary, path)
        done = True
    except OSError as error:
        raise StoreError(f"cannot write the export to {path}: {error.strerror}") from None
    finally:
        if not done:
            Path(temporary).unlink(missing_ok=True)


class _JsonWriter:
    """Writes `"name": [record,\\n record]` sections, one validated record per line."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def section(self, name: str, records: Iterator[dict[str, Any]], model: Any, *, lead: str):
        self.out.write(f"{lead}{json.dumps(name)}: [")
        count = 0
        for record in records:
            model.model_validate(record)  # never write what import would refuse
            self.out.write(("\n" if count == 0 else ",\n") + _dumps(record))
            count += 1
        self.out.write("\n]" if count else "]")
        return count


def _as_stored(text: str) -> str:
    return text


def export_json(
    db: sqlite_utils.Database,
    path: Path,
    *,
    redact: Redact | None = None,
    progress: Progress | None = None,
) -> ExportReport:
    """Stream the memory to `path` as JSON (see `aniso.data.document`).

    `redact` scans every text again on the way out; the store is already guarded, so
    `aniso export` passes none.
    """
    redact = _as_stored if redact is None else cached(redact)
    blocks: dict[str, int] = {}
    totals = {"episodes": 0, "archived": 0}

    def block_records(tier: str) -> Iterator[dict[str, Any]]:
        for row in iter_blocks(db, tier):
            record = block_record(db, row, redact)
            totals["episodes"] += len(record["episodes"])
            totals["archived"] += len(record["archive"])
            yield record
            if progress is not None:
                progress(1)

    with private_output(path) as out, transaction(db, immediate=False):
        writer = _JsonWriter(out)
        out.write(f'{{"format": "{FORMAT}", "schema_version": {SCHEMA_VERSION},\n')
        profile = writer.section(
            "profile",
            (
                profile_record(r, redact)
                for r in db.query("SELECT * FROM profile_values ORDER BY id")
            ),
            ProfileValueRecord,
            lead="",
        )
        out.write(',\n"tiers": {')
        for index, tier in enumerate(TIERS):
            blocks[tier] = writer.section(
                tier, block_records(tier), BlockRecord, lead="" if index == 0 else ",\n"
            )
        out.write("},\n")
        loose = writer.section(
            "loose_episodes",
            (
                episode_record(r, redact)
                for r in db.query("SELECT * FROM episodes WHERE block_id IS NULL ORDER BY id")
            ),
            EpisodeRecord,
            lead="",
        )
        links = writer.section(
            "links",
            (link_record(r) for r in db.query("SELECT * FROM links ORDER BY a, b")),
            LinkRecord,
            lead=",\n",
        )
        events = writer.section(
            "tier_events",
            (event_record(r) for r in db.query("SELECT * FROM tier_events ORDER BY id")),
            TierEventRecord,
            lead=",\n",
        )
        threads = writer.section(
            "threads",
            (thread_record(r, redact) for r in db.query("SELECT * FROM threads ORDER BY block_id")),
            ThreadRecord,
            lead=",\n",
        )
        procedures = writer.section(
            "procedures",
            (
                procedure_record(db, r, redact)
                for r in db.query("SELECT * FROM procedures ORDER BY id")
            ),
            ProcedureRecord,
            lead=",\n",
        )
        out.write("}\n")
    return ExportReport(
        path=str(path),
        format="json",
        bytes=path.stat().st_size,
        blocks=blocks,
        episodes=totals["episodes"] + loose,
        archived=totals["archived"],
        profile_values=profile,
        links=links,
        tier_events=events,
        threads=threads,
        procedures=procedures,
    )
