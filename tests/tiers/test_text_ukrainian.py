"""Ukrainian in the memory's text toolkit: stems that match across case endings,
function words left out, and names and dates kept as anchors."""

from __future__ import annotations

from pathlib import Path

import pytest
import snowballstemmer
from helpers import found_on_reopen

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.core.settings import load_settings
from aniso.services import make_memory
from aniso.tiers.index import lexical, reindex
from aniso.tiers.text import anchors, stem, stems


def test_ukrainian_case_forms_share_a_stem() -> None:
    # Locative and dative in -і, instrumental in -ою, genitive plural in -ів: the
    # Russian stemmer alone left "роботі" and "весіллі" whole.
    for forms in (
        "робота роботу роботі роботою",
        "весілля весіллі весіллям",
        "напівмарафон напівмарафону напівмарафоні",
        "квартира квартиру квартирі квартирою",
        "операція операції операцію",
        "коліно коліна коліні",
        "Полтава Полтави Полтаві Полтавою",
        "мама мамі маму мамою",
    ):
        found = {stem(word.lower()) for word in forms.split()}
        assert len(found) == 1, (forms, found)


def test_the_apostrophe_in_a_ukrainian_word_is_not_part_of_its_stem() -> None:
    assert stems("м'ясо") == stems("мʼяса") == stems("м’ясом")


def test_russian_and_english_stems_are_unchanged() -> None:
    russian = snowballstemmer.stemmer("russian")
    english = snowballstemmer.stemmer("english")
    for word in "работа работе работой свадьбе марафона квартире операции колене".split():
        assert stem(word) == russian.stemWord(word)
    assert stem("ёлке") == russian.stemWord("елке")
    for word in "running proposals wedding marathon".split():
        assert stem(word) == english.stemWord(word)


def test_ukrainian_function_words_are_not_terms() -> None:
    assert stems("Я була з нею у мами, бо вона мені дуже допомогла") == [
        stem("мами"),
        stem("допомогла"),
    ]


def test_ukrainian_names_and_dates_are_anchors() -> None:
    found = anchors("Ми були з Іриною та Соломією у Львові 9 березня, а Євген ні.")
    assert "9 березня" in found
    assert {"Іриною", "Соломією", "Львові", "Євген"} <= set(found)


def test_a_ukrainian_question_finds_another_case_of_its_words(
    data_dir: Path, clock: SimulatedClock
) -> None:
    """The question says "коліном" and "мами", the turn "коліні" and "мамі"."""
    memory = make_memory(load_settings(), open_db(data_dir))
    ids = {}
    for text in (
        "Соломія: мамі вчора зробили операцію на коліні, лікар каже, все пройшло добре",
        "Остап: ми нарешті переїхали, нова квартира на четвертому поверсі",
        "Соломія: записалась на напівмарафон у квітні, тренуюсь тричі на тиждень",
        "Остап: на роботі знову дедлайн, тестуємо реліз до п'ятниці",
    ):
        ids[text.split(":")[1].split()[0]] = memory.store(text, at=clock(), session="s").episode_id
    question = "Що сталося з коліном мами?"
    found = lexical.search_scored(memory.db, lexical.EPISODES, question, limit=10)
    assert [i for i, _ in found] == [ids["мамі"]]
    memory.dense.flush(memory.texts_for)
    assert "коліні" in memory.recall(question, now=clock()).items[0].text
    found = lexical.search_scored(memory.db, lexical.EPISODES, "квартирою на поверсі", limit=10)
    assert [i for i, _ in found][:1] == [ids["ми"]]


def test_recall_finds_a_ukrainian_word_whose_stem_alternates(
    data_dir: Path, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "листівці" (on the card) and "листівку" (the card) have stems apart, к and ц:
    recall finds the turn by the words' shared beginning (`lexical.PREFIX_LETTERS`)."""
    memory = make_memory(load_settings(), open_db(data_dir))
    for text in (
        "Соломія: учні принесли мені величезну листівку, всі підписали",
        "Остап: ми нарешті переїхали, нова квартира на четвертому поверсі",
        "Соломія: записалась на напівмарафон у квітні, тренуюсь тричі на тиждень",
        "Остап: на роботі знову дедлайн, тестуємо реліз до п'ятниці",
    ):
        memory.store(text, at=clock(), session="s")
    memory.dense.flush(memory.texts_for)
    question = "Що намалювали на листівці?"
    best = memory.recall(question, now=clock()).items[0]
    assert "листівку" in best.text
    # The search by meaning reads no Ukrainian well: the words' beginning is what
    # ranks the turn, and without it the turn scores less.
    monkeypatch.setattr(lexical, "PREFIX_LETTERS", 0)
    alone = memory.recall(question, now=clock()).items
    assert best.score > max(item.score for item in alone if "листівку" in item.text)


def test_an_existing_data_dir_stems_its_ukrainian_rows_anew_on_open(
    data_dir: Path, clock: SimulatedClock
) -> None:
    """A data dir indexed before Ukrainian had stems of its own: on its next open the
    rows of Ukrainian texts are indexed again and found by another case of their words;
    a Russian row is left as it was."""
    memory = make_memory(load_settings(), open_db(data_dir))
    ukrainian = memory.store("мамі зробили операцію на коліні", at=clock(), session="s")
    russian = memory.store("маме сделали операцию на колене", at=clock(), session="s")
    old = snowballstemmer.stemmer("russian")
    db = memory.db
    db.execute(  # the row as the Russian stemmer alone wrote it
        f"UPDATE {lexical.EPISODES} SET stems = ? WHERE rowid = ?",
        [
            " ".join(old.stemWord(w) for w in "мамі зробили операцію коліні".split()),
            ukrainian.episode_id,
        ],
    )
    block = ukrainian.block_id
    db.execute("DELETE FROM block_terms WHERE block_id = ?", [block])
    for term in ("коліні", "операці", "зробил"):  # the block's terms as they were written
        db.execute("INSERT INTO block_terms (term, block_id) VALUES (?, ?)", [term, block])
    db.execute("INSERT INTO derived_pending (name) VALUES (?)", [reindex.PENDING_UKRAINIAN])
    before = db.execute(
        f"SELECT stems FROM {lexical.EPISODES} WHERE rowid = ?", [russian.episode_id]
    ).fetchone()
    db.conn.commit()
    reopened, found = found_on_reopen(data_dir, db, "з коліном")
    assert found == [ukrainian.episode_id]
    after = reopened.execute(
        f"SELECT stems FROM {lexical.EPISODES} WHERE rowid = ?", [russian.episode_id]
    ).fetchone()
    assert after == before
    assert reopened.execute("SELECT count(*) FROM derived_pending").fetchone()[0] == 0
    terms = {row[0] for row in reopened.execute("SELECT term FROM block_terms")}
    assert "коліні" not in terms and {stem("коліні"), stem("операцію")} <= terms
