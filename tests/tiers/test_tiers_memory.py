"""The hot tier: episodes grouped into blocks, linked, indexed and recalled with provenance."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.services import make_memory
from aniso.tiers import links
from aniso.tiers.memory import TieredMemory


@pytest.fixture
def memory(data_dir: Path) -> TieredMemory:
    return make_memory(load_settings(), open_db(data_dir))


def store(memory: TieredMemory, clock: SimulatedClock, text: str) -> int:
    stored = memory.store(text, at=clock(), session="s")
    clock.advance(timedelta(minutes=1))
    return stored.block_id


def test_topic_threads_become_blocks(memory: TieredMemory, clock: SimulatedClock) -> None:
    trip = [
        store(memory, clock, t)
        for t in (
            "I'm planning a trip to Lisbon in May with my sister",
            "We want to visit Lisbon museums and eat pastel de nata on the trip",
        )
    ]
    code = store(memory, clock, "My Python unit tests fail with a segmentation fault in numpy")
    clock.advance(timedelta(hours=7))
    later = store(memory, clock, "My Python tests with numpy still crash with a segfault")
    assert trip[0] == trip[1]
    assert code != trip[0], "a topic shift starts a new block"
    assert later != code, "a long gap starts a new block"


def test_recall_has_provenance_and_finds_inflections(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    block = store(memory, clock, "Я вегетарианка и не ем мясо")
    store(memory, clock, "Completely unrelated: the car needs new tyres before winter")
    items = memory.recall("вегетарианки", now=clock()).items
    assert items[0].text == "Я вегетарианка и не ем мясо"
    assert (items[0].block_id, items[0].tier, items[0].form) == (block, "hot", "full")
    assert items[0].at == clock() - timedelta(minutes=2)
    english = memory.recall("researched adoption", now=clock()).items
    assert english == [] or "adoption" not in english[0].text
    store(memory, clock, "Caroline is researching adoption agencies")
    assert memory.recall("researched adoption", now=clock()).items[0].text.startswith("Caroline")


def test_shared_terms_link_blocks_symmetrically(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    first = store(memory, clock, "Olga recommended the Gulbenkian museum in Lisbon")
    clock.advance(timedelta(days=2))
    second = store(memory, clock, "Booked tickets to the Gulbenkian museum for Saturday")
    assert first != second
    forward = dict(links.neighbours(memory.db, first, now=clock()))
    backward = dict(links.neighbours(memory.db, second, now=clock()))
    assert forward[second] == backward[first] > 0
    before = forward[second]
    items = memory.recall("Gulbenkian museum", now=clock()).items
    memory.mark_used(items, at=clock())
    assert dict(links.neighbours(memory.db, first, now=clock()))[second] > before


def test_recall_dedupes_and_ignores_unrelated(memory: TieredMemory, clock: SimulatedClock) -> None:
    store(memory, clock, "My sister Olga lives in Lisbon")
    clock.advance(timedelta(days=1))
    store(memory, clock, "My sister Olga lives in Lisbon")
    store(memory, clock, "I need a recipe for pumpkin soup")
    texts = [item.text for item in memory.recall("where does Olga live", now=clock()).items]
    assert texts == ["My sister Olga lives in Lisbon"]


def test_dead_vector_index_falls_back_to_lexical_and_replays(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    from aniso.core.errors import StoreError

    real = memory.dense.index
    broken = _BrokenIndex()
    memory.dense._index = broken  # noqa: SLF001 - simulate an outage of the index
    store(memory, clock, "The wifi password at the cottage is on the fridge")
    result = memory.recall("cottage wifi", now=clock())
    assert [i.text for i in result.items] == ["The wifi password at the cottage is on the fridge"]
    assert result.warnings and "lexical only" in result.warnings[0]
    assert memory.db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 1
    memory.dense._index = real  # noqa: SLF001 - the index is back
    assert memory.recall("cottage wifi", now=clock()).warnings == []
    assert memory.db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
    assert "e:1" in real.ids()
    with pytest.raises(StoreError):
        broken.query(None, 1)


class _BrokenIndex:
    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        from aniso.core.errors import StoreError

        def fail(*args: object, **kwargs: object) -> None:
            raise StoreError("vector server at 127.0.0.1:1 refused the connection")

        return fail


def test_reindex_rebuilds_derived_stores(memory: TieredMemory, clock: SimulatedClock) -> None:
    from aniso.tiers.index.reindex import rebuild

    store(memory, clock, "Mount Elbrus climb is planned for August")
    memory.db.execute("DELETE FROM episode_fts")
    memory.dense.index.reset()
    assert memory.recall("Elbrus climb", now=clock()).items == []
    assert rebuild(memory.db, memory) == {"episodes": 1, "blocks": 0, "archived": 0, "pieces": 0}
    assert memory.recall("Elbrus climb", now=clock()).items[0].text.startswith("Mount Elbrus")


def test_corrupt_vector_dir_is_rebuilt_with_a_warning(
    data_dir: Path, clock: SimulatedClock
) -> None:
    memory = make_memory(load_settings(), open_db(data_dir))
    store(memory, clock, "Grandma's birthday is on the 12th of June")
    memory.dense.index.close()
    (data_dir / "chroma" / "chroma.sqlite3").write_bytes(b"garbage" * 100)
    warnings: list[str] = []
    again = make_memory(load_settings(), open_db(data_dir), warn=warnings.append)
    items = again.recall("grandma birthday", now=clock()).items
    assert items and items[0].text.startswith("Grandma")
    assert any("rebuilding" in w for w in warnings)
    assert "e:1" in again.dense.index.ids()


def test_fusion_keeps_score_margins_and_bounds_missing_similarities() -> None:
    from aniso.tiers.memory import fuse

    lexical_hits = [("e:1", 4.0), ("e:2", 2.0)]
    dense_hits = [("e:2", 0.8), ("e:3", 0.5)]
    # The whole index came back (2 < k): e:1 has no dense relevance at all.
    assert fuse([lexical_hits, []], dense_hits, k=10) == pytest.approx(
        {"e:1": 0.45, "e:2": 0.45 * 0.5 + 0.55, "e:3": 0.55 * 0.5}
    )
    # Truncated at k: e:1 is at most as similar as the k-th hit.
    assert fuse([lexical_hits], dense_hits, k=2)["e:1"] == pytest.approx(0.45 + 0.55 * 0.5)
    # Below the floor a cosine is noise, and nothing from nothing.
    assert fuse([[]], [("e:4", 0.1)], k=10) == {}


def test_fusion_takes_the_lexical_share_it_is_given() -> None:
    from aniso.tiers.memory import fuse

    lexical_hits = [("e:1", 4.0), ("e:2", 2.0)]
    dense_hits = [("e:2", 0.8), ("e:3", 0.5)]
    assert fuse([lexical_hits], dense_hits, k=10, lexical_weight=0.7) == pytest.approx(
        {"e:1": 0.7, "e:2": 0.7 * 0.5 + 0.3, "e:3": 0.3 * 0.5}
    )


class _EnglishOnly:
    dimension = 3
    english_only = True


class _Multilingual:
    dimension = 3
    english_only = False


def test_an_english_only_embedder_does_not_read_cyrillic(data_dir: Path) -> None:
    from aniso.tiers.index.dense import DenseMemory
    from aniso.tiers.index.embeddings import LocalMiniLM

    assert LocalMiniLM.english_only
    db = open_db(data_dir)
    english = DenseMemory(db, _EnglishOnly(), lambda: None)  # type: ignore[arg-type]
    assert english.reads("When did Marcus propose?")
    assert english.reads("Did Anna like Москва?"), "a name in Cyrillic leaves it English"
    assert not english.reads("Когда Марина пекла блины?")
    assert not english.reads("Коли в мене день народження?")
    other = DenseMemory(db, _Multilingual(), lambda: None)  # type: ignore[arg-type]
    assert other.reads("Когда Марина пекла блины?")


def test_a_russian_question_leans_on_stems(
    data_dir: Path, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recall fuses a Cyrillic query with LEXICAL_WEIGHT_UNREAD, an English one with
    LEXICAL_WEIGHT: the weight recall passes is what fusion uses."""
    from aniso.tiers import memory as memory_module

    seen: list[float | None] = []
    real = memory_module.fuse

    def spy(*args: object, lexical_weight: float | None = None, **kwargs: object) -> object:
        seen.append(lexical_weight)
        return real(*args, lexical_weight=lexical_weight, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_module, "fuse", spy)
    memory = make_memory(load_settings(), open_db(data_dir))
    memory.store("Марина пекла блины на Масленицу", at=clock(), session="s")
    memory.recall("Когда Марина пекла блины?", now=clock())
    memory.recall("When did Marina bake pancakes?", now=clock())
    assert seen == [memory_module.LEXICAL_WEIGHT_UNREAD, memory_module.LEXICAL_WEIGHT]


