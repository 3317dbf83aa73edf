"""The generalising extractor: library-backed slots, the trained gate, the labelled set."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from helpers import run_cli

from aniso.bench.profile import evaluate, load, matches, split_of
from aniso.profile import gate, morph, places, slots
from aniso.profile.understand import HERE_REACH, candidates, understand

DATA = Path(__file__).resolve().parents[1] / "data" / "profile_statements.jsonl"


def values(text: str) -> set[tuple[str, str, str]]:
    return {(op.kind, op.field, op.value) for op in understand(text).ops}


def proposed(text: str, field: str) -> list[str]:
    """The values proposed for `field`, before the gate."""
    return [c.op.value for c in candidates(text) if c.op.field == field]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("I just moved to Curitiba", "America/Sao_Paulo"),
        ("i live in porto", "Europe/Lisbon"),
        ("живу в Новосибирске", "Asia/Novosibirsk"),
        ("переїхала до Львова минулого року", "Europe/Kyiv"),
        ("я из Нижнего Новгорода", "Europe/Moscow"),
        # "Церкви" alone reads as Russian; the phrase is Ukrainian: Біла Церква.
        ("я Оля, з Білої Церкви", "Europe/Kyiv"),
        ("based in Salt Lake City", "America/Denver"),
    ],
)
def test_places_resolve_through_the_gazetteer_in_any_case_form(text: str, zone: str) -> None:
    found = [m.place.timezone for m in places.mentions(text)]
    assert zone in found


@pytest.mark.parametrize(
    ("text", "zone", "said"),
    [
        # The larger city of the name, unless a country or division after it says otherwise.
        ("I moved to Valencia last month", "America/Caracas", "Valencia"),
        ("I moved to Valencia, Spain last month", "Europe/Madrid", "Valencia, Spain"),
        ("we live in Victoria, BC", "America/Vancouver", "Victoria, BC"),
        ("Portland, Maine here", "America/New_York", "Portland, Maine"),
        ("Paris, Texas", "America/Chicago", "Paris, Texas"),
        ("Perth WA", "Australia/Perth", "Perth WA"),  # WA is a US state too: no Perth there
        ("Waterloo, Ontario", "America/Toronto", "Waterloo, Ontario"),
        ("живу в Валенсии, Испания", "Europe/Madrid", "Валенсии, Испания"),
        ("i live in Paris", "Europe/Paris", "Paris"),
        ("London in the UK", "Europe/London", "London"),
        ("Hamilton me", "America/Toronto", "Hamilton"),  # a code counts in capitals only
    ],
)
def test_a_country_or_division_after_a_city_says_which_city(
    text: str, zone: str, said: str
) -> None:
    found = [(m.place.timezone, text[m.start : m.end]) for m in places.mentions(text)]
    assert found[0] == (zone, said)
    assert len(found) == 1  # the qualifier is part of the city's mention, no place of its own


def test_a_qualified_city_sets_the_users_zone() -> None:
    assert ("set", "timezone", "Europe/Madrid") in values("I just moved to Valencia, Spain!")
    assert ("set", "timezone", "America/Vancouver") in values("we're in Victoria, BC now")


def test_common_words_are_not_places() -> None:
    # "the" and "haha" are other names of some town; lower-case they are just words.
    assert [m.place.name for m in places.mentions("moved to milan in the end haha")] == ["Milan"]
    assert places.mentions("живу в мире и согласии") == []


def test_a_short_other_name_heading_a_compound_is_no_place() -> None:
    # "Rom" is Rome in German; glued to "-coms" it is a film genre.
    assert places.mentions("I love Rom-coms") == []
    assert "timezone" not in {op.field for op in understand("I love Rom-coms").ops}
    assert [m.place.name for m in places.mentions("I live in Rom")] == ["Rome"]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Toronto-based designer", "Toronto"),  # a city's own name
        ("a Kiev-based designer", "Kyiv"),  # a longer other name
        ("an LA-based designer", "Los Angeles"),  # initials
        ("I live in Sao-paulo", "São Paulo"),  # the name goes on after the hyphen
        ("я живу в Казани-то", "Kazan"),  # a Cyrillic form, then a particle
    ],
)
def test_a_place_heading_a_compound_stays_a_place(text: str, place: str) -> None:
    assert [m.place.name for m in places.mentions(text)] == [place]


@pytest.mark.parametrize("text", ["I'm Berlin-born", "I'm Toronto-based", "im Lisbon-based"])
def test_a_place_compound_after_i_am_is_no_name(text: str) -> None:
    assert "name" not in {op.field for op in understand(text).ops}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi, I'm Anna-Maria", "Anna-Maria"),
        ("call me Mary-Kate", "Mary-Kate"),
        ("I'm Jean-luc", "Jean-luc"),  # as a phone capitalises it
        ("call me Dr. Smith-jones", "Dr. Smith-jones"),
        ("Привет, я Анна-Мария", "Анна-Мария"),
        ("я Анна-мария", "Анна-Мария"),
        ("мене звати ганна-марія", "Ганна-Марія"),
    ],
)
def test_a_double_name_is_a_name(text: str, name: str) -> None:
    assert ("set", "name", name) in values(text)


def test_a_pronoun_is_no_place_through_its_lemma() -> None:
    # "ньому" is a form of "він", which GeoNames lists for Vinh (Vietnam).
    assert places.mentions("а я в ньому не дуже розбираюсь") == []
    assert [m.place.name for m in places.mentions("живу у Львові")] == ["Lviv"]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("мы уехали из Сербии", "Europe/Belgrade"),
        ("живём в Черногории", "Europe/Podgorica"),  # not Montenegro, a town in Brazil
        ("we moved to Armenia", "Asia/Yerevan"),  # not Armenia, Colombia
        ("живу в україні", "Europe/Kyiv"),  # lower case: a country is big enough
        ("переїхали до Польщі", "Europe/Warsaw"),
        ("вернулся в Россию", "Europe/Moscow"),
        ("живу в Англии", "Europe/London"),
        ("Mexico here", "America/Mexico_City"),
    ],
)
def test_a_country_in_any_language_and_case_is_its_capitals_zone(text: str, zone: str) -> None:
    assert [m.place.timezone for m in places.mentions(text)] == [zone]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("i farm dairy cows in Wisconsin", "America/Chicago"),
        ("we finally moved to Florida", "America/New_York"),  # not Florida, Cuba
        ("нарешті переїхали у Флориду", "America/New_York"),
        ("мы живём в Техасе", "America/Chicago"),
        ("i live in texas now", "America/Chicago"),
        ("my sister lives in Virginia", "America/New_York"),  # not Virginia, South Africa
        ("I live in Maine", "America/New_York"),  # not Des Plaines' old name
        ("we moved to North Carolina", "America/New_York"),
        ("I live in Oregon", "America/Los_Angeles"),  # not Oregon, Ohio
        ("I live in Wyoming", "America/Denver"),  # not Wyoming, Michigan
        ("живу в Северной Каролине", "America/New_York"),
        ("живу в Неваде", "America/Los_Angeles"),
        ("я в Джорджии живу", "America/New_York"),  # the state; the country is Грузия
        ("I live in Washington", "America/New_York"),  # the capital's own name stays its
        ("живу в Вашингтоне", "America/New_York"),  # in every language
        ("I live in Georgia", "Asia/Tbilisi"),  # the country's name stays its
    ],
)
def test_a_us_state_is_the_clock_of_most_of_its_people(text: str, zone: str) -> None:
    assert [p.op.value for p in slots.timezone(text)] == [zone]


def test_the_states_are_read_from_pycountry_and_geonames() -> None:
    clocks = places.state_clocks()
    assert clocks["US-WI"][0] == "America/Chicago" and clocks["US-AZ"][0] == "America/Phoenix"
    # Zones of one clock count together: 60 + 50 on New York's clock outweigh 70.
    counted = {"America/New_York": 60, "America/Kentucky/Louisville": 50, "America/Chicago": 70}
    assert places._clock_of(counted) == ("America/New_York", 180)  # noqa: SLF001
    assert {"Wisconsin", "Висконсин", "Вісконсин"} <= places.state_names("US-WI")
    # No other country's divisions: "Bavaria" and "Curaçao" are no clocks of their own.
    assert places.mentions("we moved to Bavaria") == []


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("based in SF, mission district", "America/Los_Angeles"),
        ("just moved to KL, love nasi lemak", "Asia/Kuala_Lumpur"),
        ("LA based, half my team is remote", "America/Los_Angeles"),
        ("moved to NY last spring", "America/New_York"),
    ],
)
def test_a_big_citys_two_capitals_are_the_city(text: str, zone: str) -> None:
    assert [p.op.value for p in slots.timezone(text)] == [zone]


@pytest.mark.parametrize(
    "text",
    [
        "La la land is on tonight",
        "i live in la",
        "my BP is high",  # Batu Pahat's, a town too small for its pair to count
        "grabbing BK for lunch",  # Brooklyn's nickname, not its initials
        "let's grab lunch at BK",
        "going to BK later",
        "HH at 5?",
        "I'm at LA Fitness",  # "at" a place is no home
        "JB here, ok",  # Johor Bahru's initials, and a person's as often
        "LA LA LAND IS ON",
        "перешёл на ОС Linux",  # "оса" is a town's name; "ОС" is no abbreviation of it
        "привет, мэн",
    ],
)
def test_two_letters_name_a_city_only_as_its_initials_in_capitals_and_as_a_home(text: str) -> None:
    assert slots.timezone(text) == []


@pytest.mark.parametrize(
    ("text", "zones"),
    [
        ("I'm free Sat and Sun", []),  # not San Antonio, whose airport is SAT
        ("free Mon-Fri after 6", []),  # not Myanmar's Mon State
        ("Wed and Fri evenings work best", []),
        ("Mon and Thur are my gym days", []),  # "Thur" is El-Tor's other name
        ("we moved here in march, love it", []),  # not March, Cambridgeshire
        ("moved to Paris in march", ["Europe/Paris"]),
        ("переїхали до Праги у серпні", ["Europe/Prague"]),
    ],
)
def test_a_month_or_weekday_is_no_place(text: str, zones: list[str]) -> None:
    assert [p.op.value for p in slots.timezone(text)] == zones
    assert "march" in places.calendar_words() and "серпня" in places.calendar_words()


def test_a_lower_case_latin_country_stays_a_word() -> None:
    # "turkey" is food as often as the country; wordfreq cannot tell them apart.
    assert places.mentions("i'm allergic to turkey") == []


def test_a_word_is_no_place_through_an_unlikely_readings_respelling() -> None:
    # An abbreviation's reading of "сім'єю" has the lemma "сім'єй", "Семей" (Semey).
    assert [m.place.name for m in places.mentions("переїхали з сім'єю до Варшави")] == ["Warsaw"]
    assert [m.place.name for m in places.mentions("живу в Ґетеборзі")] == ["Gothenburg"]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("moved to hanoi from seattle 3 weeks ago", "Asia/Bangkok"),
        ("Just moved to Vancouver from Toronto!", "America/Vancouver"),
        ("переехали из Риги в Таллин, работа новая", "Europe/Tallinn"),
        ("щас в лиссабоне живу, уже полгода, переехал из москвы", "Europe/Lisbon"),
        ("переїхали з Торонто до Калгарі", "America/Edmonton"),
        ("переехал с Урала в Пермь", "Asia/Yekaterinburg"),
    ],
)
def test_where_a_move_began_is_no_zone(text: str, zone: str) -> None:
    assert proposed(text, "timezone") == [zone]


def test_from_without_a_move_is_still_a_place() -> None:
    assert proposed("I'm from Boston", "timezone") == ["America/New_York"]
    assert proposed("привет из Киева, я тут живу", "timezone") == ["Europe/Kyiv"]
    # A move denied, or one in another part of the sentence, began nowhere.
    assert proposed("I never moved from Boston", "timezone") == ["America/New_York"]
    text = "я из Омска и сейчас тут же, никуда не уезжал, хотя все вокруг поразъехались"
    assert proposed(text, "timezone") == ["Asia/Omsk"]


@pytest.mark.parametrize(
    ("word", "ukrainian", "form"),
    [
        ("живу", False, "v1"),
        ("живёт", False, "v3"),
        ("живе", True, "v3"),  # a Ukrainian verb the Russian dictionary reads as a name
        ("переехала", False, "past_sg"),
        ("перевели", False, "past_pl"),
        ("напиши", False, "impr"),
        ("пишіть", True, "impr"),
        ("вона", True, None),
        ("Львов", False, None),
        ("live", False, None),
    ],
)
def test_a_verb_says_whom_a_clause_is_about(word: str, ukrainian: bool, form: str | None) -> None:
    assert morph.verb_form(word, ukrainian=ukrainian) == form


def test_the_gate_reads_the_verb_and_the_we_of_the_values_part() -> None:
    sentence = "подруга живёт на Бали, а мы в Бишкеке"
    start = sentence.index("Бишкеке")
    op = candidates(sentence)[-1].op
    found = gate.features(sentence, start, start + len("Бишкеке"), op, "place")
    assert "x:p:we" in found and "x:p:v3" not in found and "x:p:other" not in found
    start = sentence.index("Бали")
    found = gate.features(sentence, start, start + len("Бали"), op, "place")
    assert {"x:p:other", "x:p:v3"} <= set(found) and "x:p:we" not in found


def _subject_cue(sentence: str, value: str) -> bool:
    start = sentence.index(value)
    op = next(c.op for c in candidates(sentence) if c.op.field == "timezone")
    return "x:p:other_subj" in gate.features(sentence, start, start + len(value), op, "place")


@pytest.mark.parametrize(
    ("sentence", "value", "other"),
    [
        ("сестра переехала в Новосибирск, теперь созваниваемся вечером", "Новосибирск", True),
        ("my sister just moved to Melbourne for her phd", "Melbourne", True),
        ("my dad finally retired and moved down to Phoenix", "Phoenix", True),
        ("my girlfriend's from Osaka", "Osaka", True),
        # The user moved: to a brother, with a daughter, or after the husband.
        ("перебрався до брата у Ванкувер, тут тепер живу", "Ванкувер", False),
        ("I moved in with my daughter in Perth", "Perth", False),
        ("короче мужа перевели в Лиссабон, мы уже неделю там живём", "Лиссабон", False),
        ("my wife and I moved to Porto", "Porto", False),
    ],
)
def test_the_gate_sees_who_is_the_subject_of_a_move(sentence: str, value: str, other: bool) -> None:
    assert _subject_cue(sentence, value) is other


def test_a_move_of_someone_else_is_no_update_with_a_zone_held() -> None:
    for text in ("сестра переехала в Новосибирск", "my sister just moved to Melbourne"):
        held = {"timezone": ["Europe/Moscow"]}
        assert not [op for op in understand(text, held=held).ops if op.field == "timezone"]
    held = {"timezone": ["Europe/Kyiv"]}
    ops = understand("перебрався до брата у Ванкувер, тут тепер живу", held=held).ops
    assert [op.value for op in ops if op.field == "timezone"] == ["America/Vancouver"]


def test_one_value_per_thing_named() -> None:
    # The lexicon knows "tea" and "green tea"; the user named one thing.
    found = [c.op.value for c in candidates("My favourite tea is jasmine green tea")]
    assert found == ["green tea"]
    assert {c.op.value for c in candidates("i love sushi and green tea")} == {"sushi", "green tea"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("i'm a line cook btw so my days off are monday and tuesday", "Monday/Tuesday"),
        ("мне лучше напоминать вечером в 21:00", "at 21:00"),
        ("і пиши мені зранку", "mornings"),
        ("boise. nurse. nights. free 2-6pm.", "14:00-18:00"),
        ("свободен обычно по вторникам и четвергам", "Tuesday/Thursday"),
        ("у младшей сад до 17, так что могу с 12 до 17", "12:00-17:00"),
    ],
)
def test_when_to_reach_the_user_is_proposed_as_a_schedule(text: str, value: str) -> None:
    assert value in proposed(text, "schedule")


@pytest.mark.parametrize(
    "text",
    [
        "Remind me that the honey goes to my sister on Friday",
        "remind me to water the plants on sunday",
        "напомни про врача в среду",
        "нагадай мені що в п'ятницю збори",
    ],
)
def test_a_reminder_of_a_task_is_no_schedule(text: str) -> None:
    """The day belongs to the task; "remind me in the evenings" is when to reach."""
    assert not proposed(text, "schedule")
    assert proposed("remind me in the evenings please", "schedule")


def test_not_being_free_is_no_schedule() -> None:
    assert proposed("Basically never free before noon", "schedule") == []
    assert proposed("the train leaves at 9:15", "schedule") == []
    assert proposed("I'm only free before noon", "schedule") == ["mornings only"]


def test_the_gate_hears_doubt_irony_and_a_request_for_one_reply() -> None:
    def flags(sentence: str) -> set[str]:
        return {
            f[2:]
            for f in gate.features(sentence, 0, 1, candidates("I'm vegan")[0].op, "cue")
            if f.startswith("c:")
        }

    assert "doubt" in flags("не знаю, стать ли мне вегетарианкой")
    assert "irony" in flags("обожнюю укрзалізницю, ага 🙃")
    assert "once" in flags("вот этот конкретный ответ сделай табличкой")
    assert "impr" in flags("вот этот конкретный ответ сделай табличкой")
    assert not flags("I'm vegan") & {"doubt", "irony", "once", "impr"}


def test_names_come_from_the_dictionary_in_any_case() -> None:
    assert morph.is_first_name("Оксаною")
    assert morph.first_name("Оксаною") == "Оксана"
    assert not morph.likely_name("из")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi, I'm Marta and I live in Porto.", "Marta"),
        ("меня зовут Оксаной", "Оксана"),
        ("Я Ирина Сергеевна, живу в Иркутске.", "Ирина Сергеевна"),
        ("мене звати Тарас", "Тарас"),
    ],
)
def test_self_introductions_set_the_name(text: str, name: str) -> None:
    assert ("set", "name", name) in values(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("слушай я Петя, мне 15", "Петя"),
        ("так, вводные: я полина, 34, живу в праге", "Полина"),
        ("меня Вовой звать, я из Иркутска", "Вова"),
        ("коротше я Денис, мені 34", "Денис"),
        ("я рада, что ты есть", None),
        ("я в Москве", None),
        # Ukrainian "too much", which the Russian analyser guesses is a name from "-ато"
        ("чоловік каже, що я забагато витрачаю на каву", None),
        ("я втомився, поясни простіше", None),
        ("я щиро вдячна за допомогу", None),
    ],
)
def test_a_first_name_after_i_is_proposed_anywhere(text: str, name: str | None) -> None:
    assert proposed(text, "name") == ([name] if name else [])


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ahh and my friends call me Mari, please use that", "Mari"),
        ("Вообще-то друзья зовут меня Алик, мне так привычнее. Так и называй.", "Алик"),
        ("Меня зовут Евгения, но все зовут Женя — так и обращайся", "Женя"),
    ],
)
def test_the_name_people_call_the_user_is_the_name(text: str, name: str) -> None:
    assert ("set", "name", name) in values(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi im liam, dublin. budget's flexible", "Liam"),
        ("hi, rafael here, são paulo. omnivore", "Rafael"),
        ("Marco, Milan. I love cooking", "Marco"),
        ("hi, Anna, living in Vienna, vegetarian.", "Anna"),
        ("Hey! Alex (he/him), Toronto. Cheap is king", "Alex"),
        ("Kenji. Osaka. No fluff - just answers.", "Kenji"),
        ("g'day, Mick from Perth. into fishing and footy", "Mick"),
        ("Hello, Hamid from Tehran. Could you suggest some books?", "Hamid"),
        ("Rahul | Mumbai | vegetarian | bullet points pls", "Rahul"),
        ("Алёна, Уфа. сама в балете всю жизнь", "Алёна"),
        ("Эмре. сам из Стамбула, ем всё", "Эмре"),
        # Whom a question or a request is asked of, an everyday word, a big city, another
        # person: no name.
        ("Sam, what do you think about this?", None),
        ("Siri, tell me a joke", None),
        ("Lucas, my friend from Porto, says hi", None),
        ("Сергей из бухгалтерии прислал отчёт", None),  # from a department, not a place
        ("Марина, подскажи рецепт сырников", None),  # asked of Marina
        ("Ксюша, привет! вот фото с дачи", None),  # greeted, as thanked below
        ("Liam, hey! check this out", None),
        ("hi im liam, thanks for the help", "Liam"),  # thanks to the assistant
        ("Оля, дякую за рецепт", None),
        ("лол, сестра написала мне", None),  # the guesser's "Лола", in the genitive
        ("i'm sure, thanks", None),
        ("i'm will, it's fine", None),
        ("it's sunny here today", None),
        ("Paris, France. i love croissants", None),
        ("Dan (husband) likes it spicy", None),
    ],
)
def test_a_casual_introduction_names_the_user(text: str, name: str | None) -> None:
    assert proposed(text, "name") == ([name] if name else [])


def test_given_names_come_from_a_library_and_everyday_words_stay_words() -> None:
    from aniso.profile import given_names

    assert len(given_names.given_names()) > 10_000
    assert all(given_names.bare_name(n) for n in ("liam", "rafael", "priya", "kenji", "tomás"))
    assert not any(given_names.bare_name(w) for w in ("will", "hope", "mark", "sure", "table"))


def test_what_one_person_calls_the_user_is_no_name() -> None:
    assert not proposed("my mum calls me Bunny", "name")
    assert not proposed("everyone calls me when they need help", "name")


def test_a_diet_word_is_not_a_name() -> None:
    assert not any(field == "name" for _, field, _ in values("привет, я веган"))
    assert not any(field == "name" for _, field, _ in values("I'm Vegan now"))


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("turns out i'm not allergic to peanuts after all", ("remove", "allergies", "peanuts")),
        ("i can eat gluten again!", ("remove", "avoid", "gluten")),
        ("снова ем мясо", ("set", "diet", "omnivore")),
        ("stop using tables please", ("remove", "format", "tables")),
        ("по вечерам вяжу, это мой антистресс", ("add", "interests", "knitting")),
        # The user's verb opens the phrase the lexicon lists.
        ("вяжу крючком, в основном пледы и игрушки внукам", ("add", "interests", "crochet")),
        # A labelled list of what the user is into.
        ("я костя, 27. мои интересы: горы, походы с палаткой", ("add", "interests", "hiking")),
        ("мої інтереси: шахи, фото", ("add", "interests", "chess")),
        ("my interests: chess, board games", ("add", "interests", "board games")),
        ("мої інтереси: переважно шахи", ("add", "interests", "chess")),
        ("my interests: chess + hiking", ("add", "interests", "hiking")),
        # The user's own verb, read by the dictionary of its language; a negation of
        # another phrase does not reach it.
        ("шию одяг для себе", ("add", "interests", "sewing")),
        ("ни дня не пропускаю, бегаю", ("add", "interests", "running")),
        ("не бегаю, а плаваю", ("add", "interests", "swimming")),
    ],
)
def test_reversals_and_activities_are_proposed(text: str, op: tuple[str, str, str]) -> None:
    assert op in {(c.op.kind, c.op.field, c.op.value) for c in candidates(text)}


@pytest.mark.parametrize(
    "text",
    [
        "интересы сына: футбол и шахматы",
        "ищу подарок другу. интересы: рыбалка, футбол",
        "мои интересы: мечтаю научиться серфингу",
        "my interests: none, my son plays chess",
        "забронюй лазню на суботу",
        "расскажи историю про дракона",
        "мы едем к морю в августе",
        "намазала шию кремом і лягла",
        "я ни бегаю, ни плаваю",
        "я не особо бегаю",
        "её интересы — йога и рисование",
        "the kids' interests: football and drawing",
        "захоплення міста, потім шахи",
        "не вяжу крючком, руки не те",
        "не катаюсь на лошадях, боюсь",
        "увімкни класичну музику",
    ],
)
def test_no_interest_from_someone_elses_label_a_negation_or_an_adjective(text: str) -> None:
    """A label is the user's only after "my", and names only the items that open its
    list; a verb the user denies is no activity; a Ukrainian word the Russian guesser
    reads as a verb ("класичну" as "класичнуть", "лазню" as "лазнить") is no verb of
    the user's."""
    assert not [c for c in candidates(text) if (c.op.kind, c.op.field) == ("add", "interests")]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("english again please, practising for my ielts", "en"),
        ("actually ukrainian please, i want to practise it more", "uk"),
        ("russian would be better, my mum reads these with me", "ru"),
        ("англійською знову, бо іспит через місяць", "en"),
        ("switch back to English", "en"),
    ],
)
def test_a_request_may_name_the_language_first(text: str, code: str) -> None:
    assert ("set", "language", code) in values(text)


