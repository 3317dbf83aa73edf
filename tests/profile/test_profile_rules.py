"""The rule extractor, EN / RU / UK: statements extract, questions and negations do not."""

from __future__ import annotations

import pytest

from aniso.profile import extract_rules
from aniso.profile.lexicon import lookup, mentions
from aniso.profile.schedule import describe
from aniso.profile.understand import candidates
from aniso.profile.vocab import normalise, restates

Ops = list[tuple[str, str, str]]


def ops(text: str) -> Ops:
    return [(op.kind, op.field, op.value) for op in extract_rules(text).ops]


CASES: list[tuple[str, Ops]] = [
    # Diet, English.
    ("I'm vegetarian.", [("set", "diet", "vegetarian")]),
    ("I am vegan", [("set", "diet", "vegan")]),
    ("I've become a pescatarian", [("set", "diet", "pescatarian")]),
    ("Update: a week ago I stopped eating meat.", [("set", "diet", "vegetarian")]),
    ("I don't eat meat but I still eat fish", [("set", "diet", "pescatarian")]),
    ("I eat meat again", [("set", "diet", "omnivore")]),
    # Diet, Russian and Ukrainian, any inflection.
    ("Я вегетарианка", [("set", "diet", "vegetarian")]),
    ("я вегетарианец", [("set", "diet", "vegetarian")]),
    ("Я уже год вегетарианка", [("set", "diet", "vegetarian")]),
    ("Я стала вегетарианкой", [("set", "diet", "vegetarian")]),
    ("Перешла на вегетарианство", [("set", "diet", "vegetarian")]),
    ("Апдейт: неделю назад перестал есть мясо", [("set", "diet", "vegetarian")]),
    ("Я ем рыбу, но не мясо", [("set", "diet", "pescatarian")]),
    ("я не ем ничего животного", [("set", "diet", "vegan")]),
    ("Я вегетаріанка", [("set", "diet", "vegetarian")]),
    ("Я не їм м'ясо", [("set", "diet", "vegetarian")]),
    # Name.
    ("call me Max", [("set", "name", "Max")]),
    ("My name is Anna Smith", [("set", "name", "Anna Smith")]),
    ("Зови меня Аня.", [("set", "name", "Аня")]),
    ("Меня зовут Анна", [("set", "name", "Анна")]),
    ("Мене звати Оля", [("set", "name", "Оля")]),
    # Format and tone.
    ("Always answer in tables.", [("set", "format", "tables")]),
    ("Use bullet points please.", [("set", "format", "bullet points")]),
    ("Отвечай таблицами", [("set", "format", "tables")]),
    ("Составь план в виде таблицы", [("set", "format", "tables")]),
    ("Ответь маркированным списком", [("set", "format", "bullet points")]),
    ("предпочитаю таблицы или нумерованные шаги", [("set", "format", "tables or numbered steps")]),
    ("Коротко и по делу.", [("set", "tone", "brief and to the point")]),
    ("Отвечай коротко и по делу", [("set", "tone", "brief and to the point")]),
    ("Be brief.", [("set", "tone", "brief")]),
    ("be warm and detailed", [("set", "tone", "warm and detailed")]),
    ("Пиши тепло и развернуто", [("set", "tone", "warm and detailed")]),
    ("Відповідай коротко", [("set", "tone", "brief")]),
    ("answer in Russian", [("set", "language", "ru")]),
    ("Отвечай по-украински", [("set", "language", "uk")]),
    # Time, budget, place.
    ("у меня есть время 06:30-08:30", [("set", "schedule", "06:30-08:30")]),
    ("I'm free after 7 pm on weekdays", [("set", "schedule", "weekdays after 19:00")]),
    ("I'm free Tue/Thu evenings", [("set", "schedule", "Tuesday/Thursday evenings")]),
    ("I only have time early in the morning", [("set", "schedule", "early morning only")]),
    ("бюджет низкий", [("set", "budget", "low")]),
    ("Бюджет теперь высокий", [("set", "budget", "high")]),
    ("у меня бюджет минимальный", [("set", "budget", "minimal")]),
    ("держи бюджет низким", [("set", "budget", "low")]),
    ("my budget is tight", [("set", "budget", "low")]),
    ("Бюджет низький", [("set", "budget", "low")]),
    ("My timezone is Europe/Berlin", [("set", "timezone", "Europe/Berlin")]),
    ("I live in Madrid", [("set", "timezone", "Europe/Madrid")]),
    ("Часовой пояс UTC+3", [("set", "timezone", "Etc/GMT-3")]),
    # Food constraints.
    ("без глютена", [("add", "avoid", "gluten")]),
    ("избегай молочных перекусов", [("add", "avoid", "dairy")]),
    ("молочное все еще нельзя", [("add", "avoid", "dairy")]),
    ("I'm allergic to nuts", [("add", "allergies", "nuts")]),
    ("у меня аллергия на орехи", [("add", "allergies", "nuts")]),
    ("no dairy", [("add", "avoid", "dairy")]),
    ("dairy-free and gluten-free please", [("add", "avoid", "dairy"), ("add", "avoid", "gluten")]),
    ("I'm lactose intolerant", [("add", "allergies", "lactose")]),
    # Likes, dislikes, interests.
    ("люблю кино и йогу", [("add", "interests", "film"), ("add", "interests", "yoga")]),
    ("не люблю толпы", [("add", "dislikes", "crowds")]),
    (
        "Мне нравится острое и я люблю буррито.",
        [("add", "likes", "spicy food"), ("set", "spice", "hot"), ("add", "likes", "burritos")],
    ),
    ("I love steak", [("add", "likes", "steak")]),
    ("I don't like crowds", [("add", "dislikes", "crowds")]),
    (
        "I'm into hiking and classical music",
        [("add", "interests", "hiking"), ("add", "interests", "classical music")],
    ),
    (
        "Мои хобби — дизайн, кино и йога",
        [
            ("add", "interests", "design"),
            ("add", "interests", "film"),
            ("add", "interests", "yoga"),
        ],
    ),
    (
        "Добавь что-то про кино и йогу, я это люблю.",
        [("add", "interests", "film"), ("add", "interests", "yoga")],
    ),
    (
        "I prefer explanations with examples",
        [("add", "notes", "prefers explanations with examples")],
    ),
    # Updates and negations.
    (
        "Апдейт: острая еда больше не подходит",
        [("remove", "likes", "spicy food"), ("set", "spice", "mild")],
    ),
    (
        "spicy food is no longer for me",
        [("remove", "likes", "spicy food"), ("set", "spice", "mild")],
    ),
    ("I no longer like sushi", [("remove", "likes", "sushi")]),
    ("I'm not vegetarian", [("remove", "diet", "vegetarian")]),
    ("Я не вегетарианка", [("remove", "diet", "vegetarian")]),
    ("я больше не веган", [("remove", "diet", "vegan")]),
    (
        "на этой неделе я заболела, нужна только легкая активность дома",
        [("set", "health", "sick: light home activity only")],
    ),
    (
        "I got sick, I can only do light activity at home",
        [("set", "health", "sick: light home activity only")],
    ),
    ("Я выздоровела", [("remove", "health", "")]),
    ("I'm better now", [("remove", "health", "")]),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_statements(text: str, expected: Ops) -> None:
    assert ops(text) == expected


NOTHING = [
    "What is a vegetarian diet?",
    "what is a vegetarian diet",
    "Is a vegan diet healthy",
    "how to cook a vegetarian lasagna",
    "Какие блюда подходят вегетарианцам",
    "Где купить стейк",
    "Что такое вегетарианская диета?",
    "Можно ли вегетарианцам есть рыбу?",
    "Що таке веганство?",
    "If I were vegetarian, I would miss steak",
    "Если бы я была вегетарианкой, что бы я ела",
    "Call me later, ok?",
    "My sister is vegetarian",
    "Помоги написать дружелюбное письмо",
    "Сделай письмо неформальным и упомяни футбол как ледокол.",
    "Посоветуй место на вечер четверга",
    "Сделай список покупок",
    "The shop is open 10:00-22:00",
    "Запомни мой паспорт 1234 567890",
    "Хочу спокойно и без толпы",
    "suggest a vegetarian option",
    "I love you",
]


@pytest.mark.parametrize("text", NOTHING)
def test_questions_hypotheticals_and_requests_extract_nothing(text: str) -> None:
    assert ops(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Как всегда, отвечай таблицами", [("set", "format", "tables")]),
        ("Что касается еды, я вегетарианка", [("set", "diet", "vegetarian")]),
        ("When I travel I love sushi", [("add", "likes", "sushi")]),
    ],
)
def test_statements_that_open_like_questions(text: str, expected: Ops) -> None:
    assert ops(text) == expected


