"""The scan behind every erasure receipt (aniso.data.residue): it must find what is there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aniso.data import residue
from aniso.tiers.index import vector_erasure


@pytest.mark.parametrize("offset", range(17))
def test_a_needle_is_found_at_every_byte_offset(offset: int) -> None:
    rng = np.random.default_rng(offset)
    needle = rng.bytes(64)
    data = rng.bytes(offset) + needle + rng.bytes(40)
    assert residue.find(data, [needle]) == {needle}
    broken = needle[:-1] + bytes([needle[-1] ^ 0xFF])
    assert residue.find(data.replace(needle, broken), [needle]) == set()


def test_many_needles_sharing_a_prefix_are_told_apart() -> None:
    needles = [b"forgotten text number %03d" % i for i in range(50)]
    data = b"...".join([needles[3], b"noise", needles[41]])
    assert residue.find(data, needles) == {needles[3], needles[41]}


def test_vectors_and_texts_are_found_in_files_and_named(tmp_path: Path) -> None:
    vector = np.linspace(-1, 1, 384, dtype=np.float32)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.bin").write_bytes(b"\x01" * 7 + vector.tobytes())
    (tmp_path / "app.log").write_text("WARNING: could not parse MY OLD Bicycle Is Green\n")
    (tmp_path / "clean.txt").write_text("nothing here")
    found = residue.scan(
        tmp_path,
        vectors=vector_erasure.signatures(vector.reshape(1, -1)),
        texts=residue.text_needles(["my old bicycle is green", "ok"]),
    )
    assert found.vectors == ["sub/index.bin"] and found.texts == ["app.log"]
    assert found.scanned_files == 3 and not found.clean


def test_short_texts_are_not_scanned_for_alone() -> None:
    assert residue.text_needles(["ok", "yes ", "", "a longer text"]) == [b"a longer text"]
    with pytest.raises(ValueError):
        residue.find(b"abc", [b"ab"])
