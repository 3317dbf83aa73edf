"""An import guards its texts a block at a time (`redact_many`) and stores exactly what
guarding them one by one stores: the same rows, the same redactions, the same audit."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from export_strategies import sample_document

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.data.importer import write_document
from aniso.data.reading import read_document
from aniso.privacy.redactor import AuditedRedactor
from aniso.tiers import archive
from aniso.tiers.model import TIERS

CARD = "4111 1111 1111 1111"
PII = [
    f"my card {CARD}",
    "паспорт 4510 123456",
    "звони +7 912 345-67-89",
    "password: hunter2x",
    "write to someone@example.com",
    "IBAN DE89 3704 0044 0532 0130 00",
]
AT = "2026-01-05T19:00:00+00:00"
TABLES = ("episodes", "blocks", "archive", "block_terms", "episode_fts", "block_fts")


def _with_pii(episode: dict[str, Any], number: int) -> None:
    text = PII[number % len(PII)]
    episode.update(
        user_text=f"{text} (episode {number})",
        reply=f"noted: {text}",
        status="failed" if number % 2 else "answered",
        error=f"timeout after {text}" if number % 2 else None,
    )


def _file(folder: Path) -> Path:
    """`sample_document` with PII in every text a block holds."""
    document = sample_document()
    document["profile"] = []  # its texts are guarded one record at a time
    for number, block in enumerate(b for tier in TIERS for b in document["tiers"][tier]):
        block.update(
            summary=f"That was about {PII[number % len(PII)]} and plans",
            keywords=["plans", PII[(number + 1) % len(PII)]],
            anchors=["Porto", PII[(number + 2) % len(PII)]],
            terms=["plan", PII[(number + 3) % len(PII)]],
        )
        block["episodes"] += [
            dict(block["episodes"][0], id=100 + number * 10 + i) for i in range(3)
        ]
        for i, episode in enumerate(block["episodes"]):
            _with_pii(episode, number + i)
        for item in block["archive"]:
            _with_pii(item["episode"], number + 4)
    path = folder / "pii.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def _import(folder: Path, source: Path, *, batch: bool) -> tuple[dict[str, list], list[int], int]:
    db = open_db(folder)
    redactor = AuditedRedactor(db, SimulatedClock(datetime(2026, 1, 6, tzinfo=UTC)))
    batches: list[int] = []

    def many(texts: list[str]) -> list[str]:
        batches.append(len(texts))
        return redactor.many(texts)

    report = write_document(
        db,
        read_document(source),
        mode="replace",
        redact=lambda text: redactor(text)[0],
        redact_many=many if batch else None,
        path="pii.json",
        at=AT,
    )
    rows = {table: db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in TABLES}
    audit = db.execute("SELECT detail FROM audit WHERE kind = 'redaction' ORDER BY 1").fetchall()
    rows["audit_types"] = sorted(json.loads(detail)["type"] for (detail,) in audit)
    db.conn.close()
    return rows, batches, report.redacted


def test_batch_import_stores_what_one_by_one_stores(tmp_path: Path) -> None:
    source = _file(tmp_path)
    one, _, redacted_one = _import(tmp_path / "one", source, batch=False)
    many, batches, redacted_many = _import(tmp_path / "many", source, batch=True)
    assert many == one
    assert redacted_many == redacted_one > 20
    packed = [archive.unpack(row[2]) for row in many["archive"]]
    stored = repr([many[table] for table in TABLES if table != "archive"]) + repr(packed)
    assert "[CREDIT_CARD]" in stored and "[IBAN]" in repr(packed)
    for secret in ("4111", "123456", "345-67-89", "hunter2x", "someone@", "3704"):
        assert secret not in stored
    types = {"CREDIT_CARD", "RU_PASSPORT", "PHONE", "SECRET", "EMAIL", "IBAN"}
    assert set(many["audit_types"]) == types  # each distinct text audited once


def test_each_block_is_guarded_in_one_batch(tmp_path: Path) -> None:
    """`_texts_of` names every text a block writes: none is left to a batch of its own."""
    _, batches, _ = _import(tmp_path / "data", _file(tmp_path), batch=True)
    assert len(batches) == 3
    assert batches[0] > 10  # later blocks repeat texts already guarded
