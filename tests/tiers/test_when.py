"""Time in words, resolved to dates when a message is stored and when a question asks."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from helpers import found_on_reopen

from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.services import make_memory
from aniso.tiers import when
from aniso.tiers.index import lexical, reindex

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("I went to the support group yesterday", date(2023, 5, 7)),
        ("Last Saturday we went camping with the kids", date(2023, 5, 6)),
        ("We moved here two weeks ago", date(2023, 4, 24)),
        ("i ran a charity race last week", date(2023, 5, 1)),
        ("В прошлую пятницу я ходил в кино", date(2023, 5, 5)),
        ("позавчера была гроза", date(2023, 5, 6)),
        ("3 дня назад сломалась машина", date(2023, 5, 5)),
        ("у пʼятницю була гроза", date(2023, 5, 5)),
        ("Вчора ми ходили в парк", date(2023, 5, 7)),
        ("минулої суботи була вечірка", date(2023, 5, 6)),
        ("Мы были в Сочи 3 мая", date(2023, 5, 3)),
        ("the show is on October 13, 2023", date(2023, 10, 13)),
        # every form of a counted unit, and one unit with no count
        ("5 дней назад я уволился", date(2023, 5, 3)),
        ("2 тижні тому ми переїхали", date(2023, 4, 24)),
        ("пʼять днів тому був дощ", date(2023, 5, 3)),
        ("неделю назад мы ходили в поход", date(2023, 5, 1)),
        ("тиждень тому я захворів", date(2023, 5, 1)),
        ("через 5 дней у меня отпуск", date(2023, 5, 13)),
        ("пару дней назад сломался ноутбук", date(2023, 5, 6)),
    ],
)
def test_a_day_said_in_words_is_resolved_against_when_it_was_said(text: str, day: date) -> None:
    assert f"td{day:%Y%m%d}" in when.terms(text, MONDAY)


@pytest.mark.parametrize(
    ("text", "month"),
    [
        ("When did Melanie go camping in June?", "tm202206"),  # the latest June not after
        ("в мае мы ездили на дачу", "tm202305"),
        ("у березні ми поїхали до Львова", "tm202303"),
        ("два месяца назад я переехал", "tm202303"),
        ("see you in March", "tm202303"),
        ("місяць тому я змінила роботу", "tm202304"),
        ("полгода назад мы поженились", "tm202211"),
        ("три месяца назад", "tm202302"),
    ],
)
def test_a_month_said_in_words(text: str, month: str) -> None:
    assert month in when.terms(text, MONDAY)


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("10 років тому я жив у Харкові", "ty2013"),
        ("пять лет назад я бросил курить", "ty2018"),
        ("год назад я начал бегать", "ty2022"),
        ("рік тому ми познайомились", "ty2022"),
    ],
)
def test_a_year_said_in_words(text: str, year: str) -> None:
    assert year in when.terms(text, MONDAY)


@pytest.mark.parametrize(
    "text",
    [
        "несколько дней назад мы виделись",  # a few days: no one day
        "кілька днів тому я бачила",
        "много лет назад",
        "за три дні я прочитав книгу",  # "within three days", not three days from now
        "a few days ago",
        "цього року тому що треба",  # "тому що" is "because"
        "весь день тому що болить голова",
        "пол года назад",  # a half, not one year
        "полтора месяца назад",
        "через день пью таблетки",  # every other day
        "через день народження сина я не прийшла",  # because of the birthday
        "через год после свадьбы мы переехали",  # a year after the wedding
        "через 2 дні після операції",
        "мені 25 років тому я можу",  # an age, then "so"
        "цілий тиждень тому не писав",  # a whole week, so
        "2 тижня тому що болить",
        "перенесли встречу на неделю назад",
    ],
)
def test_a_count_left_unsaid_is_no_date(text: str) -> None:
    assert when.terms(text, MONDAY) == []


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("двадцать пять дней назад", date(2023, 4, 13)),
        ("двадцять пʼять днів тому", date(2023, 4, 13)),
        ("I paid 20 5 days ago", date(2023, 5, 3)),  # typed digits stay as typed
    ],
)
def test_a_count_in_two_words_is_one_count(text: str, day: date) -> None:
    assert f"td{day:%Y%m%d}" in when.terms(text, MONDAY)


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the park",  # a modal verb, not a month
        "I married Tom, we march together",
        "на березі річки",  # "on the river bank", not March
        "марина пришла, черный кот",
        "во второй половине дня",  # "second" is not Tuesday
        "Hey! How have you been? The sun is nice",
        "встретимся в пять у метро",  # "at five", not Friday
        "маю п'ять яблук",
    ],
)
def test_common_words_are_not_dates(text: str) -> None:
    assert when.terms(text, MONDAY) == []


def test_a_question_about_a_month_finds_what_happened_then(data_dir: Path) -> None:
    """Two camping trips in nearly the same words; only the time tells them apart. The
    June one is told in July as "last month", so only its resolved date can find it:
    by words and meaning alone the shorter July message is the closer one."""
    memory = make_memory(load_settings(), open_db(data_dir))
    july = datetime(2023, 7, 20, 18, 0, tzinfo=UTC)
    memory.store("We went camping by the lake with the kids", at=july, session="s")
    memory.store(
        "We went camping by the lake with the kids last month, too",
        at=july + timedelta(days=9),
        session="s",
    )
    for offset in range(30):  # unrelated days, so the time terms are not everywhere
        memory.store(
            f"The garden needs water again, day {offset}",
            at=july + timedelta(days=10 + offset),
            session="s",
        )
    now = july + timedelta(days=60)

    def first(question: str) -> str:
        return memory.recall(question, now=now, limit=5).items[0].text

    assert "last month" in first("Where did we go camping in June?")
    assert "last month" in first("Где мы были в походе в июне?")
    reindex.rebuild(memory.db, memory)
    assert "last month" in first("camping in June?")


def test_an_existing_data_dir_reads_its_counted_dates_on_open(data_dir: Path) -> None:
    """A turn indexed before every form of a unit was read ("5 дней назад" gave no
    date): on the data dir's next open it is indexed again and found by its day; a
    turn with no time in it keeps its row as it was."""
    memory = make_memory(load_settings(), open_db(data_dir))
    counted = memory.store("5 дней назад я разбил машину", at=MONDAY, session="s")
    plain = memory.store("машина в ремонте", at=MONDAY, session="s")
    db = memory.db
    db.execute(  # the row as it was written: stems and the day it was said, no date said
        f"UPDATE {lexical.EPISODES} SET stems = ? WHERE rowid = ?",
        [
            " ".join([lexical.stemmed("5 дней назад я разбил машину"), *when.own_terms(MONDAY)]),
            counted.episode_id,
        ],
    )
    db.execute("INSERT INTO derived_pending (name) VALUES (?)", [reindex.PENDING_TIME])
    before = db.execute(
        f"SELECT stems FROM {lexical.EPISODES} WHERE rowid = ?", [plain.episode_id]
    ).fetchone()
    db.conn.commit()
    reopened, found = found_on_reopen(data_dir, db, "td20230503")
    assert found == [counted.episode_id]
    after = reopened.execute(
        f"SELECT stems FROM {lexical.EPISODES} WHERE rowid = ?", [plain.episode_id]
    ).fetchone()
    assert after == before
    assert reopened.execute("SELECT count(*) FROM derived_pending").fetchone()[0] == 0


def test_a_new_data_dir_notes_its_dates_and_reads_them_on_open(data_dir: Path) -> None:
    """Migration m010 leaves its note; the composition root reads it on the same open,
    and a turn whose time cannot be read does not stop that open."""
    db = open_db(data_dir)
    assert reindex.PENDING_TIME in {r[0] for r in db.execute("SELECT name FROM derived_pending")}
    memory = make_memory(load_settings(), db)
    assert db.execute("SELECT count(*) FROM derived_pending").fetchone()[0] == 0
    memory.store("неделю назад я переехал", at=MONDAY, session="s")
    db.execute("UPDATE episodes SET at = 'not a time'")
    db.execute("INSERT INTO derived_pending (name) VALUES (?)", [reindex.PENDING_TIME])
    db.conn.commit()
    db.conn.close()
    reopened = open_db(data_dir)
    make_memory(load_settings(), reopened)
    assert reopened.execute("SELECT count(*) FROM derived_pending").fetchone()[0] == 0


def test_an_unreadable_table_gives_no_time_terms_and_the_message_is_stored(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vocabulary is read inside the write: a broken dateparser install must cost
    the time terms, never the user's message."""
    monkeypatch.setattr("pathlib.Path.read_text", lambda *a, **k: "info = {")
    when.vocabulary.cache_clear()
    try:
        assert when.terms("I went camping yesterday", MONDAY) == []
        memory = make_memory(load_settings(), open_db(data_dir))
        monkeypatch.undo()
        stored = memory.store("I went camping yesterday", at=MONDAY, session="s")
        assert stored.block_id
    finally:
        when.vocabulary.cache_clear()


