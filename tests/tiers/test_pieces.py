"""A long turn's pieces: split by sentence, derived overnight off the chat's path, found
for their turn, moved by a restore, and erased with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sqlite_utils
from helpers import cold_thread, nights

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.data.forget import forget, plan_search
from aniso.services import Services, build
from aniso.tiers import doctor, unpack
from aniso.tiers import memory as tiered
from aniso.tiers.index import pieces
from aniso.tiers.index.dense import archive_key, episode_key
from aniso.tiers.memory import _turn_candidates

CAMPING = (
    "Hey, hope all's good! We went camping by the lake with the kids two "
    "weeks ago. The tent Zqxtentmark leaked on the second night, so we slept in the car."
)
GARDEN = [
    "Big news from the garden today. I planted tomatoes and basil in the raised bed "
    "behind the house, and the neighbour Zqxkiln lent me her pottery kiln for the pots.",
    "The raised garden bed gets sun all afternoon. The tomatoes love it and the basil "
    "is already taller than my hand, which is more than I hoped for.",
    "In the garden the tomatoes need stakes now. The basil needs pinching back every "
    "few days, or it goes to seed and turns bitter very quickly.",
    "Slugs ate half of the garden lettuce last night. The tomatoes and basil are fine "
    "though, the copper tape around the raised bed seems to keep them away.",
]


@pytest.fixture
def services(llm, clock: SimulatedClock, data_dir: Path) -> Services:  # type: ignore[no-untyped-def]
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def piece_keys(services: Services) -> set[str]:
    return {k for k in services.controller.memory.dense.index.ids() if pieces.is_piece(k)}


def episode_id(services: Services, marker: str) -> int:
    row = services.db.execute(
        "SELECT id FROM episodes WHERE user_text LIKE ?", [f"%{marker}%"]
    ).fetchone()
    return int(row[0])


def test_a_turn_splits_at_sentence_ends_into_pieces_of_six_words_or_more() -> None:
    assert pieces.split("Thanks, Mel!") == []
    assert pieces.split("One sentence of a turn is its own vector, no pieces here.") == []
    assert pieces.split("Wow! So cool. Great.") == []  # one piece once merged
    assert pieces.split(f"Caroline: {CAMPING}") == [
        "Caroline: Hey, hope all's good! We went camping by the lake with the kids two weeks ago.",
        "Caroline: The tent Zqxtentmark leaked on the second night, so we slept in the car.",
    ]
    many = " ".join(f"Sentence number {n} has exactly seven words." for n in range(20))
    split = pieces.split(many)
    assert len(split) == pieces.MAX_PIECES
    assert " ".join(split) == many


def test_pieces_are_derived_overnight_and_follow_their_turn(
    services: Services, clock: SimulatedClock
) -> None:
    memory = services.controller.memory
    services.assistant.send(CAMPING)
    services.assistant.send("ok")
    assert piece_keys(services) == set(), "no piece is embedded on the chat's path"

    nights(services, clock, 1)
    camping = episode_id(services, "Zqxtentmark")
    assert piece_keys(services) == {pieces.key(camping, 0), pieces.key(camping, 1)}
    assert doctor.check(services.db, memory.dense) == []
    assert pieces.refresh(services.db, memory.dense) == (0, 0)

    # The piece about the tent stands for the turn: found, under the turn's own key.
    hits = _turn_candidates(memory.dense, memory.dense.embed(["the tent leaked"])[0])
    assert episode_key(camping) in dict(hits)
    assert not [key for key, _ in hits if pieces.is_piece(key)]


def test_a_refresh_embeds_the_newest_turns_first_and_a_bounded_number(
    services: Services,
) -> None:
    memory = services.controller.memory
    services.assistant.send(CAMPING)
    services.assistant.send(GARDEN[0])
    garden = episode_id(services, "Zqxkiln")
    assert pieces.refresh(services.db, memory.dense, most=1) == (1, 0)
    assert piece_keys(services) == {pieces.key(garden, 0)}
    assert pieces.refresh(services.db, memory.dense) == (3, 0)
    assert pieces.refresh(services.db, memory.dense) == (0, 0)


class Dense:
    """The search side of `DenseMemory`: fixed hits, own cosines to read back, and
    SQLite for the turns' owners."""

    def __init__(self, hits: dict[str, float], db: sqlite_utils.Database) -> None:
        self.hits = sorted(hits.items(), key=lambda hit: -hit[1])
        self.own = {k: c for k, c in hits.items() if not pieces.is_piece(k)}
        self.db = db
        self.asked: list[int] = []
        self.turn_share = 1.0

    def search(self, vector: np.ndarray, *, k: int) -> list[tuple[str, float]]:
        self.asked.append(k)
        return self.hits[:k]

    def cosines(self, keys: list[str], vector: np.ndarray) -> dict[str, float]:
        return {key: self.own[key] for key in keys if key in self.own}


