"""The lexical index leaves out words common to the whole history, never all words."""

from __future__ import annotations

from pathlib import Path

from aniso.core.db import open_db
from aniso.tiers.index import lexical


def test_common_words_leave_the_query_while_a_rarer_word_remains(data_dir: Path) -> None:
    db = open_db(data_dir)
    texts = {
        1: "soak test walk the dog",
        2: "soak test kitten named Miso",
        3: "soak test walk in the park",
        4: "soak test the kitten sleeps",
        5: "soak test dinner",
    }
    for episode_id, text in texts.items():
        lexical.index_episode(db, episode_id, text)

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
