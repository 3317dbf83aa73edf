"""Money and measures the user wants answers in: "prices in Swiss francs", "в гривнях",
"metric everything and celsius please".

A standing preference about units is among the commonest that no field holds, and
the notes finder needs a word such as "always" or an order to find it: "I'm Canadian,
so metric everything and celsius please" has neither. Currencies come from Babel's
CLDR names in English, Russian and Ukrainian (singular and plural), read through the
dictionaries' lemmas, so "у швейцарських франках" and "в рублях" are found without a
list of forms. The words for systems of measure are a closed class, written out once.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from aniso.profile import lexicon, morph
from aniso.profile.delta import make_op
from aniso.profile.slots import NOTE_WORDS, Proposal, clause_of

_CODES = ("en", "ru", "uk")
_WORD = re.compile(r"[\w'’ʼ$€£₴₽¥]+")
_SYMBOL = re.compile(r"[$€£₴₽¥]|\bzł\b")
MONEY = (
    "USD EUR GBP UAH RUB PLN CHF CAD AUD NZD JPY CNY KZT GEL AZN TRY CZK SEK NOK DKK HUF "
    "RON BGN BYN MDL INR MXN ARS ZAR ILS AED THB KRW SGD HKD"
).split()
"""The currencies money is asked in, by ISO 4217 code; their names come from Babel.
Not every code: a rare currency's name is often an everyday word ("кина", "вату"), and
so are two common ones in Russian ("в реале", "в драме")."""
_IN = frozenset({"in", "into", "в", "у", "во"})
"""A currency after one of these is the one to show money in ("prices in euros")."""
_SYSTEMS = frozenset(
    {
        "metric", "imperial", "celsius", "fahrenheit", "centigrad", "метрический",
        "метричний", "цельсий", "цельсій", "фаренгейт",
    }
)  # fmt: skip
"""Systems of measure, as `lexicon.lemma` gives them: named, they are the point."""
_UNITS = frozenset(
    {
        "gram", "kilogram", "kilo", "cup", "ounc", "pound", "mile", "kilomet", "litr", "liter",
        "грамм", "грам", "килограмм", "кілограм", "чашка", "унция", "унція", "фунт", "миля",
        "километр", "кілометр", "литр", "літр", "мілілітр", "миллилитр",
    }
)  # fmt: skip
"""Units, which say how to answer only after "in"/"в" ("in grams", "в граммах"): "500
grams of flour" is a recipe."""


@functools.cache
def _currencies() -> frozenset[str]:
    """Every form a currency's name can be matched by (`_forms` of the words that name
    money: "euro", "франк", "гривня"), and its code; a country or its adjective in the
    name ("Swiss", "США") is not one. Built once per install, then read from the cache
    dir (Babel's locales take a second to load)."""
    from aniso.core.cache import key_of, load_or_build

    return load_or_build("currencies", key_of([Path(__file__)], ["babel"]), _read_currencies)


_ADJECTIVAL = frozenset({"ADJF", "ADJS", "PRTF", "NPRO"})
"""Readings that make a word a country's adjective or a pronoun, never the money."""


def _read_currencies() -> frozenset[str]:
    from babel.numbers import get_currency_name

    found: set[str] = set()
    for code in MONEY:
        for locale in _CODES:
            for count in (1, 2, 5):
                name = get_currency_name(code, count=count, locale=locale).lower()
                words = [w for w in _WORD.findall(name) if w.isalpha()]
                if locale == "en":
                    found |= {lexicon.stem(w) for w in words[-1:]}
                    continue
                # "доллар США", "українська гривня": the first noun names the money,
                # read in the name's own language.
                nouns = [w for w in words if _money_noun(locale, w)]
                found |= {morph.readings(locale, w)[0][morph.LEMMA] for w in nouns[:1]}
    return frozenset(found | {code.lower() for code in MONEY})


def _money_noun(locale: str, word: str) -> bool:
    found = morph.readings(locale, word)
    pos = {r[morph.POS] for r in found}
    return bool(found) and found[0][morph.POS] == "NOUN" and not pos & _ADJECTIVAL


def _forms(word: str) -> frozenset[str]:
    """A word's dictionary forms as a noun in either language (Russian, Ukrainian),
    else its stem."""
    if not morph.is_cyrillic(word):
        return frozenset({lexicon.stem(word)})
    return frozenset(
        r[0] for lang in ("ru", "uk") for r in morph.readings(lang, word) if r[2] == "NOUN"
    )


def _unit_or_money(said: str) -> bool:
    if lexicon.lemma(said) in _UNITS or _SYMBOL.fullmatch(said):
        return True
    return bool(_forms(said) & _currencies())


def measures(sentence: str) -> list[Proposal]:
    """A note for a clause that names a system of measure, or money or a unit after
    "in"/"в"."""
    words = list(_WORD.finditer(sentence))
    for i, word in enumerate(words):
        said = word.group().lower()
        # "in euros", "in Swiss francs", "у швейцарських франках"
        after_in = any(w.group().lower() in _IN for w in words[max(0, i - 2) : i])
        if not (lexicon.lemma(said) in _SYSTEMS or (after_in and _unit_or_money(said))):
            continue
        start, end = clause_of(sentence, word.start())
        note = sentence[start:end].strip(" ,—–-:")
        if not note or len(note.split()) > NOTE_WORDS:
            return []
        return [Proposal(make_op("add", "notes", note, note), start, end, "measure")]
    return []