def owners(
    live: list[int], archived: list[int] = (), restored: list[int] = ()
) -> sqlite_utils.Database:  # type: ignore[assignment]
    db = sqlite_utils.Database(memory=True)
    db.execute("CREATE TABLE episodes (id INTEGER PRIMARY KEY)")
    db.execute(
        "CREATE TABLE archive (episode_id INTEGER PRIMARY KEY, block_id INTEGER, status TEXT)"
    )
    db.conn.executemany("INSERT INTO episodes (id) VALUES (?)", [(i,) for i in live])
    db.conn.executemany("INSERT INTO archive VALUES (?, 9, 'archived')", [(i,) for i in archived])
    db.conn.executemany("INSERT INTO archive VALUES (?, 9, 'restored')", [(i,) for i in restored])
    return db


def test_a_piece_lifts_its_turn_by_half_of_what_it_adds() -> None:
    hits = {
        "p:2:1": 0.7,  # lifts e:2 from 0.5 to 0.6
        "p:3:0": 0.65,  # archived, met only through its piece: a:3, its own cosine read
        "e:1": 0.6,
        "p:5:0": 0.64,  # its turn was restored elsewhere: a stale piece, left out
        "e:2": 0.5,
        "b:9": 0.45,
        "e:4": 0.4,
        "p:1:0": 0.3,  # below its turn: no change
        "a:3": 0.35,  # not among the hits below: read back
    }
    dense = Dense(hits, owners([1, 2, 4], archived=[3], restored=[5]))
    dense.hits = [hit for hit in dense.hits if hit[0] != "a:3"]
    found = dict(_turn_candidates(dense, np.zeros(3)))  # type: ignore[arg-type]
    assert found["e:2"] == pytest.approx(0.6)
    assert found["a:3"] == pytest.approx(0.5 * 0.65 + 0.5 * 0.35)
    assert found["e:1"] == pytest.approx(0.6)
    assert found["e:4"] == pytest.approx(0.4)
    assert found["b:9"] == pytest.approx(0.45)
    assert set(found) == {"e:1", "e:2", "a:3", "e:4", "b:9"}