def test_a_language_someone_has_or_translates_into_is_no_reply_language() -> None:
    def languages(text: str) -> set[str]:
        return set(proposed(text, "language"))

    assert languages("my english is fine, thanks") == set()
    assert languages("translate into ukrainian please: good morning") == set()
    assert languages("переведи на английский, пожалуйста: привет") == set()
    # Translating elsewhere in the sentence leaves the request standing.
    assert languages("переходь назад на українську, листи я вже сама перекладу") == {"uk"}


def test_cached_analyses_are_strings_the_collector_does_not_walk() -> None:
    """pymorphy3's Parse objects in the cache made every full collection walk a
    million objects: a stall of a tenth of a second inside a message."""
    found = morph.parses("переехала")
    gc.collect()
    gc.collect()
    assert found and all(isinstance(part, str) for reading in found for part in reading)
    assert not gc.is_tracked(found)


def test_a_standing_preference_without_a_slot_is_kept_as_a_note() -> None:
    notes = [c.op.value for c in candidates("always include the price range for restaurants")]
    assert notes == ["always include the price range for restaurants"]


def test_the_gate_refuses_what_is_said_of_someone_else() -> None:
    model = gate.load()
    assert model is not None, "profile/data/gate.json must ship with the package"
    assert values("my coworker said she is vegan and loves tofu") == set()
    assert values("I'm vegetarian") == {("set", "diet", "vegetarian")}


