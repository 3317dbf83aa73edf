"""`aniso forget`: choose what to forget, erase it everywhere, and hand back a receipt.

Selection turns `--block`, `--search`, `--before/--after` or `--all` into episode,
archive and block ids (a search also looks inside the archive and at block forms).
`forget` then runs the erasure in order:

1. SQLite, one transaction under the data dir's writer lock: `tiers.erasure` removes
   the rows and recomputes what drew on them; the receipt is recorded in the audit
   log in the same transaction, with counts and ids, never content.
2. The vector index: rebuilt in a fresh folder from what remains, its old folder
   deleted once every client of it is closed (`tiers.vector_erasure`).
3. Logs: `aniso.log` and its rotations are rewritten without the lines that quote
   what was forgotten.
4. Free pages and the WAL: FTS segments merged, VACUUM, then a TRUNCATE checkpoint,
   so deleted rows do not linger in free pages or old WAL frames.
5. Verification (`aniso.data.residue`), after every writer is done: every file under the
   data dir is scanned for every forgotten vector and every forgotten text. Only an
   empty scan makes the receipt say `verified: true`; otherwise it names the files.

Every erasure path goes through `forget`: each CLI mode, the TUI's forget, and
`import --replace` (through `before_replace` and `after_replace`, with the same rebuild and scan).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from aniso.core.db import select_in, transaction, vacuum, writer_lock
from aniso.core.errors import InputError
from aniso.data import residue
from aniso.tiers import archive
from aniso.tiers.erasure import Erased, Selection, erase, expand
from aniso.tiers.index import lexical, vector_erasure
from aniso.tiers.text import stems

if TYPE_CHECKING:
    from aniso.services import Services

SNIPPET = 90


@dataclass
class Match:
    kind: str  # episode | archived | block | profile
    id: int
    block_id: int | None
    tier: str | None
    at: str
    snippet: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Plan:
    mode: str
    selection: Selection
    matches: list[Match] = field(default_factory=list)
    query: str | None = field(default=None, repr=False)
    everything: bool = False


def parse_date(text: str, flag: str) -> datetime:
    from aniso.core.clock import parse_instant
    from aniso.core.errors import ConfigError

    try:
        return parse_instant(text)
    except ConfigError:
        raise InputError(f"{flag} {text!r} is not a date: use e.g. 2026-01-31") from None


def _snip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET else flat[: SNIPPET - 1] + "…"


def _tiers(db: sqlite_utils.Database) -> dict[int, str]:
    return {r[0]: r[1] for r in db.execute("SELECT id, tier FROM blocks")}


def plan_blocks(db: sqlite_utils.Database, block_ids: list[int]) -> Plan:
    tiers = _tiers(db)
    missing = [b for b in block_ids if b not in tiers]
    if missing:
        raise InputError(f"no block {missing[0]}: see `aniso memory list` for block ids")
    matches = [Match("block", b, b, tiers[b], "", "") for b in block_ids]
    return Plan("block", Selection(blocks=set(block_ids)), matches)


def _matcher(query: str):  # type: ignore[no-untyped-def]
    needle = query.casefold().strip()
    wanted = set(stems(query))
    prefixes = [term[:4] for term in wanted]

    def matches(text: str | None) -> bool:
        if not text:
            return False
        folded = text.casefold()
        if needle and needle in folded:
            return True
        if not wanted or not all(p in folded for p in prefixes):
            return False
        return wanted <= set(stems(text))

    return matches


def _add_archived(
    db: sqlite_utils.Database,
    plan: Plan,
    tiers: dict[int, str],
    wanted: Callable[[dict[str, Any]], bool],
) -> None:
    """Add the archived episodes `wanted` accepts (their payloads unpacked) to the plan."""
    for episode_id, block_id, payload in db.execute(
        "SELECT episode_id, block_id, payload FROM archive"
    ):
        row = archive.unpack(payload)
        if wanted(row):
            plan.selection.archived.add(episode_id)
            plan.matches.append(
                Match(
                    "archived",
                    episode_id,
                    block_id,
                    tiers.get(block_id),
                    row["at"],
                    _snip(row["user_text"]),
                )
            )


def plan_search(db: sqlite_utils.Database, query: str) -> Plan:
    """Episodes, archived episodes, block forms and profile values that mention QUERY
    (as typed, or by stems, so inflected forms match too)."""
    if not query.strip():
        raise InputError("--search needs some words to look for")
    matches_text = _matcher(query)
    tiers = _tiers(db)
    plan = Plan("search", Selection(), query=query)
    for row in db.query("SELECT id, block_id, at, user_text, reply FROM episodes"):
        if matches_text(row["user_text"]) or matches_text(row["reply"]):
            plan.selection.episodes.add(row["id"])
            tier = tiers.get(row["block_id"])
            plan.matches.append(
                Match(
                    "episode", row["id"], row["block_id"], tier, row["at"], _snip(row["user_text"])
                )
            )
    _add_archived(
        db,
        plan,
        tiers,
        lambda row: matches_text(row.get("user_text")) or matches_text(row.get("reply")),
    )
    for row in db.query("SELECT id, tier, last_episode_at, summary, keywords, anchors FROM blocks"):
        if any(matches_text(t) for t in (row["summary"], row["keywords"], row["anchors"])):
            plan.selection.recompute.add(row["id"])
            plan.matches.append(
                Match(
                    "block",
                    row["id"],
                    row["id"],
                    row["tier"],
                    row["last_episode_at"],
                    _snip(row["summary"]),
                )
            )
    for row in db.query("SELECT id, field, value, since, ended_reason FROM profile_values"):
        if matches_text(row["value"]) or matches_text(row["ended_reason"]):
            plan.selection.profile.add(row["id"])
            plan.matches.append(Match("profile", row["id"], None, None, row["since"], row["field"]))
    return plan


def plan_dates(db: sqlite_utils.Database, before: datetime | None, after: datetime | None) -> Plan:
    """Episodes (live and archived) from before BEFORE and/or from AFTER on."""
    if before is not None and after is not None and after >= before:
        raise InputError("--after must be earlier than --before: the range would be empty")

    def inside(at: str) -> bool:
        moment = datetime.fromisoformat(at)
        return (before is None or moment < before) and (after is None or moment >= after)

    tiers = _tiers(db)
    plan = Plan("dates", Selection())
    for row in db.query("SELECT id, block_id, at, user_text FROM episodes"):
        if inside(row["at"]):
            plan.selection.episodes.add(row["id"])
            plan.matches.append(
                Match(
                    "episode",
                    row["id"],
                    row["block_id"],
                    tiers.get(row["block_id"]),
                    row["at"],
                    _snip(row["user_text"]),
                )
            )
    _add_archived(db, plan, tiers, lambda row: inside(row["at"]))
    return plan


def plan_all(db: sqlite_utils.Database) -> Plan:
    blocks = {r[0] for r in db.execute("SELECT id FROM blocks")}
    loose = {r[0] for r in db.execute("SELECT id FROM episodes WHERE block_id IS NULL")}
    plan = Plan("all", Selection(episodes=loose, blocks=blocks), everything=True)
    episodes = db.execute("SELECT count(*) FROM episodes").fetchone()[0]
    archived = db.execute("SELECT count(*) FROM archive").fetchone()[0]
    plan.matches = [
        Match(
            "summary",
            0,
            None,
            None,
            "",
            f"{len(blocks)} blocks, {episodes} episodes, {archived} archived",
        )
    ]
    return plan


def profile_at_stake(db: sqlite_utils.Database, plan: Plan) -> list[dict[str, Any]]:
    """Profile values that only forgotten messages stated (asked about before forgetting)."""
    selection = expand(db, plan.selection)
    ids = selection.episodes | selection.archived
    found = select_in(
        db,
        "SELECT id, field FROM profile_values WHERE source_episode IN ({})",
        sorted(ids),
        dicts=True,
    )
    known = {row["id"] for row in found}
    found += [
        dict(r)
        for r in db.query("SELECT id, field FROM profile_values")
        if r["id"] in plan.selection.profile and r["id"] not in known
    ]
    return found


def forget(services: Services, plan: Plan, *, remove_profile: bool) -> dict[str, Any]:
    """Erase the plan everywhere; return the receipt (ids and counts, no content)."""
    db = services.db
    now = services.clock()
    data_dir = services.settings.data_dir
    dense = services.controller.memory.dense
    with writer_lock(data_dir):
        with transaction(db):
            selection = expand(db, plan.selection)
            erased = erase(
                db,
                selection,
                now=now,
                redact=services.redact_text,
                embed=dense.embed,
                remove_profile=remove_profile,
            )
            if plan.everything:
                for table in (
                    "compaction_runs",
                    "outbox",
                    "procedures",
                    "procedure_links",
                    lexical.EPISODES,
                    lexical.BLOCKS,
                    lexical.CONTEXT,
                ):
                    db.execute(f"DELETE FROM {table}")
                db.execute("DELETE FROM audit WHERE kind IN ('redaction', 'miss')")
                erased.vector_keys = _all_vector_keys(dense)
            receipt = _receipt(plan, erased, now)
            cursor = db.execute(
                "INSERT INTO audit (at, kind, detail) VALUES (?, 'forget', ?)",
                [now.isoformat(), json.dumps(receipt)],
            )
            audit_id = int(cursor.lastrowid)
        vectors = vector_erasure.erase(
            dense,
            erased.vector_keys,
            flush=services.controller.memory.texts_for,
            everything=plan.everything,
        )
        receipt["vectors"] = vectors.receipt
        receipt["logs"] = scrub_logs(data_dir, db, erased, plan)
        lexical.optimize(db)
        receipt["sqlite"] = vacuum(db)
        verify(data_dir, db, receipt, vectors, erased.texts)
        with transaction(db):
            db.execute("UPDATE audit SET detail = ? WHERE id = ?", [json.dumps(receipt), audit_id])
    return receipt


def verify(
    data_dir: Path,
    db: sqlite_utils.Database,
    receipt: dict[str, Any],
    vectors: vector_erasure.VectorErasure,
    texts: list[str],
) -> None:
    """Scan the data dir for what was forgotten and set the receipt's verdict.

    Runs after the vector index was rebuilt and closed, the logs rewritten and SQLite
    vacuumed and checkpointed: no writer is left to put a byte back after the scan.
    Needles that the remaining memory still holds (the same text said twice, one copy
    kept; a vector identical to a kept one) are left out: they are not residue."""
    held = _held_texts(db)
    needles = residue.text_needles(texts)
    needles = [n for n in needles if n not in residue.find(held, needles)]
    kept = vectors.kept | _held_vectors(db)
    signatures = [s for s in vectors.forgotten if s not in kept]
    found = residue.scan(data_dir, vectors=signatures, texts=needles)
    entry = receipt["vectors"]
    if "pending" not in entry:
        entry["files_holding_bytes"] = found.vectors
        if "scope" not in entry:  # embedded: the scan is the verification
            entry["verified"] = not found.vectors
    receipt["residue"] = {
        "files_scanned": found.scanned_files,
        "vectors_looked_for": len(signatures),
        "texts_looked_for": len(needles),
        "files_holding_vectors": found.vectors,
        "files_holding_text": found.texts,
    }
    receipt["verified"] = found.clean and bool(entry.get("verified"))


def _held_vectors(db: sqlite_utils.Database) -> set[bytes]:
    """Signatures of the vectors SQLite still holds: a block's centroid is its one
    episode's vector while it has one, and an import writes centroids back."""
    return {
        bytes(blob[: vector_erasure.SIGNATURE_BYTES])
        for (blob,) in db.execute("SELECT centroid FROM blocks WHERE centroid IS NOT NULL")
        if len(blob) >= vector_erasure.SIGNATURE_BYTES
    }


