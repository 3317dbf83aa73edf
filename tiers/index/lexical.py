"""The lexical index: SQLite FTS5 over Snowball stems.

Text is stemmed before it is indexed (and queries are stemmed the same way), so
"вегетарианка" finds "вегетарианки" and "researching" finds "researched"; recall also
finds a Cyrillic word by its first letters where an alternation splits the stems
("листівці", "листівку"; `prefix_expression`). Episodes and block forms (warm
summaries, cold capsules) have separate tables keyed by id.
The index is derived from SQLite and rebuilt by `aniso reindex`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import sqlite_utils

from aniso.core.db import select_in
from aniso.tiers import blocks, when
from aniso.tiers.text import match_expression, query_terms, stems

EPISODES = "episode_fts"
BLOCKS = "block_fts"
# Each episode's predecessor's stems, keyed by the episode (`index_context`): a reply
# often holds no word of the question, the turn it answers does.
CONTEXT = "episode_context_fts"
# Each FTS table's fts5vocab view: how many rows hold a term (assistant/schema.py).
VOCABULARY = {EPISODES: "episode_vocab", BLOCKS: "block_vocab"}
# A query term found in more rows than this is left out while a rarer term remains.
# BM25 must score every row a term matches, so one word common to the whole history
# made each recall O(N) (the soak's p50 rose 39% over 5k messages); such a word
# barely moves BM25 (low IDF), and the dense side still reads the whole query.
COMMON_ROWS = 1000
# The turns before an episode whose words it is also found by, and how far back they
# may be (a block's gap: further back is another conversation). 1 and 2 were compared
# by leave-one-out (DESIGN-NOTES, issue 19): an answer often follows "tell me more".
CONTEXT_TURNS = 2
CONTEXT_GAP = blocks.GAP
# The context search leaves out terms found in more turns than this (see search_scored):
# at 250 it still cost up to +17% CPU p95 at 10k, at 100 +2%; LoCoMo and the synthetic
# conversations rank the same at both.
CONTEXT_COMMON_ROWS = 100
# A Cyrillic query stem also finds the words that begin with its first PREFIX_LETTERS
# letters (`prefix_expression`), in recall's searches only. Snowball strips endings,
# not the alternations and derivations of Russian and Ukrainian ("переехал" and
# "переезд", "листівку" and "листівці"); a shared beginning is the classic remedy for
# such languages (McNamee and Mayfield, 2004). Leave-one-out over synthetic_ru and
# synthetic_uk (the other conversations hold no Cyrillic): 4 was chosen on one and 6
# on the other, each a gain on the one left out; 6, since the two tie pooled and four
# letters are often a verb prefix alone ("пере", "расс"), which begins many words and
# costs many rows (DESIGN-NOTES).
PREFIX_LETTERS = 6
# Only a beginning of Cyrillic letters is searched: "1234567км" or "iphone-ом" would
# begin digits or a Latin word, and a hyphen splits the beginning into two words.
CYRILLIC_LETTERS = re.compile(r"[а-яёіїєґ]+")
LAST_LETTER = "\U0010ffff"  # sorts after any letter: the end of a prefix's range


def stemmed(text: str) -> str:
    return " ".join(stems(text))


def index_episode(
    db: sqlite_utils.Database, episode_id: int, text: str, at: datetime | str | None = None
) -> None:
    """Index an episode's stems and, given when it was said (`at`), its time terms:
    the day it was said and the days it speaks of ("yesterday" said on 8 May is 7 May),
    so a question about a time finds what happened then (`aniso.tiers.when`)."""
    terms = stemmed(text)
    if at is not None:
        said = datetime.fromisoformat(at) if isinstance(at, str) else at
        terms = " ".join([terms, *when.own_terms(said), *when.terms(text, said)])
    db.execute(f"DELETE FROM {EPISODES} WHERE rowid = ?", [episode_id])
    db.execute(f"INSERT INTO {EPISODES} (rowid, stems) VALUES (?, ?)", [episode_id, terms])


def index_context(
    db: sqlite_utils.Database, episode_id: int, before: Sequence[tuple[int, str]]
) -> None:
    """Index the words of the turns said just before episode `episode_id` under its id,
    in a table of their own: a search weighs them below the turn's own words
    (`search_scored`'s `context_weight`), and what recall shows is the turn alone.
    `sources` names the turns the words came from, so forgetting one erases them here
    too (`forget_context`)."""
    db.execute(f"DELETE FROM {CONTEXT} WHERE rowid = ?", [episode_id])
    terms = stemmed(" ".join(text for _, text in before))
    if terms:
        db.execute(
            f"INSERT INTO {CONTEXT} (rowid, stems, sources) VALUES (?, ?, ?)",
            [episode_id, terms, " ".join(str(source) for source, _ in before)],
        )


def predecessors(db: sqlite_utils.Database, at: datetime) -> list[tuple[int, str]]:
    """The `CONTEXT_TURNS` latest episodes said at or before `at` and within
    `CONTEXT_GAP` of it (id, words), latest first: the turns a new one follows."""
    rows = db.execute(
        "SELECT id, user_text, at FROM episodes WHERE at <= ? ORDER BY at DESC, id DESC LIMIT ?",
        [at.isoformat(), CONTEXT_TURNS],
    ).fetchall()
    return [(r[0], r[1]) for r in rows if at - datetime.fromisoformat(r[2]) <= CONTEXT_GAP]


def index_contexts(db: sqlite_utils.Database, turns: Sequence[tuple[int, str, str]]) -> None:
    """Refill the context table from `turns` (id, words, when said), as `predecessors`
    would have found them at write time: reindex, import, and a data dir made before
    the table existed (its migration)."""
    db.execute(f"DELETE FROM {CONTEXT}")
    recent: list[tuple[int, str, datetime]] = []
    for episode_id, text, at in sorted(turns, key=lambda turn: (turn[2], turn[0])):
        said = datetime.fromisoformat(at)
        before = [(i, t) for i, t, when_said in recent if said - when_said <= CONTEXT_GAP]
        index_context(db, episode_id, before)
        recent = [(episode_id, text, said), *recent][:CONTEXT_TURNS]


def move_context(db: sqlite_utils.Database, moves: dict[int, int]) -> None:
    """Key context rows by new episode ids (a restore copies archived turns anew)."""
    for old, new in moves.items():
        db.execute(f"UPDATE {CONTEXT} SET rowid = ? WHERE rowid = ?", [new, old])


def forget_context(db: sqlite_utils.Database, episode_ids: Sequence[int]) -> None:
    """Erase every context row holding the words of a forgotten episode (and their
    own rows). The scan reads the small `sources` column; forgetting is rare."""
    if not episode_ids:
        return
    gone = {str(i) for i in episode_ids}
    holding = [
        rowid
        for rowid, sources in db.execute(f"SELECT rowid, sources FROM {CONTEXT}")
        if gone.intersection((sources or "").split())
    ]
    select_in(db, f"DELETE FROM {CONTEXT} WHERE rowid IN ({{}})", [*holding, *episode_ids])


def index_block(db: sqlite_utils.Database, block_id: int, text: str) -> None:
    db.execute(f"DELETE FROM {BLOCKS} WHERE rowid = ?", [block_id])
    if text.strip():
        db.execute(f"INSERT INTO {BLOCKS} (rowid, stems) VALUES (?, ?)", [block_id, stemmed(text)])


def unindex_episodes(db: sqlite_utils.Database, episode_ids: list[int]) -> None:
    select_in(db, f"DELETE FROM {EPISODES} WHERE rowid IN ({{}})", episode_ids)
    select_in(db, f"DELETE FROM {CONTEXT} WHERE rowid IN ({{}})", episode_ids)


def unindex_block(db: sqlite_utils.Database, block_id: int) -> None:
    db.execute(f"DELETE FROM {BLOCKS} WHERE rowid = ?", [block_id])


def search(db: sqlite_utils.Database, table: str, query: str, *, limit: int) -> list[int]:
    """Row ids best first (BM25). An empty or stopword-only query matches nothing."""
    return [rowid for rowid, _ in search_scored(db, table, query, limit=limit)]


def search_scored(
    db: sqlite_utils.Database,
    table: str,
    query: str,
    *,
    limit: int,
    now: datetime | None = None,
    context_weight: float = 0.0,
    prefixes: bool = False,
) -> list[tuple[int, float]]:
    """(row id, BM25 relevance) best first; relevance is positive, higher is better.
    Given `now`, the query's time expressions ("in June", "last week") search too.

    FTS5's `rank` column is its bm25() (lower is better), and ordering by it lets
    SQLite keep only the best `limit` rows instead of sorting every match. With
    `prefixes`, Cyrillic stems also find the words they begin (`prefix_expression`):
    recall wants them, and a search that proves a word is gone (`forget`) must not.
    """
    terms = query_terms(query)
    if now is not None:
        terms += [term for term in when.terms(query, now) if term not in terms]
    if context_weight <= 0 or table != EPISODES:
        return search_terms(db, table, terms, limit=limit, prefixes=prefixes)
    counts = document_counts(db, table, terms)
    kept = selective_terms(db, table, terms, counts=counts)
    own = search_terms(db, table, kept, limit=limit, counts={}, prefixes=prefixes)
    # A context row holds two turns' words: a term common in turns is twice as common
    # here, and scoring its rows is what a search costs. Such terms barely rank.
    rarer = [term for term in kept if counts.get(term, 0) <= CONTEXT_COMMON_ROWS]
    before = (
        search_terms(db, CONTEXT, rarer, limit=limit, counts={}, prefixes=prefixes) if rarer else []
    )
    merged = dict(own)
    for rowid, score in before:
        merged[rowid] = merged.get(rowid, 0.0) + context_weight * score
    return sorted(merged.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]


def search_terms(
    db: sqlite_utils.Database,
    table: str,
    terms: list[str],
    *,
    limit: int,
    counts: dict[str, int] | None = None,
    prefixes: bool = False,
) -> list[tuple[int, float]]:
    """`search_scored` for terms already stemmed (a second pass reads them off the
    index, with their row `counts`: `selective_terms` need not read them again)."""
    kept = selective_terms(db, table, terms, counts=counts)
    expression = match_expression(kept)
    if prefixes and expression:
        expression = " OR ".join(filter(None, [expression, prefix_expression(db, table, kept)]))
    if not expression:
        return []
    rows = db.execute(
        f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
        [expression, limit],
    ).fetchall()
    return [(row[0], -float(row[1])) for row in rows]


def prefix_expression(db: sqlite_utils.Database, table: str, terms: list[str]) -> str:
    """FTS5 prefix queries for the `terms` longer than PREFIX_LETTERS whose first
    PREFIX_LETTERS characters are all Cyrillic letters: those characters, each kept
    only while the words it begins are held by few rows (COMMON_ROWS;
    CONTEXT_COMMON_ROWS for the context table), so a search stays bounded as memory
    grows, as `selective_terms` keeps it for whole stems.

    Row counts are read from the fts5vocab view over the prefix's range of terms,
    which the view seeks by its index; they add up each word's rows, an upper bound,
    and reading them costs what the whole stems' counts cost: each word's postings.
    The context table has no view; its rows are turns, so the turns' own counts."""
    if not PREFIX_LETTERS:
        return ""
    wanted = dict.fromkeys(
        term[:PREFIX_LETTERS]
        for term in terms
        if len(term) > PREFIX_LETTERS and CYRILLIC_LETTERS.fullmatch(term[:PREFIX_LETTERS])
    )
    vocabulary = VOCABULARY.get(table, VOCABULARY[EPISODES])
    common = CONTEXT_COMMON_ROWS if table == CONTEXT else COMMON_ROWS
    kept = []
    for prefix in wanted:
        rows = db.execute(
            f"SELECT sum(doc) FROM {vocabulary} WHERE term >= ? AND term < ?",
            [prefix, prefix + LAST_LETTER],
        ).fetchone()[0]
        if rows and rows <= common:
            kept.append(f'"{prefix}" *')
    return " OR ".join(kept)


def selective_terms(
    db: sqlite_utils.Database,
    table: str,
    terms: list[str],
    *,
    common: int | None = None,
    counts: dict[str, int] | None = None,
) -> list[str]:
    """`terms` without those matching more than `common` rows, so the cost of a
    search stays bounded as memory grows; the rarest word found stays when no kept
    word is found at all, so a common word still matches rather than nothing.

    Row counts come from the fts5vocab view, which reads only the terms asked for. A
    term the view does not know is kept: it may be absent, or tokenised differently
    by FTS5 ("don't", accents), and either way it costs nothing.
    """
    if len(terms) < 2:
        return terms
    common = COMMON_ROWS if common is None else common
    rows = document_counts(db, table, terms) if counts is None else counts
    kept = {term for term in terms if rows.get(term, 0) <= common}
    if rows and not any(rows.get(term, 0) for term in kept):
        kept.add(min(rows, key=rows.__getitem__))
    return [term for term in terms if term in kept]


def document_counts(db: sqlite_utils.Database, table: str, terms: list[str]) -> dict[str, int]:
    """How many rows hold each term, from the fts5vocab view (which reads only these
    terms; a term no row holds is absent)."""
    return dict(
        select_in(db, f"SELECT term, doc FROM {VOCABULARY[table]} WHERE term IN ({{}})", terms)
    )


def rare_terms(
    db: sqlite_utils.Database, table: str, row_ids: list[int], *, skip: set[str], most: int
) -> dict[str, int]:
    """The rarest terms of the rows `row_ids` that other rows hold too, with how many
    rows hold each (fewest first), time terms and `skip` left out: names, places and
    things, which carry a topic across turns where common words do not; a term no
    other row holds finds nothing new."""
    terms: set[str] = set()
    for (stems_of_row,) in select_in(
        db, f"SELECT stems FROM {table} WHERE rowid IN ({{}})", row_ids
    ):
        terms.update(t for t in stems_of_row.split() if t not in skip and not when.is_term(t))
    if not terms:
        return {}
    rows = document_counts(db, table, list(terms))
    shared = [term for term in terms if rows.get(term, 0) >= 2]  # found elsewhere too
    return {term: rows[term] for term in sorted(shared, key=lambda t: (rows[t], t))[:most]}


def indexed_stems(db: sqlite_utils.Database, episode_ids: Sequence[int]) -> dict[int, list[str]]:
    """The stems each episode's FTS row already holds (live or archived): recall reads
    them instead of stemming candidates again."""
    return {
        rowid: (found or "").split()
        for rowid, found in select_in(
            db, f"SELECT rowid, stems FROM {EPISODES} WHERE rowid IN ({{}})", list(episode_ids)
        )
    }


def optimize(db: sqlite_utils.Database) -> None:
    """Merge FTS segments, so deleted rows' terms leave the shadow tables for good."""
    for table in (EPISODES, BLOCKS, CONTEXT):
        db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