def test_with_no_share_the_pieces_change_no_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three pieces a turn, cosines at random: the search widens until the hundred best
    turns by their own vectors are all in, in a few searches."""
    rng = np.random.default_rng(0)
    ids = list(range(1, 3001))
    turns = {f"e:{i}": float(c) for i, c in zip(ids, rng.uniform(0, 0.8, len(ids)), strict=True)}
    split = {f"p:{i}:{n}": float(rng.uniform(0, 0.9)) for i in ids for n in range(3)}
    monkeypatch.setattr(tiered, "PIECE_SHARE", 0.0)
    alone = Dense(turns, owners(ids))
    with_pieces = Dense({**turns, **split}, owners(ids))
    assert _turn_candidates(with_pieces, np.zeros(3)) == _turn_candidates(alone, np.zeros(3))  # type: ignore[arg-type]
    assert len(with_pieces.asked) <= 3
    # The next search starts at the share of turns it met: once, not again.
    with_pieces.asked = []
    assert _turn_candidates(with_pieces, np.zeros(3)) == _turn_candidates(alone, np.zeros(3))  # type: ignore[arg-type]
    assert len(with_pieces.asked) == 1

    monkeypatch.setattr(tiered, "PIECE_SHARE", 0.5)
    lifted = dict(_turn_candidates(with_pieces, np.zeros(3)))  # type: ignore[arg-type]
    assert len(lifted) == tiered.CANDIDATES
    assert lifted != dict(_turn_candidates(alone, np.zeros(3)))  # type: ignore[arg-type]


def test_a_restore_moves_the_pieces_without_embedding(
    services: Services, clock: SimulatedClock
) -> None:
    memory = services.controller.memory
    block = cold_thread(services, clock, GARDEN)
    packed = [
        r[0]
        for r in services.db.execute(
            "SELECT episode_id FROM archive WHERE block_id = ? ORDER BY episode_id", [block]
        )
    ]
    old = piece_keys(services)
    assert {pieces.episode_of(k) for k in old} >= set(packed), "archived turns keep pieces"
    assert doctor.check(services.db, memory.dense) == []
    before = dict(zip(*memory.dense.index.vectors(sorted(old))[:2], strict=True))

    calls: list[list[str]] = []
    embed = memory.dense.embedder.embed
    memory.dense.embedder.embed = lambda texts: calls.append(list(texts)) or embed(texts)  # type: ignore[method-assign]
    restored = unpack.deep(memory, block, now=clock())
    assert restored is not None
    memory.dense.push_held()
    memory.dense.flush(memory.texts_for)
    assert calls == [], "a restore embeds nothing, pieces included"

    new_ids = [
        r[0]
        for r in services.db.execute(
            "SELECT id FROM episodes WHERE block_id = ? ORDER BY origin_id", [restored.new_block]
        )
    ]
    moved = piece_keys(services)
    assert not {pieces.episode_of(k) for k in moved} & set(packed)
    assert {pieces.episode_of(k) for k in moved} >= set(new_ids)
    assert doctor.check(services.db, memory.dense) == []
    after = dict(zip(*memory.dense.index.vectors(sorted(moved))[:2], strict=True))
    for source, target in zip(packed, new_ids, strict=True):
        np.testing.assert_allclose(
            after[pieces.key(target, 0)], before[pieces.key(source, 0)], atol=1e-6
        )


@pytest.mark.erasure
def test_forget_erases_a_turns_pieces_from_the_disk(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    memory = services.controller.memory
    services.assistant.send(CAMPING)
    services.assistant.send("The weather is grey again, I might bake bread this afternoon.")
    nights(services, clock, 1)
    camping = episode_id(services, "Zqxtentmark")
    mine = sorted(k for k in piece_keys(services) if pieces.episode_of(k) == camping)
    assert mine
    _, planted, _ = memory.dense.index.vectors(mine)

    receipt = forget(services, plan_search(services.db, "Zqxtentmark"), remove_profile=False)
    assert receipt["vectors"]["verified"], receipt
    for row in np.asarray(planted, dtype="<f4"):
        signature = row.tobytes()[:64]
        holding = [p for p in data_dir.rglob("*") if p.is_file() and signature in p.read_bytes()]
        assert holding == [], "a forgotten turn's piece is still on disk"
    services = build(load_settings({"model": "fake/scripted"}), clock=clock)
    left = services.controller.memory.dense.index.ids()
    assert not [k for k in left if k.startswith("p:") and pieces.episode_of(k) == camping]
    assert archive_key(camping) not in left and episode_key(camping) not in left


@pytest.mark.erasure
def test_forget_everything_rebuilds_an_index_that_held_pieces(
    services: Services, clock: SimulatedClock
) -> None:
    from aniso.data.forget import plan_all

    services.assistant.send(CAMPING)
    nights(services, clock, 1)
    assert piece_keys(services)
    receipt = forget(services, plan_all(services.db), remove_profile=False)
    assert receipt["vectors"]["rebuilt"] and "pending" not in receipt["vectors"], receipt
    services = build(load_settings({"model": "fake/scripted"}), clock=clock)
    assert services.controller.memory.dense.index.ids() == set()