def test_labels_match_leniently_but_not_loosely() -> None:
    assert matches("film|movies", "film")
    assert matches("price range", "always include the price range")
    assert matches("*", "anything")
    assert not matches("range", "arrangement")


def test_the_labelled_set_is_big_varied_and_split() -> None:
    messages = load(DATA)
    assert len(messages) >= 800
    langs = {lang: sum(m.lang == lang for m in messages) for lang in ("en", "ru", "uk")}
    assert all(count >= 0.2 * len(messages) for count in langs.values()), langs
    assert sum(m.kind == "distractor" for m in messages) >= 0.3 * len(messages)
    assert sum(m.kind == "update" for m in messages) >= 0.15 * len(messages)
    assert {m.split for m in messages} == {"train", "test"}
    threads: dict[str, set[str]] = {}
    for m in messages:
        threads.setdefault(m.thread, set()).add(m.split)
    assert all(len(splits) == 1 for splits in threads.values()), "a thread straddles the split"
    assert all(m.split == split_of(m.thread) for m in messages), "a split not from the hash"


def test_a_distractor_that_changes_the_profile_is_counted() -> None:
    labelled = load(DATA)
    with_distractors = {m.thread for m in labelled if m.kind == "distractor"}
    messages = [m for m in labelled if m.thread in with_distractors][:40]
    report = evaluate(messages)
    baseline = report.overall.false_updates

    def always(store):  # a learner that believes everything
        from aniso.profile.learner import ProfileLearner

        class Credulous(ProfileLearner):
            def learn(self, text, *, episode_id):
                from aniso.profile.delta import ProfileDelta, make_op

                delta = ProfileDelta(ops=(make_op("set", "diet", "vegan", text[:20]),))
                return self.store.apply(delta, episode_id=episode_id, source="rules")

        return Credulous(store=store)

    credulous = evaluate(messages, learner_for=always)
    assert credulous.overall.false_updates > baseline


