"""The lexical index leaves out words common to the whole history, never all words, and
finds a Cyrillic word by its beginning for recall, bounded the same way."""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from aniso.core.db import open_db
from aniso.tiers.index import lexical


def indexed(data_dir: Path, *texts: str) -> sqlite_utils.Database:
    """A fresh store whose episodes 1, 2, … hold `texts`, in the lexical index only."""
    db = open_db(data_dir)
    for episode_id, text in enumerate(texts, start=1):
        lexical.index_episode(db, episode_id, text)
    return db


def test_common_words_leave_the_query_while_a_rarer_word_remains(data_dir: Path) -> None:
    db = indexed(
        data_dir,
        "soak test walk the dog",
        "soak test kitten named Miso",
        "soak test walk in the park",
        "soak test the kitten sleeps",
        "soak test dinner",
    )

    def selective(*terms: str) -> list[str]:
        return lexical.selective_terms(db, lexical.EPISODES, list(terms), common=3)

    assert selective("soak", "kitten", "walk") == ["kitten", "walk"]
    assert selective("soak") == ["soak"]  # one word is never dropped
    # Only common words: the rarest stays, so the search still finds something.
    assert selective("soak", "test") in (["soak"], ["test"])
    # An unknown word is kept (it costs nothing), but cannot stand in for a found one.
    assert selective("soak", "zebra") == ["soak", "zebra"]
    assert selective("zebra", "kitten", "soak") == ["zebra", "kitten"]

    # The default threshold changes nothing on a small history: all five still match.
    assert len(lexical.search(db, lexical.EPISODES, "soak kitten", limit=10)) == 5


def test_searching_skips_a_word_in_every_row(data_dir: Path, monkeypatch) -> None:
    db = open_db(data_dir)
    for episode_id in range(1, 41):
        topic = "kitten Miso" if episode_id == 7 else f"errand number {episode_id}"
        lexical.index_episode(db, episode_id, f"soak {topic}")
    monkeypatch.setattr(lexical, "COMMON_ROWS", 10)
    assert lexical.search(db, lexical.EPISODES, "soak kitten", limit=100) == [7]
    assert len(lexical.search(db, lexical.EPISODES, "soak", limit=100)) == 40


def test_recall_finds_a_cyrillic_word_by_its_beginning_and_forget_does_not(
    data_dir: Path,
) -> None:
    """ "на листівці" and "листівку" share no Snowball stem (к→ц), "переезд" and
    "переезжаем" neither; recall's search finds them by their first six letters. A
    search that proves a word gone (`forget`) reads whole stems only, and no Latin
    word is read by its beginning."""
    db = indexed(
        data_dir,
        "Соломія: учні підписали мені листівку",
        "Марат: переезжаем в Куюки в пятницу",
        "Tom: I finished the research paper",
        "Остап: лист від мами прийшов",
    )

    def found(query: str, *, prefixes: bool) -> list[int]:
        hits = lexical.search_scored(db, lexical.EPISODES, query, limit=10, prefixes=prefixes)
        return [episode_id for episode_id, _ in hits]

    assert found("що було на листівці?", prefixes=True) == [1]
    assert found("що було на листівці?", prefixes=False) == []
    assert found("когда переезд?", prefixes=True) == [2]
    assert found("когда переезд?", prefixes=False) == []
    assert lexical.search(db, lexical.EPISODES, "листівці", limit=10) == []
    assert found("who researched it?", prefixes=True) == found("who researched it?", prefixes=False)
    # Only a beginning of Cyrillic letters: no Latin word, no number with a unit glued on.
    for stem in ("research", "1234567км", "iphone-ом", "кто-нибуд"):
        assert lexical.prefix_expression(db, lexical.EPISODES, [stem]) == ""
    assert lexical.prefix_expression(db, lexical.EPISODES, ["листивц"]) == '"листив" *'
    # A stem no longer than the prefix is read whole: "лист" finds the letter, not the card.
    assert found("лист", prefixes=True) == [4]


def test_a_beginning_held_by_many_rows_is_not_searched(data_dir: Path, monkeypatch) -> None:
    """A prefix is bounded like a whole stem (`COMMON_ROWS`): one that begins words in
    more rows than that would make the search score them all."""
    db = open_db(data_dir)
    for episode_id in range(1, 13):
        lexical.index_episode(db, episode_id, f"переезжаем в дом номер {episode_id}")
    lexical.index_episode(db, 13, "когда был переезд")
    monkeypatch.setattr(lexical, "COMMON_ROWS", 20)
    assert lexical.prefix_expression(db, lexical.EPISODES, ["переезд"]) == '"переез" *'
    monkeypatch.setattr(lexical, "COMMON_ROWS", 10)
    assert lexical.prefix_expression(db, lexical.EPISODES, ["переезд"]) == ""
    hits = lexical.search_scored(db, lexical.EPISODES, "переезд", limit=20, prefixes=True)
    assert [episode_id for episode_id, _ in hits] == [13]
