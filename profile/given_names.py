"""Given names in Latin script, from Faker's person data for some seventy locales.

Chat writes names in lower case and without "my name is": "hi im liam, dublin", "rafael
here", "Marco, Milan.". A capital was the only sign of a name the
English finders had, and GeoNames lists many given names as some small town's name
("Marco" is a town in Brazil, "Anna" one in Russia), so a bare name read as a home. The
Russian and Ukrainian dictionaries tag first names (`morph.is_first_name`); for the
Latin-script names of our users' many origins, Faker's person providers list the
common given names of each locale (20,751 distinct in Latin script), under its MIT
licence. They are read once per install, in under a second, and kept in the cache dir
after (`aniso.core.cache.load_or_build`).

A name that is also an everyday English word ("will", "hope", "mark") is not read as a
name without a capital: wordfreq says how common the word is, once, when the names are
read (its English list takes a third of a second to load, too long for a message).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from pathlib import Path

_LATIN = re.compile(r"^[A-Za-zÀ-ɏ'-]+$")

EVERYDAY_ZIPF = 4.7
"""wordfreq's Zipf frequency above which a lower-case word is read as a word, not a
name: "alex" (4.6), "sam" (4.6) and "ray" (4.7) are names, "rose" (4.8), "mark" (5.1) and
"will" (6.5) words."""


@functools.cache
def _tables() -> tuple[frozenset[str], frozenset[str]]:
    """(every name, the names that are no everyday word), read once per install."""
    from aniso.core.cache import key_of, load_or_build

    key = key_of([Path(__file__)], ["faker", "wordfreq"])
    return load_or_build("given-names", key, _build)


def _build() -> tuple[frozenset[str], frozenset[str]]:
    from wordfreq import zipf_frequency

    names = _read()
    return names, frozenset(n for n in names if zipf_frequency(n, "en") <= EVERYDAY_ZIPF)


def given_names() -> frozenset[str]:
    """Every Latin-script given name Faker lists, lower-case."""
    return _tables()[0]


def _read() -> frozenset[str]:
    try:
        import faker.providers.person as people
    except ImportError:  # pragma: no cover - a broken install
        return frozenset()
    found: set[str] = set()
    for module in pkgutil.iter_modules(people.__path__):
        try:
            provider = importlib.import_module(f"{people.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):  # pragma: no cover - a locale without names
            continue
        for attribute in dir(provider):
            if attribute.startswith("first_name"):
                listed = getattr(provider, attribute)
                if isinstance(listed, (tuple, list, dict)):
                    found.update(n.lower() for n in listed if isinstance(n, str))
    return frozenset(n for n in found if len(n) > 1 and _LATIN.match(n))


def is_given_name(word: str) -> bool:
    """Whether a Latin-script word is a given name some locale lists."""
    return _key(word) in given_names()


def bare_name(word: str) -> bool:
    """Whether a word written without a capital still reads as a given name: a listed
    name that is no everyday English word."""
    return _key(word) in _tables()[1]


def _key(word: str) -> str:
    return word.lower().strip("'-")