def test_bench_profile_json_shape() -> None:
    result = run_cli("bench", "profile", "--json", "--misses", "3")
    assert result.returncode == 0, result.stderr.decode()
    figures = json.loads(result.stdout)
    for key in ("recall", "precision", "kept_out", "false_update_rate", "extract_ms", "slowest"):
        assert key in figures
    assert set(figures["by_lang"]) == {"en", "ru", "uk"}
    assert {"timezone", "name", "notes"} <= set(figures["by_field"])
    assert figures["split"] == "test"
    assert len(figures["misses"]) <= 3
    # Held-out floors well under today's figures: a regression, not noise, trips them.
    assert figures["recall"] >= 0.45
    assert figures["false_update_rate"] <= 0.10


def test_bench_profile_rejects_a_broken_set_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "set.jsonl"
    broken.write_text('{"thread": "a"\n', encoding="utf-8")
    result = run_cli("bench", "profile", "--data", str(broken))
    stderr = result.stderr.decode()
    assert result.returncode != 0
    assert "Traceback" not in stderr
    assert "line 1" in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_a_huge_paste_is_read_only_as_far_as_people_state_preferences() -> None:
    from aniso.profile.understand import READ_CHARS

    filler = "lorem ipsum dolor sit amet " * (READ_CHARS // 20)
    assert ("set", "diet", "vegetarian") in values("I'm vegetarian. " + filler)
    assert values(filler + " I'm vegetarian.") == set()


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        # The user's clause beside someone else's, before the question.
        ("my wife loves it fiery but I can only handle mild, what's a curry?", "spice", "mild"),
        ("живу в Ужгороді, а сестра в Дубліні — коли созвонитися?", "timezone", "Europe/Kyiv"),
        ("we're in lyon, what's a bouchon that works for both of us?", "timezone", "Europe/Paris"),
        # A request asked as a question, or with a tag.
        ("i'll write in english but can you answer in ukrainian?", "language", "uk"),
        ("можно ты будешь отвечать на английском?", "language", "en"),
        ("слухай, можна трохи тепліше?", "tone", "warm"),
        ("пиши на ты, ок?", "tone", "informal"),
    ],
)
def test_a_question_keeps_the_users_own_statement_and_requests(
    text: str, field: str, value: str
) -> None:
    assert value in proposed(text, field)


@pytest.mark.parametrize(
    "text",
    [
        "у сина алергія на арахіс, що дати йому?",
        "my sister is vegan, what should i cook for her?",
        "if i moved to Tbilisi, would i need a visa?",
        "is a vegan diet healthy, or a myth?",
        "можно ли есть глютен при диабете?",
        "if I ever retire I'm taking up golf, guaranteed",
        "якщо колись вийду на пенсію, займусь гольфом",
        "если когда-нибудь перееду в Берлин, выучу немецкий",
    ],
)
def test_a_question_about_someone_else_or_nothing_proposes_nothing(text: str) -> None:
    assert candidates(text) == []


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("good routes near Girona? i live here", "Europe/Madrid"),
        ("куди піти на обід в Харкові? я тут живу", "Europe/Kyiv"),
    ],
)
def test_here_is_the_place_of_the_sentence_before(text: str, zone: str) -> None:
    assert proposed(text, "timezone") == [zone]


def test_here_with_no_place_before_proposes_no_zone() -> None:
    assert proposed("hi there. i live here now", "timezone") == []


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Grad student in Kyiv here", False),
        ("a retired teacher in Boise", False),
        ("my students live in Boise", True),
    ],
)
def test_a_role_word_is_the_user_unless_someone_owns_it(text: str, other: bool) -> None:
    place = next(c for c in candidates(text) if c.op.field == "timezone")
    assert ("x:p:other_subj" in place.features()) is other


@pytest.mark.parametrize(
    ("text", "past"),
    [
        ("I live in Almaty and still can't get used to the winters", False),
        ("I live in Almaty, I'm used to the winters", False),
        ("I used to live in Almaty and I still do", True),
    ],
)
def test_getting_used_to_something_is_no_past(text: str, past: bool) -> None:
    place = next(c for c in candidates(text) if c.op.field == "timezone")
    assert ("c:used_to" in place.features()) is past


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("люблю чібереки і плов, мамин особливо", "likes", "чібереки"),
        ("обожнюю вареники з вишнями і борщ з пампушками", "likes", "borscht"),
        ("захоплююсь вишивкою і фотографією", "interests", "photography"),
        ("терпіти не можу родзинки, чесно", "dislikes", "родзинки"),
    ],
)
def test_a_russian_or_ukrainian_list_after_a_verb_of_liking(
    text: str, field: str, value: str
) -> None:
    assert value in proposed(text, field)


@pytest.mark.parametrize(
    "text", ["я люблю тебя", "люблю когда тихо", "обожнюю, коли ти так пишеш", "люблю гулять"]
)
def test_no_thing_after_a_verb_of_liking_proposes_nothing_open(text: str) -> None:
    assert [c for c in candidates(text) if c.origin == "open"] == []


@pytest.mark.parametrize(
    ("text", "tone"),
    [
        ("Также предпочитаю официальный тон и ответы списком", "formal"),
        ("Будь подружелюбнее, ладно?", "friendly"),
        ("можна сухо й по ділу, без співчуття", "to the point"),
        ("а можно поподробнее в следующий раз", "detailed"),
    ],
)
def test_a_tone_said_as_a_comparative_or_a_preference_is_the_tone_not_a_note(
    text: str, tone: str
) -> None:
    assert proposed(text, "tone") == [tone]
    assert proposed(text, "notes") == []


@pytest.mark.parametrize(
    "text",
    [
        "Знаєте, тепер можна розгорнуто, з деталями",
        "пиши розгорнуто, мені так зрозуміліше",
        "go into more detail from now on pls",
        "ok changed my mind, the short answers are too short. more detail please",
    ],
)
def test_detail_asked_for_in_everyday_words_is_the_detailed_tone(text: str) -> None:
    assert [op.value for op in understand(text).ops if op.field == "tone"] == ["detailed"]


@pytest.mark.parametrize(
    "text",
    [
        "the devil is in the details",
        "tell me the details of the contract",
        "детали позже",
        "more details about the hotel please",
        "in more detail, the engine failed",
        "I'm a more detail-oriented person",
        "please send me an email with details",
        "пришли письмо с деталями, пожалуйста",
    ],
)
def test_details_as_a_thing_are_no_tone(text: str) -> None:
    assert proposed(text, "tone") == []


@pytest.mark.parametrize(
    "text",
    [
        "колено полетело, теперь хожу в бассейн",  # Pathein
        "предлагай места куда можно доехать на метро",  # Metro, Indonesia
        "щуку больше не предлагай. судака оставь",  # Sudak
        "Свободна обычно с утра, до 11:00",  # Svobodnyy
        "fully recovered, back to normal",  # Normal, Illinois
        "i'm a PhD candidate, marine biology",  # New Philadelphia
    ],
)
def test_an_everyday_word_that_some_town_is_named_sets_no_zone(text: str) -> None:
    assert proposed(text, "timezone") == []


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("живу в одесі", "Europe/Kyiv"),
        ("хабаровск на связи", "Asia/Vladivostok"),
        ("moved to nice last year", "Europe/Paris"),
    ],
)
def test_a_lower_case_place_said_as_home_still_sets_its_zone(text: str, zone: str) -> None:
    assert proposed(text, "timezone") == [zone]


