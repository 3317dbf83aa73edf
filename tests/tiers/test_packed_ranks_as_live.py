"""A turn ranks the same whether its block is hot, warm or cold (issue 19: tiers lose
nothing). Three ways it did not: summaries took the vector search's candidate places,
an archived turn missed the neighbour lift a live one gets, and a gist's weaker quotes
rode at its rank, above turns that outranked them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from aniso.tiers import memory as memory_module
from aniso.tiers.memory import (
    CANDIDATES,
    _Hit,
    _lift_archived,
    _lift_neighbours,
    _quotes_in_place,
    _turn_candidates,
)
from aniso.tiers.model import Quote


class RankedIndex:
    """A vector index that answers with a fixed ranking: summaries first, then turns."""

    def __init__(self, summaries: int, turns: int) -> None:
        ranked = [f"b:{n}" for n in range(summaries)] + [f"e:{n}" for n in range(turns)]
        self.ranked = [(key, 0.9 - i * 0.001) for i, key in enumerate(ranked)]
        self.asked: list[int] = []
        self.turn_share = 1.0  # no pieces: `DenseMemory.turn_share`

    def search(self, vector: np.ndarray, *, k: int) -> list[tuple[str, float]]:
        self.asked.append(k)
        return self.ranked[:k]


def test_summaries_do_not_take_the_turns_candidate_places() -> None:
    index = RankedIndex(summaries=10, turns=300)
    hits = _turn_candidates(index, np.zeros(3))  # type: ignore[arg-type]
    turns = [key for key, _ in hits if key.startswith("e:")]
    assert len(turns) == CANDIDATES
    assert [key for key, _ in hits if key.startswith("b:")] == [f"b:{n}" for n in range(10)]
    # The last candidate is a turn, so a key the search did not return is imputed the
    # cosine of the CANDIDATES-th turn, as hot-only.
    assert hits[-1][0] == f"e:{CANDIDATES - 1}"


def test_without_summaries_the_search_is_one_query() -> None:
    index = RankedIndex(summaries=0, turns=300)
    hits = _turn_candidates(index, np.zeros(3))  # type: ignore[arg-type]
    assert index.asked == [CANDIDATES]
    assert len(hits) == CANDIDATES


def test_a_small_index_is_returned_whole() -> None:
    index = RankedIndex(summaries=5, turns=40)
    assert len(_turn_candidates(index, np.zeros(3))) == 45  # type: ignore[arg-type]


def _live(episode_id: int, block_id: int, score: float) -> _Hit:
    return _Hit(
        key=f"e:{episode_id}",
        score=score,
        block_id=block_id,
        tier="hot",
        at=datetime(2024, 1, 1, tzinfo=UTC),
        text=f"turn {episode_id}",
        episode_id=episode_id,
        ref=None,
    )


def test_an_archived_turn_is_lifted_as_it_would_be_live() -> None:
    fused = {4: (1, 0.4), 5: (1, 0.2), 6: (1, 0.6), 7: (2, 0.9)}
    live = _lift_neighbours([_live(n, b, s) for n, (b, s) in fused.items()])
    expected = {hit.episode_id: hit.score for hit in live}
    # 5 and 6 archived, 4 kept live; 7 is in another block and lifts nothing.
    lifted = _lift_archived({5: fused[5], 6: fused[6]}, [_live(4, 1, 0.4), _live(7, 2, 0.9)])
    assert lifted[5] == (1, pytest.approx(expected[5]))
    assert lifted[6] == (1, pytest.approx(expected[6]))
    assert expected[6] == pytest.approx(0.6 + memory_module.NEIGHBOUR_LIFT * 0.2)


def test_a_gist_keeps_a_further_quote_only_where_that_turn_would_rank() -> None:
    quotes = tuple(
        Quote(episode_id=n, at=datetime(2024, 1, 1, tzinfo=UTC), text=f"q{n}", ref=f"D1:{n}")
        for n in (1, 2, 3)
    )

    def gist(shares: tuple[float, ...]) -> _Hit:
        hit = _live(0, 9, 0.6)
        return replace(hit, key="b:9", episode_id=None, quotes=quotes, quote_shares=shares)

    # 0.6 × 0.9 = 0.54 outranks the next hit (0.5); 0.6 × 0.5 = 0.3 does not, and
    # is shown at its own rank, between 0.5 and 0.1, as that turn would rank live.
    ranked = _quotes_in_place([gist((1.0, 0.9, 0.5)), _live(20, 3, 0.5), _live(21, 3, 0.1)])
    assert [quote.ref for quote in ranked[0].quotes] == ["D1:1", "D1:2"]
    assert ranked[0].quote_shares == (1.0, 0.9)
    assert [hit.key for hit in ranked] == ["b:9", "e:20", "a:3", "e:21"]
    placed = ranked[2]
    assert placed.alone and placed.score == pytest.approx(0.3)
    assert [quote.ref for quote in placed.quotes] == ["D1:3"] and placed.block_id == 9
    assert placed.item().refs == ("D1:3",) and placed.item().alone
    # The best quote stays whatever follows: it is what the gist was found by.
    alone = _quotes_in_place([gist((0.2, 0.1, 0.1)), _live(20, 3, 0.9)])
    assert [quote.ref for quote in alone[0].quotes] == ["D1:1"]
    assert [hit.key for hit in alone] == ["b:9", "e:20", "a:2", "a:3"]
    # Last in the list, nothing follows it: every quote stays.
    assert len(_quotes_in_place([gist((1.0, 0.1, 0.1))])[0].quotes) == 3


def test_a_turn_shown_alone_follows_its_gist_in_a_list_not_sorted() -> None:
    """The neighbours of the best hits are put right after them (`_with_neighbours`),
    so the list is not sorted: a turn shown alone still comes after its own gist."""
    quotes = tuple(
        Quote(episode_id=n, at=datetime(2024, 1, 1, tzinfo=UTC), text=f"q{n}", ref=f"D1:{n}")
        for n in (1, 2)
    )
    gist = replace(
        _live(0, 9, 0.6), key="b:9", episode_id=None, quotes=quotes, quote_shares=(1.0, 0.5)
    )
    # A strong hit, then its weaker neighbour, then the gist, then the rest.
    hits = [_live(1, 3, 0.9), _live(2, 3, 0.05), gist, _live(20, 4, 0.4), _live(21, 4, 0.2)]
    ranked = _quotes_in_place(hits)
    assert [hit.key for hit in ranked] == ["e:1", "e:2", "b:9", "e:20", "a:2", "e:21"]


def test_a_turn_shown_alone_waits_for_a_moved_neighbour_and_the_floor() -> None:
    """A neighbour moved up beside its hit keeps its own low score: a quote goes after
    the hits that outscore it, not between a hit and its neighbour; and one under the
    relevance floor is not shown at all."""
    quotes = tuple(
        Quote(episode_id=n, at=datetime(2024, 1, 1, tzinfo=UTC), text=f"q{n}", ref=f"D1:{n}")
        for n in (1, 2, 3)
    )
    gist = replace(
        _live(0, 9, 0.9), key="b:9", episode_id=None, quotes=quotes, quote_shares=(1, 0.5, 0.05)
    )
    hits = [gist, _live(10, 3, 0.8), _live(11, 3, 0.1), _live(30, 4, 0.7), _live(31, 4, 0.6)]
    ranked = _quotes_in_place(hits, floor=0.27)
    assert [hit.key for hit in ranked] == ["b:9", "e:10", "e:11", "e:30", "e:31", "a:2"]
