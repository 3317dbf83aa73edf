"""Archived episodes keep their vectors: findable while packed, restored without embedding,
and erased with everything else by forget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import cold_thread

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.data.forget import forget, plan_search
from aniso.services import Services, build
from aniso.tiers import unpack
from aniso.tiers.index.dense import archive_key, episode_key, expected_keys

GARDEN = [
    "I planted tomatoes and basil in the raised garden bed behind the house",
    "The raised garden bed gets sun all afternoon, the tomatoes love it",
    "In the garden the tomatoes need stakes, the basil needs pinching back",
    "Slugs ate half of the garden lettuce, the tomatoes and basil are fine",
    "For the garden tomatoes and basil, neighbour Zqxkiln lent me her pottery kiln",
    "Watering the garden tomatoes and basil every evening now that it is hot",
    "The garden compost heap is ready, I spread it around the tomatoes",
    "Harvested the first garden tomatoes today, and a big bunch of basil",
]


@pytest.fixture
def services(llm, clock: SimulatedClock, data_dir: Path) -> Services:  # type: ignore[no-untyped-def]
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def cold_garden(services: Services, clock: SimulatedClock) -> int:
    """The garden thread, compacted to a cold capsule; returns its block id."""
    block = cold_thread(services, clock, GARDEN)
    tier = services.db.execute("SELECT tier FROM blocks WHERE id = ?", [block]).fetchone()[0]
    assert tier == "cold"
    return block


class CountingEmbedder:
    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.calls: list[list[str]] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(list(texts))
        return self.inner.embed(texts)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)


def archived_ids(services: Services, block: int) -> list[int]:
    return [
        row[0]
        for row in services.db.execute(
            "SELECT episode_id FROM archive WHERE block_id = ? ORDER BY episode_id", [block]
        )
    ]


def test_a_cold_restore_copies_the_archived_vectors_and_embeds_nothing(
    services: Services, clock: SimulatedClock
) -> None:
    memory = services.controller.memory
    block = cold_garden(services, clock)
    packed = archived_ids(services, block)
    assert {archive_key(i) for i in packed} <= memory.dense.index.ids()
    found, matrix, _ = memory.dense.index.vectors([archive_key(i) for i in packed])
    before = dict(zip(found, matrix, strict=True))
    archived = [archive_key(i) for i in packed]

    counting = CountingEmbedder(memory.dense.embedder)
    memory.dense.embedder = counting
    restored = unpack.deep(memory, block, now=clock())
    assert restored is not None and restored.episodes == len(GARDEN)
    assert counting.calls == [], "a restore must not embed the archived episodes again"

    new_ids = [
        row[0]
        for row in services.db.execute(
            "SELECT id FROM episodes WHERE block_id = ? ORDER BY origin_id", [restored.new_block]
        )
    ]
    memory.dense.push_held()
    memory.dense.flush(memory.texts_for)
    keys = memory.dense.index.ids()
    assert {episode_key(i) for i in new_ids} <= keys
    assert not {archive_key(i) for i in packed} & keys, "the archive copies' vectors went"
    found, after, _ = memory.dense.index.vectors([episode_key(i) for i in new_ids])
    copied = dict(zip(found, after, strict=True))
    for original, key in zip(archived, [episode_key(i) for i in new_ids], strict=True):
        np.testing.assert_allclose(copied[key], before[original], atol=1e-6)
    assert expected_keys(services.db) == keys


def test_evidence_stays_findable_after_compaction_to_cold(
    services: Services, clock: SimulatedClock
) -> None:
    """A detail the capsule dropped still finds its block, strongly enough for the
    product's unpack policy to restore it; then the episode itself is recalled."""
    memory = services.controller.memory
    block = cold_garden(services, clock)
    capsule = services.db.execute(
        "SELECT summary || keywords || anchors FROM blocks WHERE id = ?", [block]
    ).fetchone()[0]
    assert "pottery" not in capsule.lower(), "the test needs a detail the capsule dropped"

    for text in (  # stored as they are: sending them would already restore the garden
        "I signed up for a pottery class downtown on Mondays",
        "The pottery class teacher showed us how to centre clay",
    ):
        memory.store(text, at=clock(), session="s")
    question = "Who lent me pottery equipment?"
    items = memory.recall(question, now=clock()).items
    found = [i for i in items[: unpack.UNPACK_WINDOW] if i.block_id == block]
    assert [i.tier for i in found] == ["cold"]
    assert found[0].score >= services.settings.unpack_score
    chosen, _ = unpack.choose(memory, question, items, set())
    assert chosen == [block]
    unpack.deep(memory, block, now=clock())
    items = memory.recall(question, now=clock()).items
    # Ranked as it would be had it never left hot: by the age of its content.
    assert [(i.tier, i.form) for i in items[:3] if "Zqxkiln" in i.text] == [("hot", "full")]


@pytest.mark.erasure
def test_forget_erases_the_kept_archive_vectors(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    memory = services.controller.memory
    block = cold_garden(services, clock)
    (kiln,) = [
        i
        for i in archived_ids(services, block)
        if "Zqxkiln" in (memory.texts_for([archive_key(i)]).get(archive_key(i)) or "")
    ]
    memory.dense.flush(memory.texts_for)
    assert archive_key(kiln) in memory.dense.index.ids()
    _, planted, _ = memory.dense.index.vectors([archive_key(kiln)])

    receipt = forget(services, plan_search(services.db, "Zqxkiln"), remove_profile=False)
    assert receipt["archived"] == 1
    assert receipt["vectors"]["verified"], receipt
    signature = np.asarray(planted, dtype="<f4")[0].tobytes()[:64]
    holding = [p for p in data_dir.rglob("*") if p.is_file() and signature in p.read_bytes()]
    assert holding == [], "the archived episode's vector is still on disk"
    services = build(load_settings({"model": "fake/scripted"}), clock=clock)
    memory = services.controller.memory
    assert archive_key(kiln) not in memory.dense.index.ids()
    assert not [i for i in memory.recall("pottery kiln", now=clock()).items if "Zqxkiln" in i.text]


def test_reindex_leaves_a_restored_block_out_of_the_block_search(
    services: Services, clock: SimulatedClock
) -> None:
    """A restored block keeps its summary for the record; a rebuilt index must not make
    it searchable again, where its hit would take a block candidate's place."""
    from aniso.tiers.index import lexical, reindex

    memory = services.controller.memory
    block = cold_garden(services, clock)
    assert unpack.deep(memory, block, now=clock()) is not None
    status = services.db.execute("SELECT status FROM blocks WHERE id = ?", [block]).fetchone()
    assert status[0] != "active"
    reindex.rebuild(services.db, memory)
    held = services.db.execute(f"SELECT rowid FROM {lexical.BLOCKS} WHERE rowid = ?", [block])
    assert held.fetchall() == []
