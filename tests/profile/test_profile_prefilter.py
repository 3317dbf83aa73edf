"""The rules' word prefilter skips only rules that could not have matched."""

from __future__ import annotations

import re

import pytest
from test_profile_rules import CASES

from aniso.profile import extract_rules
from aniso.profile.rules import MASK, run, sentences
from aniso.profile.rules.en import RULES as EN
from aniso.profile.rules.prefilter import candidates, index, needs, plain_text
from aniso.profile.rules.ru import RULES as RU

SENTENCES = [
    "I'm vegetarian.",
    "Я уже год вегетарианка",
    "Update: a week ago I stopped eating meat.",
    "Молочное мне больше нельзя, а сыр всё ещё можно.",
    "Sushi is no longer for me, and spicy food doesn't suit me either.",
    "Met Anna in Porto and we talked about the marathon training for ages.",
    "I work 9 to 5 on weekdays and my budget is tight",
    "Отвечай коротко, списком, пожалуйста.",
    *[text for text, _ in CASES],
]


def test_needs_are_the_words_every_match_contains() -> None:
    pattern = re.compile(r"\bI\s+(?:really\s+)?(?:adore|like)\s+(?P<x>\w+)", re.IGNORECASE)
    assert needs(pattern) == ({"adore", "like"}, {"i"})
    # A skippable group requires nothing; a repeated one requires its words.
    assert needs(re.compile(r"(?:very\s+)?good(?:\s+day)+")) == ({"good"}, {"day"})
    # An alternation with a branch that needs no word makes the whole group optional.
    assert needs(re.compile(r"(?:cheap|\w+)\s+food")) == ({"food"},)
    # Words never span the mask character.
    assert needs(re.compile(r"ab\|cd"), mask="|") == ({"ab"}, {"cd"})


def test_candidates_want_one_word_of_every_group() -> None:
    table = index([(frozenset({"like", "love"}), frozenset({"i"})), (), (frozenset({"tea"}),)])
    assert candidates(table, "i love tea") == [True, True, True]
    assert candidates(table, "we love coffee") == [False, True, False]
    assert candidates(table, "you hate tea") == [False, True, True]


def test_text_with_letters_lowercase_cannot_fold_is_not_prefiltered() -> None:
    # The regex engine folds "ı" to "i" and "ſ" to "s"; lower() does not.
    assert plain_text("I like tea, я люблю чай — “really” ’m 42%")
    assert not plain_text("I lıke tea")
    assert not plain_text("ſushi")
    assert re.search("like", "I lıke tea", re.IGNORECASE)
    assert [(op.field, op.value) for op in extract_rules("I lıke tea").ops] == [("likes", "tea")]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_no_rule_that_matches_is_skipped(sentence: str) -> None:
    may = candidates(index([rule.needs for rule in RU + EN]), sentence.lower())
    for rule, possible in zip(RU + EN, may, strict=True):
        if rule.pattern.search(sentence):
            assert possible, (rule.name, sentence)


@pytest.mark.parametrize("text", SENTENCES)
def test_rules_find_the_same_ops_with_and_without_the_prefilter(text: str) -> None:
    bare = tuple(rule.__class__(rule.name, rule.pattern, rule.build) for rule in RU + EN)
    for sentence in sentences(text):
        assert run(RU + EN, sentence) == run(bare, sentence)
    assert MASK not in "".join(word for rule in RU + EN for group in rule.needs for word in group)


def test_most_rules_have_a_prefilter() -> None:
    with_words = [rule.name for rule in RU + EN if rule.needs]
    assert len(with_words) >= 0.9 * len(RU + EN)