def test_one_alternation_matches_what_each_pattern_would() -> None:
    """The word boundaries are put once around the whole alternation; the matches must
    be those of the patterns tried one by one, inside words and across them."""
    import re

    from aniso.tiers.when import _either, _words, vocabulary

    vocab = vocabulary()
    phrases = sorted(vocab.phrases, key=len, reverse=True)
    plain = re.compile("|".join(_words(re.escape(p)) for p in phrases))
    texts = [
        "yesterday",
        "the day before yesterday we met",
        "yesterdays",
        "noyesterday",
        "позавчера и вчера",
        "позавчерашний",
        "вчора ввечері",
        "2 weeks ago, last week",
        "_yesterday_",
        "yesterday's game",
        "сегодня-завтра",
    ]
    for text in texts:
        assert [
            m.span() for m in _either([_words(re.escape(p)) for p in phrases]).finditer(text)
        ] == [m.span() for m in plain.finditer(text)], text
    assert vocab.any_phrase.search("yesterdays") is None
    assert vocab.any_phrase.search("we met yesterday").group(0) == "yesterday"


SUNDAY = datetime(2023, 5, 14, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "at", "days"),
    [
        ("Last night I finally finished the painting", MONDAY, [date(2023, 5, 7)]),
        ("минулої ночі не спала зовсім", MONDAY, [date(2023, 5, 7)]),
        ("прошлой ночью была гроза", MONDAY, [date(2023, 5, 7)]),
        ("Last weekend we went camping", MONDAY, [date(2023, 5, 6), date(2023, 5, 7)]),
        ("на прошлых выходных ходили в поход", MONDAY, [date(2023, 5, 6), date(2023, 5, 7)]),
        ("на минулих вихідних їздили в Карпати", MONDAY, [date(2023, 5, 6), date(2023, 5, 7)]),
        # said on a Sunday, "last weekend" is the one a week before, as "last Sunday" is
        ("the past weekend was a blur", SUNDAY, [date(2023, 5, 6), date(2023, 5, 7)]),
    ],
)
def test_a_night_or_weekend_before_is_dated(text: str, at: datetime, days: list[date]) -> None:
    """dateparser's tables have "yesterday" but not "last night" or "last weekend"."""
    assert [m.start for m in when.mentions(text, at) if m.kind == "day"] == days


