"""Recall and precision of the guard against a labelled JSONL dataset.

Each line is {"text", "lang", "entities": [{"type", "value"}]}, the value as it appears
in the text. A finding counts as correct when its type matches a label and its span
covers that label's value; covering more (a neighbouring space, a merged cluster) is
fine for a redactor, covering less is a leak.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from aniso.privacy.findings import Finding
from aniso.privacy.guard import Guard


def _occurrences(text: str, value: str) -> list[tuple[int, int]]:
    spans = []
    start = text.find(value)
    while value and start >= 0:
        spans.append((start, start + len(value)))
        start = text.find(value, start + 1)
    return spans


def _covers(finding: Finding, spans: list[tuple[int, int]]) -> bool:
    return any(finding.start <= s and finding.end >= e for s, e in spans)


def load(path: str | Path) -> list[dict[str, Any]]:
    """The dataset's records, skipping blank lines."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def packaged_dataset() -> Path:
    """The labelled set, which ships with the privacy package (its one copy)."""
    from importlib import resources

    return Path(str(resources.files("aniso.privacy") / "data" / "pii_labelled.jsonl"))


def evaluate(path: str | Path | None = None, guard: Guard | None = None) -> dict[str, Any]:
    """Per-type recall and precision, overall precision/recall, and where it went wrong.

    `path` defaults to the packaged labelled set. Errors are reported by line number and
    type only, so the report itself holds no PII.
    """
    path = packaged_dataset() if path is None else path
    guard = guard or Guard()
    support: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    false_positives: list[dict[str, Any]] = []
    records = load(path)
    for line, record in enumerate(records, start=1):
        text = record["text"]
        findings = guard.scan(text).findings
        labels = [(e["type"], _occurrences(text, e["value"])) for e in record["entities"]]
        for kind, spans in labels:
            support[kind] += 1
            if any(f.type == kind and _covers(f, spans) for f in findings):
                recalled[kind] += 1
            else:
                misses.append({"line": line, "type": kind})
        for finding in findings:
            predicted[finding.type] += 1
            if any(kind == finding.type and _covers(finding, spans) for kind, spans in labels):
                correct[finding.type] += 1
            else:
                false_positives.append({"line": line, "type": finding.type})
    kinds = sorted(set(support) | set(predicted))
    per_type = {
        kind: {
            "support": support[kind],
            "recalled": recalled[kind],
            "recall": recalled[kind] / support[kind] if support[kind] else None,
            "predicted": predicted[kind],
            "correct": correct[kind],
            "precision": correct[kind] / predicted[kind] if predicted[kind] else None,
        }
        for kind in kinds
    }
    total_predicted = sum(predicted.values())
    total_support = sum(support.values())
    return {
        "texts": len(records),
        "per_type": per_type,
        "precision": sum(correct.values()) / total_predicted if total_predicted else 1.0,
        "recall": sum(recalled.values()) / total_support if total_support else 1.0,
        "misses": misses,
        "false_positives": false_positives,
    }


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{value * 100:5.1f}%"


def format_report(report: dict[str, Any]) -> str:
    """A fixed-width table of the report, for `pytest -s` and the CLI."""
    rows = [f"{'type':<12} {'labels':>6} {'recall':>7} {'found':>6} {'precision':>9}"]
    for kind, row in report["per_type"].items():
        rows.append(
            f"{kind:<12} {row['support']:>6} {_pct(row['recall']):>7} "
            f"{row['predicted']:>6} {_pct(row['precision']):>9}"
        )
    rows.append(
        f"{'overall':<12} {'':>6} {_pct(report['recall']):>7} {'':>6} "
        f"{_pct(report['precision']):>9}   ({report['texts']} texts)"
    )
    return "\n".join(rows)
