"""The data dir is private, SQLite runs in WAL mode, the schema migrates forward."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from aniso.core.db import loose_permissions, open_db
from aniso.core.errors import StoreError
from aniso.core.schema import MIGRATIONS, SCHEMA_VERSION, schema_version


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_dir_and_files_are_private(data_dir: Path) -> None:
    db = open_db(data_dir)
    db.execute("INSERT INTO meta VALUES ('k', 'v')")
    assert mode(data_dir) == 0o700
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert files and all(mode(p) == 0o600 for p in files)
    assert loose_permissions(data_dir) == []


def test_wal_busy_timeout_and_schema(data_dir: Path) -> None:
    db = open_db(data_dir)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert schema_version(db) == SCHEMA_VERSION >= 1
    assert MIGRATIONS.pending(db) == []
    assert {
        "episodes",
        "blocks",
        "links",
        "archive",
        "profile_values",
        "tier_events",
        "audit",
    } <= set(db.table_names())


def test_migrations_are_idempotent(data_dir: Path) -> None:
    open_db(data_dir).execute("INSERT INTO meta VALUES ('kept', '1')")
    db = open_db(data_dir)
    assert schema_version(db) == SCHEMA_VERSION
    assert db.execute("SELECT value FROM meta WHERE key = 'kept'").fetchone()[0] == "1"


def test_unwritable_data_dir_names_the_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot use data dir .*a-file/memory"):
        open_db(blocker / "memory")


def test_loose_permissions_are_reported(data_dir: Path) -> None:
    open_db(data_dir)
    (data_dir / "aniso.db").chmod(0o644)
    assert data_dir / "aniso.db" in loose_permissions(data_dir)


def test_an_incompatible_pre_release_store_is_set_aside_not_lost(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = open_db(data_dir)
    db["episodes"].insert({"session": "s", "at": "2026-01-01T00:00:00+00:00", "user_text": "x"})
    db.execute("ALTER TABLE episodes RENAME COLUMN origin_id TO origin")
    db.conn.close()
    reopened = open_db(data_dir)
    assert reopened.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 0
    aside = list(data_dir.glob("incompatible-*/aniso.db"))
    assert len(aside) == 1
    old = sqlite3.connect(aside[0])
    assert old.execute("SELECT user_text FROM episodes").fetchall() == [("x",)]
    assert "lacks origin_id" in capsys.readouterr().err


def test_ids_of_rows_that_left_their_table_are_never_handed_out_again(data_dir: Path) -> None:
    """The archive, restored copies and vectors keep pointing at old ids."""
    db = open_db(data_dir)
    for table in ("episodes", "blocks"):
        row = {"session": "s", "at": "2026-01-01T00:00:00+00:00", "user_text": "x"}
        if table == "blocks":
            t = "2026-01-01T00:00:00+00:00"
            row = {"created": t, "last_access": t, "last_episode_at": t}
        first = db[table].insert(row).last_pk
        db.execute(f"DELETE FROM {table} WHERE id = ?", [first])  # the newest row leaves
        assert db[table].insert(row).last_pk == first + 1, table
