"""Questions that ask for a list, and the diversity their answers need.

"What books has Anna read?" or "какие города мы обсуждали?" is answered by several
turns, often weeks apart, that share the question's words but little else. Ranked by
relevance alone, the top of the list fills with near-copies of the best turn (the
same book mentioned three times in one evening) and the other books fall below the
cut. Maximal marginal relevance (Carbonell & Goldstein, 1998) trades a little
relevance for novelty: each next pick is the candidate most relevant *and* least like
what was picked already.

Similarity here is lexical: the overlap of the candidates' own stems, the query's
left out (every candidate shares those). The FTS rows hold each episode's stems
already, so nothing is embedded or stemmed again at recall time.

Whether a question asks for a list is a rule: a plural after "what"/"which" (a word
the Snowball stemmer shortens from an -s form), a list verb, or the plural question
words of Russian and Ukrainian. Three languages need a few words each; a trained
classifier would need labelled questions this product does not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from aniso.tiers.text import STOPWORDS, stem, words

# Plural question words and list verbs (RU/UK forms in every case they take).
LIST_WORDS = frozenset(
    """list enumerate
    какие каких каким какими перечисли перечислить назови
    які яких яким якими перелічи перелічити назви""".split()
)
WH = frozenset({"what", "which"})
WH_REACH = 4  # words after "what" within which its plural noun stands
LIST_PHRASE = re.compile(r"\b(what|which) (are|were)\b|\bname (some|all|the)\b", re.IGNORECASE)

T = TypeVar("T")


def asks_for_list(query: str) -> bool:
    """Whether the question asks for several things ("what books…", "какие…")."""
    tokens = [token.lower() for token in words(query)]
    if any(token in LIST_WORDS for token in tokens) or LIST_PHRASE.search(query):
        return True
    for index, token in enumerate(tokens):
        if token in WH and any(_plural(t) for t in tokens[index + 1 : index + 1 + WH_REACH]):
            return True
    return False


def _plural(token: str) -> bool:
    """An English plural noun, as the stemmer sees it: an -s form it shortens, not a
    possessive, not "-ss", not a function word ("does", "has", "is")."""
    if token in STOPWORDS or len(token) < 4 or not token.endswith("s") or token.endswith("ss"):
        return False
    if "'" in token or "’" in token:
        return False
    return stem(token) != token


def diversify(
    ranked: Sequence[T],
    *,
    score: Callable[[T], float],
    terms: Callable[[T], frozenset[str]],
    weight: float,
    pool: int,
) -> list[T]:
    """`ranked` (best first) re-ordered by maximal marginal relevance over its first
    `pool` items: each pick maximises (1 − weight)·relevance − weight·similarity to
    the picks so far, relevance relative to the best score and similarity the
    Jaccard overlap of `terms`. The rest keep their order after the pool."""
    head, tail = list(ranked[:pool]), list(ranked[pool:])
    if len(head) < 3 or weight <= 0:
        return list(ranked)
    top = score(head[0]) or 1.0
    own = [terms(item) for item in head]
    chosen: list[int] = []
    left = list(range(len(head)))
    while left:

        def gain(i: int) -> float:
            like = max((_jaccard(own[i], own[j]) for j in chosen), default=0.0)
            return (1 - weight) * score(head[i]) / top - weight * like

        best = max(left, key=gain)
        chosen.append(best)
        left.remove(best)
    return [head[i] for i in chosen] + tail


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
