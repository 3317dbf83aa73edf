"""Automatic unpacking and how restored blocks rank: relevance restores old blocks,
a restored block takes its original's place, and weak hits stay out of the prompt."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db, transaction
from aniso.core.settings import load_settings
from aniso.services import make_memory
from aniso.tiers import blocks, links, unpack
from aniso.tiers.memory import (
    NEIGHBOUR_LIFT,
    TieredMemory,
    _Hit,
    _lift_neighbours,
    _ranked_since,
    _relevant,
)
from aniso.tiers.model import MemoryItem

AT = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)


def item(block_id: int, tier: str, score: float, *, outdated: bool = False) -> MemoryItem:
    return MemoryItem(
        block_id=block_id, tier=tier, at=AT, text=f"b{block_id}", tokens=3, score=score,
        outdated=outdated,
    )  # fmt: skip


def test_relevant_old_blocks_in_the_top_ten_are_restored_best_first() -> None:
    items = [
        item(1, "hot", 1.2),
        item(2, "cold", 0.9),
        item(3, "warm", 0.8, outdated=True),
        item(4, "hot", 0.7),
        item(5, "warm", 0.6),
        item(6, "cold", 0.55),
        *[item(10 + i, "hot", 0.5) for i in range(5)],
        item(7, "cold", 0.9),  # 12th: could not reach the top 10
    ]
    lacking = {2, 3, 5, 6, 7}  # their gists cannot answer (`unpack.gist_lacks`)
    chosen, current = unpack.blocks_to_unpack(
        "what did I say about it?", items, set(), restorable=lacking
    )
    assert chosen == [2, 5][: unpack.UNPACK_MOST]
    assert current == {2}, "old, current blocks of the top 3 (the outdated one is left out)"
    # A score alone decides nothing: the gist is shown and the blocks stay packed.
    assert unpack.blocks_to_unpack("what did I say about it?", items, set()) == ([], {2})


def test_a_developing_topic_comes_first_and_weak_old_items_stay_packed() -> None:
    items = [item(1, "hot", 1.0), item(2, "cold", 0.2), item(3, "cold", 0.9)]
    chosen, _ = unpack.blocks_to_unpack("and then?", items, {2}, restorable={3})
    assert chosen == [2, 3]
    weak = [item(1, "hot", 1.0), item(2, "cold", unpack.UNPACK_SCORE - 0.01)]
    assert unpack.blocks_to_unpack("and then?", weak, set()) == ([], {2})


def test_an_explicit_request_restores_one_block_outdated_last() -> None:
    items = [item(1, "cold", 0.1, outdated=True), item(2, "warm", 0.1), item(3, "hot", 1.0)]
    assert unpack.blocks_to_unpack("tell me more", items, set()) == ([2], {2})
    assert unpack.block_to_unpack("tell me more", items, set()) == (2, {2})


def test_a_restored_block_ranks_by_its_content_until_it_is_used() -> None:
    told = AT - timedelta(days=200)
    restored = blocks.Block(
        id=9, tier="hot", status="active", created=AT, last_access=AT, last_episode_at=told,
        access_count=0, size=3, important=False, open=False, pinned=False, summary="",
        keywords=[], anchors=[], kept_share=1.0, restored_from=4, version=1,
    )  # fmt: skip

    def ranked_since(block: blocks.Block) -> datetime:
        restored = block.restored_from is not None
        uses = block.access_count
        return _ranked_since(block.last_access, block.last_episode_at, restored=restored, uses=uses)

    assert ranked_since(restored) == told
    used = replace(restored, access_count=1, last_access=AT + timedelta(hours=1))
    assert ranked_since(used) == AT + timedelta(hours=1)
    plain = replace(restored, restored_from=None)
    assert ranked_since(plain) == AT


def hit(episode_id: int, block_id: int, score: float) -> _Hit:
    return _Hit(
        key=f"e:{episode_id}", score=score, block_id=block_id, tier="hot", at=AT,
        text=f"e{episode_id}", episode_id=episode_id, ref=None,
    )  # fmt: skip


def test_neighbour_lift_follows_time_order_where_ids_do_not() -> None:
    # Block 1 was restored: episode 3 was kept, 20 and 21 came back from the archive,
    # and in time the order is 20, 3, 21.
    hits = [hit(3, 1, 0.5), hit(20, 1, 1.0), hit(4, 2, 1.0)]
    order = {20: (None, 3), 3: (20, 21), 21: (3, None)}
    lifted = {h.episode_id: round(h.score, 3) for h in _lift_neighbours(hits, order)}
    expected = {3: 0.5 + NEIGHBOUR_LIFT * 1.0, 20: 1.0 + NEIGHBOUR_LIFT * 0.5, 4: 1.0}
    assert lifted == {k: round(v, 3) for k, v in expected.items()}, "no lift across blocks"


def test_hits_far_below_the_best_are_dropped() -> None:
    hits = [hit(1, 1, 1.0), hit(2, 1, 0.31), hit(3, 1, 0.29)]
    assert [h.episode_id for h in _relevant(hits)] == [1, 2]
    assert _relevant([]) == []


@pytest.fixture
def memory(data_dir: Path) -> TieredMemory:
    return make_memory(load_settings(), open_db(data_dir))


def test_a_restored_block_inherits_terms_and_links(
    memory: TieredMemory, clock: SimulatedClock
) -> None:
    old = memory.store("My cello teacher Marta lives in Porto", at=clock(), session="s").block_id
    clock.advance(timedelta(hours=7))
    other = memory.store("Marta moved her cello lessons online", at=clock(), session="s").block_id
    assert old != other and other in dict(links.neighbours(memory.db, old, now=clock()))
    terms_before = blocks.block_terms(memory.db, old)
    neighbours_before = set(dict(links.neighbours(memory.db, old, now=clock())))
    with transaction(memory.db):
        new = blocks.create(memory.db, at=clock(), restored_from=old)
        links.inherit(memory.db, new, old, at=clock())
    assert blocks.block_terms(memory.db, new) == terms_before
    inherited = dict(links.neighbours(memory.db, new, now=clock()))
    assert set(inherited) == neighbours_before - {new}
    assert other in inherited
    # The original gives its place up: no copies pile up with every restore.
    assert blocks.block_terms(memory.db, old) == set()
    assert dict(links.neighbours(memory.db, old, now=clock())) == {}


def test_relevance_restores_only_the_blocks_it_may() -> None:
    items = [item(1, "hot", 1.0), item(2, "warm", 0.9), item(3, "warm", 0.8)]
    chosen, _ = unpack.blocks_to_unpack("and the garden?", items, set(), restorable={3})
    assert chosen == [3], "block 2 kept every episode: restoring it would copy nothing"
    # A developing topic and an explicit request still restore it.
    assert unpack.blocks_to_unpack("and the garden?", items, {2}, restorable=set())[0] == [2]
    assert unpack.blocks_to_unpack("tell me more", items, set(), restorable=set())[0] == [2]


def test_packed_blocks_are_those_whose_archive_still_holds_episodes(data_dir: Path) -> None:
    from aniso.tiers import archive

    db = open_db(data_dir)
    for episode_id, block_id, status in ((1, 10, "archived"), (2, 11, "restored")):
        db["archive"].insert(
            {"episode_id": episode_id, "block_id": block_id, "payload": b"x",
             "archived_at": AT.isoformat(), "status": status}
        )  # fmt: skip
    assert archive.packed_blocks(db, {10, 11, 12}) == {10}
    assert archive.packed_blocks(db, set()) == set()


def test_choose_skips_blocks_with_nothing_archived_and_restored_copies(data_dir: Path) -> None:
    from aniso.tiers import archive

    memory = make_memory(load_settings(), open_db(data_dir))
    db = memory.db
    packed, kept_all = blocks.create(db, at=AT), blocks.create(db, at=AT)
    copy = blocks.create(db, at=AT, restored_from=kept_all)
    db.execute("UPDATE blocks SET tier = 'warm'")
    for episode_id, block_id in ((1, packed), (2, copy)):
        db["archive"].insert(
            {"episode_id": episode_id, "block_id": block_id,
             "payload": archived(episode_id, block_id, "The garden roses bloomed in June"),
             "archived_at": AT.isoformat()}
        )  # fmt: skip
    assert archive.packed_blocks(db, {packed, kept_all, copy}) == {packed, copy}
    items = [item(copy, "warm", 0.9), item(kept_all, "warm", 0.9), item(packed, "warm", 0.9)]
    assert unpack.choose(memory, "and the garden?", items, set())[0] == [packed]
    # The restored copy still comes back when its topic keeps developing.
    assert unpack.choose(memory, "and the garden?", items, {copy})[0][0] == copy


def archived(episode_id: int, block_id: int, text: str) -> bytes:
    from aniso.tiers import archive

    row = dict.fromkeys(archive.FIELDS)
    row.update(id=episode_id, block_id=block_id, session="s", at=AT.isoformat(), user_text=text)
    return archive.pack(row)


def test_anaphoric_request_unpacks_the_gist_shown_last() -> None:
    items = [item(1, "hot", 1.0), item(2, "cold", 0.3)]
    for request in ("tell me more about that", "подробнее", "розкажи докладніше", "More?"):
        assert unpack.blocks_to_unpack(request, items, set(), last_gist=[7, 2])[0] == [7], request
    # A request that names its topic goes by this turn's recall, not by the last gist.
    named = unpack.blocks_to_unpack("tell me more about the garden", items, set(), last_gist=[7])
    assert named[0] == [2]
    # Without a request the gist shown last stays where it is.
    assert unpack.blocks_to_unpack("nice weather today", items, set(), last_gist=[7])[0] == []


def test_only_a_question_the_gist_cannot_answer_restores_by_relevance(data_dir: Path) -> None:
    memory = make_memory(load_settings(), open_db(data_dir))
    db = memory.db
    block = blocks.create(db, at=AT)
    db.execute(
        "UPDATE blocks SET tier = 'cold', summary = ?, keywords = ?, anchors = ? WHERE id = ?",
        ["That was about yoga, in May 2026.", '["studio"]', '["Lotus Flow"]', block],
    )
    db["archive"].insert(
        {"episode_id": 1, "block_id": block, "archived_at": AT.isoformat(),
         "payload": archived(1, block, "Lotus Flow yoga classes start at 7 am on Tuesdays")}
    )  # fmt: skip
    strong = [item(block, "cold", 0.9)]
    assert unpack.gist_lacks(db, "When do the yoga classes start?", [block]) == {block}
    assert unpack.gist_lacks(db, "Where is the yoga studio?", [block]) == set(), "the gist has it"
    assert unpack.choose(memory, "When do the yoga classes start?", strong, set())[0] == [block]
    # A passing mention is no question: however strong the match, the gist is enough.
    assert unpack.choose(memory, "Yoga classes start again soon", strong, set())[0] == []
    assert unpack.choose(memory, "Where is the yoga studio?", strong, set())[0] == []
