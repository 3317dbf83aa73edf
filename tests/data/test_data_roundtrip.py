"""Export → import → export gives identical JSON, for real and for generated memories."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from export_strategies import memories
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from memory_builder import populate

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.data.export import export_json
from aniso.data.importer import write_document
from aniso.data.reading import read_document
from aniso.privacy.redactor import AuditedRedactor
from aniso.services import build
from aniso.tiers.model import TIERS


@pytest.mark.erasure
def test_cli_round_trip_of_a_lived_in_memory(llm, clock: SimulatedClock, data_dir: Path) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    populate(services, clock)
    services.assistant.send("Tell me more about my old bicycle Zqxcoldmark")  # deep unpack
    tiers = {r[0] for r in services.db.execute("SELECT tier FROM blocks")}
    assert tiers == {"hot", "warm", "cold"}
    assert services.db.execute("SELECT count(*) FROM archive").fetchone()[0] > 0
    services.controller.memory.dense.close()  # the app has exited: it owned the index
    services.db.conn.close()

    first, second = data_dir.parent / "first.json", data_dir.parent / "second.json"
    exported = run_cli("export", "--out", str(first), "--json")
    assert exported.returncode == 0, exported.stderr
    report = json.loads(exported.stdout)
    assert all(report["blocks"][tier] > 0 for tier in TIERS)
    imported = run_cli("import", str(first), "--replace", "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["episodes"] == report["episodes"]
    assert json.loads(imported.stdout)["erasure"]["verified"] is True
    again = run_cli("export", "--out", str(second))
    assert again.returncode == 0, again.stderr
    assert second.read_bytes() == first.read_bytes()
    assert (first.stat().st_mode & 0o777) == 0o600

    document = json.loads(first.read_text(encoding="utf-8"))
    cold = document["tiers"]["cold"]
    assert any(b["archive"] and b["summary"].startswith("That was about") for b in cold)
    profile = document["profile"][0]
    assert (profile["field"], profile["value"]["said"]) == ("likes", "zqxprofmark")


def _round(db, redact, source: Path, target: Path) -> bytes:  # type: ignore[no-untyped-def]
    document = read_document(source)
    write_document(db, document, mode="replace", redact=redact, path=str(source), at="t")
    export_json(db, target, redact=redact)
    return target.read_bytes()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(memory=memories())
def test_round_trip_is_identical_for_generated_memories(memory: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        db = open_db(root / "data")
        redactor = AuditedRedactor(db, SimulatedClock(datetime(2026, 1, 5, tzinfo=UTC)))

        def redact(text: str) -> str:
            return redactor(text)[0]

        source = root / "generated.json"
        source.write_text(json.dumps(memory, ensure_ascii=False), encoding="utf-8")
        first = _round(db, redact, source, root / "first.json")
        second = _round(db, redact, root / "first.json", root / "second.json")
        assert second == first
        exported = json.loads(first)
        for tier in TIERS:
            assert [b["id"] for b in exported["tiers"][tier]] == [
                b["id"] for b in memory["tiers"][tier]
            ]
            assert exported["tiers"][tier], f"{tier} is empty"
        kept = [e["id"] for t in TIERS for b in exported["tiers"][t] for e in b["episodes"]]
        assert kept == [e["id"] for t in TIERS for b in memory["tiers"][t] for e in b["episodes"]]
        db.conn.close()


def test_merge_shifts_ids_past_the_existing_memory(tmp_path: Path) -> None:
    db = open_db(tmp_path / "data")
    source = tmp_path / "one.json"
    document = {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [],
        "tiers": {"hot": [], "warm": [], "cold": []},
        "loose_episodes": [
            {
                "id": 1,
                "session": "s",
                "at": "2026-01-05T19:00:00+00:00",
                "user_text": "hello",
                "reply": None,
                "status": "answered",
                "error": None,
                "tokens": 1,
                "pii_types": [],
                "salience": 0.0,
                "ref": None,
                "origin_id": None,
            }
        ],
        "links": [],
        "tier_events": [],
    }
    source.write_text(json.dumps(document), encoding="utf-8")
    for _ in range(2):
        write_document(db, read_document(source), mode="merge", redact=str, path="x", at="t")
    rows = db.execute("SELECT id, user_text FROM episodes ORDER BY id").fetchall()
    assert rows == [(1, "hello"), (2, "hello")]


@pytest.mark.parametrize("text", ["Call me at +7 916 123-45-67", "my card 4111 1111 1111 1111"])
def test_imported_text_passes_the_privacy_guard(tmp_path: Path, text: str) -> None:
    source = tmp_path / "pii.json"
    document = {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [],
        "tiers": {"hot": [], "warm": [], "cold": []},
        "loose_episodes": [
            {
                "id": 1,
                "session": "s",
                "at": "2026-01-05T19:00:00+00:00",
                "user_text": text,
                "reply": text,
                "status": "answered",
                "error": None,
                "tokens": 1,
                "pii_types": [],
                "salience": 0.0,
                "ref": None,
                "origin_id": None,
            }
        ],
        "links": [],
        "tier_events": [],
    }
    source.write_text(json.dumps(document), encoding="utf-8")
    result = run_cli("import", str(source), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["redacted"] == 2
    digits = "".join(ch for ch in text if ch.isdigit())[-8:]
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            assert digits.encode() not in raw.replace(b" ", b"").replace(b"-", b""), path