def test_a_request_phrased_as_a_question_still_counts() -> None:
    assert ops("Could you always answer in tables?") == [("set", "format", "tables")]


def test_a_correction_still_restates_the_fact() -> None:
    assert ops("Я же говорила, я вегетарианка") == [("set", "diet", "vegetarian")]


def test_ops_carry_the_users_words_and_evidence() -> None:
    delta = extract_rules("Я вегетарианка, люблю кино и йогу, не люблю толпы.")
    assert [(op.field, op.value, op.said, op.evidence) for op in delta.ops] == [
        ("diet", "vegetarian", "вегетарианка", "Я вегетарианка"),
        ("interests", "film", "кино", "люблю кино и йогу"),
        ("interests", "yoga", "йогу", "люблю кино и йогу"),
        ("dislikes", "crowds", "толпы", "не люблю толпы"),
    ]


def test_ops_come_in_the_order_stated() -> None:
    assert ops("Бюджет теперь высокий, но молочное все еще нельзя") == [
        ("set", "budget", "high"),
        ("add", "avoid", "dairy"),
    ]


@pytest.mark.parametrize(
    ("phrase", "canonical"),
    [
        ("стейки", "steak"),
        ("стейков", "steak"),
        ("steaks", "steak"),
        ("йогу", "yoga"),
        ("йогой", "yoga"),
        ("молочных перекусов", "dairy"),
        ("глютена", "gluten"),
        ("орехов", "nuts"),
        ("острая еда", "spicy food"),
        ("классическую музыку", "classical music"),
        ("толпы", "crowds"),
        ("м'ясо", "meat"),
    ],
)
def test_lexicon_matches_inflected_forms(phrase: str, canonical: str) -> None:
    term = lookup(phrase)
    assert term is not None and term.canonical == canonical