@pytest.mark.parametrize(
    ("text", "zones"),
    [
        ("back when i lived in Oslo i skied every weekend", []),
        ("spent 2019 living in Hanoi, loved it", []),
        ("в 2017 я жил в Новосибирске, там зимы жуткие", []),
        ("у 2018 я жила у Кракові, там такі смачні обварзанки", []),
        ("я мешкав у Львові три роки", []),  # "мешкав" alone reads as a Russian gerund
        ("Раньше жил в Хабаровске, а теперь в Ульяновске.", ["Europe/Ulyanovsk"]),
        ("i've lived in Berlin since 2019", ["Europe/Berlin"]),
        ("i've lived in Vienna for ten years", ["Europe/Vienna"]),
        ("я жила в Одесі все життя і досі тут", ["Europe/Kyiv"]),
    ],
)
def test_a_home_in_the_past_tense_sets_no_zone(text: str, zones: list[str]) -> None:
    assert proposed(text, "timezone") == zones


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("utrecht. i cycle everywhere", "Europe/Amsterdam"),
        ("boise. nurse. nights. free 2-6pm.", "America/Boise"),
        ("hola! que tal", None),  # Hola, Kenya: 21,000 people
        ("aloha! what's a good breakfast", None),  # Aloha, Oregon
        ("selam, how are you", None),  # one of Salem's other names
        ("Hola is where i live now", "Africa/Nairobi"),  # with its capital it is the town
        ("Hola, Sofía aquí, desde Madrid", "Europe/Madrid"),  # a greeting, then a comma
        ("Aloha! what's a good breakfast", None),
        ("Utrecht, i cycle everywhere", "Europe/Amsterdam"),
        ("Саратов, если это важно", "Europe/Saratov"),
    ],
)
def test_a_lower_case_word_opening_a_message_is_a_place_only_if_a_big_citys_own_name(
    text: str, zone: str | None
) -> None:
    assert proposed(text, "timezone") == ([zone] if zone else [])


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("hi im liam, dublin. budget's flexible", "Europe/Dublin"),
        ("hi, rafael here, são paulo. omnivore", "America/Sao_Paulo"),
        ("nz, auckland", "Pacific/Auckland"),
        ("so we went to the market, then lunch, then lisbon was great", None),
        ("i think the trip was fine overall, lisbon.", None),
    ],
)
def test_a_lower_case_city_as_a_fragment_of_an_introduction(text: str, zone: str | None) -> None:
    assert proposed(text, "timezone") == ([zone] if zone else [])


def test_here_reads_only_the_end_of_a_long_sentence_before() -> None:
    pasted = "word " * 600 + "and the office is in Girona?"
    (place,) = candidates(f"{pasted} i live here")
    assert place.op.value == "Europe/Madrid"
    assert len(place.sentence) <= HERE_REACH + len(", i live here")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Меня Ира зовут, пиши списками", "Ира"),
        ("Hi, myself Karthik, working in Singapore", "Karthik"),
        ("Ирина Петровна, так меня и называйте", "Ирина Петровна"),
        ("I would appreciate concise replies.\n\nRegards,\n— Ingrid Solberg", "Ingrid"),
        ("З повагою, Олена", "Олена"),
    ],
)
def test_a_name_in_another_order_or_in_a_signature(text: str, name: str) -> None:
    assert proposed(text, "name") == [name]


@pytest.mark.parametrize(
    "text", ["— Привет", "— Да, конечно", "myself and my wife love sushi", "Thanks, Monday works"]
)
def test_a_line_of_dialogue_or_a_thank_you_names_no_one(text: str) -> None:
    assert proposed(text, "name") == []


def test_here_is_read_beside_other_proposals_of_its_sentence() -> None:
    text = "куди піти на обід в Харкові? я тут живу, і я вегетаріанка"
    assert proposed(text, "timezone") == ["Europe/Kyiv"]
    assert proposed(text, "diet") == ["vegetarian"]


@pytest.mark.parametrize(
    ("text", "tones"),
    [
        ("у меня бюджет минимальный и хочу короткие блоки по 10-15 минут", []),
        ("давай короткие тексты", ["brief"]),
        ("хочу коротко", ["brief"]),
    ],
)
def test_a_tone_word_describing_something_else_is_no_tone(text: str, tones: list[str]) -> None:
    assert proposed(text, "tone") == tones


def candidate_ops(text: str) -> set[tuple[str, str, str]]:
    """(kind, field, value) of every proposal, before the gate."""
    return {(c.op.kind, c.op.field, c.op.value) for c in candidates(text)}


@pytest.mark.parametrize(
    ("text", "removed", "kept"),
    [
        ("бокс кинув, тепер тільки плавання 🏊", "boxing", "swimming"),
        ("гітару закинула, пальці болять 😅 а от йогу продовжую", "guitar", "yoga"),
        ("stopped running after the race, knee is done", "running", "motorsport"),
        ("not doing photography anymore, it's all about the guitar now", "photography", "guitar"),
    ],
)
def test_giving_up_a_hobby_does_not_reach_the_one_kept(text: str, removed: str, kept: str) -> None:
    ops = candidate_ops(text)
    assert ("remove", "interests", removed) in ops
    assert ("remove", "interests", kept) not in ops


@pytest.mark.parametrize(
    "text",
    ["i quit chess, yoga and running", "шахматы и йогу забросил", "quit running and swimming"],
)
def test_giving_up_a_list_of_hobbies_gives_up_each(text: str) -> None:
    removed = {value for kind, field, value in candidate_ops(text) if kind == "remove"}
    assert len(removed) >= 2


@pytest.mark.parametrize(
    ("text", "interest"),
    [
        ("бокс кинув, тепер тільки плавання", "swimming"),
        ("серфінгом займаюсь, хвилі тут класні", "surfing"),
        ("big rugby fan and love a good flat white", "rugby"),
        ("в шахматы играю по выходным", "chess"),
    ],
)
def test_a_hobby_after_a_contrast_or_before_its_verb_is_the_users(text: str, interest: str) -> None:
    assert ("add", "interests", interest) in candidate_ops(text)


def test_a_refusal_does_not_reach_past_only() -> None:
    ops = candidate_ops("i don't eat meat, only fish")
    assert ("add", "avoid", "fish") not in ops


@pytest.mark.parametrize(
    ("text", "refused", "kept"),
    [
        ("i don't eat pork, only chicken and beef", "pork", "chicken"),
        ("no dairy, except butter", "dairy", "butter"),
        ("no red meat for me, chicken is fine", "red meat", "chicken"),
        ("i can't eat shellfish, fish is fine", "shellfish", "fish"),
        ("не ем свинину, только курицу", "pork", "chicken"),
        ("не ем свинину, кроме курицы", "pork", "chicken"),
        ("без молочного, сливочное масло можно", "dairy", "butter"),
        ("не їм свинину, тільки курку", "pork", "chicken"),
        ("без цибулі, часник можна", "onion", "garlic"),
    ],
)
def test_a_refusal_does_not_reach_what_it_leaves_in(text: str, refused: str, kept: str) -> None:
    """The exception at the end of a list of refusals is what the user eats: banning
    it is the opposite of what they said."""
    ops = candidate_ops(text)
    assert ("add", "avoid", refused) in ops
    assert not {op for op in ops if op[0] == "add" and op[2] == kept}


@pytest.mark.parametrize(
    ("text", "refused", "eaten"),
    [
        ("я пескетарианка, рыбу ем, мясо нет", "meat", "fish"),
        ("я пескетаріанка, рибу їм, м'ясо ні", "meat", "fish"),
        ("Яйца и молочное ем, мясо и рыбу — нет", "meat", "eggs"),
        ("fish yes meat no", "meat", "fish"),
        ("без молока, рыбу ем", "dairy", "fish"),
        ("я не ем мясо, рыбу ем", None, "fish"),
        ("мясо не ем, рыба мені подобається", "meat", "fish"),
        ("рыбу мне нельзя, а курица мне нравится", "fish", "chicken"),
        ("каву п’ю, алкоголь — ні", "alcohol", "coffee"),
        # The verb before the thing, as often as after it.
        ("ем курицу и индейку, красное мясо нет", "red meat", "chicken"),
        ("свинину не ем, ем курицу и индейку", "pork", "turkey"),
        ("їм рибу, м'ясо ні", "meat", "fish"),
        ("я пескетарианка, ем рыбу и морепродукты, мясо нет", "meat", "fish"),
        # A spaced hyphen parts a sentence as a dash does.
        ("без молока - рыбу ем", "dairy", "fish"),
    ],
)
def test_a_thing_with_its_own_verb_is_not_refused(
    text: str, refused: str | None, eaten: str
) -> None:
    """ "рыбу ем, мясо нет": the refusal after the fish is the meat's, and a refusal
    before it does not reach a thing with a verb of its own. Read the other way, the
    profile bans what the user said they eat."""
    ops = candidate_ops(text)
    assert ("add", "avoid", eaten) not in ops
    if refused is not None:
        assert ("add", "avoid", refused) in ops


@pytest.mark.parametrize(
    "text",
    [
        "я їм все, без обмежень, м'ясо люблю",
        "без обмежень, м'ясо люблю",
    ],
)
def test_a_segment_with_a_verb_of_its_own_ends_a_list(text: str) -> None:
    """ "без обмежень, м'ясо люблю": the meat is loved, not one more thing "без"."""
    assert ("add", "avoid", "meat") not in candidate_ops(text)


