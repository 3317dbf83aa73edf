"""English word classes from lemminflect's inflection table: verbs in their base form,
and nouns in the plural.

An English order to the assistant starts with a verb in its base form ("round to whole
numbers", "group them by aisle", "say which exit"). A hand list of such verbs heard
twenty of them; lemminflect's table (derived from the NIH's SPECIALIST Lexicon) lists
6,700 verbs with their inflections, so "round", "cite" and "assume" are verbs and "gym",
"food" and "Spotify" are not. Its nouns' plurals say when "the emails you draft" names a
kind of work the assistant does again, not one thing.

The table is read straight from the installed package's data: importing `lemminflect`
imports spaCy and loads two lookup tables and a model, about a second, where these sets
take 60 ms, and only when an English sentence asks for them.
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
def _table() -> tuple[frozenset[str], frozenset[str]]:
    """The base forms of verbs and the plurals of nouns, or two empty sets if the table
    cannot be read: then only the fixed phrasings find an order."""
    spec = importlib.util.find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        return frozenset(), frozenset()
    table = Path(next(iter(spec.submodule_search_locations)), "resources", "infl_lu.csv.gz")
    base: set[str] = set()
    plural: set[str] = set()
    try:
        with gzip.open(table, "rt", encoding="utf-8") as rows:
            for row in rows:
                lemma, pos, forms = (row.rstrip("\n").split(",", 2) + ["", ""])[:3]
                if not (lemma.isalpha() and lemma.islower()):
                    continue
                if pos == "verb":
                    base.add(lemma)
                elif pos == "noun":
                    plural.update(f for f in forms.split("/") if f != lemma and f.isalpha())
    except (OSError, EOFError, UnicodeDecodeError, ValueError):
        return frozenset(), frozenset()
    return frozenset(base - AUXILIARIES), frozenset(plural)


def is_base_verb(word: str) -> bool:
    """Whether `word` (any case) can be an English verb in its base form, the form an
    order takes; auxiliaries are not counted."""
    return word.lower() in _table()[0]


def is_plural_noun(word: str) -> bool:
    """Whether `word` (any case) is the plural of an English noun ("emails", "recipes";
    not "news", whose plural is itself)."""
    return word.lower() in _table()[1]
