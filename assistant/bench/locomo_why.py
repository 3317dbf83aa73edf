"""`aniso bench locomo --tiers --why`: where the evidence that tiers lose goes missing.

The same conversations are replayed hot-only first, in the same run (so the two
latencies compare), keeping for each question the evidence turns it found in the
top 10 and within 1,000 tokens. The tiered replay then notes, before each question
is recalled (outside the timed recall), where each evidence turn lives:

- `hot`: a live episode of a hot block; `hot (restored copy)` once unpacked;
- `warm (kept share)`: a live episode a warm block kept searchable;
- `warm (archived, summary)`: archived, only the warm summary searchable;
- `cold (archived, capsule)`: archived, only the cold capsule searchable.

After the recall it notes whether that block surfaced in the first pass (its rank
and score) and whether it was restored. Every evidence turn that hot-only found and
tiers missed is listed with that location, and counted by form.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from aniso.core.db import select_in
from aniso.tiers import archive

BUDGET = 1000
TOP = 10
Ranked = list[tuple[tuple[str, ...], int]]


@dataclass(frozen=True)
class Place:
    form: str
    block_id: int | None


@dataclass
class Diagnosis:
    """Per-question evidence found hot-only, then the losses of the tiered replay."""

    hot: dict[tuple[str, int], tuple[set[str], set[str]]] = field(default_factory=dict)
    missed: list[dict[str, Any]] = field(default_factory=list)

    def hot_observer(self, name: str, fit: Callable[[Ranked, int], list[str]]) -> Any:
        counter = iter(range(1_000_000))

        def observe(question: Any, ranked: Ranked | None) -> None:
            if ranked is None:
                return
            refs = [ref for shown, _ in ranked for ref in shown]
            self.hot[(name, next(counter))] = (
                question.evidence & set(refs[:TOP]),
                question.evidence & set(fit(ranked, BUDGET)),
            )

        return observe

    def tier_observer(
        self,
        name: str,
        db: sqlite_utils.Database,
        state: dict[str, Any],
        fit: Callable[[Ranked, int], list[str]],
    ) -> Any:
        counter = iter(range(1_000_000))
        before: dict[str, Place] = {}

        def observe(question: Any, ranked: Ranked | None) -> None:
            if ranked is None:
                before.clear()
                before.update(locate(db, question.evidence))
                return
            number = next(counter)
            found_hot = self.hot.get((name, number))
            if found_hot is None:
                return
            refs = [ref for shown, _ in ranked for ref in shown]
            within = set(fit(ranked, BUDGET))
            first = state.get("first_pass", [])
            restored = set(state.get("restored_now", []))
            for measure, hot_found, tier_found in (
                ("recall@10", found_hot[0], set(refs[:TOP])),
                ("recall@1000tok", found_hot[1], within),
            ):
                for ref in sorted(hot_found - tier_found):
                    place = before.get(ref, Place("missing", None))
                    rank = next(
                        (i for i, (b, _, _) in enumerate(first, 1) if b == place.block_id), None
                    )
                    score = next((s for b, _, s in first if b == place.block_id), None)
                    self.missed.append(
                        {
                            "conversation": name,
                            "question": question.text,
                            "category": question.category,
                            "measure": measure,
                            "ref": ref,
                            "form": place.form,
                            "block": place.block_id,
                            "block_rank_first_pass": rank,
                            "block_score_first_pass": score,
                            "restored": place.block_id in restored,
                            "rank_after": refs.index(ref) + 1 if ref in refs else None,
                        }
                    )

        return observe

    def report(self, tiered: dict[str, Any], hot: dict[str, Any]) -> dict[str, Any]:
        by_form: dict[str, Counter[str]] = {}
        for row in self.missed:
            by_form.setdefault(row["measure"], Counter())[row["form"]] += 1
        restored: dict[str, Counter[str]] = {}
        for row in self.missed:
            state = (
                "restored, ranked below"
                if row["restored"]
                else "surfaced, not restored"
                if row["block_rank_first_pass"]
                else "not surfaced"
            )
            restored.setdefault(row["measure"], Counter())[state] += 1
        hot_p95 = hot["overall"]["latency_ms"]["p95"]
        tier_p95 = tiered["overall"]["latency_ms"]["p95"]
        return {
            "hot_only": hot,
            "p95_ratio": round(tier_p95 / hot_p95, 2) if hot_p95 else None,
            "lost_by_form": {k: dict(v.most_common()) for k, v in by_form.items()},
            "lost_by_outcome": {k: dict(v.most_common()) for k, v in restored.items()},
            "lost": self.missed,
        }


def locate(db: sqlite_utils.Database, refs: frozenset[str] | set[str]) -> dict[str, Place]:
    """Where each evidence turn lives now: which tier, and in which form."""
    places: dict[str, Place] = {}
    for ref, block_id, tier, source in select_in(
        db,
        "SELECT e.ref, e.block_id, b.tier, b.restored_from FROM episodes e "
        "JOIN blocks b ON b.id = e.block_id WHERE e.ref IN ({})",
        sorted(refs),
    ):
        if tier == "hot":
            form = "hot (restored copy)" if source is not None else "hot"
        else:
            form = f"{tier} (kept share)"
        places[ref] = Place(form, block_id)
    wanted = set(refs) - set(places)
    if not wanted:
        return places
    tiers = dict(db.execute("SELECT id, tier FROM blocks").fetchall())
    for block_id, payload in db.execute(
        "SELECT block_id, payload FROM archive WHERE status = 'archived'"
    ):
        ref = archive.unpack(payload).get("ref")
        if ref in wanted:
            tier = tiers.get(block_id, "?")
            form = "warm (archived, summary)" if tier == "warm" else f"{tier} (archived, capsule)"
            places[ref] = Place(form, block_id)
    return places
