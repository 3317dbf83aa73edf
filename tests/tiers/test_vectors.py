"""The dense vector index, embedded (a folder) and against a real local Chroma server."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from chroma_server import ChromaServer, chroma_server, running_chroma  # noqa: F401
from vector_cases import X, Y, check_round_trip, fill, open_folder

from aniso.core.errors import ConfigError, StoreError
from aniso.tiers.index.vectors import ChromaIndex

# `chroma_server` is imported above as a fixture (pytest finds it by name), hence its noqa.
# Server tests may open sockets to loopback only; the rest of the suite has none at all.
loopback_only = pytest.mark.allow_hosts(["127.0.0.1"])


@pytest.fixture
def index(tmp_path: Path):
    index = open_folder(tmp_path / "vectors")
    yield index
    index.close()


# --- embedded ---------------------------------------------------------------------------


def test_embedded_round_trip(index: ChromaIndex) -> None:
    assert index.rebuilt is False
    check_round_trip(index)


def test_embedded_reopen_keeps_the_data(tmp_path: Path) -> None:
    warnings: list[str] = []
    first = open_folder(tmp_path / "vectors", warnings)
    fill(first)
    first.close()  # releases chromadb's shared system, so the reopen really reads the disk

    again = open_folder(tmp_path / "vectors", warnings)
    try:
        assert (again.rebuilt, warnings) == (False, [])
        assert again.ids() == {"x", "diag", "y", "-x"}
        assert again.query(np.array(Y), 1)[0][0] == "y"
    finally:
        again.close()


def test_upsert_is_chunked_to_the_batch_size(index: ChromaIndex, monkeypatch) -> None:
    calls: list[int] = []
    real = index._collection.upsert

    def spy(**kwargs):
        calls.append(len(kwargs["ids"]))
        return real(**kwargs)

    monkeypatch.setattr(index, "_batch", 3)
    monkeypatch.setattr(index._collection, "upsert", spy)
    rng = np.random.default_rng(1)
    ids = [f"e{i}" for i in range(10)]
    index.upsert(ids, rng.normal(size=(10, 8)), [{"i": i} for i in range(10)])
    assert calls == [3, 3, 3, 1]
    assert index.ids() == set(ids)  # ids() pages by the same size


def test_large_upsert_uses_chromas_own_limit(index: ChromaIndex) -> None:
    assert index._batch == index.client.get_max_batch_size()
    n = index._batch + 7  # one call of this size would be rejected by Chroma
    vectors = np.random.default_rng(2).normal(size=(n, 4))
    index.upsert([str(i) for i in range(n)], vectors, [{} for _ in range(n)])
    assert index.count() == n
    assert len(index.ids()) == n


def test_misuse_is_a_value_error(index: ChromaIndex) -> None:
    with pytest.raises(ValueError, match="one vector row"):
        index.upsert(["a", "b"], np.array([X]), [{}, {}])
    with pytest.raises(ValueError, match="one vector row"):
        index.upsert(["a"], np.array([X]), [])
    with pytest.raises(ValueError, match="non-zero"):
        index.upsert(["a"], np.zeros((1, 3)), [{}])
    assert index.query(np.array(X), 0) == []


def test_runtime_failure_is_a_one_line_store_error(index: ChromaIndex) -> None:
    fill(index)
    with pytest.raises(StoreError) as caught:
        index.query(np.array([1.0, 0.0]), 3)  # wrong dimension: Chroma refuses it
    assert "\n" not in str(caught.value)


def test_open_needs_a_folder_or_a_url() -> None:
    with pytest.raises(ConfigError):
        ChromaIndex.open(path=None, url=None)
    with pytest.raises(ConfigError):
        ChromaIndex.open(path=None, url="ftp://example/")


def test_no_telemetry_embedded(index: ChromaIndex) -> None:
    assert index.client.get_settings().anonymized_telemetry is False


# --- a broken folder is rebuilt ---------------------------------------------------------


def _broken(tmp_path: Path, damage, n: int = 4) -> tuple[ChromaIndex, list[str], Path]:
    folder = tmp_path / "vectors"
    first = open_folder(folder)
    if n == 4:
        fill(first)
    else:  # enough for Chroma to write its HNSW segment files
        vectors = np.random.default_rng(3).normal(size=(n, 8))
        first.upsert([str(i) for i in range(n)], vectors, [{} for _ in range(n)])
    first.close()
    damage(folder)
    warnings: list[str] = []
    return open_folder(folder, warnings), warnings, folder


def _assert_rebuilt(index: ChromaIndex, warnings: list[str], folder: Path) -> None:
    try:
        assert index.rebuilt is True
        assert len(warnings) == 1
        assert warnings[0].startswith(f"the vector index at {folder} was unreadable (")
        assert warnings[0].endswith("); rebuilding it from memory")
        assert index.count() == 0
        fill(index)  # usable again
        assert index.query(np.array(X), 1)[0][0] == "x"
        assert (folder.parent / "vectors.broken").exists()  # kept for a bug report
    finally:
        index.close()


def test_garbage_sqlite_is_rebuilt(tmp_path: Path) -> None:
    def garbage(folder: Path) -> None:
        (folder / "chroma.sqlite3").write_bytes(os.urandom(64 * 1024))

    _assert_rebuilt(*_broken(tmp_path, garbage))


def test_deleted_sqlite_is_rebuilt(tmp_path: Path) -> None:
    def remove(folder: Path) -> None:
        (folder / "chroma.sqlite3").unlink()

    index, warnings, folder = _broken(tmp_path, remove)
    assert "chroma.sqlite3 is missing or empty" in warnings[0]
    _assert_rebuilt(index, warnings, folder)


def test_garbled_segment_files_are_rebuilt(tmp_path: Path) -> None:
    def garble(folder: Path) -> None:
        segments = [p for p in folder.iterdir() if p.is_dir()]
        assert segments, "expected Chroma to have written an HNSW segment folder"
        for file in segments[0].iterdir():
            file.write_bytes(b"garbage" * 100)

    _assert_rebuilt(*_broken(tmp_path, garble, n=1500))


def test_a_file_where_the_folder_should_be_is_rebuilt(tmp_path: Path) -> None:
    folder = tmp_path / "vectors"
    folder.write_text("not an index")
    warnings: list[str] = []
    _assert_rebuilt(open_folder(folder, warnings), warnings, folder)


def test_a_new_or_empty_folder_is_not_a_rebuild(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    warnings: list[str] = []
    for folder in (tmp_path / "new", tmp_path / "empty"):
        index = open_folder(folder, warnings)
        assert index.rebuilt is False
        index.close()
    assert warnings == []


def test_a_locked_folder_is_an_error_not_a_rebuild(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "vectors"
    open_folder(folder).close()
    before = sorted(p.name for p in folder.iterdir())

    def locked(path: Path):
        raise RuntimeError("error returned from database: (code: 5) database is locked")

    monkeypatch.setattr("aniso.tiers.index.vectors._persistent_client", locked)
    warnings: list[str] = []
    with pytest.raises(StoreError, match="database is locked"):
        open_folder(folder, warnings)
    assert warnings == []
    assert sorted(p.name for p in folder.iterdir()) == before  # left where it was
    assert not (tmp_path / "vectors.broken").exists()


# --- server mode ------------------------------------------------------------------------


@loopback_only
def test_server_round_trip(chroma_server: ChromaServer) -> None:  # noqa: F811
    index = ChromaIndex.open(path=None, url=chroma_server.url, collection="round_trip")
    try:
        assert index.rebuilt is False
        check_round_trip(index)
    finally:
        index.close()


@loopback_only
def test_no_telemetry_server(chroma_server: ChromaServer) -> None:  # noqa: F811
    index = ChromaIndex.open(path=None, url=chroma_server.url, collection="telemetry")
    try:
        assert index.client.get_settings().anonymized_telemetry is False
    finally:
        index.close()


@loopback_only
def test_a_stopped_server_raises_store_error(tmp_path: Path) -> None:
    with running_chroma(tmp_path) as server:
        index = ChromaIndex.open(path=None, url=server.url, collection="stopping")
        fill(index)
        assert index.query(np.array(X), 1)[0][0] == "x"
        server.stop()
        with pytest.raises(StoreError, match="could not search") as caught:
            index.query(np.array(X), 1)
        assert "\n" not in str(caught.value)
        index.close()
        with pytest.raises(StoreError, match="cannot reach the vector server"):
            ChromaIndex.open(path=None, url=server.url)
