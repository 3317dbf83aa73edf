"""List questions and the diversity of their answers (`tiers.lists`), and the turns
beside a hit (`TieredMemory._with_neighbours`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import lists
from aniso.tiers import memory as memory_module


@pytest.mark.parametrize(
    "question",
    [
        "What books has Anna read?",
        "which cities did we talk about",
        "What activities does Melanie do with her kids?",
        "What are my plans for June?",
        "list the restaurants I liked",
        "Какие книги я читала летом?",
        "какими видами спорта я занимаюсь",
        "Які міста ми обговорювали?",
        "перелічи мої алергії",
    ],
)
def test_a_question_for_several_things_asks_for_a_list(question: str) -> None:
    assert lists.asks_for_list(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is my dog's name?",
        "When did Anna go to Paris?",
        "What does Melanie's husband do?",
        "which class is harder",
        "Где я живу?",
        "Коли в мене день народження?",
        "what's the address of the gym",
    ],
)
def test_a_question_for_one_thing_does_not(question: str) -> None:
    assert not lists.asks_for_list(question)


def test_diversify_prefers_a_new_thing_over_a_near_copy() -> None:
    ranked = [
        ("a", 1.0, {"dune", "herbert", "sand"}),
        ("b", 0.95, {"dune", "herbert", "sand", "worm"}),
        ("c", 0.9, {"hobbit", "tolkien"}),
        ("d", 0.5, {"weather"}),
    ]
    order = lists.diversify(
        ranked, score=lambda r: r[1], terms=lambda r: frozenset(r[2]), weight=0.3, pool=10
    )
    assert [r[0] for r in order][:3] == ["a", "c", "b"]
    same = lists.diversify(
        ranked, score=lambda r: r[1], terms=lambda r: frozenset(r[2]), weight=0.0, pool=10
    )
    assert [r[0] for r in same] == ["a", "b", "c", "d"]


VET = [
    "Rex has been limping since Sunday and will not climb the stairs",
    "I took Rex to the vet this morning",
    "She said it is only a sprain and he needs a week of rest",
]
FENCE = "Our neighbours are repainting their fence green"
CLINIC = "The vet clinic on Elm Street says it closes at six on Saturdays"


def vet_memory(tmp_path: Path) -> tuple[Services, datetime]:
    services = build(load_settings({"data_dir": str(tmp_path / "data")}))
    start = datetime(2024, 3, 1, 18, 0, tzinfo=UTC)
    services.memory.store(CLINIC, at=start - timedelta(days=3), session="earlier")
    for index, text in enumerate([*VET, FENCE]):
        services.memory.store(text, at=start + timedelta(minutes=index), session="s")
    return services, start + timedelta(days=1)


def test_a_hit_brings_the_turns_beside_it_in_its_thread(tmp_path: Path) -> None:
    services, now = vet_memory(tmp_path)
    try:
        texts = [i.text for i in services.memory.recall("what did the vet say", now=now).items]
        # The hit, then its thread's turns before and after, above a weaker other hit.
        assert texts[0] == VET[1]
        assert set(texts[1:3]) == {VET[0], VET[2]}, texts
        assert CLINIC in texts[3:], texts
        assert FENCE not in texts, "the next topic's turn is not the hit's thread"
    finally:
        services.close()


def test_without_neighbours_the_turn_before_is_not_recalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test above can fail: ranked by score alone, the other vet hit comes second."""
    monkeypatch.setattr(memory_module, "NEIGHBOURS_FROM", 0)
    services, now = vet_memory(tmp_path)
    try:
        texts = [i.text for i in services.memory.recall("what did the vet say", now=now).items]
        assert texts[0] == VET[1] and texts[1] == CLINIC, texts
    finally:
        services.close()


PROPOSAL = [
    "Big news about Marcus and me: Marcus proposed to me on our trip!!!",
    "Wait, Marcus asked you to marry him? On the trip? Tell me everything about it!",
    "Everything was perfect on the trip: eight days ago at Pena Palace he knelt on a "
    "terrace over the valley and I said yes.",
]
ELSEWHERE = [
    "Marcus will propose a toast at his brother's wedding",
    "At work Marcus had to propose a new menu for the autumn",
]


def proposal_memory(tmp_path: Path) -> tuple[Services, datetime]:
    services = build(load_settings({"data_dir": str(tmp_path / "data")}))
    start = datetime(2024, 9, 30, 20, 0, tzinfo=UTC)
    for index, text in enumerate(ELSEWHERE):
        services.memory.store(text, at=start - timedelta(days=index + 2), session="earlier")
    for index, text in enumerate(PROPOSAL):
        services.memory.store(text, at=start + timedelta(minutes=index), session="s")
    return services, start + timedelta(days=1)


@pytest.mark.parametrize("after", [2, 1])
def test_the_answer_two_turns_after_the_hit_comes_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    """News, a friend's "tell me everything", then the answer: the turn that holds it
    shares no word with the question and rides on the hit two turns before it. With
    one turn after the hit (the case that shows the test can fail) other mentions of
    proposing outrank it."""
    monkeypatch.setattr(memory_module, "NEIGHBOURS_AFTER", after)
    services, now = proposal_memory(tmp_path)
    try:
        texts = [i.text for i in services.memory.recall("When did Marcus propose?", now=now).items]
        assert texts[:2] == PROPOSAL[:2], texts
        assert (texts[2] == PROPOSAL[2]) is (after == 2), texts
    finally:
        services.close()


def test_the_turns_beside_a_hit_follow_time_not_ids(tmp_path: Path) -> None:
    """A restored block brings its archived turns back with new ids: the turns beside a
    hit are the ones next to it in time, not in id."""
    services = build(load_settings({"data_dir": str(tmp_path / "data")}))
    try:
        memory, start = services.memory, datetime(2024, 3, 1, 18, 0, tzinfo=UTC)
        stored = [
            memory.store(text, at=start + timedelta(minutes=minutes), session="s")
            for text, minutes in [(VET[0], 0), (VET[2], 2), (VET[1], 1)]
        ]
        assert len({s.block_id for s in stored}) == 1
        rows = memory.db.execute(
            "SELECT e.id, e.block_id, e.at, e.user_text, e.reply, e.ref, 'hot' AS tier "
            "FROM episodes e WHERE e.id = ?",
            [stored[0].episode_id],
        )
        first = memory_module._episode_hit(
            dict(zip([c[0] for c in rows.description], rows.fetchone(), strict=True)), score=1.0
        )
        after = [row["user_text"] for row in memory._beside(first)]
        assert after == [VET[1], VET[2]], "in time the third stored turn is the second said"
    finally:
        services.close()