def test_a_weekend_to_come_or_a_night_unnamed_is_not_dated() -> None:
    for text in ("this weekend we're off to the coast", "I work at night", "ночью был дождь"):
        assert when.mentions(text, MONDAY) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "the last night of our trip was magical",
        "on our last night in Paris we ate snails",
        "my last weekend at the old job was quiet",
    ],
)
def test_a_final_night_or_weekend_is_not_the_one_before(text: str) -> None:
    """After "the", "our", "my" and the like, "last" is "final", not "the one before"."""
    assert when.mentions(text, MONDAY) == []


def test_the_last_weekend_of_a_month_is_that_month() -> None:
    assert when.mentions("the last weekend of June", MONDAY) == [
        when.Mention("month", date(2022, 6, 1))
    ]
    assert [m.start for m in when.mentions("с прошлых выходных болит спина", MONDAY)] == [
        date(2023, 5, 6),
        date(2023, 5, 7),
    ]


def test_an_existing_data_dir_reads_its_weekends_on_open(data_dir: Path) -> None:
    """Migration m011: an English turn that says "last weekend", stored before it was
    dated, gains its days on the next open, as m010's Cyrillic turns do."""
    memory = make_memory(load_settings(), open_db(data_dir))
    said = "Last weekend I went camping with the kids"
    weekend = memory.store(said, at=MONDAY, session="s")
    db = memory.db
    db.execute(
        f"UPDATE {lexical.EPISODES} SET stems = ? WHERE rowid = ?",
        [" ".join([lexical.stemmed(said), *when.own_terms(MONDAY)]), weekend.episode_id],
    )
    db.execute("INSERT INTO derived_pending (name) VALUES (?)", [reindex.PENDING_TIME])
    db.conn.commit()
    _, found = found_on_reopen(data_dir, db, "td20230506")
    assert found == [weekend.episode_id]
