"""Words that look like a profile value but are not one: a person's name that GeoNames
also lists as some town's other name, a clock time that bounds what the user eats or
drinks rather than saying when to reach them, and a Ukrainian word that stems like a
Russian one from the lexicon."""

from __future__ import annotations

import pytest

from aniso.profile.understand import candidates, understand

HELD = {"timezone": ["Europe/Berlin"], "name": ["Anna"], "schedule": ["mornings"]}
"""A profile that already holds a zone and a schedule: a new value then reads as an
update, which is when a wrong proposal is likeliest to pass the gate."""


def _values(text: str, field: str) -> list[str]:
    return [c.op.value for c in candidates(text) if c.op.field == field]


def _changed(text: str, field: str) -> list[str]:
    return [op.value for op in understand(text, held=HELD).ops if op.field == field]


@pytest.mark.parametrize(
    "text",
    [
        "Rui suggested I try a Bach cello suite",  # Rui is Loei's other name
        "Nadia says the new cafe in town is great",
        "my cousin Nadia is moving to Tashkent for work, what should she pack",
        "i'm Marek.",
        "Я Марко.",
        "мене звати Ліля.",
        "ой я Катерина вообще-то, Катей только мама зовёт.",
        "my kid's teacher Mrs. Ferreira is from Curitiba, how do i say thank you",
    ],
)
def test_a_persons_name_is_no_place(text: str) -> None:
    bare = [c for c in candidates(text) if c.op.field == "timezone" and c.origin == "place-bare"]
    assert bare == [], [c.op.evidence for c in bare]


@pytest.mark.parametrize(
    ("text", "zones"),
    [
        # Artem is a city of 100,000 by Vladivostok. Proposed as a place, it stood
        # nearer "live" than Haifa, and the gate weighed Haifa as the rival's neighbour.
        ("i'm Artem, live in Haifa, work in chip design", ["Asia/Jerusalem"]),
        ("I'm Artem and I'm based in Haifa", ["Asia/Jerusalem"]),
        ("hi i'm Lima and i live in Porto", ["Europe/Lisbon"]),
        # The town goes on into where the user is from: the place finder proposes it.
        ("I'm Paris-based", ["Europe/Paris"]),
        ("hi, I'm Berlin based", ["Europe/Berlin"]),
        ("I'm London born and raised", ["Europe/London"]),
    ],
)
def test_a_town_in_an_introduction_is_a_name_unless_it_says_where_from(
    text: str, zones: list[str]
) -> None:
    from aniso.profile import slots

    assert [p.op.value for p in slots.timezone(text)] == zones


def test_a_given_name_is_no_small_town() -> None:
    # Marco is a town in Brazil, Anna one in Russia; Milan and Vienna stay.
    for text, name, home in (
        ("Marco, Milan. I love cooking", "Marco", "Europe/Rome"),
        ("hi, Anna, living in Vienna", "Anna", "Europe/Vienna"),
    ):
        zones = {c.op.said: c.op.value for c in candidates(text) if c.op.field == "timezone"}
        assert name not in zones and home in zones.values(), zones


def test_the_named_person_sets_no_zone_even_with_one_held() -> None:
    assert _changed("Rui suggested I try a Bach cello suite", "timezone") == []
    assert _changed("Nadia says the new cafe in town is great", "timezone") == []


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("Yerevan here.", "Asia/Yerevan"),
        ("kia ora, Auckland here.", "Pacific/Auckland"),
        ("Иркутск, Байкал рядом", "Asia/Irkutsk"),
        ("I moved to Lisbon", "Europe/Lisbon"),
    ],
)
def test_a_city_said_alone_is_still_a_place(text: str, zone: str) -> None:
    assert zone in _values(text, "timezone")


def test_a_big_city_introduced_with_here_is_no_name() -> None:
    assert _values("Yerevan here.", "name") == []
    assert _values("Fatima here, nurse, night shift, in Manchester.", "name") == ["Fatima"]


@pytest.mark.parametrize(
    "text",
    [
        "I get jittery if I drink too much coffee after 4pm",
        "too much coffee after 4pm",
        "не ем после 18:00, держу форму",
        "намагаюсь не пити каву після 16:00",
        "no screens after 21:00 for me, sleep is bad enough",
    ],
)
def test_a_time_that_bounds_an_activity_is_no_schedule(text: str) -> None:
    assert _values(text, "schedule") == []
    assert _changed(text, "schedule") == []


@pytest.mark.parametrize(
    ("text", "schedule"),
    [
        ("свободна после 18:00", "after 18:00"),
        ("free after 6pm on weekdays", "weekdays after 18:00"),
        ("пиши після 19:00", "after 19:00"),
        ("Call me after 6pm", "after 18:00"),
    ],
)
def test_a_time_to_reach_the_user_is_still_a_schedule(text: str, schedule: str) -> None:
    assert schedule in _values(text, "schedule")


def test_call_me_before_a_time_names_nobody() -> None:
    assert _values("Call me after 6pm", "name") == []
    assert _values("call me tomorrow", "name") == []


@pytest.mark.parametrize(
    "text",
    [
        "тренуюсь тільки по вихідних, в будні ніяк, робота з 8 до 8",
        "перебрався до брата у Ванкувер, тут тепер живу і шукаю роботу",
        "серфінгом займаюсь, кожного ранку до роботи на воду",
        "кинула роботу в банку, тепер фриланс",
    ],
)
def test_ukrainian_work_is_no_robotics(text: str) -> None:
    """ "Робота" is Ukrainian for work. The lexicon listed "роботы" (Russian for robots),
    whose stem is the same, and four messages of the train part about work
    started robotics; "робототехника", "robotics" and phrases such as "собирать
    роботов" name the interest."""
    assert "robotics" not in _values(text, "interests")


@pytest.mark.parametrize(
    "text", ["обожаю робототехнику, собираю всё на ардуино", "люблю собирать роботов"]
)
def test_robotics_is_still_an_interest(text: str) -> None:
    assert _values(text, "interests") == ["robotics"]


def test_ukrainian_here_is_no_wasp() -> None:
    """Ukrainian "ось" (here) is "оси" (axes) to the Russian dictionary, which the
    lexicon listed for wasps: "алергія на котів, ось така іронія" gave a wasp allergy."""
    assert "wasps" not in _values("я люблю ось такі вечори", "likes")
    assert "wasps" not in _values("алергія на котів, ось така іронія", "allergies")
