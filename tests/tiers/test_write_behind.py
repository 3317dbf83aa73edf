"""Write-behind of a turn's vector: held in memory and the outbox, found by search as
if pushed, pushed after the reply, replayed after a crash, never resurrected."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from fakes import ScriptedLLM

from aniso.bench.plans import traced
from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.data.forget import forget, plan_search
from aniso.services import Services, build, make_memory
from aniso.tiers.index.dense import OUTBOX_BATCH, episode_key
from aniso.tiers.memory import TieredMemory

TEXTS = [
    "The boiler makes a knocking noise every morning",
    "We booked the train to Lisbon for the second week of May",
    "My sister recommended a sourdough recipe with rye flour",
    "The dentist moved my appointment to Thursday afternoon",
]


@pytest.fixture
def memory(data_dir: Path) -> TieredMemory:
    return make_memory(load_settings(), open_db(data_dir))


def outbox(memory: TieredMemory) -> list[tuple[str, str]]:
    return [tuple(row) for row in memory.db.execute("SELECT op, ref FROM outbox ORDER BY id")]


def queued_elsewhere(memory: TieredMemory, op: str, key: str) -> None:
    """An outbox row as another process's enqueue writes it: this process's held copy
    of the key is left as it is (`DenseMemory.enqueue` would drop it)."""
    memory.db.execute(
        "INSERT INTO outbox (op, ref, queued) VALUES (?, ?, ?)", [op, key, "2026-01-01T00:00:00"]
    )


def vectors(count: int, seed: int = 3) -> np.ndarray:
    matrix = np.random.default_rng(seed).normal(size=(count, 384)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_a_held_vector_is_searchable_and_pushed_later(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    given = vectors(len(TEXTS))
    for text, vector in zip(TEXTS[:-1], given, strict=False):
        memory.store(text, at=clock(), session="s", vector=vector)
        clock.advance(timedelta(minutes=1))
    pushed = memory.dense.search(given[-1], k=2)
    held = memory.store(TEXTS[-1], at=clock(), session="s", vector=given[-1], defer_index=True)
    key = episode_key(held.episode_id)
    assert outbox(memory) == [("upsert", key)]
    assert key not in memory.dense.index.ids()
    # Found exactly as a pushed vector would be, the others keep their cosine.
    found = memory.dense.search(given[-1], k=3)
    assert found[0][0] == key and found[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [k for k, _ in found[1:]] == [k for k, _ in pushed]
    assert [c for _, c in found[1:]] == pytest.approx([c for _, c in pushed], abs=1e-6)
    # A recall leaves it held: it is found without an upsert on the way.
    items = memory.recall("dentist appointment Thursday", now=clock()).items
    assert items[0].episode_id == held.episode_id
    assert key not in memory.dense.index.ids()
    memory.dense.push_held()
    assert key in memory.dense.index.ids()
    assert outbox(memory) == []
    after = memory.dense.search(given[-1], k=3)
    assert [k for k, _ in after] == [k for k, _ in found]
    assert [c for _, c in after] == pytest.approx([c for _, c in found], abs=1e-5)


def test_search_with_held_vectors_ranks_as_after_the_push(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    given = vectors(12, seed=5)
    for index, vector in enumerate(given):
        memory.store(
            f"note {index} about {TEXTS[index % 4]}",
            at=clock(),
            session="s",
            vector=vector,
            defer_index=index % 2 == 0,
        )
        clock.advance(timedelta(minutes=1))
    query = given[0] + given[3] + 0.5 * given[8]
    query /= np.linalg.norm(query)
    before = memory.dense.search(query, k=5)
    memory.dense.push_held()
    after = memory.dense.search(query, k=5)
    assert [key for key, _ in before] == [key for key, _ in after]
    assert [score for _, score in before] == pytest.approx([score for _, score in after], abs=1e-5)


def test_a_crash_before_the_push_loses_nothing(data_dir: Path, clock: SimulatedClock) -> None:
    first = make_memory(load_settings(), open_db(data_dir))
    held = first.store(TEXTS[0], at=clock(), session="s", defer_index=True)
    first.dense.index.close()  # the process dies: the held copy is gone
    again = make_memory(load_settings(), open_db(data_dir))
    items = again.recall("boiler knocking noise", now=clock()).items
    assert [item.episode_id for item in items] == [held.episode_id]
    assert episode_key(held.episode_id) in again.dense.index.ids()
    assert outbox(again) == []


def test_a_queued_delete_wins_over_a_held_vector(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    held = memory.store(TEXTS[1], at=clock(), session="s", defer_index=True)
    key = episode_key(held.episode_id)
    memory.dense.enqueue("delete", key, at=clock())  # e.g. compaction drops the episode
    memory.dense.push_held()
    assert key not in memory.dense.index.ids()
    assert outbox(memory) == [("upsert", key), ("delete", key)]  # replayed in order


def test_a_delete_queued_by_another_process_wins_over_a_held_vector(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    """A compaction in another process archives the episode while this process still
    holds its vector: a recall's replay must not apply that delete and then let the
    push bring the vector back (the concurrency stress test found 5 such stale keys)."""
    held = memory.store(TEXTS[3], at=clock(), session="s", defer_index=True)
    key = episode_key(held.episode_id)
    queued_elsewhere(memory, "delete", key)
    memory.recall("dentist appointment Thursday", now=clock())
    memory.dense.push_held()
    assert key not in memory.dense.index.ids()
    assert outbox(memory) == []


def test_a_delete_queued_during_a_replay_wins_over_a_held_vector(
    memory: TieredMemory, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process archives the episode after a replay has read which vectors it
    holds and before it reads the outbox. The replay applies that delete; the held
    upsert it skipped is spent with it, or the push after the reply brings the archived
    episode's vector back (the TUI concurrency test's "1 stale")."""
    held = memory.store(TEXTS[3], at=clock(), session="s", defer_index=True)
    key = episode_key(held.episode_id)
    live = memory.dense._live_held

    def then_archived() -> dict[str, np.ndarray]:
        found = live()
        queued_elsewhere(memory, "delete", key)
        return found

    monkeypatch.setattr(memory.dense, "_live_held", then_archived)
    memory.dense.flush(memory.texts_for, keep_held=True)
    monkeypatch.undo()
    memory.dense.push_held()
    assert key not in memory.dense.index.ids()
    assert outbox(memory) == []


