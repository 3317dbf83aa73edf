"""Russian and Ukrainian morphology, from pymorphy3 and its OpenCorpora / VESUM dictionaries.

Russian and Ukrainian nouns change their endings with every preposition ("Львов",
"во Львове", "у Львові"), and names do too ("меня зовут Марта", "звати Оксаною").
Stems from a Snowball stemmer fold some endings and mangle others; a dictionary
analyser gives the dictionary form and says what a word is (a first name, a place).

Both analysers load lazily (about 0.15 s together) and are shared by the process
(`core.morphology`, which the tiers read too).
Words with a letter only Ukrainian has (і ї є ґ) go to the Ukrainian dictionary
first; everything else to the Russian one first, then the other.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aniso.core.morphology import analyser, as_listed, dictionaries, has_ukrainian_letters

_CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)
WORD = re.compile(r"[а-яёіїєґ'’ʼ-]+", re.IGNORECASE)
"""A Russian or Ukrainian word, apostrophes and hyphens inside ("п'ю", "по-людськи")."""


def is_cyrillic(text: str) -> bool:
    return bool(_CYRILLIC.search(text))


def _parse(lang: str, word: str) -> list[Any]:
    """One dictionary's analyses of a lower-case word. Not kept: a cache of analyses holds
    so many objects that the garbage collector's full passes took a quarter second in
    the middle of a message; the callers' caches keep only strings and flags."""
    return list(analyser(lang).parse(word))


Reading = tuple[str, str, str]
"""One analysis as plain strings: (lemma, tag, part of speech or "")."""
LEMMA, TAG, POS = 0, 1, 2


@functools.lru_cache(maxsize=65536)
def parses(word: str) -> tuple[Reading, ...]:
    """Every analysis of one word, the likelier language first, as strings.

    The cache holds strings in plain tuples, which the garbage collector stops
    tracking, and not pymorphy3's Parse objects: 26,000 cached words held 1.1 million
    objects, and each full collection walked them all (0.4 s once the test part of
    the labelled set had been read; a 165 ms stall inside one message)."""
    word = as_listed(word)
    return tuple(r for lang in dictionaries(word) for r in readings(lang, word))


@functools.lru_cache(maxsize=4096)
def readings(lang: str, word: str) -> tuple[Reading, ...]:
    """One dictionary's analyses of a word ("ru" or "uk"), as strings: where the
    language is known, as in a currency's Ukrainian name, the other dictionary's
    guesses only mislead ("гривня" read as Russian is a form of "гривень")."""
    word = as_listed(word)
    return tuple((str(p.normal_form), str(p.tag), str(p.tag.POS or "")) for p in _parse(lang, word))


def lemmas(text: str) -> list[str]:
    """Dictionary forms of a word or short phrase, likeliest first, without repeats.

    A phrase gets each word's likeliest lemma ("Нижнем Новгороде" -> "нижний
    новгород") and, for a one-word text, every lemma of every analysis.
    """
    words = text.split()
    if len(words) > 1:
        return [" ".join(lemma(word) for word in words)]
    return list(dict.fromkeys(r[LEMMA] for r in parses(text)))


def place_lemmas(word: str) -> list[str]:
    """Dictionary forms a place name could have: `lemmas` of a one-word text less those
    of readings that cannot be a place ("ньому" is a form of the pronoun "він", and
    GeoNames lists "Він" for Vinh)."""
    words = word.split()
    if len(words) > 1:
        found = lemmas(word)
        if has_ukrainian_letters(word):
            # A phrase is in one language: "церкви" alone reads as Russian ("церковь"),
            # but in "Білої Церкви" it is Ukrainian, and the name is "Біла Церква". Each
            # word's Ukrainian dictionary forms (an adjective's by gender too: "біла",
            # "білий"), the first few of each, joined in every combination.
            options = [
                list(dict.fromkeys(r[LEMMA] for r in readings("uk", w.lower())))[:3] or [w]
                for w in words
            ]
            found += [" ".join(combo) for combo in itertools.product(*options)]
        return list(dict.fromkeys(found))
    kept = [r for r in parses(word) if r[POS] not in _NOT_PLACES]
    return list(dict.fromkeys(r[LEMMA] for r in kept))