def _held_texts(db: sqlite_utils.Database) -> bytes:
    """Every text memory still holds, lower-cased, as one blob to search needles in."""
    parts: list[str] = []
    for query in (
        "SELECT user_text, reply FROM episodes",
        "SELECT summary, keywords || anchors FROM blocks",
        "SELECT value, '' FROM profile_values",
    ):
        for first, second in db.execute(query):
            parts += [first or "", second or ""]
    return "\n".join(parts).lower().encode("utf-8", "replace")


def _all_vector_keys(dense: Any) -> list[str]:
    try:
        return sorted(dense.index.ids())
    except Exception:  # noqa: BLE001 - a dead index is rebuilt from (empty) memory later
        return []


def _receipt(plan: Plan, erased: Erased, now: datetime) -> dict[str, Any]:
    return {
        "at": now.isoformat(),
        "mode": plan.mode,
        "episodes": erased.episodes,
        "archived": erased.archived,
        "blocks_removed": erased.blocks_removed,
        "blocks_recomputed": erased.blocks_recomputed,
        "links": erased.links,
        "tier_events": erased.tier_events,
        "profile_removed": erased.profile_removed,
        "profile_kept": erased.profile_kept,
        "miss_records_scrubbed": erased.miss_records,
    }


WORD = re.compile(r"\w{5,}", re.UNICODE)


