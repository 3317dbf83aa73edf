"""Undo: the last message's learned profile changes, taken back in one step, honestly."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DAY0

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import ProfileDelta, ProfileStore
from aniso.profile.delta import make_op
from aniso.profile.notice import noted, undo_dict, undone
from aniso.profile.store import Change, Undo

HOUR = timedelta(hours=1)


@pytest.fixture
def store(data_dir: Path, clock: SimulatedClock) -> ProfileStore:
    return ProfileStore(open_db(data_dir), clock=clock)


def learn(
    store: ProfileStore, clock: SimulatedClock, episode: int, *ops: tuple[str, str, str]
) -> list[Change]:
    """What the learner does with a message: apply its ops as rules, from `episode`."""
    clock.advance(HOUR)
    delta = ProfileDelta(ops=tuple(make_op(kind, field, value) for kind, field, value in ops))
    return store.apply(delta, episode_id=episode, source="rules")


def rows(store: ProfileStore) -> list[tuple[object, ...]]:
    return [
        (r.id, r.field, r.value, r.source, r.source_episode, r.since, r.ended,
         r.ended_by_episode, r.ended_reason)
        for r in store.history()
    ]  # fmt: skip


def test_undo_with_no_learned_change_says_so(store: ProfileStore) -> None:
    store.set("diet", "vegan")  # a hand edit is not a guess: undo leaves it alone
    before = rows(store)
    done = store.undo_last()
    assert done == Undo(None, [])
    assert rows(store) == before
    assert undone(done) == (
        "Nothing to undo: no profile change has been learned from a message yet."
    )
    assert undo_dict(done) == {
        "undone": False,
        "episode_id": None,
        "changes": [],
        "message": undone(done),
    }


def test_undo_walks_back_message_by_message(store: ProfileStore, clock: SimulatedClock) -> None:
    learn(store, clock, 1, ("set", "diet", "omnivore"), ("add", "likes", "steak"))
    changes = learn(store, clock, 2, ("set", "diet", "vegetarian"))
    assert noted(changes) == "Noted: diet → vegetarian, no longer likes steak"

    clock.advance(HOUR)
    done = store.undo_last()
    assert done == Undo(
        2,
        [
            Change("ended", "diet", "vegetarian", 3, "undone"),
            Change("started", "diet", "omnivore", 4, "restored"),
            Change("started", "likes", "steak", 5, "restored"),
        ],
    )
    assert undone(done) == (
        "Undone: diet vegetarian removed, diet omnivore restored, likes steak restored"
    )
    t1, t2, t3 = DAY0 + HOUR, DAY0 + 2 * HOUR, DAY0 + 3 * HOUR
    # The mistake and its undoing both stay in the history; the restored values keep
    # the message that first stated them.
    assert rows(store) == [
        (1, "diet", "omnivore", "rules", 1, t1, t2, 2, "replaced by 'vegetarian'"),
        (2, "likes", "steak", "rules", 1, t1, t2, 2, "conflicts with diet 'vegetarian'"),
        (3, "diet", "vegetarian", "rules", 2, t2, t3, None, "undone"),
        (4, "diet", "omnivore", "rules", 1, t3, None, None, None),
        (5, "likes", "steak", "rules", 1, t3, None, None, None),
    ]
    assert store.current().as_values() == {"diet": ["omnivore"], "likes": ["steak"]}

    assert store.undo_last().episode_id == 1  # one message further back
    assert store.current().is_empty()
    assert store.undo_last() == Undo(None, [])
    audit = store.db.execute("SELECT kind, detail FROM audit ORDER BY id").fetchall()
    assert [(kind, json.loads(detail)) for kind, detail in audit] == [
        ("profile_undo", {"episode_id": 2, "changes": 3}),
        ("profile_undo", {"episode_id": 1, "changes": 2}),
    ]


def test_undo_survives_the_process(data_dir: Path, clock: SimulatedClock) -> None:
    first = ProfileStore(open_db(data_dir), clock=clock)
    learn(first, clock, 1, ("add", "allergies", "nuts"))
    learn(first, clock, 2, ("remove", "allergies", "nuts"))
    assert first.undo_last().episode_id == 2
    first.db.conn.close()

    later = ProfileStore(open_db(data_dir), clock=clock)  # a new process: history from SQLite
    assert later.current().values("allergies") == ["nuts"]
    assert later.last_learned() == 1
    assert [(c.kind, c.field, c.value) for c in later.undo_last().changes] == [
        ("ended", "allergies", "nuts")
    ]
    assert later.current().is_empty()


def test_a_later_hand_edit_is_not_overwritten(store: ProfileStore, clock: SimulatedClock) -> None:
    learn(store, clock, 1, ("set", "diet", "omnivore"))
    learn(store, clock, 2, ("set", "diet", "vegetarian"))
    store.set("diet", "vegan")  # the user fixed it by hand meanwhile
    done = store.undo_last()
    assert done == Undo(2, [])
    assert undone(done) == (
        "Nothing to undo for message 2: later edits have already replaced what it changed."
    )
    assert store.current().values("diet") == ["vegan"]
    assert store.last_learned() == 1


def test_what_a_message_started_and_ended_itself_stays_ended(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    learn(store, clock, 1, ("add", "likes", "steak"), ("set", "diet", "vegetarian"))
    assert store.current().as_values() == {"diet": ["vegetarian"]}
    done = store.undo_last()
    assert [(c.kind, c.field, c.value) for c in done.changes] == [("ended", "diet", "vegetarian")]
    assert store.current().is_empty()


def test_a_restored_item_does_not_fight_its_opposite(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    learn(store, clock, 1, ("add", "likes", "crowds"))
    learn(store, clock, 2, ("remove", "likes", "crowds"))
    store.set("dislikes", "crowds")
    assert store.undo_last() == Undo(2, [])
    assert store.current().as_values() == {"dislikes": ["crowds"]}


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        ([], None),
        ([Change("ended", "allergies", "nuts", 1, "removed")], "Noted: no longer allergic to nuts"),
        ([Change("started", "name", "Marta", 1)], "Noted: name → Marta"),
        ([Change("started", "interests", "yoga", 1)], "Noted: interests + yoga"),
        (
            [Change("ended", "health", "sick", 1, "removed: better")],
            "Noted: health: no longer sick",
        ),
    ],
)
def test_noted_lines(changes: list[Change], line: str | None) -> None:
    assert noted(changes) == line