@pytest.mark.parametrize(
    ("text", "absent", "present"),
    [
        # Russian reads "роки" as fates or rock ("рок"), Ukrainian as years ("рік"),
        # with or without a letter only Ukrainian has.
        ("живу в Тбілісі вже два роки, люблю хінкалі", "rock", "khinkali"),
        ("я веганка вже 2 роки", "rock", None),
        ("займаюсь кросфітом вже два роки", "rock", "crossfit"),
        ("на студентських роках я жила на дошираку", "rock", None),
        ("я пив каву з молоком", "beer", "dairy"),
        # A Ukrainian word in another normal form is still the term.
        ("мій брат тримає двох коней", None, "horses"),
        ("не їм нічого м'ясного", None, "meat"),
        ("я в'язала светр цілу зиму", None, "knitting"),
        # Russian words in a Ukrainian message, and a Ukrainian place in a Russian one.
        ("я дуже люблю суши і роли", None, "sushi"),
        ("Переехала в Київ, не ем ничего мясного", None, "meat"),
        ("слушаю рок и джаз", None, "rock"),
        # "поет" is a Ukrainian poet, and how Russians type "поёт" (sings).
        ("она так красиво поет", None, "singing"),
        # A form far likelier another word (`lexicon.build_misreadings`): Ukrainian
        # "року" is "рік" (year) ten times as often as "рок" (rock).
        ("з 2019 року займаюся йогою", "rock", "yoga"),
        ("цього року почала кататися на лижах", "rock", None),
        # A form none of whose readings is the term's sense, in a word of its language:
        # "його" (his) is no yoga, "горит" (burns) no mountains, "пить" no dust,
        # "велика" (big) no bike.
        ("його кіт спить на дивані", "yoga", "cats"),
        ("у меня горит дедлайн", "mountains", None),
        ("люблю пить чай", "dust", "tea"),
        ("сушить волосы феном", "sushi", None),
        ("велика різниця в часі", "cycling", None),
        # The sentence's other words choose the dictionary: "роком" is a year in
        # Ukrainian and rock in Russian; with nothing to go by, Russian.
        ("увлекаюсь роком", None, "rock"),
        ("Живу в Києві, увлекаюсь роком", None, "rock"),
        # The term's own words, and forms only a guess would read otherwise.
        ("люблю гори і ліс", None, "mountains"),
        ("люблю сир з медом", None, "cheese"),
        ("обожаю брокколи", None, "broccoli"),
        ("алергія на пил", None, "dust"),
        ("медитую щоранку", None, "meditation"),
        ("обожнюю чізкейки", None, "cheesecake"),
        ("смотрю видео на ютубе", None, "youtube"),
        # A full adjective names what its noun does: "молочних" is dairy.
        ("молочних не їм", None, "dairy"),
        ("мне 30 лет, люблю лето", None, "summer"),
    ],
)
def test_a_word_names_a_term_only_as_the_dictionaries_read_it(
    text: str, absent: str | None, present: str | None
) -> None:
    found = {m.term.canonical for m in mentions(text)}
    assert absent is None or absent not in found
    assert present is None or present in found


