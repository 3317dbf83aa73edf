"""Derived indexes read from the cache dir are the indexes built from scratch, a broken
file costs one log line, and a changed input is a new key."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from aniso.core import cache, tokens
from aniso.profile import lexicon, places


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "aniso"


def _fresh_indexes() -> None:
    lexicon._index.cache_clear()  # noqa: SLF001 - as a new process would start
    places._index.cache_clear()  # noqa: SLF001


def test_the_saved_indexes_are_the_built_ones(folder: Path) -> None:
    _fresh_indexes()
    built_terms = lexicon._index()  # noqa: SLF001 - built, then saved
    built_places = places._index()  # noqa: SLF001
    assert sorted(path.name.split("-")[0] for path in folder.iterdir()) == ["lexicon", "places"]
    _fresh_indexes()
    assert lexicon._index() == built_terms == lexicon.build_index()  # noqa: SLF001
    read = places._index()  # noqa: SLF001 - the saved table, opened again
    assert read is not built_places
    gazetteer = places.build_index()
    assert set(read.names()) == set(gazetteer)
    assert all(read.get(name) == entry for name, entry in gazetteer.items())
    assert read.common == places._common(gazetteer)  # noqa: SLF001
    assert places.lookup("Львові") == places.Place("Lviv", "Europe/Kyiv", 717273)
    assert [m.term.canonical for m in lexicon.mentions("люблю стейки и йогу")] == [
        "steak",
        "yoga",
    ]


TEXTS = (
    "hello",
    "Меня зовут Марта, я живу во Львові 🙂",
    "code: def f(x):\n    return x ** 2  # <|endoftext|> stays text",
    "  spaces\t\tand\r\nbreaks ",
    "",
)


def test_the_saved_token_encoding_counts_as_tiktoken_does(folder: Path) -> None:
    """The encoding built from the saved arguments is tiktoken's own, token for token."""
    tokens._BUILT.clear()  # noqa: SLF001 - as a new process would start
    built = tokens._encoding()  # noqa: SLF001 - built, then saved
    assert [path.name.split("-")[0] for path in folder.iterdir()] == ["tiktoken"]
    tokens._BUILT.clear()  # noqa: SLF001
    read = tokens._encoding()  # noqa: SLF001 - read back
    assert read is not built
    import tiktoken

    own = tiktoken.get_encoding(tokens.ENCODING)
    for text in TEXTS:
        expected = own.encode(text, disallowed_special=())
        assert read.encode(text, disallowed_special=()) == expected
        assert built.encode(text, disallowed_special=()) == expected
        assert tokens.count_tokens(text) == len(expected)
    assert tokens.count_tokens(TEXTS[1]) > 5


def test_a_saved_copy_is_read_instead_of_built(folder: Path) -> None:
    calls: list[int] = []

    def build() -> dict[str, int]:
        calls.append(1)
        return {"a": len(calls)}

    assert cache.load_or_build("probe", "k1", build) == {"a": 1}
    assert cache.load_or_build("probe", "k1", build) == {"a": 1}
    assert calls == [1]


def test_a_broken_file_is_rebuilt_with_one_log_line(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache.load_or_build("probe", "k1", lambda: [1, 2, 3])
    (saved,) = folder.iterdir()
    saved.write_bytes(saved.read_bytes()[:-5])  # truncated
    with caplog.at_level(logging.WARNING, logger="aniso.core.cache"):
        assert cache.load_or_build("probe", "k1", lambda: [4]) == [4]
    assert [r.getMessage() for r in caplog.records if "unusable" in r.getMessage()] != []
    assert len(caplog.records) == 1
    assert cache.load_or_build("probe", "k1", lambda: [5]) == [4]  # the rebuilt copy


def test_a_changed_input_is_a_new_key_and_the_old_file_goes(folder: Path, tmp_path: Path) -> None:
    source = tmp_path / "source.py"
    source.write_text("A = 1\n")
    first = cache.key_of([source], ["numpy"])
    cache.load_or_build("probe", first, lambda: "old")
    source.write_text("A = 2\n")
    second = cache.key_of([source], ["numpy"])
    assert second != first
    assert cache.key_of([source], ["numpy", "no-such-package"]) != second
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"0" * 64)
    by_stat = cache.key_of([source], ["numpy"], large_files=[weights])
    assert by_stat not in (first, second)
    weights.write_bytes(b"0" * 65)  # a new file of another size is another key
    assert cache.key_of([source], ["numpy"], large_files=[weights]) != by_stat
    assert cache.load_or_build("probe", second, lambda: "new") == "new"
    assert [path.name for path in folder.iterdir()] == [f"probe-{second}.pickle"]


