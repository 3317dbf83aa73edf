"""Cases every `VectorIndex` must pass, shared by the in-process index's tests and the
index served from a child process (`vector_host`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aniso.tiers.index.vectors import ChromaIndex, VectorIndex

# Four directions whose cosine similarity to X is known exactly: 1, 1/sqrt(2), 0, -1.
X = [1.0, 0.0, 0.0]
DIAGONAL = [1.0, 1.0, 0.0]
Y = [0.0, 1.0, 0.0]
MINUS_X = [-1.0, 0.0, 0.0]


def fill(index: VectorIndex) -> None:
    index.upsert(
        ["x", "diag", "y", "-x"],
        np.array([X, DIAGONAL, Y, MINUS_X]),
        [{"tier": "hot"}, {"tier": "cold"}, {"tier": "hot", "n": 3}, {"tier": "cold"}],
    )


def open_folder(path: Path, warnings: list[str] | None = None) -> ChromaIndex:
    sink = warnings if warnings is not None else []
    return ChromaIndex.open(path=path, url=None, on_warning=sink.append)


def check_round_trip(index: VectorIndex) -> None:
    """The behaviour both modes must share."""
    assert index.query(np.array(X), 3) == []  # empty index
    fill(index)
    assert index.count() == 4
    assert index.ids() == {"x", "diag", "y", "-x"}

    found = index.query(np.array(X), 10)  # k larger than the count is fine
    assert [id_ for id_, _ in found] == ["x", "diag", "y", "-x"]
    scores = [score for _, score in found]
    assert scores == pytest.approx([1.0, 2**-0.5, 0.0, -1.0], abs=1e-5)

    hot = index.query(np.array(X), 10, where={"tier": "hot"})
    assert [id_ for id_, _ in hot] == ["x", "y"]
    assert index.query(np.array(X), 1) == [("x", pytest.approx(1.0, abs=1e-5))]

    index.upsert(["y"], np.array([X]), [{"tier": "cold"}])  # replaces vector and metadata
    assert index.count() == 4
    assert index.query(np.array(X), 10, where={"tier": "hot"})[0][0] == "x"
    assert len(index.query(np.array(X), 10, where={"tier": "hot"})) == 1

    index.delete(["x", "not-there"])  # missing ids are fine
    assert index.ids() == {"diag", "y", "-x"}
    assert "x" not in [id_ for id_, _ in index.query(np.array(X), 10)]

    index.reset()
    assert index.count() == 0
    assert index.ids() == set()
    fill(index)  # still usable, and still cosine after the reset
    assert index.query(np.array(MINUS_X), 1)[0] == ("-x", pytest.approx(1.0, abs=1e-5))