def test_writes_queued_during_a_push_replay_after_it(
    memory: TieredMemory, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process archives and restores the episode while its held vector is being
    pushed: the push spends only the rows it read, so the delete and the upsert queued
    meanwhile replay in order and the episode stays in the index."""
    held = memory.store(TEXTS[1], at=clock(), session="s", defer_index=True)
    key = episode_key(held.episode_id)
    index = memory.dense.index
    upsert = index.upsert

    def meanwhile(*args: object, **kwargs: object) -> None:
        upsert(*args, **kwargs)  # type: ignore[arg-type]
        queued_elsewhere(memory, "delete", key)
        queued_elsewhere(memory, "upsert", key)

    monkeypatch.setattr(index, "upsert", meanwhile)
    memory.dense.push_held()
    monkeypatch.undo()
    assert outbox(memory) == [("delete", key), ("upsert", key)]
    memory.dense.flush(memory.texts_for)
    assert key in memory.dense.index.ids()
    assert outbox(memory) == []


def test_a_batch_replays_each_key_by_its_latest_operation(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    """An upsert then a delete of the same key in one replay batch leaves it out of the
    index, even while its text is still in SQLite (a later upsert would bring it back)."""
    kept = memory.store(TEXTS[2], at=clock(), session="s")
    key = episode_key(kept.episode_id)
    assert key in memory.dense.index.ids()
    memory.dense.enqueue("upsert", key, at=clock())
    memory.dense.enqueue("delete", key, at=clock())
    memory.dense.flush(memory.texts_for)
    assert key not in memory.dense.index.ids()
    memory.dense.enqueue("delete", key, at=clock())
    memory.dense.enqueue("upsert", key, at=clock())
    memory.dense.flush(memory.texts_for)
    assert key in memory.dense.index.ids()
    assert outbox(memory) == []


def test_a_replay_past_a_page_of_held_upserts_applies_what_follows(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    """A compaction holds the vector of every episode it archives: a replay that keeps
    them held pages past them to the writes queued after, however many are held."""
    count = OUTBOX_BATCH + 20
    given = vectors(count)
    held = [
        memory.store(
            f"{TEXTS[0]} on day {day}", at=clock(), session="s", vector=vector, defer_index=True
        )
        for day, vector in enumerate(given)
    ]
    later = memory.store(TEXTS[1], at=clock(), session="s", defer_index=True)
    later_key = episode_key(later.episode_id)
    memory.dense.enqueue("delete", later_key, at=clock())  # replays from the outbox
    memory.dense.enqueue("upsert", later_key, at=clock())
    assert memory.dense.flush(memory.texts_for, keep_held=True) == 3  # its three writes
    assert later_key in memory.dense.index.ids()
    held_keys = [episode_key(stored.episode_id) for stored in held]
    assert outbox(memory) == [("upsert", key) for key in held_keys]
    memory.dense.push_held()
    assert set(held_keys) <= memory.dense.index.ids()
    assert outbox(memory) == []


def test_which_held_vectors_are_live_is_a_keyed_lookup(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    """Whether a held vector is still wanted asks, for each key, if a delete was queued
    after its upsert. Scanning the outbox for each key made a compaction that archived
    90k episodes (an upsert and a delete each) run for hours."""
    memory.store(TEXTS[0], at=clock(), session="s", vector=vectors(1)[0], defer_index=True)
    with traced(memory.db.conn) as seen:
        memory.dense.search(vectors(1, seed=5)[0], k=1)
    plans = [
        row[-1]
        for sql in seen
        if "outbox" in sql
        for row in memory.db.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall()
    ]
    assert plans, "the search did not ask the outbox about its held vector"
    assert not [step for step in plans if step.startswith("SCAN")], plans


@pytest.fixture
def services(llm: ScriptedLLM, data_dir: Path, clock: SimulatedClock) -> Services:
    return build(load_settings({"model": "fake/scripted", "llm_retries": 0}), clock=clock)


def test_a_chat_turn_pushes_its_vector_after_the_reply(services: Services) -> None:
    controller = services.controller
    dense = controller.memory.dense
    observation = controller.observe(TEXTS[2])
    key = episode_key(observation.episode_id)
    controller.recall(observation.stored_text, current_episode=observation.episode_id)
    assert key not in dense.index.ids()  # the user did not wait for the upsert
    controller.remember_reply(observation, "Rye makes a denser loaf.")
    assert key in dense.index.ids()
    assert outbox(controller.memory) == []
    reply = services.assistant.send(TEXTS[3])
    assert episode_key(reply.episode_id) in dense.index.ids()
    assert outbox(controller.memory) == []


def test_a_failed_turn_pushes_its_vector_too(services: Services, llm: ScriptedLLM) -> None:
    llm.reply(ValueError("upstream exploded"))
    reply = services.assistant.send(TEXTS[0])
    assert reply.error is not None and "upstream exploded" in reply.error
    assert episode_key(reply.episode_id) in services.controller.memory.dense.index.ids()


def test_a_forgotten_held_vector_is_never_pushed(services: Services) -> None:
    controller = services.controller
    observation = controller.observe("The boiler makes a knocking noise every morning")
    key = episode_key(observation.episode_id)
    forget(services, plan_search(services.db, "boiler"), remove_profile=False)
    assert controller.memory.dense.search(controller.memory.dense.embed([TEXTS[0]])[0], k=5) == []
    controller.write_behind()
    assert key not in controller.memory.dense.index.ids()


def test_the_compactor_heals_a_drifted_index(data_dir: Path, clock: SimulatedClock) -> None:
    """Whatever left the index out of step with SQLite (a race between processes, a
    crash), the nightly compactor removes stale vectors and refills missing ones, so
    `aniso doctor` is clean after it."""
    from aniso.tiers.doctor import check

    services = build(load_settings({"model": "fake/x"}), clock=clock)
    memory = services.controller.memory
    kept = memory.store(TEXTS[0], at=clock(), session="s")
    lost = memory.store(TEXTS[1], at=clock(), session="s")
    memory.dense.index.upsert(["e:999999"], vectors(1), [{"kind": "e"}])  # stale
    memory.dense.index.delete([episode_key(lost.episode_id)])  # missing
    assert check(services.db, memory.dense) != []
    services.compactor().run(clock())
    assert check(services.db, memory.dense) == []
    assert {episode_key(kept.episode_id), episode_key(lost.episode_id)} <= memory.dense.index.ids()
    assert "e:999999" not in memory.dense.index.ids()


def test_closing_pushes_held_vectors_and_frees_the_index_folder(
    memory: TieredMemory, clock: SimulatedClock, data_dir: Path
) -> None:
    (vector,) = vectors(1)
    held = memory.store(TEXTS[0], at=clock(), session="s", vector=vector, defer_index=True)
    key = episode_key(held.episode_id)
    memory.dense.close()
    assert outbox(memory) == []
    # Another owner can open the folder at once, and finds the vector there.
    again = make_memory(load_settings(), open_db(data_dir))
    assert key in again.dense.index.ids()
    again.dense.close()
    memory.dense.close()  # twice is harmless
