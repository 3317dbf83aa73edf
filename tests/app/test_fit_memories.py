"""The memory budget goes to what the user said before what the assistant replied."""

from __future__ import annotations

from datetime import UTC, datetime

from aniso.core.tokens import count_tokens
from aniso.prompt import fit_memories, render_item
from aniso.tiers.memory import episode_text, user_words
from aniso.tiers.model import MemoryItem

AT = datetime(2026, 11, 20, 9, tzinfo=UTC)
SAID = [
    "My budget for the wedding gift is around 150 euros.",
    "Ana wants a small ceremony, about 60 guests.",
    "My sister Ana is getting married in June in Porto.",
]
REPLY = (
    "It will take place at a beautiful and luxurious venue located just outside of "
    "Lisbon, on June 26th, and it promises to be a special day for Ana and her family."
)


def _items(replies: bool = True) -> list[MemoryItem]:
    return [
        MemoryItem(
            block_id=n,
            tier="hot",
            at=AT,
            text=episode_text(text, REPLY if replies else None),
            tokens=0,
        )
        for n, text in enumerate(SAID, 1)
    ]


def _cost(items: list[MemoryItem]) -> int:
    return sum(count_tokens(render_item(item)) for item in items)


def test_every_users_words_fit_before_any_reply() -> None:
    items = _items()
    words_only = _cost(_items(replies=False))
    assert _cost(items[:2]) > words_only  # whole, not even two would fit
    kept = fit_memories(items, budget_tokens=words_only, profile_text="")
    assert [item.text for item in kept] == SAID
    assert [item.block_id for item in kept] == [1, 2, 3]
    # What `memory` and `ask --json` report as injected is what the model sees.
    assert [item.tokens for item in kept] == [count_tokens(text) for text in SAID]


def test_replies_come_back_in_rank_order_while_they_fit() -> None:
    items = _items()
    one_reply = _cost(_items(replies=False)) + _cost(items[:1]) - _cost(_items(False)[:1])
    kept = fit_memories(items, budget_tokens=one_reply, profile_text="")
    assert kept[0] == items[0]  # the best-ranked memory gets its reply back
    assert [item.text for item in kept[1:]] == SAID[1:]
    roomy = fit_memories(items, budget_tokens=10_000, profile_text="")
    assert roomy == items


def test_the_budget_is_never_exceeded_and_the_profile_counts() -> None:
    items = _items()
    profile = "The user's name is Marta.\nThe user's diet is vegetarian."
    for budget in range(0, _cost(items) + 40, 7):
        kept = fit_memories(items, budget_tokens=budget, profile_text=profile)
        assert _cost(kept) <= max(0, budget - count_tokens(profile))
        assert all(user_words(item.text) in SAID for item in kept)