def _markers(db: sqlite_utils.Database, erased: Erased, plan: Plan) -> set[str]:
    """Words of the forgotten texts that memory no longer holds: a log line quoting
    one of them quoted what was forgotten."""
    markers: set[str] = set()
    words = {w.casefold() for text in erased.texts for w in WORD.findall(text)}
    for word in words:
        if word.isdigit():
            continue
        still = lexical.search(db, lexical.EPISODES, word, limit=1) or lexical.search(
            db, lexical.BLOCKS, word, limit=1
        )
        if not still:
            markers.add(word)
    if plan.query:
        markers.add(plan.query.casefold().strip())
    return markers


def scrub_logs(
    data_dir: Path, db: sqlite_utils.Database, erased: Erased, plan: Plan
) -> dict[str, int]:
    """Rewrite the log files in place, without the lines that quote forgotten text."""
    from aniso.logs import LOG_NAME

    markers = None if plan.everything else _markers(db, erased, plan)
    dropped = 0
    files = 0
    for path in sorted(data_dir.glob(f"{LOG_NAME}*")):
        if not path.is_file():
            continue
        with open(path, "r+", encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
            if markers is None:
                kept = []
            else:
                kept = [ln for ln in lines if not any(m in ln.casefold() for m in markers)]
            if len(kept) == len(lines):
                continue
            handle.seek(0)
            handle.writelines(kept)
            handle.truncate()
        dropped += len(lines) - len(kept)
        files += 1
    return {"files_rewritten": files, "lines_removed": dropped}


@dataclass
class Replaced:
    """What memory held before an `import --replace`: what the scan must not find after."""

    vectors: list[bytes]
    texts: list[str] = field(repr=False)


def before_replace(services: Services) -> Replaced:
    """Read the signatures and texts of the memory an import is about to replace."""
    from aniso.core.errors import StoreError
    from aniso.tiers.index.vectors import ChromaIndex

    dense = services.controller.memory.dense
    signatures: list[bytes] = []
    try:
        index = dense.index
        if isinstance(index, ChromaIndex):
            signatures = vector_erasure.signatures(index.vectors()[1])
    except StoreError:
        pass  # the rebuild below fails the same way and says so in the receipt
    texts = [t for row in services.db.execute("SELECT user_text, reply FROM episodes") for t in row]
    return Replaced(signatures, [t for t in texts if t])


def after_replace(services: Services, old: Replaced) -> dict[str, Any]:
    """Erase the replaced memory the way `forget --all` does, refill the index with the
    imported one, and verify; returns the erasure receipt."""
    from aniso.core.errors import StoreError
    from aniso.tiers.index.vectors import ChromaIndex

    db = services.db
    memory = services.controller.memory
    vectors = vector_erasure.VectorErasure(
        {"deleted": len(old.vectors), "verified": False, "rebuilt": False}, old.vectors
    )
    try:
        vector_erasure.renew(memory.dense, drop=set(), everything=True)
        vectors.receipt["rebuilt"] = True
        memory.dense.flush(memory.texts_for)
        index = memory.dense.index
        if isinstance(index, ChromaIndex):
            vectors.kept = set(vector_erasure.signatures(index.vectors()[1]))
    except StoreError as error:
        memory.dense.warn(f"the vector index could not be rebuilt ({error}); run aniso reindex")
        vectors.receipt["pending"] = f"the vector index could not be rebuilt now ({error})"
    receipt: dict[str, Any] = {"vectors": vectors.receipt}
    lexical.optimize(db)
    receipt["sqlite"] = vacuum(db)
    verify(services.settings.data_dir, db, receipt, vectors, old.texts)
    return receipt
