"""English verbs in their base form, from lemminflect's inflection table.

An English order to the assistant starts with a verb in its base form ("round to whole
numbers", "group them by aisle", "say which exit"). A hand list of such verbs heard
twenty of them; lemminflect's table (derived from the NIH's SPECIALIST Lexicon) lists
6,700 verbs with their inflections, so "round",
"cite" and "assume" are verbs and "gym", "food" and "Spotify" are not.

The table is read straight from the installed package's data: importing `lemminflect`
imports spaCy and loads two lookup tables and a model, about a second, where this set
takes 40 ms, and only when an English sentence asks for it.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
from pathlib import Path

AUXILIARIES = frozenset("be have can could will would shall should may might must".split())
"""Verbs that carry no task of their own: after "when you", "when you have a minute"
or "if you can" says when, not what to do."""


@functools.cache
def _base_forms() -> frozenset[str]:
    spec = importlib.util.find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    table = Path(next(iter(spec.submodule_search_locations)), "resources", "infl_lu.csv.gz")
    found = set()
    with gzip.open(table, "rt", encoding="utf-8") as rows:
        for row in rows:
            lemma, pos, _ = row.split(",", 2)
            if pos == "verb" and lemma.isalpha() and lemma.islower():
                found.add(lemma)
    return frozenset(found - AUXILIARIES)


def is_base_verb(word: str) -> bool:
    """Whether `word` (any case) can be an English verb in its base form, the form an
    order takes; auxiliaries are not counted."""
    return word.lower() in _base_forms()
