"""The compactor: moves blocks down the tiers and compresses them on the way.

hot → warm after `hot_days` without access: the block keeps a summary plus its most
salient episodes; the kept share shrinks gradually with age and is recomputed at
every run. warm → cold after `cold_days`: only a standard capsule stays searchable
(gist, keywords, anchors, up to 5 pointers). Before anything is compressed, the
episodes it drops go to the archive, in the same transaction.

Each block migrates in its own transaction with an optimistic version check: a
block accessed while its forms were being computed is left alone (rolled back) and
retried next run. A crash loses nothing; a second run with nothing to do is a no-op.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime

import sqlite_utils

from aniso.core.db import select_in, transaction, writer_lock
from aniso.core.ports import Complete, Redact
from aniso.core.settings import Settings
from aniso.tiers import archive, links
from aniso.tiers.index import lexical, pieces
from aniso.tiers.index.dense import archive_key, block_key, episode_key
from aniso.tiers.memory import TieredMemory
from aniso.tiers.model import TIER_ORDER
from aniso.tiers.summarize import Forms, salience, with_llm
from aniso.tiers.text import stems

RANK = TIER_ORDER
WARM_SHARE_START = 0.6  # share of episodes kept searchable on entering warm
WARM_SHARE_END = 0.1  # ... and just before turning cold
MAX_POINTERS = 5


def target_tier(
    *, idle_days: float, held: bool, settings: Settings, linked_to_open: bool = False
) -> str:
    """Where a block belongs by time since last access; markers hold it hot, and a
    strong link to an open problem keeps it from going cold while the problem is open."""
    if held or idle_days < settings.hot_days:
        return "hot"
    if idle_days < settings.cold_days or linked_to_open:
        return "warm"
    return "cold"


def kept_share(idle_days: float, settings: Settings) -> float:
    """The searchable share of a warm block: a straight slope, never a step."""
    span = max(1e-9, settings.cold_days - settings.hot_days)
    progress = min(1.0, max(0.0, (idle_days - settings.hot_days) / span))
    return WARM_SHARE_START + (WARM_SHARE_END - WARM_SHARE_START) * progress


@dataclass
class Report:
    now: str
    moved: list[dict] = field(default_factory=list)
    compressed: list[dict] = field(default_factory=list)
    rolled_back: list[int] = field(default_factory=list)
    archived_episodes: int = 0
    linked: int = 0
    restored: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _Plan:
    block_id: int
    version: int
    from_tier: str
    to_tier: str
    share: float
    archive_ids: list[int]
    forms: Forms
    source: str
    pointers: list[int]


class Compactor:
    def __init__(
        self,
        db: sqlite_utils.Database,
        memory: TieredMemory,
        settings: Settings,
        *,
        redact: Redact,
        complete: Complete | None = None,
        on_block: Callable[[], None] | None = None,
        before_commit: Callable[[int], None] | None = None,
    ) -> None:
        self.db = db
        self.memory = memory
        self.settings = settings
        self.redact = redact
        self.complete = complete
        self.on_block = on_block
        self._before_commit = before_commit  # test seam: simulate access mid-migration

    def candidates(self, now: datetime) -> list[int]:
        """Blocks that may need work: active, not cold, idle longer than `hot_days`."""
        cutoff = now.timestamp() - self.settings.hot_days * 86400
        rows = self.db.execute(
            "SELECT id, last_access FROM blocks WHERE status = 'active' AND tier != 'cold'"
        ).fetchall()
        return [bid for bid, last in rows if datetime.fromisoformat(last).timestamp() <= cutoff]

    def run(self, now: datetime, *, settle: bool = True) -> Report:
        """One pass, under the writer lock: a forget or import waits for it, and it for them.

        `settle` off skips reconciling the vector index with SQLite: a catch-up over
        many nights does it on its last night only, as it reads every key."""
        with writer_lock(self.settings.data_dir):
            return self._run(now, settle=settle)

    def _run(self, now: datetime, *, settle: bool) -> Report:
        report = Report(now=now.isoformat())
        started = now.isoformat()
        candidates = self.candidates(now)
        linked = links.linked_to_open(self.db, candidates)
        for block_id in candidates:
            plan = self._plan(block_id, now, linked_to_open=block_id in linked)
            if plan is not None:
                self._apply(plan, now, report)
            if self.on_block is not None:
                self.on_block()
        self.memory.dense.flush(self.memory.texts_for)
        if settle and self.memory.dense.reconcile(now) != (0, 0):
            self.memory.dense.flush(self.memory.texts_for)
        if settle:
            # Off the chat's path, and after the outbox is replayed: a turn archived
            # tonight keeps its pieces, a new one gets them (`pieces.refresh`).
            pieces.refresh(self.db, self.memory.dense)
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO compaction_runs (started, finished, now, report) VALUES (?, ?, ?, ?)",
                [started, now.isoformat(), now.isoformat(), json.dumps(report.as_dict())],
            )
        return report

    def _plan(self, block_id: int, now: datetime, *, linked_to_open: bool) -> _Plan | None:
        row = self.db.execute(
            "SELECT tier, version, last_access, size, important, open, pinned, kept_share "
            "FROM blocks WHERE id = ?",
            [block_id],
        ).fetchone()
        if row is None:
            return None
        tier, version, last_access, size, important, is_open, pinned, share_now = row
        idle = (now - datetime.fromisoformat(last_access)).total_seconds() / 86400
        target = target_tier(
            idle_days=idle,
            held=bool(important or is_open or pinned),
            settings=self.settings,
            linked_to_open=linked_to_open,
        )
        if RANK[target] < RANK[tier]:
            target = tier  # the compactor only moves down; use moves blocks up
        live = list(
            self.db.query(
                "SELECT id, at, user_text FROM episodes WHERE block_id = ? ORDER BY id", [block_id]
            )
        )
        share = kept_share(idle, self.settings) if target == "warm" else 0.0
        keep = 0 if target == "cold" else max(1, math.ceil(share * max(size, len(live))))
        if target == "hot" or (target == tier and len(live) <= keep):
            return None
        scores = salience([e["user_text"] for e in live])
        by_salience = sorted(range(len(live)), key=lambda i: (-scores[i], i))
        archive_ids = [live[i]["id"] for i in by_salience[keep:]]
        archived = archive.archived_of(self.db, block_id)
        texts = [e["user_text"] for e in archived] + [e["user_text"] for e in live]
        times = [e["at"] for e in archived] + [e["at"] for e in live]
        if not times:
            return None  # an empty block (its episodes were restored or forgotten): no forms
        forms, source = with_llm(
            texts,
            start=datetime.fromisoformat(min(times)),
            end=datetime.fromisoformat(max(times)),
            complete=self.complete,
            rarity=self._rarity,
        )
        if target == "cold":
            forms = forms.capsule()  # only the standard capsule stays searchable
        # The guard again, last: an LLM may echo or invent a sensitive value, and
        # text stored before a stricter policy may hold one the extractor picks up.
        forms = Forms(
            summary=self.redact(forms.summary),
            gist=self.redact(forms.gist),
            keywords=[self.redact(k) for k in forms.keywords],
            anchors=[self.redact(a) for a in forms.anchors],
        )
        pointers = [b for b, _ in links.neighbours(self.db, block_id, now=now, limit=MAX_POINTERS)]
        return _Plan(block_id, version, tier, target, share, archive_ids, forms, source, pointers)

    def _rarity(self, terms: Sequence[str]) -> tuple[Counter[str], int]:
        """Block frequency of `terms` (from the term links) and the number of blocks."""
        unique = list(dict.fromkeys(terms))[:500]
        found: Counter[str] = Counter()
        for term, count in select_in(
            self.db,
            "SELECT term, count(*) FROM block_terms WHERE term IN ({}) GROUP BY term",
            unique,
        ):
            found[term] = count
        total = self.db.execute("SELECT count(*) FROM blocks").fetchone()[0]
        return found, int(total)

    def _apply(self, plan: _Plan, now: datetime, report: Report) -> None:
        if self._before_commit is not None:
            self._before_commit(plan.block_id)
        with transaction(self.db):
            current = self.db.execute(
                "SELECT version FROM blocks WHERE id = ?", [plan.block_id]
            ).fetchone()
            if current is None or current[0] != plan.version:
                report.rolled_back.append(plan.block_id)
                return
            archived = archive.archive_episodes(self.db, plan.archive_ids, at=now)
            # An archived episode stays findable (DESIGN §3: the compressed forms are an
            # index for what to restore): its FTS row stays, its vector moves to `a:`.
            for episode_id in plan.archive_ids:
                self.memory.dense.enqueue("delete", episode_key(episode_id), at=now)
                self.memory.dense.enqueue("upsert", archive_key(episode_id), at=now)
            searchable = plan.forms.gist if plan.to_tier == "cold" else plan.forms.summary
            self.db.execute(
                "UPDATE blocks SET tier = ?, summary = ?, keywords = ?, anchors = ?, "
                "pointers = ?, kept_share = ?, version = version + 1 WHERE id = ?",
                [
                    plan.to_tier,
                    searchable,
                    json.dumps(plan.forms.keywords, ensure_ascii=False),
                    json.dumps(plan.forms.anchors, ensure_ascii=False),
                    json.dumps(plan.pointers),
                    plan.share,
                    plan.block_id,
                ],
            )
            lexical.index_block(
                self.db,
                plan.block_id,
                " ".join([searchable, *plan.forms.keywords, *plan.forms.anchors]),
            )
            self.memory.dense.enqueue("upsert", block_key(plan.block_id), at=now)
            terms = stems(" ".join([*plan.forms.keywords, *plan.forms.anchors]))
            report.linked += links.add_terms(self.db, plan.block_id, terms, at=now)
            kind = "migrate" if plan.to_tier != plan.from_tier else "compress"
            detail = {
                "archived": archived,
                "kept_share": round(plan.share, 3),
                "source": plan.source,
            }
            self.db.execute(
                "INSERT INTO tier_events (at, block_id, kind, from_tier, to_tier, detail) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    now.isoformat(),
                    plan.block_id,
                    kind,
                    plan.from_tier,
                    plan.to_tier,
                    json.dumps(detail),
                ],
            )
        self.memory.dense.copy([(episode_key(i), archive_key(i)) for i in plan.archive_ids])
        entry = {
            "block_id": plan.block_id,
            "from": plan.from_tier,
            "to": plan.to_tier,
            "archived": archived,
            "source": plan.source,
        }
        (report.moved if kind == "migrate" else report.compressed).append(entry)
        report.archived_episodes += archived


def last_report(db: sqlite_utils.Database) -> dict | None:
    row = db.execute(
        "SELECT started, finished, report FROM compaction_runs ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    return {"started": row[0], "finished": row[1], **json.loads(row[2])}
