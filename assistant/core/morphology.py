"""The process's one pair of pymorphy3 analysers, for the profile and the tiers alike.

A pair (Russian with OpenCorpora, Ukrainian with VESUM) takes about 65 ms and 36 MB
to load; the profile reads what a message says with them and the tiers compare names
and request words, so both share this pair rather than each loading its own. It loads
lazily, when a Cyrillic word is first read.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_UKRAINIAN = re.compile(r"[іїєґ]", re.IGNORECASE)


@functools.cache
def analyser(lang: str) -> Any:
    """pymorphy3's analyser for "ru" or "uk"."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang=lang)


def as_listed(word: str) -> str:
    """A word as the dictionaries list it: lower case, one apostrophe ("п'ю", not "пʼю")."""
    return word.lower().replace("ʼ", "'").replace("’", "'")


def has_ukrainian_letters(text: str) -> bool:
    """Whether `text` holds a letter only Ukrainian uses (і ї є ґ): then its words are
    read with the Ukrainian dictionary first."""
    return bool(_UKRAINIAN.search(text))


def dictionaries(word: str, *, ukrainian: bool = False) -> tuple[str, str]:
    """The dictionaries to ask, likelier first: Ukrainian for a word with a letter only
    Ukrainian uses (і ї є ґ), or for any word of a Ukrainian sentence (`ukrainian`)."""
    return ("uk", "ru") if ukrainian or has_ukrainian_letters(word) else ("ru", "uk")
