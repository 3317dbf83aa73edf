"""Bad import files get one clear line naming the file and the place, and leave the
database bit-for-bit unchanged (fuzzed with hypothesis)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from export_strategies import sample_document
from helpers import one_line_error, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aniso.cli import main
from aniso.core.db import open_db
from aniso.core.errors import StoreError
from aniso.data.document import MAX_TEXT
from aniso.data.importer import write_document
from aniso.data.reading import read_document

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def populated(tmp_path: Path, data_dir: Path) -> dict:
    """A data dir holding a memory, and a valid export document to mutate."""
    document = sample_document()
    source = tmp_path / "valid.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    db = open_db(data_dir)
    write_document(db, read_document(source), mode="replace", redact=str, path="v", at="t")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()
    return document


def checksum(data_dir: Path) -> str:
    digest = hashlib.sha256()
    for name in ("aniso.db", "aniso.db-wal"):
        path = data_dir / name
        digest.update(path.read_bytes() if path.exists() else b"-")
    return digest.hexdigest()


def refused(data_dir: Path, tmp_path: Path, content: str | bytes) -> str:
    """Import `content` through the CLI; assert it failed and changed nothing."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before = checksum(data_dir)
    result = CliRunner().invoke(main, ["import", str(bad), "--replace"])
    assert result.exit_code == 1, result.output
    assert checksum(data_dir) == before
    message = result.output.strip()
    assert message.startswith(f"aniso: error: cannot import {bad}:"), message
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    return message


@FUZZ
@given(data=st.data())
def test_truncated_json(populated: dict, data_dir: Path, tmp_path: Path, data: st.DataObject):
    text = json.dumps(populated)
    cut = data.draw(st.integers(1, len(text) - 1))
    message = refused(data_dir, tmp_path, text[:cut])
    assert "not valid JSON at line" in message or "not an Aniso export" in message


WRONG = [
    (lambda d: d["tiers"]["hot"][0], "size", ["many", -1, None, [], 1.5]),
    (lambda d: d["tiers"]["warm"][0], "markers", ["yes", [], 1, None]),
    (lambda d: d["tiers"]["cold"][0], "tier", ["frozen", 3, None]),
    (lambda d: d["tiers"]["cold"][0], "keywords", ["a, b", {"a": 1}, 7]),
    (lambda d: d["tiers"]["cold"][0]["archive"][0], "episode", ["text", [], None, 1]),
    (lambda d: d, "tiers", [[], "hot", None, 1]),
    (lambda d: d, "profile", [{}, "x", None]),
]


@FUZZ
@given(data=st.data())
def test_wrong_types(populated: dict, data_dir: Path, tmp_path: Path, data: st.DataObject):
    document = copy.deepcopy(populated)
    where, key, values = data.draw(st.sampled_from(WRONG))
    where(document)[key] = data.draw(st.sampled_from(values))
    message = refused(data_dir, tmp_path, json.dumps(document))
    assert key in message or "tiers" in message or "profile" in message, message


@FUZZ
@given(data=st.data())
def test_huge_strings(populated: dict, data_dir: Path, tmp_path: Path, data: st.DataObject):
    document = copy.deepcopy(populated)
    tier = data.draw(st.sampled_from(["warm", "cold"]))
    field = data.draw(st.sampled_from(["summary", "archive"]))
    huge = "ж" * (MAX_TEXT + data.draw(st.integers(1, 50_000)))
    if field == "summary":
        document["tiers"][tier][0]["summary"] = huge
    else:
        document["tiers"][tier][0]["archive"][0]["episode"]["user_text"] = huge
    message = refused(data_dir, tmp_path, json.dumps(document, ensure_ascii=False))
    assert f"at tiers.{tier}[0]." in message and "at most 200000 characters" in message


BAD_DATES = st.sampled_from(
    [
        "2026-13-45T19:00:00+00:00",
        "yesterday",
        "",
        "2026-01-05T19:00:00",
        "05/01/2026",
        "2026-02-30",
    ]
) | st.text(alphabet="abcxyz:-", min_size=1, max_size=12)


@FUZZ
@given(data=st.data())
def test_invalid_dates(populated: dict, data_dir: Path, tmp_path: Path, data: st.DataObject):
    document = copy.deepcopy(populated)
    bad = data.draw(BAD_DATES)
    place = data.draw(st.sampled_from(["created", "episode", "link"]))
    if place == "created":
        document["tiers"]["hot"][0]["created"] = bad
        where = "tiers.hot[0].created"
    elif place == "episode":
        document["tiers"]["cold"][0]["archive"][0]["episode"]["at"] = bad
        where = "tiers.cold[0].archive[0].episode.at"
    else:
        document["tier_events"][0]["at"] = bad
        where = "tier_events[0].at"
    assert where in refused(data_dir, tmp_path, json.dumps(document))


@FUZZ
@given(data=st.data())
def test_duplicate_ids(populated: dict, data_dir: Path, tmp_path: Path, data: st.DataObject):
    document = copy.deepcopy(populated)
    kind = data.draw(st.sampled_from(["block", "episode", "link"]))
    if kind == "block":
        document["tiers"]["cold"][0]["id"] = document["tiers"]["hot"][0]["id"]
    elif kind == "episode":
        archived = document["tiers"]["warm"][0]["archive"][0]["episode"]
        archived["id"] = document["tiers"]["cold"][0]["archive"][0]["episode"]["id"]
    else:
        document["links"] = [
            {
                "a": 1,
                "b": 2,
                "weight": 1.0,
                "uses": 0,
                "reason": "terms",
                "updated": "2026-01-05T19:00:00+00:00",
            }
        ] * 2
    assert f"duplicate {kind}" in refused(data_dir, tmp_path, json.dumps(document))


@FUZZ
@given(version=st.integers(2, 10**9))
def test_future_schema_version(populated: dict, data_dir: Path, tmp_path: Path, version: int):
    document = dict(populated, schema_version=version)
    message = refused(data_dir, tmp_path, json.dumps(document))
    assert f"written by a newer Aniso (schema version {version}" in message


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "not valid JSON at line 1 column 1"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
        (b"[1, 2, 3]", "not an Aniso export"),
        (b'{"format": "aniso-export", "schema_version": "one"}', "schema_version must be"),
    ],
)
def test_not_an_export_at_all(
    populated: dict, data_dir: Path, tmp_path: Path, content: bytes, expected: str
) -> None:
    assert expected in refused(data_dir, tmp_path, content)


def test_subprocess_import_of_a_bad_file_changes_no_byte(
    populated: dict, data_dir: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(populated)[:-40], encoding="utf-8")
    before = checksum(data_dir)
    result = run_cli("import", str(bad))
    assert result.returncode == 1
    assert "not valid JSON at line" in one_line_error(result)
    assert checksum(data_dir) == before
    missing = run_cli("import", str(tmp_path / "nope.json"))
    assert "cannot import" in one_line_error(missing)


def test_a_failure_halfway_through_the_write_rolls_everything_back(
    populated: dict, data_dir: Path, tmp_path: Path
) -> None:
    source = tmp_path / "again.json"
    source.write_text(json.dumps(populated), encoding="utf-8")
    document = read_document(source)
    db = open_db(data_dir)
    before = "\n".join(db.conn.iterdump())
    calls = []

    def failing_redact(text: str) -> str:
        calls.append(text)
        if len(calls) > 3:
            raise StoreError("disk full")
        return text

    for mode in ("replace", "merge"):
        calls.clear()
        with pytest.raises(StoreError):
            write_document(db, document, mode=mode, redact=failing_redact, path="x", at="t")
        assert "\n".join(db.conn.iterdump()) == before
