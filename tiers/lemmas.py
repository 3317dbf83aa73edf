"""Dictionary forms of words, for the tier code's comparisons of one word with another.

Russian and Ukrainian change a word's ending with its case, and some words change
their stem too ("Павел" / "Павла", "Лев" / "Льва", "Ольга" / "Ользі"): a fixed list of
endings cannot tell those forms apart, a dictionary can. pymorphy3, with its
OpenCorpora (Russian) and VESUM (Ukrainian) dictionaries, gives each form's
dictionary form (`core.morphology`: the pair the profile reads with).
"""

from __future__ import annotations

import functools

from aniso.core.morphology import analyser, as_listed, dictionaries
from aniso.tiers.text import CYRILLIC

READINGS = 4
"""Analyses of a word read, likelier first, for a request's words (`asking`)."""


@functools.lru_cache(maxsize=4096)
def lemmas(word: str) -> frozenset[str]:
    """Every dictionary form of a word: pymorphy3's for Cyrillic (the language with
    the word's own letters first), the word itself otherwise."""
    word = as_listed(word)
    if not CYRILLIC.search(word):
        return frozenset({word, word.rstrip("s")})
    found = {word}
    for lang in dictionaries(word):
        found |= {parse.normal_form for parse in analyser(lang).parse(word)[:READINGS]}
    return frozenset(found)


@functools.lru_cache(maxsize=4096)
def first_names(word: str) -> frozenset[str]:
    """The first names a Cyrillic word is a singular form of, by every reading either
    dictionary tags as a first name ("Федорові" is Федір's dative in the sixth reading
    of the Ukrainian dictionary, which does not rank its readings). Readings of any
    other kind are left out: "Иванов" is also the genitive plural of Иван, "Гри" a
    form of "гра" whose genitive plural is "ігор", "Лев" also "левый"; none of those
    names a person."""
    word = as_listed(word)
    if not CYRILLIC.search(word):
        return frozenset()
    return frozenset(
        str(parse.normal_form)
        for lang in dictionaries(word)
        for parse in analyser(lang).parse(word)
        if "Name" in parse.tag.grammemes and "plur" not in parse.tag.grammemes
    )
