"""Dictionary forms of words, for the tier code's comparisons of one word with another.

Russian and Ukrainian change a word's ending with its case, and some words change
their stem too ("Павел" / "Павла", "Лев" / "Льва", "Ольга" / "Ользі"): a fixed list of
endings cannot tell those forms apart, a dictionary can. pymorphy3, with its
OpenCorpora (Russian) and VESUM (Ukrainian) dictionaries, gives each form's
dictionary form; the analysers load lazily, once a process, when a Cyrillic word is
first compared.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_UKRAINIAN = re.compile(r"[іїєґ]", re.IGNORECASE)
_CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)
READINGS = 4
"""Analyses of a word read, likelier first: a form such as "Марка" is a name's
genitive and a noun at once, and both readings count."""


@functools.cache
def _analyser(lang: str) -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang=lang)


@functools.lru_cache(maxsize=4096)
def lemmas(word: str) -> frozenset[str]:
    """Every dictionary form of a word, the word itself among them: pymorphy3's for
    Cyrillic (the dictionary of the language with the word's own letters first), the
    word and its form without a plural "s" otherwise."""
    word = word.lower().replace("’", "'").replace("ʼ", "'")
    if not _CYRILLIC.search(word):
        return frozenset({word, word.rstrip("s")})
    order = ("uk", "ru") if _UKRAINIAN.search(word) else ("ru", "uk")
    found = {word}
    for lang in order:
        found |= {parse.normal_form for parse in _analyser(lang).parse(word)[:READINGS]}
    return frozenset(found)