def test_rrf_fusion_uses_ranks_only_and_is_selectable(
    data_dir: Path, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aniso.tiers.memory import fuse_rrf

    lexical_hits = [("e:1", 9.0), ("e:2", 1.0)]
    dense_hits = [("e:2", 0.9), ("e:3", 0.21)]
    best = 2 / 61
    assert fuse_rrf([lexical_hits, []], dense_hits, k=10) == pytest.approx(
        {"e:1": (1 / 61) / best, "e:2": (1 / 62 + 1 / 61) / best, "e:3": (1 / 62) / best}
    )
    # A margin in score changes nothing; only the order counts.
    assert fuse_rrf([[("e:1", 100.0), ("e:2", 1.0)]], dense_hits, k=10) == fuse_rrf(
        [lexical_hits], dense_hits, k=10
    )
    assert fuse_rrf([[]], [], k=10) == {}

    monkeypatch.setenv("ANISO_RECALL_FUSION", "rrf")
    memory = make_memory(load_settings(), open_db(data_dir))
    assert memory.fusion == "rrf"
    store(memory, clock, "We adopted a grey kitten called Miso from the shelter")
    store(memory, clock, "My Python unit tests fail with a segmentation fault in numpy")
    items = memory.recall("what is the kitten called", now=clock()).items
    assert "Miso" in items[0].text


def test_a_message_is_embedded_once_to_be_stored_and_recalled(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    seen: list[list[str]] = []
    real = memory.dense.embedder

    class Counting:
        dimension = real.dimension
        english_only = real.english_only

        def embed(self, texts):  # type: ignore[no-untyped-def]
            seen.append(list(texts))
            return real.embed(texts)

    memory.dense.embedder = Counting()
    text = "Remind me to call the plumber about the kitchen tap"
    memory.store(text, at=clock(), session="s")
    items = memory.recall(text, now=clock()).items
    assert [item.text for item in items] == [text]
    assert seen == [[text]]
    memory.recall("plumber", now=clock())
    assert seen == [[text], ["plumber"]]


def test_a_second_pass_finds_the_fact_that_shares_only_a_name(
    memory: TieredMemory, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question "what does Anna's dog love?": one turn says whose dog, another what it loves,
    and only the dog's name joins them. Without the second pass, turns about other
    dogs and other loves fill the list first."""
    store(memory, clock, "Anna finally adopted a dog, a scruffy terrier called Biscuit")
    clock.advance(timedelta(days=3))
    store(memory, clock, "Biscuit goes mad for squirrels at the allotment")
    for name in ("Tom", "Lena", "Raj", "Olga", "Pete", "Mia", "Sam", "Ivy", "Noor", "Kai"):
        clock.advance(timedelta(days=1))
        store(memory, clock, f"{name}'s dog loves long walks and {name} loves the dog")
    question = "What does Anna's dog love?"
    now = clock() + timedelta(days=1)

    def found(limit: int) -> list[str]:
        return [item.text for item in memory.recall(question, now=now, limit=limit).items]

    assert any("squirrels" in text for text in found(5))
    monkeypatch.setattr("aniso.tiers.memory.SECOND_PASS_WEIGHT", 0.0)
    assert not any("squirrels" in text for text in found(5))