@pytest.mark.parametrize(
    ("text", "field", "refused"),
    [
        ("i don't eat pork or drink obviously", "avoid", "pork"),
        ("рыбу не ем", "avoid", "fish"),
        ("свинину не  ем", "avoid", "pork"),
        ("без молока, сыр не ем", "avoid", "dairy"),
        ("креветки и мидии мне нельзя — аллергия", "avoid", "mussels"),
        # "да" is "and", "так" is "so" or "still" as often as "yes".
        ("молоко да сыр не ем", "avoid", "dairy"),
        ("мясо так и не ем", "avoid", "meat"),
        ("свинину так і не їм", "avoid", "pork"),
        ("орехи да арахис - аллергия", "allergies", "nuts"),
        ("горіхи так, алергія", "allergies", "nuts"),
        ("лук так не люблю", "dislikes", "onion"),
        ("молоко да не люблю я его", "dislikes", "dairy"),
        # "yes" keeps out only a refusal of an earlier part.
        ("im allergic to peanuts yes", "allergies", "peanuts"),
        # A verb of having with no other thing after it: the refusal is this thing's.
        ("кофе пью редко, не люблю", "dislikes", "coffee"),
        # A Ukrainian noun the Russian analyser would guess to be a verb is an item.
        ("алергія на горіхи, полуницю", "allergies", "strawberries"),
        ("алергія на цитрусові, лимони, мандарини", "allergies", "tangerines"),
        ("алергія на котів, пил", "allergies", "dust"),
        ("аллергия на орехи, суши", "allergies", "sushi"),
        ("не переношу цибулю, капусту, квасолю", "dislikes", "beans"),
        # A verb negated a word away ends no list: "не очень люблю".
        ("не люблю лук, чеснок, рыбу не очень люблю", "dislikes", "fish"),
        ("не люблю цибулю, рибу теж не дуже люблю", "dislikes", "fish"),
        ("аллергия на орехи, молоко не очень переношу", "allergies", "dairy"),
        # Nor does a verb that tells the reaction or hedges.
        ("алергія на горіхи, від полуниці теж висипає", "allergies", "strawberries"),
        ("алергія на пилок, котів, від пилу чхаю", "allergies", "dust"),
        ("алергія на горіхи, мед, здається ще на ківі", "allergies", "kiwi"),
        # "yes" after a refusal is agreement.
        ("i hate onions, garlic yes too", "dislikes", "garlic"),
        ("allergic to peanuts, shellfish yes", "allergies", "shellfish"),
        ("allergic to: peanuts yes and shellfish", "allergies", "peanuts"),
        # A verb of having negated a word away is no verb of having: "не особо ем".
        ("не ем свинину, говядину не особо ем", "avoid", "beef"),
        ("я не ем мясо, молоко не особо пью", "avoid", "dairy"),
        # An allergy's later part tells what eating it does.
        ("алергія на горіхи, мед їм і одразу висипає", "allergies", "honey"),
        ("аллергия на молоко, сыр ем — сразу живот болит", "allergies", "cheese"),
    ],
)
def test_a_refusal_stays_where_no_verb_of_having_stands(
    text: str, field: str, refused: str
) -> None:
    ops = candidate_ops(text)
    assert ("add", field, refused) in ops
    assert ("add", "likes", refused) not in ops


@pytest.mark.parametrize("text", ["грибы не очень люблю", "рибу не дуже люблю"])
def test_a_verb_of_liking_negated_a_word_away_is_no_like(text: str) -> None:
    assert not [op for op in candidate_ops(text) if op[1] == "likes"]


_OTHER_STANCE = {"likes": "dislikes", "dislikes": "likes"}


@pytest.mark.parametrize(
    ("text", "stance", "thing"),
    [
        # "не очень люблю": the rules read "очень люблю рыбу" as a like.
        ("я не очень люблю рыбу", "dislikes", "fish"),
        ("мне не очень нравится рыба", "dislikes", "fish"),
        ("не дуже люблю каву", "dislikes", "coffee"),
        ("мені не дуже подобається кава", "dislikes", "coffee"),
        # "не так ... как" compares: both are liked.
        ("мне не так нравится рыба, как мясо", "likes", "meat"),
        ("не так люблю каву, як чай", "likes", "tea"),
        # The "не" of another verb: "не пью", then "люблю чай".
        ("кофе не пью люблю чай", "likes", "tea"),
    ],
)
def test_a_softened_negation_dislikes_and_a_comparison_does_not(
    text: str, stance: str, thing: str
) -> None:
    ops = candidate_ops(text)
    assert ("add", stance, thing) in ops
    assert ("add", _OTHER_STANCE[stance], thing) not in ops


@pytest.mark.parametrize(
    ("text", "field", "refused"),
    [
        ("no onions, garlic, or peppers please", "avoid", {"onion", "garlic", "bell peppers"}),
        ("без цибулі, часнику і перцю", "avoid", {"onion", "garlic", "bell peppers"}),
        ("no onions, garlic either", "avoid", {"onion", "garlic"}),
        ("без цибулі, часник теж не можна", "avoid", {"onion", "garlic"}),
        (
            "i'm allergic to tree nuts, mainly walnuts and cashews",
            "allergies",
            {"walnuts", "cashews"},
        ),
        (
            "cutting out caffeine even tho my doctor said one coffee a day is fine",
            "avoid",
            {"caffeine"},
        ),
    ],
)
def test_a_list_of_refusals_still_refuses_each(text: str, field: str, refused: set[str]) -> None:
    added = {value for kind, f, value in candidate_ops(text) if (kind, f) == ("add", field)}
    assert refused <= added


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("nursing student so budget is basically zero lol", "minimal"),
        ("got a raise, mid range stuff is totally fine budget-wise", "medium"),
        ("копим на ипотеку, бюджет жёсткий, всё по самому минимуму", "minimal"),
        ("після скорочення економлю як можу, шукай тільки найдешевше", "minimal"),
        ("budget doesn't really matter for gear", "flexible"),
    ],
)
def test_a_budget_said_in_other_words(text: str, level: str) -> None:
    assert ("set", "budget", level) in candidate_ops(text)


@pytest.mark.parametrize(
    "text",
    [
        "i will eat literally anything except cilantro",
        "ok real context: i eat meat, i just want to eat less of it",
        "я мясоед и горжусь",
        "але я як їв усе так і буду",
    ],
)
def test_eating_everything_is_an_omnivore(text: str) -> None:
    assert ("set", "diet", "omnivore") in candidate_ops(text)


def test_a_list_after_a_heading_is_read_to_its_end() -> None:
    ops = candidate_ops("my favourite bands: radiohead, portishead, massive attack")
    assert {("add", "likes", v) for v in ("radiohead", "portishead", "massive attack")} <= ops
    assert ("add", "likes", "pho") in candidate_ops("fav foods: pho, khachapuri and dumplings")


def test_without_a_heading_a_list_stops_at_an_unknown_segment() -> None:
    ops = candidate_ops("i love radiohead, can you suggest a concert")
    assert not any("suggest" in value for _, _, value in ops)


@pytest.mark.parametrize(
    ("text", "interests"),
    [
        (
            "yo im Jayden, 15, mostly play valorant and minecraft after school",
            {"valorant", "minecraft"},
        ),
        ("we play tennis on sundays", {"tennis"}),
        ("i've been taking salsa classes 3x a week", {"salsa"}),
    ],
)
def test_what_the_user_plays_or_takes_classes_in_is_an_interest(
    text: str, interests: set[str]
) -> None:
    found = {value for kind, field, value in candidate_ops(text) if field == "interests"}
    assert interests <= found


@pytest.mark.parametrize(
    ("text", "interest"),
    [
        ("i'm a big reader, mostly sci fi", "reading"),
        ("i'm a swimmer, pool 4 mornings a week", "swimming"),
        ("I am a keen cyclist", "cycling"),
        ("i’m a runner", "running"),
        ("i'm a gardener, mostly tomatoes", "gardening"),
        ("i'm a hiker and a climber", "climbing"),
        ("i don't smoke, i knit", "knitting"),
        ("i'm a guitarist in a cover band", "guitar"),
    ],
)
def test_what_the_user_is_names_the_activity(text: str, interest: str) -> None:
    """An agent noun names its activity by a closed rule of English word formation:
    "-er"/"-ist" for "-ing", "-y" or nothing (`lexicon._activity_of_agent`)."""
    assert ("add", "interests", interest) in set(candidate_ops(text))


@pytest.mark.parametrize(
    "text",
    [
        "I have a slow cooker",
        "my manager is a teacher",
        "boxers or briefs",
        "i can't stand racists",
        "i love my boxer, she's 3",
        "i love joggers, so comfy",
        "i'm a carer for my mum",
        "i love Blade Runner",
        "my wife is a runner",
        "i'm a professional psychologist",
        "i'm a former runner",
        "i'm a bargain hunter",
        "i'm a nurse and a former swimmer",
        "it's not like i knit",
    ],
)
def test_an_agent_noun_not_said_of_the_user_or_of_no_activity_names_none(text: str) -> None:
    """Only "i'm a …" says what the user is; elsewhere such words name a thing or someone
    else, and some only look like an activity's doer (`lexicon._NOT_AGENTS`)."""
    assert not [op for op in candidate_ops(text) if op[1] == "interests"]


