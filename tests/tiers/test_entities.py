"""Entity-aware matching: the names a question is about (`tiers.entities`)."""

from __future__ import annotations

import pytest

from aniso.tiers.entities import named
from aniso.tiers.text import stem


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What did Caroline research?", ["caroline"]),
        ("What is Melanie's favourite book? And Jon's?", ["melanie", "jon"]),
        ("When did we go to Lisbon with Anna", ["lisbon", "anna"]),
        ("Что Аня говорила про Лиссабон?", ["аня", "лиссабон"]),
        ("Коли Оксана поїде до Львова?", ["оксана", "львова"]),
        ("Where do I live?", []),
        ("WHAT IS THIS ALL ABOUT", []),
        ("Paris. Remember it?", []),
    ],
)
def test_names_are_capitalised_words_inside_a_sentence(question: str, names: list[str]) -> None:
    assert named(question) == [stem(name) for name in names]
