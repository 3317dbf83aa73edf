"""`aniso export --misses`: the corrections as a dataset, one JSON record a line.

A correction ("I already told you…") is the best label real use gives memory: the
fact the user had to repeat, what memory held for it, what the reply's prompt
carried, and whose fault it was (`aniso.attribution`). Exported as JSON Lines they
can be read, counted and replayed against a changed recall.

Every text passes the privacy guard again on the way out: a dataset leaves the data
dir, and a miss record quotes memories and the profile.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from aniso.core.ports import Redact
from aniso.data.export import private_output

QUOTED = ("held", "injected")


@dataclass(frozen=True)
class MissExport:
    path: str
    misses: int
    retrieval: int
    reply: int
    bytes: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _record(
    db: sqlite_utils.Database, at: str, detail: dict[str, Any], redact: Redact
) -> dict[str, Any]:
    episode = detail.get("episode_id")
    row = (
        db.execute("SELECT user_text FROM episodes WHERE id = ?", [episode]).fetchone()
        if episode
        else None
    )
    return {
        "at": at,
        "cause": detail.get("cause", "retrieval"),  # unattributed records blamed memory
        "correction": redact(row[0]) if row else "",
        "fact": detail.get("fact", []),
        "fact_supplied": detail.get("fact_supplied", []),
        **{
            key: [{**item, "text": redact(item.get("text", ""))} for item in detail.get(key, [])]
            for key in QUOTED
        },
        "profile": redact(detail.get("profile", "")),
    }


def export_misses(db: sqlite_utils.Database, path: Path, *, redact: Redact) -> MissExport:
    """Write every miss record to `path` (JSON Lines, 0600, atomically)."""
    causes = {"retrieval": 0, "reply": 0}
    with private_output(path) as out:
        for at, detail in db.execute(
            "SELECT at, detail FROM audit WHERE kind = 'miss' ORDER BY id"
        ).fetchall():
            record = _record(db, at, json.loads(detail), redact)
            causes[record["cause"]] = causes.get(record["cause"], 0) + 1
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return MissExport(
        path=str(path),
        misses=sum(causes.values()),
        retrieval=causes["retrieval"],
        reply=causes["reply"],
        bytes=path.stat().st_size,
    )
