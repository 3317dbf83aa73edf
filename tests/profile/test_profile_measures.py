"""Money and measures the user wants answers in, proposed as notes."""

from __future__ import annotations

import pytest

from aniso.profile.measures import measures


@pytest.mark.parametrize(
    "text",
    [
        "I'm Canadian, so metric everything and celsius please",
        "please give prices in Swiss francs rather than dollars",
        "пиши ціни в гривнях",
        "ціни у швейцарських франках будь ласка",
        "в рублях пожалуйста",
        "prices in USD now",
        "всегда переводи мне всё в граммы",
    ],
)
def test_a_unit_or_a_currency_to_answer_in_is_a_note(text: str) -> None:
    [found] = measures(text)
    assert found.op.field == "notes" and found.origin == "measure"
    assert found.op.value in text


@pytest.mark.parametrize(
    "text",
    [
        "500 grams of flour and 2 cups of milk",
        "в нових умовах важко",
        "в реале я совсем другой",
        "i live in the US",
        "в США живу",
    ],
)
def test_a_quantity_or_an_everyday_word_is_none(text: str) -> None:
    assert measures(text) == []
