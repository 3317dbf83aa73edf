"""Export → import → export gives identical JSON, for real and for generated memories."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memory_builder import populate

from aniso.clock import SimulatedClock
from aniso.export import export_json
from aniso.export_model import TIERS
from aniso.importer import read_document, write_document
from aniso.privacy.redactor import AuditedRedactor
from aniso.services import build
from aniso.settings import load_settings
from aniso.storage import open_db


def test_cli_round_trip_of_a_lived_in_memory(llm, clock: SimulatedClock, data_dir: Path) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    populate(services, clock)
    services.assistant.send("Tell me more about my old bicycle Zqxcoldmark")  # deep unpack
    tiers = {r[0] for r in services.db.execute("SELECT tier FROM blocks")}
    assert tiers == {"hot", "warm", "cold"}
    assert services.db.execute("SELECT count(*) FROM archive").fetchone()[0] > 0
    services.db.conn.close()

    first, second = data_dir.parent / "first.json", data_dir.parent / "second.json"
    exported = run_cli("export", "--out", str(first), "--json")
    assert exported.returncode == 0, exported.stderr
    report = json.loads(exported.stdout)
    assert all(report["blocks"][tier] > 0 for tier in TIERS)
    imported = run_cli("import", str(first), "--replace", "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["episodes"] == report["episodes"]
    again = run_cli("export", "--out", str(second))
    assert again.returncode == 0, again.stderr
    assert second.read_bytes() == first.read_bytes()
    assert (first.stat().st_mode & 0o777) == 0o600

    document = json.loads(first.read_text(encoding="utf-8"))
    cold = document["tiers"]["cold"]
    assert any(b["archive"] and b["summary"].startswith("That was about") for b in cold)
    profile = document["profile"][0]
    assert (profile["field"], profile["value"]["said"]) == ("likes", "zqxprofmark")


TEXT = st.text(
    alphabet=st.sampled_from(list("abcdefghij klmnopqrstuvwxyz,.!?АБВгдеёжз-'\"\\\n")),
    max_size=40,
)
WHEN = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)
FLOAT = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def memories(draw: st.DrawFn) -> dict:
    """A valid export document with at least one block in every tier."""
    tiers = list(TIERS) + draw(st.lists(st.sampled_from(TIERS), max_size=3))
    next_episode = iter(range(1, 10_000))

    def episode() -> dict:
        return {
            "id": next(next_episode),
            "session": draw(st.sampled_from(["s1", "s2"])),
            "at": draw(WHEN).isoformat(),
            "user_text": draw(TEXT),
            "reply": draw(st.none() | TEXT),
            "status": draw(st.sampled_from(["pending", "answered", "failed"])),
            "error": None,
            "tokens": draw(st.integers(0, 500)),
            "pii_types": draw(st.lists(st.sampled_from(["PHONE", "EMAIL"]), unique=True)),
            "salience": draw(FLOAT),
            "ref": None,
            "origin_id": None,
        }

    blocks = {tier: [] for tier in TIERS}
    for block_id, tier in enumerate(tiers, start=1):
        created = draw(WHEN)
        blocks[tier].append(
            {
                "id": block_id,
                "tier": tier,
                "status": draw(st.sampled_from(["active", "restored"])),
                "created": created.isoformat(),
                "last_access": (created + timedelta(days=1)).isoformat(),
                "last_episode_at": created.isoformat(),
                "access_count": draw(st.integers(0, 9)),
                "size": draw(st.integers(0, 30)),
                "markers": {k: draw(st.booleans()) for k in ("important", "open", "pinned")},
                "summary": "" if tier == "hot" else draw(TEXT),
                "keywords": draw(st.lists(TEXT.filter(str.strip), max_size=3)),
                "anchors": draw(st.lists(TEXT.filter(str.strip), max_size=2)),
                "pointers": draw(st.lists(st.integers(1, len(tiers)), max_size=3)),
                "kept_share": draw(FLOAT),
                "restored_from": None,
                "version": draw(st.integers(0, 5)),
                "centroid": None,
                "terms": sorted(set(draw(st.lists(st.sampled_from(["yoga", "porto"]))))),
                "episodes": [episode() for _ in range(draw(st.integers(0, 3)))],
                "archive": [
                    {
                        "archived_at": draw(WHEN).isoformat(),
                        "status": "archived",
                        "episode": episode(),
                    }
                    for _ in range(draw(st.integers(0 if tier == "hot" else 1, 2)))
                ],
            }
        )
    pairs = draw(
        st.lists(
            st.tuples(st.integers(1, len(tiers)), st.integers(1, len(tiers))).filter(
                lambda p: p[0] < p[1]
            ),
            unique=True,
            max_size=4,
        )
    )
    return {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [
            {
                "id": i,
                "field": draw(st.sampled_from(["name", "likes", "diet"])),
                "value": {"value": v, "said": v, "evidence": draw(TEXT)},
                "since": draw(WHEN).isoformat(),
                "source_episode": None,
                "source": draw(st.sampled_from(["rules", "hand", "import"])),
                "ended": None,
                "ended_by_episode": None,
                "ended_reason": None,
            }
            for i, v in enumerate(draw(st.lists(TEXT, max_size=3)), start=1)
        ],
        "tiers": blocks,
        "loose_episodes": [episode() for _ in range(draw(st.integers(0, 1)))],
        "links": [
            {
                "a": a,
                "b": b,
                "weight": draw(FLOAT),
                "uses": 0,
                "reason": "terms",
                "updated": draw(WHEN).isoformat(),
            }
            for a, b in pairs
        ],
        "tier_events": [
            {
                "id": 1,
                "at": draw(WHEN).isoformat(),
                "block_id": 1,
                "kind": "migrate",
                "from_tier": "hot",
                "to_tier": "warm",
                "detail": {"archived": 2},
            }
        ],
    }


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
