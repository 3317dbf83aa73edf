"""A turn is also found by the words of the turns before it (`lexical.index_context`):
an answer often holds no word of the question, the turn it answers does."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.schema import migrate
from aniso.core.settings import load_settings
from aniso.services import make_memory
from aniso.tiers.index import lexical, reindex
from aniso.tiers.memory import TieredMemory

TURNS = (
    "Marcus proposed to me on our trip to Portugal!!!",
    "Tell me everything, I want every detail",
    "Eight days ago, on the palace terrace at sunset",
    "Separately, the car needs new winter tyres soon",
)


@pytest.fixture
def memory(data_dir: Path) -> TieredMemory:
    return make_memory(load_settings(), open_db(data_dir))


def say(memory: TieredMemory, clock: SimulatedClock, *texts: str) -> list[int]:
    ids = []
    for text in texts:
        ids.append(memory.store(text, at=clock(), session="s").episode_id)
        clock.advance(timedelta(minutes=1))
    return ids


def contexts(memory: TieredMemory) -> dict[int, tuple[str, str]]:
    return {
        row[0]: (row[1], row[2])
        for row in memory.db.execute(f"SELECT rowid, stems, sources FROM {lexical.CONTEXT}")
    }


def test_an_answer_is_found_through_the_turns_before_it(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    proposal, _, answer, tyres = say(memory, clock, *TURNS)

    def found(weight: float) -> list[int]:
        hits = lexical.search_scored(
            memory.db, lexical.EPISODES, "when did Marcus propose?", limit=10, context_weight=weight
        )
        return [rowid for rowid, _ in hits]

    assert answer not in found(0.0), "the answer shares no word with the question"
    assert found(0.3)[0] == proposal, "a turn's own words count more than those before it"
    assert answer in found(0.3) and tyres not in found(0.3), "two turns back, not three"
    items = memory.recall("Marcus and the palace terrace", now=clock()).items
    shown = {item.episode_id: item.text for item in items}
    assert shown[answer] == TURNS[2], "what is shown is the turn alone"


def test_turns_after_a_long_gap_carry_no_context(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    first, second = say(memory, clock, TURNS[0], TURNS[1])
    clock.advance(lexical.CONTEXT_GAP + timedelta(minutes=1))
    (later,) = say(memory, clock, TURNS[3])
    rows = contexts(memory)
    assert first not in rows and rows[second][1] == str(first)
    assert later not in rows


def test_an_existing_data_dir_derives_the_context_on_open(
    memory: TieredMemory, clock: SimulatedClock, data_dir: Path
) -> None:
    say(memory, clock, *TURNS)
    written = contexts(memory)
    assert len(written) == 3
    # A data dir made before the table existed: no table, the migration not applied.
    memory.db.execute(f"DROP TABLE {lexical.CONTEXT}")
    memory.db.execute("DROP TABLE derived_pending")
    memory.db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm008_episode_context'")
    memory.db.conn.commit()
    memory.db.conn.close()
    reopened = open_db(data_dir)
    migrate(reopened)
    assert contexts(make_memory(load_settings(), reopened)) == written
    lexical.index_contexts(reopened, reindex.turns(reopened))
    assert contexts(make_memory(load_settings(), reopened)) == written, "reindex agrees"


def test_forgetting_a_turn_erases_its_words_from_the_turns_after_it(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    proposal, tell, answer, tyres = say(memory, clock, *TURNS)
    lexical.forget_context(memory.db, [proposal])
    rows = contexts(memory)
    assert set(rows) == {tyres}, "the two turns after it held its words"
    assert "marcus" not in " ".join(stems for stems, _ in rows.values())
    assert str(tell) in rows[tyres][1].split() and str(answer) in rows[tyres][1].split()


def test_the_context_search_leaves_out_terms_common_in_turns(
    memory: TieredMemory, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, answer, _ = say(memory, clock, *TURNS)
    say(memory, clock, "Marcus called", "Marcus again")  # "marcus" is in three turns now

    def found() -> list[int]:
        hits = lexical.search_scored(
            memory.db, lexical.EPISODES, "what about Marcus?", limit=10, context_weight=0.3
        )
        return [rowid for rowid, _ in hits]

    assert answer in found()
    monkeypatch.setattr(lexical, "CONTEXT_COMMON_ROWS", 2)
    assert answer not in found(), "a term in more turns than the cut is left out here"
