"""A real export broken at 90% of its length is refused whole: the file streams, but
nothing is written until all of it has been read and checked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import one_line_error, run_cli

from aniso.cli import main
from aniso.core.db import open_db
from aniso.data.export import export_json
from aniso.data.importer import write_document
from aniso.data.reading import read_document
from aniso.tiers.model import TIERS

AT = "2026-01-05T19:00:00+00:00"
BLOCKS = 240


def memory() -> dict:
    """A memory of BLOCKS blocks over the three tiers, each with episodes and an archive."""
    ids = iter(range(1, 10_000))

    def episode(text: str) -> dict:
        return {
            "id": next(ids),
            "session": "s1",
            "at": AT,
            "user_text": text,
            "reply": "Noted.",
            "status": "answered",
            "error": None,
            "tokens": 9,
            "pii_types": [],
            "salience": 0.5,
            "ref": None,
            "origin_id": None,
        }

    tiers: dict[str, list] = {tier: [] for tier in TIERS}
    for number in range(1, BLOCKS + 1):
        tier = TIERS[number % 3]
        tiers[tier].append(
            {
                "id": number,
                "tier": tier,
                "status": "active",
                "created": AT,
                "last_access": AT,
                "last_episode_at": AT,
                "access_count": 1,
                "size": 3,
                "markers": {"important": False, "open": False, "pinned": False},
                "summary": "" if tier == "hot" else f"Trip number {number} to Porto",
                "keywords": ["porto"],
                "anchors": ["Porto"],
                "pointers": [],
                "kept_share": 0.5,
                "restored_from": None,
                "version": 1,
                "centroid": None,
                "terms": ["porto"],
                "episodes": [episode(f"Day {day} of trip {number}") for day in range(3)],
                "archive": []
                if tier == "hot"
                else [{"archived_at": AT, "status": "archived", "episode": episode("An aside")}],
            }
        )
    return {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [],
        "tiers": tiers,
        "loose_episodes": [],
        "links": [
            {"a": n, "b": n + 1, "weight": 0.5, "uses": 0, "reason": "time", "updated": AT}
            for n in range(1, BLOCKS)
        ],
        "tier_events": [],
    }


def snapshot(data_dir: Path) -> tuple[dict[str, str], str]:
    """Every file's bytes (as digests) and every row of the database."""
    files = {
        str(path.relative_to(data_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(data_dir.rglob("*"))
        if path.is_file()
    }
    db = open_db(data_dir)
    try:
        rows = "\n".join(db.conn.iterdump())
    finally:
        db.conn.close()
    return files, rows


@pytest.fixture
def exported(tmp_path: Path, data_dir: Path) -> Path:
    """A data dir holding the memory, and the file the exporter wrote from it."""
    source = tmp_path / "source.json"
    source.write_text(json.dumps(memory()), encoding="utf-8")
    out = tmp_path / "export.json"
    db = open_db(data_dir)
    try:
        write_document(db, read_document(source), mode="replace", redact=str, path="s", at=AT)
        export_json(db, out)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.conn.close()
    return out


def late(text: str) -> int:
    """The start of the line at 90% of the text: inside the last tier's blocks."""
    return text.rindex("\n", 0, len(text) * 9 // 10) + 1


def truncated(text: str) -> str:
    return text[: len(text) * 9 // 10]


def garbled(text: str) -> str:
    at = late(text) + 5
    return text[:at] + "\x00}" + text[at + 2 :]


def invalid(text: str) -> str:
    """Valid JSON whose record at 90% has a status no episode can have."""
    at = text.index('"status": "answered"', late(text))
    return text[:at] + '"status": "lost"' + text[at + len('"status": "answered"') :]


@pytest.mark.parametrize("breaking", [truncated, garbled, invalid])
@pytest.mark.parametrize("mode", ["--replace", "--merge"])
def test_a_file_broken_at_90_percent_changes_nothing(
    exported: Path, data_dir: Path, tmp_path: Path, breaking, mode: str
) -> None:
    text = exported.read_text(encoding="utf-8")
    assert text.count("\n") > BLOCKS, "one record per line"
    bad = tmp_path / "bad.json"
    bad.write_text(breaking(text), encoding="utf-8")
    before = snapshot(data_dir)
    result = CliRunner().invoke(main, ["import", str(bad), mode])
    assert result.exit_code == 1, result.output
    message = result.output.strip()
    assert message.startswith(f"aniso: error: cannot import {bad}:"), message
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    if breaking is invalid:
        assert "at tiers." in message and "status" in message, message
    else:
        assert "not valid JSON at line" in message, message
        line = int(message.split("at line ")[1].split()[0])
        assert line == text.count("\n", 0, len(text) * 9 // 10) + 1, message
    assert snapshot(data_dir) == before


def test_the_same_in_a_real_process(exported: Path, data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(truncated(exported.read_text(encoding="utf-8")), encoding="utf-8")
    before = snapshot(data_dir)
    result = run_cli("import", str(bad), "--replace")
    assert result.returncode == 1
    assert "not valid JSON at line" in one_line_error(result)
    assert snapshot(data_dir) == before


def test_the_unbroken_export_imports_whole(exported: Path, data_dir: Path) -> None:
    """The control: without the break, the same import writes every block."""
    result = CliRunner().invoke(main, ["import", str(exported), "--replace", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert sum(report["blocks"].values()) == BLOCKS
    assert report["links"] == BLOCKS - 1


@pytest.mark.parametrize(
    "layout",
    [{"indent": 2}, {"separators": (",", ":")}, {"sort_keys": True, "indent": "\t"}],
)
def test_every_layout_of_an_export_imports_the_same(
    exported: Path, data_dir: Path, tmp_path: Path, layout: dict
) -> None:
    """Pretty-printed, minified or reordered by another tool: the same memory comes back."""
    original = exported.read_bytes()
    relaid = tmp_path / "relaid.json"
    relaid.write_text(json.dumps(json.loads(original), **layout), encoding="utf-8")
    again = tmp_path / "again.json"
    db = open_db(data_dir)
    try:
        write_document(db, read_document(relaid), mode="replace", redact=str, path="r", at=AT)
        export_json(db, again)
    finally:
        db.conn.close()
    assert again.read_bytes() == original
