"""The names a question is about, for entity-aware matching.

"What did Caroline research?" is about Caroline: of two turns about research, the
one that names her (or that she said: a replayed turn starts with its speaker) is
the better answer. BM25 weighs a name by its rarity, and a name that half the
history mentions weighs almost nothing, so recall favours hits that hold every name
the question holds (`memory.ENTITY_WEIGHT`).

A name is a capitalised word that does not start a sentence, in any script: the
writing system marks it, in English, Russian and Ukrainian alike, with no tagger and
no list. "I", a sentence's first word and all-capitals shouting are not names.
"""

from __future__ import annotations

import re

from aniso.tiers.text import STOPWORDS, stem

TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|[.!?…]", re.UNICODE)
POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


def capitalised(query: str, *, first: bool = False) -> list[str]:
    """The names in `query` as written, possessive dropped, in order: capitalised words
    inside a sentence, and with `first` a sentence's first word too (for a caller that
    checks them against names it knows)."""
    found: list[str] = []
    start = not first
    for token in TOKEN.findall(query):
        if token in ".!?…":
            start = not first
            continue
        word = POSSESSIVE.sub("", token)
        capital = word[:1].isupper() and not word.isupper()
        if capital and not start and word.lower() not in STOPWORDS and len(word) > 1:
            found.append(word)
        start = False
    return found


def named(query: str) -> list[str]:
    """Stems of the names in `query`, in order, without repeats."""
    found = [stem(word.lower().replace("’", "'")) for word in capitalised(query)]
    return list(dict.fromkeys(found))
