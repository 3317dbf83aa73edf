"""Stale memory, correction detection and the prompt block."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DAY0

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import ProfileStore, extract_rules, is_correction, render_for_prompt

HOUR = timedelta(hours=1)
BEFORE = DAY0 + timedelta(minutes=30)  # written before any profile statement
LATER = DAY0 + timedelta(days=30)


@pytest.fixture
def store(data_dir: Path, clock: SimulatedClock) -> ProfileStore:
    return ProfileStore(open_db(data_dir), clock=clock)


def tell(store: ProfileStore, clock: SimulatedClock, *texts: str) -> None:
    for episode, text in enumerate(texts, start=1):
        clock.advance(HOUR)
        store.apply(extract_rules(text), episode_id=episode, source="rules")


@pytest.mark.parametrize(
    ("text", "outdated"),
    [
        ("I love steak", True),
        ("Я обожаю стейки в Мадриде", True),
        ("Here is a great steakhouse near you", True),
        ("Where can I get a good steak?", True),
        ("мясо по-французски на ужин", True),
        ("a vegetarian burger place", False),
        ("рецепт без мяса", False),
        ("неделю назад перестал есть мясо", False),
        ("Я вегетарианка", False),
        ("Let's plan a walk in the park", False),
        ("What is a good yoga studio?", False),
    ],
)
def test_meat_against_a_vegetarian_diet(
    store: ProfileStore, clock: SimulatedClock, text: str, outdated: bool
) -> None:
    tell(store, clock, "I'm vegetarian")
    assert store.is_outdated(text, BEFORE) is outdated
    assert store.is_outdated(text, LATER) is outdated  # a constraint holds whatever the date


@pytest.mark.parametrize(
    ("text", "outdated"),
    [
        ("Мне нравится острое", True),
        ("I like spicy food", True),
        ("острая еда больше не подходит", False),
        ("no spicy food please", False),
        ("предложи мягкие варианты", False),
    ],
)
def test_spicy_against_a_mild_tolerance(
    store: ProfileStore, clock: SimulatedClock, text: str, outdated: bool
) -> None:
    tell(store, clock, "Мне нравится острое", "Апдейт: острая еда больше не подходит")
    assert store.is_outdated(text, BEFORE) is outdated


def test_a_superseded_budget(store: ProfileStore, clock: SimulatedClock) -> None:
    tell(store, clock, "бюджет низкий", "Апдейт: бюджет теперь высокий")
    assert store.is_outdated("держи бюджет низким", BEFORE)
    assert store.is_outdated("I'm on a tight budget", BEFORE)
    assert not store.is_outdated("бюджет теперь высокий", BEFORE)
    assert not store.is_outdated("a luxury spa day", BEFORE)


def test_pricey_suggestions_against_a_tight_budget(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    tell(store, clock, "у меня бюджет минимальный")
    assert store.is_outdated("Try the luxury spa at the Ritz", BEFORE)
    assert store.is_outdated("дорогой ресторан в центре", BEFORE)
    assert not store.is_outdated("недорогой хостел", BEFORE)


def test_format_and_dairy(store: ProfileStore, clock: SimulatedClock) -> None:
    tell(store, clock, "Always answer in tables.", "Избегай молочных перекусов")
    assert store.is_outdated("Use bullet points", BEFORE)
    assert store.is_outdated("I love cheese and yogurt", BEFORE)
    assert store.is_outdated("утром молоко с печеньем", BEFORE)
    assert not store.is_outdated("молочное все еще нельзя", BEFORE)
    assert not store.is_outdated("dairy-free snacks", BEFORE)
    assert not store.is_outdated("в виде таблицы", BEFORE)


def test_a_superseded_item_counts_only_in_older_texts(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    tell(store, clock, "люблю йогу", "I no longer like yoga")
    ended = store.superseded_values()[0].ended
    assert ended == DAY0 + 2 * HOUR
    assert store.is_outdated("Let's find a yoga class", ended - HOUR)
    assert not store.is_outdated("Let's find a yoga class", ended + HOUR)


def test_an_item_said_again_is_current(store: ProfileStore, clock: SimulatedClock) -> None:
    tell(store, clock, "люблю йогу", "I no longer like yoga", "I love yoga")
    assert not store.is_outdated("Let's find a yoga class", BEFORE)


def test_giving_up_something_liked_again_is_outdated(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    tell(store, clock, "I love sushi")
    assert store.is_outdated("I no longer like sushi", BEFORE)
    assert not store.is_outdated("I no longer like sushi", LATER)


def test_an_ended_state_with_nothing_in_its_place(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    tell(store, clock, "Я заболела", "Я выздоровела")
    assert store.is_outdated("я заболела", BEFORE)
    assert not store.is_outdated("я заболела", LATER)


def test_reasons_explain_the_verdict(store: ProfileStore, clock: SimulatedClock) -> None:
    tell(store, clock, "I love steak", "I stopped eating meat")
    check = store.staleness()
    assert check.reason("I love steak", BEFORE) == (
        "likes 'steak', which conflicts with diet 'vegetarian'"
    )
    assert check.reason("I'm vegan", BEFORE) == (
        "says diet 'vegan'; the profile now says 'vegetarian'"
    )
    assert check.reason("Nice weather today", BEFORE) is None


def test_an_empty_profile_outdates_nothing(store: ProfileStore) -> None:
    assert not store.is_outdated("I love steak", BEFORE)


@pytest.mark.parametrize(
    "text",
    [
        "I already told you I'm vegetarian",
        "As I said, no dairy",
        "I've told you before",
        "я же говорила, что я вегетарианка",
        "Я уже говорил про бюджет",
        "как я уже писала, без глютена",
        "я ж казала",
        "Я вже казав тобі",
    ],
)
def test_corrections(text: str) -> None:
    assert is_correction(text)


@pytest.mark.parametrize(
    "text", ["I told my friend about it", "Я говорила с мамой", "I love steak", "Что я говорил?!"]
)
def test_not_corrections(text: str) -> None:
    assert not is_correction(text)


def test_render_for_prompt(store: ProfileStore, clock: SimulatedClock) -> None:
    tell(
        store,
        clock,
        "Зови меня Аня. Отвечай коротко и по делу, в виде таблицы.",
        "Я вегетарианка, люблю кино и йогу, не люблю толпы. Бюджет низкий.",
        "Мне нравится острое",
        "Апдейт: острая еда больше не подходит",
        "Отвечай по-русски",
    )
    text = render_for_prompt(store.current(), superseded=store.superseded_values())
    assert text == (
        "Name: Аня\n"
        "Language: Russian\n"
        "Tone: brief and to the point\n"
        "Format: tables\n"
        "Diet: vegetarian\n"
        "Spice: mild\n"
        "Budget: low\n"
        "Interests: film, yoga\n"
        "Dislikes: crowds\n"
        "No longer true (ignore older memories saying so): likes spicy food"
    )


def test_render_an_empty_profile(store: ProfileStore) -> None:
    assert render_for_prompt(store.current()) == ""
