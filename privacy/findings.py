"""What a scan reports, and how overlapping reports become one redaction.

Findings carry positions and types, never values: they travel into logs, audit trails
and memory metadata, and anything that holds the value is itself a leak.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One sensitive span: its type, where it was, and how sure we are. No value."""

    type: str
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class ScanResult:
    """The redacted text plus what was removed from it."""

    text: str
    findings: tuple[Finding, ...]
    types: tuple[str, ...]

    @property
    def redacted(self) -> bool:
        """True if anything was replaced by a placeholder."""
        return bool(self.findings)


def placeholder(kind: str) -> str:
    """The typed marker left in place of a value, e.g. "[CREDIT_CARD]"."""
    return f"[{kind}]"


def resolve(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Merge overlapping findings into one per overlapping cluster, in text order.

    The cluster's type and score come from its best member (highest score, then longest
    span), but its span is the union of all members: if a SNILS and a phone match
    disagree on where a number ends, we would rather blank a digit too many than leave
    one in memory.
    """
    ordered = sorted(findings, key=lambda f: (f.start, -f.end))
    merged: list[Finding] = []
    cluster: list[Finding] = []
    end = -1
    for finding in ordered:
        if cluster and finding.start >= end:
            merged.append(_merge(cluster))
            cluster = []
        cluster.append(finding)
        end = max(end, finding.end) if len(cluster) > 1 else finding.end
    if cluster:
        merged.append(_merge(cluster))
    return tuple(merged)


def _merge(cluster: list[Finding]) -> Finding:
    best = max(cluster, key=lambda f: (f.score, f.end - f.start))
    start = min(f.start for f in cluster)
    end = max(f.end for f in cluster)
    return Finding(best.type, start, end, best.score)


def redact(text: str, findings: tuple[Finding, ...]) -> str:
    """Replace each (non-overlapping, ordered) finding with its placeholder."""
    parts = []
    cursor = 0
    for finding in findings:
        parts.append(text[cursor : finding.start])
        parts.append(placeholder(finding.type))
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


def types_of(findings: tuple[Finding, ...]) -> tuple[str, ...]:
    """Distinct types in order of first appearance."""
    return tuple(dict.fromkeys(f.type for f in findings))