@pytest.mark.parametrize(
    ("text", "not_meant"),
    [
        ("I like to keep busy", "startups"),
        ("im a busy nurse and i enjoy easy dinners", "startups"),
        ("i love the pool at our gym", "billiards"),
        ("I'm allergic to animals", "anime"),
        ("I love physical activity", "physics"),
        ("I like polite people", "politics"),
        ("I love beautiful sunsets", "makeup"),
        ("I like classic rock", "classical music"),
        ("I'm into natural wine", "nature"),
        ("I hate the cold, chilly mornings are the worst", "chili peppers"),
        ("I like oliver's cooking", "olives"),
        ("I LIKE OLIVER'S COOKING", "olives"),
        # A noun's plural and a verb's past name different things.
        ("i'm allergic to rolled oats", "sushi"),
        ("i'm allergic to seeded bread", "sunflower seeds"),
        ("i like fried chicken", "french fries"),
    ],
)
def test_a_word_that_shares_a_stem_with_a_term_is_not_that_term(text: str, not_meant: str) -> None:
    """Snowball stems "busy" as "business", "animals" as "anime" and "physical" as
    "physics"; an English word names a term by its stem only as an inflection of one of
    the term's words, or a form of the same verb (`lexicon._english_stem_misleads`). A
    pool is a swimming pool more often than a game, and no longer names billiards."""
    assert not [op for op in candidate_ops(text) if op[2] == not_meant]


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("i run every morning", "running"),
        ("i sailed every summer as a kid", "sailing"),
        ("i hunted deer with my dad", "hunting"),
        ("i'm a kayaker", "kayaking"),
        ("i danced salsa for years", "dancing"),
        ("allergic to shrimps", "seafood"),
        ("i love party games", "parties"),
        ("i hate mushroom soup", "mushrooms"),
        ("i love strawberry jam", "strawberries"),
        ("i love cherry pie", "cherries"),
        ("i love cheeses", "cheese"),
        ("i ski", "skiing"),
        ("i play snooker every friday", "billiards"),
        ("into startups and entrepreneurship", "startups"),
    ],
)
def test_a_term_is_named_by_the_inflections_of_its_words(text: str, meant: str) -> None:
    assert [op for op in candidate_ops(text) if op[2] == meant]


@pytest.mark.parametrize("text", ["i play with my kids on weekends", "i play it safe with money"])
def test_playing_with_someone_or_safe_is_no_interest(text: str) -> None:
    assert not [op for op in candidate_ops(text) if op[1] == "interests"]


def test_breaking_a_bone_is_no_budget_and_writing_fiction_no_tone_rule() -> None:
    assert not [op for op in candidate_ops("broke my wrist skateboarding") if op[1] == "budget"]
    assert ("set", "budget", "minimal") in candidate_ops("i'm broke, cheap eats only")
    found = [c for c in candidates("i write short fiction myself") if c.op.field == "tone"]
    assert all(c.origin != "rules" for c in found)


def test_a_ukrainian_list_joined_by_i_is_two_items() -> None:
    liked = {v for k, f, v in candidate_ops("люблю борщ і вареники") if f == "likes"}
    assert {"borscht", "varenyky"} <= liked
    assert not [v for v in proposed("люблю ризото і все з трюфелем", "likes") if " і " in v]


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("i live in ghent and my grocery budget is medium", "Europe/Brussels"),
        ("developer in cluj, game dev hobby in godot", "Europe/Bucharest"),
    ],
)
def test_a_big_citys_other_name_in_lower_case_is_the_city(text: str, zone: str) -> None:
    assert zone in proposed(text, "timezone")


@pytest.mark.parametrize(
    "text", ["i was in bed all day", "back in town tomorrow", "in time for dinner"]
)
def test_a_lower_case_everyday_word_after_in_is_no_city(text: str) -> None:
    assert proposed(text, "timezone") == []


def test_where_the_user_works_here_is_the_place_before() -> None:
    assert "Asia/Nicosia" in proposed("Лимассол, Кипр. Работаю тут в финтехе.", "timezone")


def test_a_time_read_from_the_whole_sentence_masks_nothing_else_in_it() -> None:
    ops = candidate_ops("розпиши ранкову рутину з 6 до 8 і без кави, я її кинула назовсім")
    assert ("add", "avoid", "coffee") in ops
    assert any(field == "schedule" for _, field, _ in ops)


@pytest.mark.parametrize(
    "text", ["у меня гипертония, соль ограничиваю", "в мене гіпертонія, тому сіль по мінімуму"]
)
def test_salt_cut_down_is_avoided(text: str) -> None:
    assert ("add", "avoid", "salt") in candidate_ops(text)


def test_a_thing_the_user_is_an_addict_of_or_has_ten_times_a_day_is_liked() -> None:
    assert ("add", "likes", "tea") in candidate_ops("istanbul. tea x10/day. don't judge")
    assert ("add", "likes", "coffee") in candidate_ops("coffee addict, guilty")


def test_the_name_to_use_outranks_the_name_given() -> None:
    for text, called in (
        ("I'm Aleksandr, but everyone calls me Sasha, and so should you.", "Sasha"),
        ("мене звати Олександр, але всі кличуть Сашко, то й ти так клич", "Сашко"),
    ):
        proposed = [c.op.value for c in candidates(text) if c.op.field == "name"]
        assert proposed == [called]
    assert [c.op.value for c in candidates("Hi, I'm Marta") if c.op.field == "name"] == ["Marta"]


def test_a_title_spelled_out_stays_with_the_name() -> None:
    for text, called in (
        ("Formal, please. I am Professor Hartmann.", "Professor Hartmann"),
        ("my name is Doctor Okafor", "Doctor Okafor"),
        ("I'm Dr. Okafor", "Dr. Okafor"),
    ):
        assert [c.op.value for c in candidates(text) if c.op.field == "name"] == [called]


def test_an_emoji_stands_between_words_as_punctuation_does() -> None:
    for text in ("hey 👋 im Kenji", "hi 🙂 I am Kenji", "👋 im Kenji. i like indie games"):
        assert [c.op.value for c in candidates(text) if c.op.field == "name"] == ["Kenji"]
    # An emoji and a space end a sentence, so the boyfriend's steak is not read with
    # the user's diet.
    assert [c.sentence for c in candidates("im vegan 🌱 my bf eats steak though 🙄")][0] == (
        "im vegan 🌱"
    )
    # A note keeps the user's words, not the gap an emoji left.
    notes = [c.op.value for c in candidates("всегда пиши цены в гривнях 💸💸, так удобнее")]
    assert notes == ["всегда пиши цены в гривнях , так удобнее"]


@pytest.mark.parametrize(
    ("text", "called"),
    [
        ("я програміст, зви мене Макс. пиши коротко", "Макс"),
        ("кличь мене просто Саша, Олександр звучить як у податковій", "Саша"),
        ("знаєш, всі мене кличуть Марічка, то й ти так кликай", "Марічка"),
        ("можеш мене називати Фросею, це з дитинства так", "Фрося"),
        ("Я Олександра, але можна просто Саша", "Саша"),
        ("btw go by Jo, everyone does", "Jo"),
        ("heyy im Tomás, from buenos aires", "Tomás"),
        ("hiiii im Priya, 2nd year chem eng at Waterloo", "Priya"),
    ],
)
def test_the_name_to_call_the_user_by_in_any_form_of_the_verb(text: str, called: str) -> None:
    assert [c.op.value for c in candidates(text) if c.op.field == "name"] == [called]


@pytest.mark.parametrize(
    "text",
    ["мама меня называет Котёнок", "кум каже що мене треба звати Дімон Шеф 😂"],
)
def test_a_pet_name_or_a_joke_about_one_is_no_name(text: str) -> None:
    assert [c.op.value for c in candidates(text) if c.op.field == "name"] == []


@pytest.mark.parametrize(
    "text",
    ["I am Greek, living in Athens", "I'm Canadian, so metric everything and celsius please"],
)
def test_a_nationality_is_no_name(text: str) -> None:
    assert [c.op.value for c in candidates(text) if c.op.field == "name"] == []
    assert [c.op.value for c in candidates("hi I'm Jordan") if c.op.field == "name"] == ["Jordan"]


def test_red_meat_and_raw_fish_are_not_all_meat_and_fish() -> None:
    assert ("add", "avoid", "red meat") in candidate_ops("i don't eat red meat, haven't for years")
    assert ("add", "avoid", "red meat") in candidate_ops("червоне мʼясо не їм, лікарка заборонила")
    pregnant = candidate_ops("на 7 месяце беременности, так что без сырой рыбы пожалуйста")
    assert ("add", "avoid", "raw fish") in pregnant
    assert ("add", "avoid", "fish") not in pregnant


@pytest.mark.parametrize(
    "text",
    [
        "client wants the proposal short. so for THIS doc keep it tight pls",
        "сёдня можешь подробно разжевать про async в питоне, я в поезде",
    ],
)
def test_a_request_for_one_piece_of_work_changes_nothing(text: str) -> None:
    assert understand(text, held={"tone": ["detailed"]}).ops == ()


def test_an_avoided_food_the_diet_rules_out_is_the_diets() -> None:
    said = values("я вегетаріанець, тож рецепти без мʼяса")
    assert ("set", "diet", "vegetarian") in said
    assert not [v for v in said if v[1] == "avoid"], said
    vegan = {"diet": ["vegan"]}
    assert not [o for o in understand("no eggs please", held=vegan).ops if o.field == "avoid"]
    assert ("add", "avoid", "eggs") in values("no eggs please")  # no diet: the user's own
    assert ("add", "avoid", "gluten") in {
        (o.kind, o.field, o.value) for o in understand("no gluten please", held=vegan).ops
    }
    vegetarian = {"diet": ["vegetarian"]}
    dropped = understand("i stopped being vegetarian. no pork though", held=vegetarian).ops
    assert ("add", "avoid", "pork") in {(o.kind, o.field, o.value) for o in dropped}


