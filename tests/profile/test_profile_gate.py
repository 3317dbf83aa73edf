"""The gate's trainer: how it is fitted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_profile_gate.py"


def _trainer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("train_profile_gate", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_sparse_fit_learns_a_valued_and_a_named_feature() -> None:
    trainer = _trainer()
    rows = [["a", "v=2"], ["a", "v=1.5"], ["b", "v=-1"], ["b", "v=-2"], ["a"], ["b"]] * 3
    y = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0] * 3)
    w = np.ones(len(y))
    theta, vocab = trainer.fitted(rows, y, w, 0.01)
    p = trainer.predict(theta, rows, vocab)
    assert (p[y == 1] > 0.7).all() and (p[y == 0] < 0.3).all()
    assert theta[vocab["v"]] > 0 and theta[vocab["a"]] > theta[vocab["b"]]
    # The sparse products are the dense ones.
    dense = np.zeros((len(rows), len(vocab) + 1))
    dense[:, -1] = 1.0
    for i, features in enumerate(rows):
        for name, value in map(trainer.named, features):
            dense[i, vocab[name]] = value
    matrix = trainer.matrix(rows, vocab)
    assert np.allclose(matrix.dot(theta), dense @ theta)
    assert np.allclose(matrix.t_dot(y), dense.T @ y)