@functools.lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The likeliest dictionary form. The likelier language's dictionary answers
    alone when it knows the word, which halves the cost of lemmatising a lexicon."""
    word = as_listed(word)
    first, second = dictionaries(word)
    found = _parse(first, word)
    if found and _known(found[0]):
        return str(found[0].normal_form)
    other = _parse(second, word)
    if other and _known(other[0]):
        return str(other[0].normal_form)
    return str(found[0].normal_form) if found else word


@functools.lru_cache(maxsize=65536)
def known_lemmas(lang: str, word: str) -> frozenset[str]:
    """Every lemma one dictionary ("ru" or "uk") lists for a word, guesses from the
    ending left out. All of them, not the first: the Ukrainian dictionary does not rank
    its readings ("морю" comes as the verb "морити" before the sea), so a test against
    it must accept any."""
    lowered = as_listed(word)
    return frozenset(str(p.normal_form) for p in _parse(lang, lowered) if _known(p))


def listed_lemmas(lang: str, word: str) -> frozenset[str]:
    """Every lemma one dictionary lists the word under as its own entry (`_listed`)."""
    return frozenset(lemma for lemma, _ in listed_readings(lang, word))


def listed_readings(lang: str, word: str) -> frozenset[tuple[str, str]]:
    """(lemma, part of speech) of every reading one dictionary lists as its own entry."""
    return frozenset(
        (str(p.normal_form), str(p.tag.POS or ""))
        for p in _parse(lang, as_listed(word))
        if _listed(p)
    )


def inflections(lang: str, word: str) -> frozenset[str]:
    """Every form of every lexeme one dictionary lists the word under as its own entry
    ("рок" gives "року", "роком", "роки"...), guesses left out."""
    return frozenset(
        str(form.word)
        for parse in _parse(lang, as_listed(word))
        if _listed(parse)
        for form in parse.lexeme
    )


def reading_weights(lang: str, word: str) -> dict[str, float]:
    """How likely each lemma one dictionary lists for a word is, on a scale of the
    dictionary's own: the Russian dictionary (OpenCorpora) ranks its analyses by how
    often a corpus reads the word each way ("лет" is "год" 0.998 of the time), so their
    scores add up by lemma; the Ukrainian dictionary (VESUM) does not rank them, so each
    lemma weighs as often as wordfreq's Ukrainian list has it ("рік" 5.85 against "рок"
    4.63 on the Zipf scale). Guesses are left out (`_listed`). Reads wordfreq, so it is
    for building tables (`lexicon.build_misreadings`), not for each message."""
    from wordfreq import zipf_frequency

    weights: dict[str, float] = {}
    for parse in _parse(lang, as_listed(word)):
        if not _listed(parse):
            continue
        name = str(parse.normal_form)
        if lang == "ru":
            weights[name] = weights.get(name, 0.0) + float(parse.score)
        else:
            weights[name] = 10 ** zipf_frequency(name, "uk")
    return weights


UKRAINIAN_ZIPF = 3.0
"""How common (wordfreq's Zipf scale) a word must be in Ukrainian to be read as a
Ukrainian word by `more_ukrainian`: "роки" is 5.7, "пив" 3.9; rarer words seldom meet a
lexicon term by accident, and the table stays small (about 37,000 words, 20 ms to
load)."""
UKRAINIAN_MARGIN = 1.0
"""How much more common (in Zipf, so ten times) a word must be in Ukrainian than in
Russian: "поет" is a Ukrainian poet (4.5) but also how Russians write "поёт" (sings,
4.1 and 3.8 with the ё), and is no Ukrainian word for the lexicon's purposes; "роки"
(5.7 against 2.9) is."""


def more_ukrainian(word: str) -> bool:
    """Whether a word is written far more often in Ukrainian than in Russian, by
    wordfreq's counts: "роки" (years; 5.7 against 2.9) is, "суши", "мясном" and "поет"
    are not. Letters cannot say it (most Ukrainian words have none of their own), and a
    whole message's language cannot either: Ukrainian users write Russian words, and one
    Ukrainian place does not make a Russian sentence Ukrainian."""
    return as_listed(word) in _more_ukrainian()


@functools.cache
def _more_ukrainian() -> frozenset[str]:
    return _word_table("more-ukrainian", _build_more_ukrainian)


def _word_table(name: str, build: Callable[[], frozenset[str]]) -> frozenset[str]:
    """A table of words from wordfreq, built once per install (wordfreq's two lists take
    a second to load, too long for a message) and read from the cache dir after."""
    from aniso.core.cache import key_of, load_or_build

    return load_or_build(name, key_of([Path(__file__)], ["wordfreq"]), build)


def _build_more_ukrainian() -> frozenset[str]:
    """The Cyrillic words of wordfreq's Ukrainian list common enough (`UKRAINIAN_ZIPF`)
    and far more common than in its Russian list (`UKRAINIAN_MARGIN`)."""
    ukrainian, russian = _frequencies()
    return _far_more(ukrainian, russian)


def more_russian(word: str) -> bool:
    """Whether a word is written far more often in Russian than in Ukrainian, by the same
    measure as `more_ukrainian` the other way round: "могу", "сейчас", "очень"."""
    return as_listed(word).replace("ё", "е") in _more_russian()


@functools.cache
def _more_russian() -> frozenset[str]:
    return _word_table("more-russian", _build_more_russian)


def _build_more_russian() -> frozenset[str]:
    ukrainian, russian = _frequencies()
    return _far_more(russian, ukrainian)


def _frequencies() -> tuple[dict[str, float], dict[str, float]]:
    """wordfreq's Ukrainian and Russian lists, the Russian one with "ё" read as "е":
    Russians mostly write "е" ("поёт" counts for "поет" too)."""
    from wordfreq import get_frequency_dict

    russian: dict[str, float] = {}
    for word, frequency in get_frequency_dict("ru").items():
        plain = word.replace("ё", "е")
        russian[plain] = russian.get(plain, 0.0) + frequency
    return get_frequency_dict("uk"), russian


def _far_more(mine: dict[str, float], other: dict[str, float]) -> frozenset[str]:
    floor, margin = 10 ** (UKRAINIAN_ZIPF - 9), 10**UKRAINIAN_MARGIN
    return frozenset(
        word
        for word, frequency in mine.items()
        if frequency >= floor and frequency >= margin * other.get(word, 0.0) and is_cyrillic(word)
    )


_RUSSIAN = re.compile(r"[ыэъё]", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def language_of(word: str) -> str | None:
    """Which of Russian and Ukrainian a word says its text is written in, or None: a
    letter only one of them has (і ї є ґ; ы э ъ ё); else a word only one dictionary lists
    as its own ("увлекаюсь", "займаюся"); else a word far commoner in one by wordfreq
    (`more_ukrainian`, `more_russian`). A vote, not a verdict: "роком" says nothing of
    the sentence it stands in, and one Ukrainian place does not make a Russian sentence
    Ukrainian, so a text is read by the votes of its words (`lexicon._languages`)."""
    if has_ukrainian_letters(word):
        return "uk"
    if _RUSSIAN.search(word):
        return "ru"
    if not is_cyrillic(word):
        return None
    listed = [lang for lang in ("uk", "ru") if listed_lemmas(lang, word)]
    if len(listed) == 1:
        return listed[0]
    if more_ukrainian(word):
        return "uk"
    return "ru" if more_russian(word) else None


def _known(parse: Any) -> bool:
    """Whether an analysis comes from the dictionary, not a guess from the ending."""
    return type(parse.methods_stack[0][0]).__name__ == "DictionaryAnalyzer"


def is_first_name(word: str) -> bool:
    """Whether a dictionary lists `word` as a first name in some analysis ("Марта",
    "Оксаною"), which tells a name from an ordinary word after "я" or "зовут"."""
    return any("Name" in r[TAG] for r in parses(word))


def first_name(word: str) -> str:
    """A first name in the nominative, capitalised: "Оксаною" -> "Оксана". Inflected,
    not the dictionary's normal form, which for some women's names is the man's
    ("Евгения" -> "евгений")."""
    lowered = as_listed(word)
    names: list[Any] = []
    for lang in dictionaries(lowered):  # the likelier language's dictionary first, alone
        names = names or [p for p in _parse(lang, lowered) if "Name" in str(p.tag)]
    if any("nomn" in str(p.tag) for p in names):
        return _capitalised(word)
    for p in names:
        if "Name" in str(p.tag):
            nominative = p.inflect({"nomn"})
            form = nominative.word if nominative is not None else p.normal_form
            return _capitalised(str(form))
    return word[:1].upper() + word[1:]


def _capitalised(name: str) -> str:
    """Each part of a name capitalised: "анна-мария" -> "Анна-Мария"."""
    return "-".join(part.capitalize() for part in name.split("-"))


def is_place_word(word: str) -> bool:
    """Whether a dictionary marks some analysis of `word` as a place name ("казани")."""
    return any("Geox" in r[TAG] for r in parses(word))


def likely_name(word: str) -> bool:
    """Whether the likeliest analysis is a first name ("дима"), not merely some
    analysis ("из" can be read as the name Иза), and not a guess that a dictionary
    contradicts (`_guessed_name`)."""
    found = parses(word)
    return bool(found) and "Name" in found[0][TAG] and not _guessed_name(word)


@functools.lru_cache(maxsize=16384)
def _guessed_name(word: str) -> bool:
    """Whether the likeliest reading's name is the analyser's guess from an ending while
    a dictionary lists the word as something else: "я забагато витрачаю" (Ukrainian,
    too much) has no letter of its own, so the Russian analyser reads it first and
    guesses a man's name from "-ато"; the Ukrainian dictionary lists an adverb."""
    lowered = as_listed(word)
    found = [_parse(lang, lowered) for lang in dictionaries(lowered)]
    if not found[0] or _listed(found[0][0]):
        return False
    return any(_listed(p) and "Name" not in p.tag for analyses in found for p in analyses)


def _listed(parse: Any) -> bool:
    """Whether an analysis is the dictionary's own entry for the whole word: `_known` also
    takes a known ending after a prefix the analyser stripped ("за" + "баг" + "ато";
    "меди" + "тую" read as "медитуй", which no one writes)."""
    return len(parse.methods_stack) == 1 and _known(parse)


def is_patronymic(word: str) -> bool:
    return any("Patr" in r[TAG] for r in parses(word))


def is_first_person_verb(word: str) -> bool:
    """Whether the likeliest analysis is a verb in the first person ("вяжу", "малюю")."""
    if not is_cyrillic(word) or " " in word.strip():
        return False
    found = parses(word)
    return bool(found) and {"VERB", "1per"} <= set(found[0][TAG].replace(" ", ",").split(","))


def is_imperative(word: str) -> bool:
    """Whether the likeliest analysis is a verb in the imperative ("указывай", "пиши")."""
    found = parses(word)
    return bool(found) and "impr" in found[0][TAG]


_FUNCTION = frozenset("NPRO PREP CONJ PRCL".split())


@functools.lru_cache(maxsize=65536)
def verb_form(word: str, *, ukrainian: bool = False) -> str | None:
    """What the likeliest reading says of a verb's subject, as one cue: "v1" (вяжу,
    живемо), "v2" (живёшь), "v3" (живёт, живе), "past_sg" (переехала), "past_pl"
    (переехали), "impr" (напиши), or None for a word that is no finite verb. Russian and
    Ukrainian drop the subject ("переехала в Казань"), so the verb's own person and
    number are the best evidence of whom a clause is about: "живёт в Торонто" is someone
    else, "живу" the user, "напиши" a request. `ukrainian` says the sentence is: "живе"
    is a Ukrainian verb, and a Russian dictionary reads it as a name."""
    if not is_cyrillic(word) or " " in word.strip():
        return None
    lowered = as_listed(word)
    order = dictionaries(lowered, ukrainian=ukrainian)
    tag = None
    for lang in order:
        found = _parse(lang, lowered)
        if not found or not _known(found[0]):
            continue
        if lang == "uk":
            # The Ukrainian dictionary does not rank its readings by frequency: "живе"
            # comes as a noun first. A verb reading counts unless the word is a
            # function word ("вона" is also a surname).
            if str(found[0].tag.POS) in _FUNCTION:
                return None
            tag = next((p.tag for p in found if _known(p) and p.tag.POS == "VERB"), None)
        elif found[0].tag.POS == "VERB":
            tag = found[0].tag
        break
    if tag is None:
        return None
    if "impr" in tag:
        return "impr"
    if "past" in tag:
        return "past_pl" if "plur" in tag else "past_sg"
    for person in ("1per", "2per", "3per"):
        if person in tag:
            return "v" + person[0]
    return None


@functools.lru_cache(maxsize=65536)
def task_verb(word: str, *, ukrainian: bool = False, skip: frozenset[str] = frozenset()) -> bool:
    """Whether a word is a verb in the second person that may be imperfective (any of its
    readings counts: "считаешь" is read both ways), its lemma not in `skip`: "даёшь",
    "радиш", "составляешь", not "закончишь" or "прочитаєш" (one event)."""
    if verb_form(word, ukrainian=ukrainian) != "v2":
        return False
    lowered = as_listed(word)
    for lang in dictionaries(lowered, ukrainian=ukrainian):
        verbs = [p for p in _parse(lang, lowered) if _known(p) and p.tag.POS == "VERB"]
        if verbs:
            return verbs[0].normal_form not in skip and any("impf" in p.tag for p in verbs)
    return False


@functools.lru_cache(maxsize=65536)
def imperative_aspect(word: str, *, ukrainian: bool = False) -> str | None:
    """The aspect of a verb in the imperative: "impf" (пиши, составляй, показуй) or "perf"
    (напиши, составь, покажи); None for any other word. Russian and Ukrainian order a
    repeated task in the imperfective and a single one in the perfective: "когда даёшь
    рецепт, пиши калорийность" is for every recipe, "если знаешь, подскажи ресторан" for
    one evening."""
    if verb_form(word, ukrainian=ukrainian) != "impr":
        return None
    lowered = as_listed(word)
    for lang in dictionaries(lowered, ukrainian=ukrainian):
        found = [p for p in _parse(lang, lowered) if _known(p)]
        if not found:
            continue  # the language whose dictionary knows the word, as `verb_form` reads it
        aspects = {
            "impf" if "impf" in p.tag else "perf"
            for p in found
            if p.tag.POS == "VERB" and "impr" in p.tag
        }
        # A verb of both aspects ("используй", "исследуй") or a homonym ("считай") says
        # nothing either way.
        return next(iter(aspects)) if len(aspects) == 1 else None
    return None


@functools.lru_cache(maxsize=65536)
def is_nominative(word: str, *, ukrainian: bool = False) -> bool:
    """Whether a noun or pronoun can be a sentence's subject: "сестра переехала" (the
    sister moved), against "к сестре переехала" or "мужа перевели" (the user did, or was
    moved). Russian readings are ranked, so the likeliest decides; the Ukrainian
    dictionary's are not, so any nominative reading counts."""
    if not is_cyrillic(word):
        return False
    lowered = as_listed(word)
    order = dictionaries(lowered, ukrainian=ukrainian)
    for lang in order:
        found = [p for p in _parse(lang, lowered) if _known(p)]
        if not found:
            continue
        if lang == "uk":
            return any("nomn" in p.tag for p in found)
        return "nomn" in found[0].tag
    return False


def is_known(word: str) -> bool:
    """Whether either dictionary knows the word (not a guess from its ending)."""
    lowered = as_listed(word)
    return any(_known(p) for lang in dictionaries(lowered) for p in _parse(lang, lowered)[:1])


def part_of_speech(word: str) -> str | None:
    """The likeliest analysis's part of speech (OpenCorpora tags: NOUN, VERB, ADJS...)."""
    found = parses(word)
    return found[0][POS] if found and found[0][POS] else None


_NOT_PLACES = frozenset("NPRO Name Surn Patr VERB INFN ADVB CONJ PREP PRCL INTJ NUMR".split())


def may_be_place(word: str) -> bool:
    """Whether the likeliest reading of a word leaves room for a place name: not a
    pronoun ("він"), a first name or surname ("Віра"), a verb or a function word."""
    found = parses(word)
    return not found or not (_NOT_PLACES & set(found[0][TAG].replace(" ", ",").split(",")))