def test_spicy_food_liked_beside_a_spice_level_is_the_levels() -> None:
    said = values("острое я обожаю, чем злее тем лучше")
    assert ("set", "spice", "hot") in said and not [v for v in said if v[1] == "likes"]
    held = {"spice": ["mild"]}
    assert all(o.field != "dislikes" for o in understand("i hate spicy food", held=held).ops)
    assert ("add", "likes", "curry") in values("i love curry, medium spice is good")


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("i'm more a jigsaw person, 1000+ pieces the nastier the better", "interests", "puzzles"),
        ("huge F1 nerd here, never miss a race", "interests", "motorsport"),
    ],
)
def test_a_thing_then_what_the_user_is_of_it_is_a_liking(text: str, field: str, value: str) -> None:
    assert value in proposed(text, field)


def test_keeping_it_short_or_quiet_is_no_budget() -> None:
    for text in ("keep it minimal please, no fluff", "keep it low-key, just a quiet dinner"):
        assert not [v for v in values(text) if v[1] == "budget"], text
    assert ("set", "budget", "low") in values("keep it cheap please")


@pytest.mark.parametrize(
    ("text", "standing"),
    [
        ("когда даёшь рецепт, пиши сразу калорийность на порцию", True),
        ("коли радиш готелі, пиши, чи можна з собакою", True),
        ("к каждой тренировке, которую составляешь, добавляй растяжку", True),
        ("когда считаешь бюджет поездки, закладывай 15% сверху", True),
        ("каждый раз, когда предлагаешь ужин, учитывай, что я не ем свинину", True),
        ("коли розв’язуєш задачі, пиши всі кроки", True),  # a typographic apostrophe
        ("когда закончишь, скинь мне файл", False),
        ("коли прочитаєш, відпиши мені", False),
        ("если можешь, посоветуй фильм на вечер", False),
        ("якщо хочеш, приходь до нас у суботу", False),
        ("Як думаєш, японська складна?", False),
        ("когда мама готовит, пахнет на весь дом", False),
        # English marks no aspect: a plural names the kind of task ("podcasts", "drafts")
        ("when you suggest podcasts, tell me how long the episodes are", True),
        ("for email drafts, leave the subject line empty", True),
        ("If you're suggesting restaurants, check whether they take reservations.", True),
        ("if you have a minute, tell me about the news", False),
        ("for this trip, list the museums", False),
        ("when you get a chance, add the dates to my calendar", False),
        ("when my kids visit, we bake pancakes", False),
        ("quick one - for podcast recs: tell me if there are transcripts", True),
        ("for email drafts to Олег, leave the subject line empty", True),
        ("for recipes, use grams from now on", True),
        # a time, a count, a person, a name, one occasion, a statement
        ("in 10 minutes, remind me to call mom", False),
        ("in two days, remind me to pay the rent", False),
        ("when you have 5 minutes, check my calendar", False),
        ("if the meeting runs late, remind me to call John", False),
        ("for my kids, suggest some books", False),
        ("for James, suggest a gift", False),
        ("for these files, use tabs", False),
        ("for recipes, use grams today", False),
        ("For most hotels, check-in is at 3pm", False),
        # particular things, a verb in -s, a set phrase, more words of one occasion
        ("in your answers, use tables", True),
        ("for the slides, use bigger fonts", False),
        ("when you're done with the reports, send them to me", False),
        ("when you get my messages, reply", False),
        ("in case it rains, remind me to take an umbrella", False),
        ("in other words, list the options", False),
        ("for recipes, use grams just this once", False),
        ("for tomorrow's meetings, list the agenda", False),
        ("in thirty mins, remind me to call", False),
        # a kind of thing the assistant makes, named without a condition
        ("в рецептах пиши, на сколько порций получается", True),
        ("для маршрутов предлагай только общественный транспорт", True),
        ("у відповідях пиши коротко", True),
        ("кожен рецепт пиши з калоріями", True),
        # a plural object alone, a preposition read as a noun, a place, people
        ("напоминания про таблетки присылай минут за десять до времени", False),
        ("вещи собирай, мы уезжаем через час", False),
        ("до вечора пиши мені щогодини", False),
        ("на Мальдивах ищи виллы", False),
        ("до листів додавай підпис", True),
        ("до праздников напоминай про подарки", False),  # Russian "до" is "until"
        ("в рецептах на завтра пиши граммы", False),
        ("на днях пиши мне", False),
        ("напоминай мне каждые 10 минут, пока идёт встреча", False),
        ("в рецептах на сегодня пиши граммы", False),
        ("для дітей пиши простіше", False),
        ("ужин предлагай лёгкий", False),
        ("рецепт пиши короче", False),
        # a state, not a task, and an order for once (perfective)
        ("если знаешь, подскажи хороший ресторан рядом", False),
        ("якщо пам'ятаєш, нагадай, як звали того актора", False),
        ("книгу, которую ты советуешь, скинь ссылку", False),
        ("рецепт, который ты даёшь, распечатай", False),
        ("если ты любишь кофе, посоветуй хорошую кофейню", False),
        # the order is for this occasion: "этот", "сейчас", "цей", "зараз"
        ("ты когда считаешь этот бюджет, учитывай мой отпуск в мае", False),
        ("якщо зараз пишеш лист, пиши від мого імені", False),
        ("каждый раз, когда ты так отвечаешь, я злюсь, отвечай нормально сейчас", False),
        # the word of the occasion is about something else
        ("когда даёшь рецепты, пиши калории, сейчас я на диете", True),
        ("коли радиш поїздки, враховуй, що в мене зараз немає машини", True),
        # a Ukrainian order with no Ukrainian letter, which Russian reads as a noun
        ("коли порівнюєш ціни в магазинах, рахуй разом з доставкою", True),
        # a Ukrainian word with an imperative among other readings is no order
        ("коли порівнюєш ціни, три склади я вже бачила", False),
        # a Russian word in a Ukrainian sentence is no Ukrainian order
        ("коли радиш ресторани на наши вихідні, пиши ціни", True),
        # an apology opening the sentence is no order
        ("пробач, коли радиш ресторани, пиши ціни", True),
    ],
)
def test_a_standing_order_is_imperfective_beside_a_task_done_again(
    text: str, standing: bool
) -> None:
    from aniso.profile import slots

    assert slots.standing_task(text) is standing


def test_the_cue_of_a_repeated_task_is_a_notes_cue_only() -> None:
    """On every proposal of the sentence, the cue cost "рецепты давай без глютена, когда
    предлагаешь ужин" its avoided gluten."""
    found = candidates("если советуешь фильмы, учитывай, что я люблю ужасы")
    cues = [(c.op.field, "c:habit" in c.features(None, None)) for c in found]
    assert ("notes", True) in cues
    assert [cue for field, cue in cues if field != "notes"] == [False, False]


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("когда даёшь рецепт, пиши сразу калорийность на порцию", "notes"),
        ("когда закончишь, скинь мне файл", "request"),
        ("коли прочитаєш, відпиши мені", "request"),
        ("если можешь, посоветуй фильм на вечер", "request"),
        ("если знаешь, подскажи хороший ресторан рядом", "request"),
    ],
)
def test_an_order_beside_a_repeated_task_is_a_standing_note(text: str, origin: str) -> None:
    notes = [c for c in candidates(text) if c.op.field == "notes"]
    assert [c.origin for c in notes] == [origin]
    assert ("c:habit" in notes[0].features(None, None)) is (origin == "notes")


@pytest.mark.parametrize(
    "text",
    [
        "когда закончишь, скинь мне файл",
        "коли прочитаєш, відпиши мені",
        "когда приедешь, набери меня",
        "если можешь, посоветуй фильм на вечер",
        "якщо можеш, порадь фільм на вечір",
        "слушай, посоветуй фильм на вечер",
        "when you get a minute, call me",
        "Call me when you get this",
        "when I get home, remind me to call mom",
        "если знаешь, подскажи хороший ресторан рядом",
        "если ты знаешь английский, проверь мой текст",
        "якщо ти знаєш англійську, перевір мій лист",
        "фильм, который ты рекомендуешь, пришли трейлер",
        "план, который ты предлагаешь, распиши по дням",
        "если видишь ошибку в коде, покажи где",
        "если получаешь это сообщение, ответь",
    ],
)
def test_a_one_off_order_beside_a_condition_is_no_note(text: str) -> None:
    assert not [v for v in values(text) if v[1] == "notes"], text


@pytest.mark.parametrize(
    ("text", "interests"),
    [
        ("з хобі в мене настолки і йога", {"board games", "yoga"}),
    ],
)
def test_a_word_for_hobbies_cues_the_list_after_it(text: str, interests: set[str]) -> None:
    """ "хобби" was a cue and its Ukrainian "хобі" was not."""
    proposed = {c.op.value for c in candidates(text) if c.op.field == "interests"}
    assert interests <= proposed