def test_the_misreadings_come_from_the_dictionaries() -> None:
    from aniso.profile.lexicon import build_misreadings

    table = build_misreadings()
    assert ("uk", "року", "rock") in table and ("ru", "року", "rock") not in table
    assert ("ru", "лет", "summer") in table and ("ru", "лета", "summer") not in table
    # Ukrainian "сир" is cheese; the Russian dictionary's "сирый" is no Russian word of it.
    assert ("ru", "сир", "cheese") not in table and ("uk", "його", "yoga") in table
    # Ukrainian "бані" reads as "баня" and "бані": one word, no rival (`SAME_WORD_PREFIX`).
    assert ("uk", "бані", "sauna") not in table
    # A full adjective is of the noun's kind (`_KIND_OF_WORD`): "молочних" is dairy.
    assert ("uk", "молочних", "dairy") not in table
    # Forms are read as written: Ukrainian "м'ясі" is meat, whatever "мясі" is.
    assert ("uk", "мясі", "meat") not in table


def test_each_sentence_is_read_in_its_own_language() -> None:
    # "року" is a year in the Ukrainian sentence, "роком" rock in the Russian one.
    text = "Цього року почала займатися йогою. Я увлекаюсь роком"
    said = {text[m.start : m.end]: m.term.canonical for m in mentions(text)}
    assert "року" not in said and said.get("роком") == "rock"


@pytest.mark.parametrize(
    ("field", "said", "value"),
    [
        ("diet", "вегетарианство", "vegetarian"),
        ("diet", "Vegan", "vegan"),
        ("budget", "гибкий", "flexible"),
        ("budget", "небольшой", "low"),
        ("budget", "большой", "high"),
        ("tone", "тёплый, развернутый", "warm and detailed"),
        ("tone", "сдержанно и по делу", "reserved and to the point"),
        ("tone", "неформально", "informal"),
        ("format", "маркированные списки", "bullet points"),
        ("format", "короткие абзацы", "short paragraphs"),
        ("format", "давай пунктами", "bullet points"),
        ("format", "по пунктах", "bullet points"),
        ("budget", "money isn't much of a constraint", "flexible"),
        ("language", "русский", "ru"),
        ("timezone", "Europe/Moscow", "Europe/Moscow"),
        ("timezone", "Москва", "Europe/Moscow"),
        ("schedule", "будни после 19:00", "weekdays after 19:00"),
        ("interests", "кино", "film"),
        ("interests", "skydiving", "skydiving"),
    ],
)
def test_normalise(field: str, said: str, value: str) -> None:
    assert normalise(field, said) == value


@pytest.mark.parametrize(
    ("field", "said"), [("diet", "keto-ish"), ("budget", "purple"), ("timezone", "Mars/Base")]
)
def test_closed_fields_refuse_unknown_values(field: str, said: str) -> None:
    assert normalise(field, said) is None


def test_schedule_descriptions() -> None:
    assert describe("с 6:30 до 8:30") == "06:30-08:30"
    assert describe("после 7 вечера по будням") == "weekdays after 19:00"
    assert describe("вечера вт/чт") == "Tuesday/Thursday evenings"
    assert describe("просто текст") is None


def test_restating_part_of_a_value() -> None:
    assert restates("schedule", "after 19:00", "weekdays after 19:00")
    assert restates("tone", "brief", "brief and to the point")
    assert not restates("schedule", "06:30-08:30", "early morning only")
    assert not restates("budget", "low", "minimal")


def test_a_duration_after_after_is_no_time_of_day() -> None:
    for text in ("so... after 5 yrs i'm switching to vegetarian", "after 3 wks off i'm free again"):
        assert not [op for op in extract_rules(text).ops if op.field == "schedule"]


def test_a_word_that_names_no_thing_is_no_item() -> None:
    text = "я снова ем мясо, но свинину пока не хочу. и оливки ненавижу как и раньше"
    values = {c.op.value for c in candidates(text)}
    assert not values & {"как", "раньше"}
    assert "olives" in values


@pytest.mark.parametrize(
    ("phrase", "item"),
    [
        ("factorio way too much", "factorio"),
        ("nasi goreng too", "nasi goreng"),
        ("carrom again", "carrom"),
        ("stardew a lot", "stardew"),
        ("board games", "board games"),
        ("vitamin a", "vitamin a"),
        ("milky way", "milky way"),
    ],
)
def test_an_unknown_item_ends_before_when_or_how_much(phrase: str, item: str) -> None:
    from aniso.profile.rules import clean_unknown

    assert clean_unknown(phrase) == item