def test_an_unwritable_cache_dir_costs_only_the_saving(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert cache.load_or_build("probe", "k1", lambda: 7, folder=blocked / "aniso") == 7


def _fill(rows: list[int]) -> Callable[[sqlite3.Connection], None]:
    def fill(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE probe (n INT)")
        db.executemany("INSERT INTO probe VALUES (?)", [(n,) for n in rows])

    return fill


def _rows(db: sqlite3.Connection) -> list[int]:
    return [n for (n,) in db.execute("SELECT n FROM probe ORDER BY n")]


def test_a_saved_table_is_opened_instead_of_built(folder: Path) -> None:
    calls: list[int] = []

    def fill(db: sqlite3.Connection) -> None:
        calls.append(1)
        _fill([1, 2])(db)

    assert _rows(cache.open_table("probe", "k1", fill)) == [1, 2]
    reopened = cache.open_table("probe", "k1", fill)
    assert _rows(reopened) == [1, 2]
    assert calls == [1]
    with pytest.raises(sqlite3.OperationalError):  # read-only: nothing writes it after
        reopened.execute("INSERT INTO probe VALUES (3)")


def test_a_broken_table_is_rebuilt_with_one_log_line(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache.open_table("probe", "k1", _fill([1])).close()
    (saved,) = folder.iterdir()
    saved.write_bytes(b"not a database" * 100)
    with caplog.at_level(logging.WARNING, logger="aniso.core.cache"):
        assert _rows(cache.open_table("probe", "k1", _fill([4]))) == [4]
    assert [r.getMessage() for r in caplog.records if "unusable" in r.getMessage()] != []
    assert len(caplog.records) == 1
    assert _rows(cache.open_table("probe", "k1", _fill([5]))) == [4]  # the rebuilt copy


def test_a_table_under_another_key_is_replaced(folder: Path) -> None:
    cache.open_table("probe", "k1", _fill([1])).close()
    assert _rows(cache.open_table("probe", "k2", _fill([2]))) == [2]
    assert [path.name for path in folder.iterdir()] == ["probe-k2.sqlite"]
    (saved,) = folder.iterdir()
    saved.rename(folder / "probe-k3.sqlite")  # a file whose inside names another key
    assert _rows(cache.open_table("probe", "k3", _fill([3]))) == [3]


def test_an_unwritable_cache_dir_gets_the_table_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    table = cache.open_table("probe", "k1", _fill([7]), folder=blocked / "aniso")
    assert _rows(table) == [7]


def test_threads_that_count_at_once_build_one_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warm-up thread and the turn both reach the encoding on start-up: the second
    waits for the first build instead of starting its own."""
    builds: list[str] = []
    real = tokens._build  # noqa: SLF001

    def slow_build():  # type: ignore[no-untyped-def]
        builds.append(threading.current_thread().name)
        time.sleep(0.3)  # long enough for every thread to arrive meanwhile
        return real()

    monkeypatch.setattr(tokens, "_build", slow_build)
    monkeypatch.setattr(tokens, "_BUILT", {})
    counts: list[int] = []
    threads = [
        threading.Thread(target=lambda: counts.append(tokens.count_tokens("hello world")))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts == [2, 2, 2, 2]
    assert len(builds) == 1


def _arrays() -> dict[str, np.ndarray]:
    return {
        "matrix": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
        "vector": np.array([1.5, -2.0, 3.25], dtype=np.float32),
        "scalar": np.float32(0.125) * np.ones((), dtype=np.float32),
    }


def test_saved_arrays_are_mapped_instead_of_built(folder: Path) -> None:
    calls: list[int] = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return _arrays()

    cache.open_arrays("probe", "k1", build)
    mapped = cache.open_arrays("probe", "k1", build)
    assert calls == [1]
    for name, array in _arrays().items():
        assert mapped[name].shape == array.shape and (mapped[name] == array).all()
        assert mapped[name].flags.c_contiguous and not mapped[name].flags.writeable
    assert [path.suffix for path in folder.iterdir()] == [".arrays"]


def test_broken_arrays_are_rebuilt_with_one_log_line(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache.open_arrays("probe", "k1", _arrays)
    (saved,) = folder.iterdir()
    saved.write_bytes(saved.read_bytes()[:-8])  # truncated, as by a full disk
    with caplog.at_level(logging.WARNING, logger="aniso.core.cache"):
        rebuilt = cache.open_arrays("probe", "k1", _arrays)
    assert (rebuilt["vector"] == _arrays()["vector"]).all()
    assert len(caplog.records) == 1 and "unusable" in caplog.records[0].getMessage()
    saved.rename(folder / "probe-k2.arrays")  # a file whose header names another key
    assert (cache.open_arrays("probe", "k2", _arrays)["matrix"] == _arrays()["matrix"]).all()
    assert [path.name for path in folder.iterdir()] == ["probe-k2.arrays"]


def test_an_unwritable_cache_dir_gets_the_built_arrays(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    got = cache.open_arrays("probe", "k1", _arrays, folder=blocked / "aniso")
    assert (got["matrix"] == _arrays()["matrix"]).all()


def test_the_mapped_embedder_weights_embed_as_the_built_ones(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedder's weights mapped from the cache give the vectors of the weights
    built from its safetensors file, bit for bit."""
    from aniso.tiers.index import embeddings

    texts = ["hello", "Меня зовут Марта", "We adopted a beagle last month, she's called Tofu."]
    with monkeypatch.context() as patch:  # built in memory, as without a cache
        patch.setattr(cache, "open_arrays", lambda _name, _key, build: build())
        embeddings._WEIGHTS.clear()  # noqa: SLF001 - as a new process would start
        built = embeddings.LocalMiniLM().embed(texts)
        assert embeddings._weights(embeddings._bundled_dir()).words.flags.writeable  # noqa: SLF001
    for _ in range(2):  # saved, then mapped by a later process
        embeddings._WEIGHTS.clear()  # noqa: SLF001
        mapped = embeddings.LocalMiniLM().embed(texts)
        assert not embeddings._weights(embeddings._bundled_dir()).words.flags.writeable  # noqa: SLF001
        assert (mapped == built).all() and np.abs(built).sum() > 0
    assert [path.name.split("-")[0] for path in folder.iterdir()] == ["minilm"]


def test_a_partial_file_a_killed_writer_left_is_removed(folder: Path) -> None:
    """A partial file untouched for longer than any write is abandoned and removed on the
    next build; one that a writer may still be writing stays."""
    import os

    folder.mkdir(parents=True)
    abandoned = folder / "probe-k0.4242.partial"
    fresh = folder / "probe-k0.4343.partial"
    other = folder / "lexicon-k0.4242.partial"
    for path in (abandoned, fresh, other):
        path.write_bytes(b"half a file")
    old = time.time() - cache.ABANDONED_AFTER_S - 60
    os.utime(abandoned, (old, old))
    os.utime(other, (old, old))
    cache.open_arrays("probe", "k1", _arrays)
    assert not abandoned.exists()
    assert fresh.exists() and other.exists()  # still being written; another name's
