"""Canonical terms for the things people like, avoid and do, in EN, RU and UK.

A term maps many inflected words ("стейки", "стейков", "steaks") to one English
canonical value ("steak") by comparing Snowball stems, so "люблю йогу" and
"yoga" are the same interest. Foods carry categories (meat, dairy, spicy...):
the categories are what lets a diet supersede a liking ("vegetarian" ends
"steak") and what the stale-memory check looks for in old texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import TypeVar

import snowballstemmer

Kind = str  # "food" | "interest" | "other"
T = TypeVar("T")


@dataclass(frozen=True)
class Term:
    """One canonical thing and the words that name it."""

    canonical: str
    kind: Kind
    words: tuple[str, ...]
    categories: frozenset[str] = frozenset()


def _t(canonical: str, kind: Kind, words: str, categories: str = "") -> Term:
    return Term(
        canonical=canonical,
        kind=kind,
        words=tuple(w.strip() for w in words.split(",") if w.strip()),
        categories=frozenset(categories.split()),
    )


TERMS: tuple[Term, ...] = (
    # Food. Categories drive diet conflicts and stale-memory checks.
    _t("steak", "food", "steak, steaks, steakhouse, стейк, стейки, стейков, стейкхаус", "meat"),
    _t("meat", "food", "meat, мясо, мясной, мясное, мясные, мясных, мясо, мʼясо, мясний", "meat"),
    _t("beef", "food", "beef, говядина, яловичина", "meat"),
    _t("pork", "food", "pork, свинина", "meat"),
    _t("chicken", "food", "chicken, курица, курятина, курка", "meat"),
    _t("bacon", "food", "bacon, бекон", "meat"),
    _t("burgers", "food", "burger, burgers, бургер, бургеры", "meat"),
    _t("sausages", "food", "sausage, sausages, колбаса, сосиски, ковбаса", "meat"),
    _t("kebab", "food", "kebab, shashlik, шашлык, шашлик", "meat"),
    _t("fish", "food", "fish, рыба, риба", "fish"),
    _t("seafood", "food", "seafood, shrimp, морепродукты, креветки", "fish"),
    _t("sushi", "food", "sushi, суши", "fish"),
    _t(
        "dairy",
        "food",
        "dairy, milk, молоко, молочное, молочка, молочне",
        "dairy",
    ),
    _t("cheese", "food", "cheese, сыр, сир", "dairy"),
    _t("yogurt", "food", "yogurt, yoghurt, йогурт", "dairy"),
    _t("cream", "food", "cream, сливки, сметана, вершки", "dairy"),
    _t("eggs", "food", "egg, eggs, яйца, яйцо, яйця", "eggs"),
    _t("gluten", "food", "gluten, wheat, глютен, клейковина, пшеница, пшениця", "gluten"),
    _t("bread", "food", "bread, хлеб, хліб", "gluten"),
    _t("pasta", "food", "pasta, макароны, паста", "gluten"),
    _t("pizza", "food", "pizza, пицца, піца", "gluten"),
    _t("nuts", "food", "nut, nuts, tree nuts, орехи, орех, горіхи", "nuts"),
    _t("sugar", "food", "sugar, сахар, цукор", "sugar"),
    _t("spicy food", "food", "spicy, spicy food, chili, острое, острая еда, чили, гостре", "spicy"),
    _t("burritos", "food", "burrito, burritos, буррито"),
    _t("sweets", "food", "sweets, desserts, сладкое, десерты, солодке"),
    # Interests and hobbies.
    _t("film", "interest", "film, films, movie, movies, cinema, кино, фильмы, кіно, фільми"),
    _t("yoga", "interest", "yoga, йога"),
    _t("design", "interest", "design, дизайн"),
    _t("football", "interest", "football, soccer, футбол"),
    _t("data science", "interest", "data science, дата сайенс"),
    _t("cooking", "interest", "cooking, кулинария, готовка, кулінарія"),
    _t("hiking", "interest", "hiking, hikes, походы, поход, хайкинг, походи"),
    _t("productivity", "interest", "productivity, продуктивность, продуктивність"),
    _t("classical music", "interest", "classical music, классическая музыка, класична музика"),
    _t("music", "interest", "music, музыка, музика"),
    _t("reading", "interest", "reading, books, чтение, книги, читання"),
    _t("travel", "interest", "travel, travelling, путешествия, подорожі"),
    _t("running", "interest", "running, бег, біг"),
    _t("meditation", "interest", "meditation, медитация, медитація"),
    _t("photography", "interest", "photography, фотография, фотографія"),
    _t("theatre", "interest", "theatre, theater, театр"),
    _t("dancing", "interest", "dancing, танцы, танці"),
    _t("swimming", "interest", "swimming, плавание, плавання"),
    _t("programming", "interest", "programming, coding, программирование, програмування"),
    _t("museums", "interest", "museums, музеи, музеї"),
    _t("art", "interest", "art, искусство, мистецтво"),
    # Other things people say they dislike.
    _t("crowds", "other", "crowd, crowds, толпа, толпы, натовп"),
    _t("noise", "other", "noise, шум"),
    _t("verbosity", "other", "verbosity, wordiness, многословие, багатослівність"),
)

AMBIGUOUS = frozenset("down box ос оси ші ии sun heat cold rain pop".split())
"""Surface words in the shipped table that are too often something else ("calm down",
"a cold", Ukrainian "ось" (here), which the Russian dictionary reads as "оси"): the
term keeps its other words."""


@cache
def terms() -> tuple[Term, ...]:
    """The built-in terms, then the shipped table (`data/lexicon.tsv`: about 480 terms
    in EN, RU and UK with the forms people use after verbs). A built-in term keeps
    its canonical value and wins a word both define, so stored values stay stable."""
    from importlib import resources

    table = resources.files("aniso.profile").joinpath("data", "lexicon.tsv")
    found = {term.canonical: term for term in TERMS}
    for line in table.read_text("utf-8").splitlines()[1:]:
        canonical, kind, categories, words = (line.split("\t") + ["", "", "", ""])[:4]
        kept = ",".join(w for w in words.split(",") if w.strip().lower() not in AMBIGUOUS)
        if not canonical:
            continue
        held = found.get(canonical)
        if held is None:
            found[canonical] = _t(canonical, kind, kept, categories)
        else:  # a built-in term keeps its kind and categories and gains the table's words
            extra = tuple(w for w in _t(canonical, kind, kept).words if w not in held.words)
            found[canonical] = Term(canonical, held.kind, held.words + extra, held.categories)
    return tuple(found.values())


_WORD = re.compile(r"[\w'ʼ’]+")
_CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)


@cache
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(language)


def normalise_word(word: str) -> str:
    """Lower-case, with apostrophes dropped so "м'ясо" and "мʼясо" stem alike."""
    return re.sub(r"['ʼ’]", "", word.lower()).replace("ё", "е")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem, with the Russian stemmer for Cyrillic (UK included: no
    Ukrainian Snowball stemmer exists, and the Russian one folds most UK endings)."""
    word = normalise_word(word)
    language = "russian" if _CYRILLIC.search(word) else "english"
    return _stemmer(language).stemWord(word)


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) for every word of `text`."""
    return [(stem(m.group()), m.start(), m.end()) for m in _WORD.finditer(text)]


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of a Russian or Ukrainian word (pymorphy3), else its stem.

    The Russian Snowball stemmer folds Ukrainian endings only now and then
    ("фотографією" and "фотографія" stem apart); the dictionary does not miss."""
    from aniso.profile import morph

    word = normalise_word(word)
    return morph.lemma(word) if _CYRILLIC.search(word) else stem(word)


@cache
def _index() -> dict[tuple[str, ...], Term]:
    """Stem sequences and lemma sequences of every term word -> term. Building it
    lemmatises thousands of words (seconds), so it is built once per install and read
    from the cache dir after (`aniso.core.cache`), keyed by everything it derives from."""
    return _derived("lexicon-index", build_index)


def _derived(name: str, build: Callable[[], T], *packages: str) -> T:
    """A table derived from the terms and the dictionaries (and `packages`), built once
    per install and read from the cache dir after, keyed by everything it derives from."""
    from aniso.core import morphology
    from aniso.core.cache import key_of, load_or_build

    here = Path(__file__).parent
    key = key_of(
        [here / "lexicon.py", here / "morph.py", here / "data" / "lexicon.tsv"]
        + [Path(morphology.__file__)],
        ["pymorphy3", "pymorphy3-dicts-ru", "pymorphy3-dicts-uk", "snowballstemmer", *packages],
    )
    return load_or_build(name, key, build)


def build_index() -> dict[tuple[str, ...], Term]:
    """The index from the terms and the dictionaries. A stem key wins over a lemma key
    of another term."""
    index: dict[tuple[str, ...], Term] = {}
    for term in terms():
        for word in term.words:
            index.setdefault(tuple(stem(part) for part in _WORD.findall(word)), term)
    for term in terms():
        for word in term.words:
            parts = _WORD.findall(word)
            if len(parts) == 1 and not _names_a_thing(parts[0]):
                continue
            index.setdefault(("=",) + tuple(lemma(part) for part in parts), term)
    return index


def _names_a_thing(word: str) -> bool:
    """Whether a one-word term word can stand for its term by lemma: a noun or a verb.
    "велик" (a bike, in slang) is first of all a form of "большой" (big), and "more"
    must not mean cycling."""
    from aniso.profile import morph

    if not _CYRILLIC.search(word):
        return True
    return morph.part_of_speech(word) in ("NOUN", "VERB", "INFN", "GRND", "PRTF", None)


@cache
def _longest() -> int:
    return max(len(key) for key in _index() if key[:1] != ("=",))


@dataclass(frozen=True)
class Mention:
    """A term found in a text, with the character span it came from."""

    term: Term
    start: int
    end: int


def mentions(text: str) -> list[Mention]:
    """Every known term in `text`, longest match first at each position. Cached by text:
    half a dozen finders, the gate and the staleness rules ask about the same sentence
    in one extraction, and each reading lemmatises every word again."""
    return list(_mentions(text))


@lru_cache(maxsize=4096)
def _mentions(text: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    words = tokens(text)
    index = _index()
    position = 0
    cyrillic = bool(_CYRILLIC.search(text))
    lemmas = [lemma(text[w[1] : w[2]]) for w in words] if cyrillic else []
    languages: list[str | None] | None = None
    while position < len(words):
        for size in range(min(_longest(), len(words) - position), 0, -1):
            term = None
            if cyrillic:
                term = index.get(("=", *lemmas[position : position + size]))
            by_stem = term is None
            if by_stem:
                term = index.get(tuple(w[0] for w in words[position : position + size]))
            said = text[words[position][1] : words[position][2]] if size == 1 else ""
            if term is not None and by_stem and said and _english_stem_misleads(said, term):
                term = None
            if term is not None and cyrillic and size == 1:
                if (by_stem and _stem_misleads(said, term)) or _ukrainian_misleads(said, term):
                    term = None
                elif _listed_either(said, term):  # worth reading the sentence's language
                    languages = languages or _languages(text, words)
                    if _misreads(said, term, languages[position]):
                        term = None
            if term is not None:
                found.append(Mention(term, words[position][1], words[position + size - 1][2]))
                position += size
                break
        else:
            if not cyrillic and (agent := _agent_at(text, words[position])):
                found.append(agent)
            position += 1
    return tuple(found)


_AGENT = re.compile(r"([a-z]{3,}?)(?:er|ist)$")
"""An agent noun, matched over exactly its word's span (`_agent_at`)."""
_KIND = (
    r"(?:(?:big|huge|massive|keen|avid|passionate|casual|amateur|serious|regular|daily"
    r"|weekend|beginner|total|lifelong|proud|enthusiastic|hobby|competitive|recreational"
    r"|occasional|real|dedicated|committed|obsessive|decent|slow|long-distance|marathon"
    r"|trail|open-water|solo|self-taught|bit\s+of\s+a)\s+){0,2}"
)
"""The words that may stand between "a" and an agent noun: how much or how the user does
it ("a big reader", "a keen weekend cyclist"). Anything else says another thing: a
former runner, a non swimmer, a bargain hunter, a mind reader, a house painter."""
I_AM_A = r"(?:i['’]?m|i\s+am)\s+(?:(?:also|still|such|quite|really)\s+)?(?:a|an)"
""""i'm a", "I am also a": where the user says what they are."""
_SAYS_WHAT_I_AM = re.compile(
    r"(?:^|[^\w'’])"
    + I_AM_A
    + r"\s+"
    + _KIND
    + r"(?:(?:[a-z-]+\s+){1,2}(?:and|&)\s+(?:a|an)\s+"
    + _KIND
    + r")?$",
    re.IGNORECASE,
)
"""Where an agent noun says what the user is: "i'm a swimmer", "i'm a big reader", "I am
a keen cyclist". Elsewhere the same words as often name a thing or someone else ("my
new stroller", "i love joggers, so comfy", "i hate racists")."""
_NOT_AGENTS = frozenset(
    """cooker boxer carer sewer drawer stroller stretcher booker mather swinger rocker
    rafter parter racist rapist raper fantasist exhibitionist trader biker""".split()
)
"""Words that look like an activity's agent and are not its doer: a slow cooker, a
carer (cars?), a sewer, a drawer, a stroller, a racist (races?)."""


def _agent_at(text: str, word: tuple[str, int, int]) -> Mention | None:
    """The activity an agent noun at `word` names, where the text says the user is one.
    The cheap test of the word's ending first, and "i'm a …" looked for only in the
    words just before it: every English word no term matched comes here."""
    _, start, end = word
    agent = _AGENT.match(text, start, end)
    if agent is None or not _SAYS_WHAT_I_AM.search(text, max(0, start - _REACH), start):
        return None
    term = _activity_of_agent(agent)
    return Mention(term, start, end) if term is not None else None


_REACH = 120
"""How far before an agent noun "i'm a" is looked for: "i'm a keen weekend hiker and a
big amateur climber" is under 60 characters."""


def _activity_of_agent(agent: re.Match[str]) -> Term | None:
    """The activity an English agent noun (`_AGENT`'s match) names: "swimmer" swimming,
    "reader" reading, "hiker" hiking, "gardener" gardening, "cyclist" cycling,
    "guitarist" guitar, "photographer" photography. The noun is its activity's word with
    "-er" or "-ist" in place of "-ing", "-y" or nothing, a closed rule of English word
    formation. Only an interest the lexicon lists by exactly that word counts ("a
    number" is no numbing), only said of the user (`_SAYS_WHAT_I_AM`), lower case
    (`_AGENT` reads no capital: "Hunter", "Walker" are names more often), and only in
    the singular one says it of oneself in ("runners" are as often shoes)."""
    word = agent.group()
    if word in _NOT_AGENTS or (stem(word),) in _index():
        # A word Snowball joins to a term was judged by `_english_stem_misleads` already
        # ("psychologist" is no psychology).
        return None
    base = agent.group(1)
    for form in (f"{base}ing", f"{base}eing", f"{base}y", base):
        term = _index().get((stem(form),))
        if term is not None and term.kind == "interest" and form in term.words:
            return term
    return None


_SENTENCE_END = re.compile(r"[.!?\n]")


def _languages(text: str, words: list[tuple[str, int, int]]) -> list[str | None]:
    """The language around each word: the votes (`morph.language_of`) of the other words
    of its sentence, "uk", "ru" or None on a tie. The word itself does not vote: "роком"
    is Ukrainian for "a year" and Russian for "rock", and "увлекаюсь роком" is Russian
    by its other word. Votes are counted once per sentence, so a long text costs one
    pass."""
    from aniso.profile import morph

    votes = [morph.language_of(text[start:end]) for _, start, end in words]
    sentences, sentence, previous = [], 0, 0
    for _, start, end in words:
        sentence += bool(_SENTENCE_END.search(text, previous, start))
        sentences.append(sentence)
        previous = end
    totals = Counter(zip(sentences, votes, strict=True))
    around: list[str | None] = []
    for sentence, vote in zip(sentences, votes, strict=True):
        ukrainian = totals[(sentence, "uk")] - (vote == "uk")
        russian = totals[(sentence, "ru")] - (vote == "ru")
        around.append(None if ukrainian == russian else "uk" if ukrainian > russian else "ru")
    return around


@lru_cache(maxsize=16384)
def _english_forms(word: str) -> frozenset[str]:
    """`word` and its regular English inflections: plural, past, "-ing" and "-er", with
    a final "y" or "e" or a doubled consonant as spelling wants. Apostrophes are gone
    by now (`normalise_word`); `_english_stem_misleads` reads a possessive itself."""
    forms = {word, word + "s", word + "es", word + "ed", word + "d"}
    forms |= {word + "ing", word + "er", word + "ers"}
    if word.endswith("y"):
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if word.endswith("e"):
        forms |= {word[:-1] + "ing", word[:-1] + "er"}
    if len(word) > 2 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou":
        forms |= {word + word[-1] + ending for ending in ("ing", "ed", "er")}
    return frozenset(forms)


_VERB_ENDINGS = ("ied", "ing", "ers", "ed", "er")
"""The endings of a verb's forms: "sailed", "sailing", "sailer", "kayakers"."""


@lru_cache(maxsize=16384)
def _verb_bases(word: str) -> frozenset[str]:
    """The verbs `word` can be a form of by a verb's ending, spelling undone ("danced"
    dance, "running" run, "tried" try); empty for a word with no such ending. Two words
    that are forms of one verb this way name one activity ("sailed", "sailing"); a
    plural is left out, since a noun's plural and a verb's past name different things
    ("rolls" and "rolled", "fries" and "fried")."""
    bases: set[str] = set()
    for ending in _VERB_ENDINGS:
        base = word[: -len(ending)]
        if not word.endswith(ending) or len(base) < 2:
            continue
        if ending == "ied":
            bases.add(base + "y")
            continue
        bases |= {base, base + "e"}
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "aeiouls":
            bases.add(base[:-1])
    return frozenset(bases)


def _english_stem_misleads(word: str, term: Term) -> bool:
    """A one-word English stem match that is no form of the term's words: Snowball
    stems "busy" as "business", "animals" as "anime", "physical" as "physics" and
    "natural" as "nature". The English analogue of `_stem_misleads`, with no dictionary
    in the stack to ask: a match stands when the word said and one of the term's words
    are regular inflections of one another (`_english_forms`: "parties" and "party",
    "run" and "running"), or forms of one verb (`_verb_bases`: "sailed" and "sailing",
    "kayaker" and "kayaking"). A possessive is only that ("Oliver's" is no olives). A
    sense it cannot tell ("a bowl of ramen" and bowling, "smoked salmon" and smoking,
    which lists "smoke") stays."""
    said = word.lower()
    possessive = said.endswith(("'s", "’s", "ʼs"))
    said = normalise_word(said[:-2] if possessive else said)
    if _CYRILLIC.search(said) or not said.isalpha():
        return False
    said_forms, said_verbs = _english_forms(said), _verb_bases(said)
    for listed in term.words:
        listed = normalise_word(listed)
        if " " in listed or _CYRILLIC.search(listed):
            continue
        if possessive:  # a noun's own form, or a name's: "the cat's", "Oliver's"
            if listed in (said, said + "s", said + "es"):
                return False
        elif listed in said_forms or said in _english_forms(listed):
            return False
        elif said_verbs & _verb_bases(listed):
            return False
    return True


def _stem_misleads(word: str, term: Term) -> bool:
    """A stem match the dictionary contradicts: "сырой" (raw) shares the stem of "сыр"
    (cheese), "готовлюсь" (I prepare) that of "готовить" (to cook). When the dictionary
    knows the word and its lemma is none of the term's, the stem is a coincidence."""
    from aniso.profile import morph

    return morph.is_known(word) and lemma(word) not in _lemmas_of(term)


@lru_cache(maxsize=4096)
def _lemmas_of(term: Term) -> frozenset[str]:
    return frozenset(lemma(part) for word in term.words for part in _WORD.findall(word))


def _ukrainian_misleads(word: str, term: Term) -> bool:
    """A one-word match on a Ukrainian word that the Ukrainian dictionary contradicts:
    the word is more Ukrainian than Russian (`morph.more_ukrainian`), and none of the
    Ukrainian dictionary's readings of it is one of the term's words, by lemma or by
    stem. The Russian reading decides matches first, and most Ukrainian words have no
    letter of their own, so Russian read "вже два роки" (two years, "рік") as rock
    ("рок"). A reading sharing a stem with the term is the same word in another normal
    form ("рослина" for "рослини"). The word is read as written, apostrophe and all."""
    from aniso.profile import morph

    if not morph.more_ukrainian(word):
        return False
    readings = {normalise_word(found) for found in morph.known_lemmas("uk", word)}
    if not readings:
        return False
    return (readings | {stem(found) for found in readings}).isdisjoint(_forms_of(term))


READING_ODDS = 10.0
"""How much likelier another word a form also spells must be for the form to name
that word and not the term (`build_misreadings`): ten times, the margin `morph` takes
for a word being Ukrainian rather than Russian."""
SAME_WORD_PREFIX = 3
"""Readings that share this many first letters are taken for one word in two normal
forms, not two words: Ukrainian "пирогу" reads as "пирог" and "пиріг" (a pie either
way), "оладки" as "оладка" and "оладок"."""


def _listed_either(word: str, term: Term) -> bool:
    form, table = normalise_word(word), misreadings()
    return any((language, form, term.canonical) in table for language in ("ru", "uk"))


def _misreads(word: str, term: Term, language: str | None) -> bool:
    """Whether `word`, which spells a form of one of the term's words, is another word in
    the language of its sentence (`build_misreadings`, `_languages`): Ukrainian "року"
    is "рік" (year) before "рок" (rock), so "з 2019 року займаюся йогою" is no liking of
    rock; Russian "лет" is "год" (years), not a summer; "увлекаюсь роком" is Russian,
    and rock. With no language to go by (a bare phrase, or a tie) the word is read as
    Russian, as `morph.dictionaries` reads a word without a Ukrainian letter: "пить"
    is no dust, and a bare "роком" stands."""
    return (language or "ru", normalise_word(word), term.canonical) in misreadings()


@cache
def misreadings() -> frozenset[tuple[str, str, str]]:
    """`build_misreadings`, built once per install (seconds), read from the cache dir."""
    return _derived("lexicon-misread", build_misreadings, "wordfreq")


def build_misreadings() -> frozenset[tuple[str, str, str]]:
    """(language, form, canonical) for every form of a one-word Cyrillic term word that
    names another word in that language's dictionary (`_likelier_another`): none of its
    readings is a sense of the term (`_senses`) and the form is a word of that language,
    or another word's reading is `READING_ODDS` times likelier than the term's. Stems
    and lemmas say which words a form may be; only the dictionaries say which it most
    likely is. Forms come from the dictionaries' own paradigms (`morph.inflections`), so
    nothing is listed by hand. A form is read as written (apostrophe and all, "ё" as
    "е", as people type it) and kept under its `normalise_word` key."""
    from aniso.profile import morph

    found: set[tuple[str, str, str]] = set()
    for term in terms():
        senses = _senses(term)
        for word in _cyrillic_words(term):
            # A form of either dictionary's paradigm, read by both: Russian "велика" (of
            # a bike, in slang) is Ukrainian "big" too.
            forms = {
                f.replace("ё", "е") for lang in ("ru", "uk") for f in morph.inflections(lang, word)
            }
            for form in forms:
                for language in ("ru", "uk"):
                    weights = morph.reading_weights(language, form)
                    if _likelier_another(weights, senses, ours=_written_in(language, form)):
                        found.add((language, normalise_word(form), term.canonical))
    return frozenset(found)


def _cyrillic_words(term: Term) -> list[str]:
    return [w for w in term.words if len(_WORD.findall(w)) == 1 and _CYRILLIC.search(w)]


_KIND_OF_WORD = {"NOUN": "name", "ADJF": "name", "INFN": "verb", "VERB": "verb", "GRND": "verb"}
"""Parts of speech that name the same kind of thing in a term: a noun and a full
adjective ("молоко", "молочне"), a verb in any form. A short adjective ("велик", big)
is a kind of its own."""


def _senses(term: Term) -> frozenset[str]:
    """The lemmas a term's one-word Cyrillic words mean in the term's sense: of each
    word's readings in either dictionary, those that another of the term's words shares.
    "пил" is Ukrainian dust and the Russian past of "пить" (to drink); "пыль", "пыли",
    "пил" and "пилу" share "пыль", "пил" and, by accident, "пила" (a saw, in the
    Russian dictionary's reading of "пил" and "пилу"), not "пить", so that reading is no
    sense of dust. A word in its own dictionary form keeps that reading ("брокколи"),
    and a word whose readings no other word shares keeps those of the term's usual kind
    of word (`_KIND_OF_WORD`), or all of them, right or not ("суши" keeps "суша", land). Only the
    dictionaries' own entries count (`morph.listed_readings`)."""
    from aniso.profile import morph

    parsed = {
        normalise_word(word): {
            (normalise_word(lemma), _KIND_OF_WORD.get(part, part))
            for language in ("ru", "uk")
            for lemma, part in morph.listed_readings(language, word)
        }
        for word in _cyrillic_words(term)
    }
    readings = {word: frozenset(lemma for lemma, _ in found) for word, found in parsed.items()}
    # Forms of one word share all their readings ("року" and "роком" are both "рок" and
    # "рік"), so each set of readings counts once.
    distinct = set(readings.values())
    support = Counter(lemma for found in distinct for lemma in found)
    parts = Counter(part for found in set(map(frozenset, parsed.values())) for _, part in found)
    usual = parts.most_common(1)[0][0] if parts else ""
    senses: set[str] = set()
    for word, found in readings.items():
        shared = {lemma for lemma in found if support[lemma] > 1}
        if shared:
            senses |= shared | ({word} & found)
        else:
            # Alone, a word keeps the readings of the term's usual kind of word: "велик"
            # (a bike, in slang) is also the short form of "великий" (big).
            usual_readings = {lemma for lemma, part in parsed[word] if part == usual}
            senses |= usual_readings or found
    return frozenset(senses)


def _written_in(language: str, form: str) -> bool:
    """Whether a form is written in `language` at all, and at least as often as in the
    other one (wordfreq): Russian "пил" (drank) is, Ukrainian "сир" (cheese; the Russian
    dictionary's "сирый", orphaned) is not Russian, and a form neither list has
    ("чізкейки") is no evidence either way."""
    from wordfreq import zipf_frequency

    other = "uk" if language == "ru" else "ru"
    mine = zipf_frequency(form, language)
    return mine > 0 and mine >= zipf_frequency(form, other)


def _likelier_another(weights: dict[str, float], senses: frozenset[str], *, ours: bool) -> bool:
    """Whether a form means another word. Either none of its readings is a sense of the
    term and the form is a word of this dictionary's language (`ours`): Russian "пить"
    and "горит" are no dust and no mountains. Or a reading that is another word (nor
    the term's word in another normal form) is `READING_ODDS` times likelier than the
    term's readings."""
    mine = [r for r in weights if normalise_word(r) in senses]
    if not mine:
        return bool(weights) and ours
    others = [
        weight
        for reading, weight in weights.items()
        if reading not in mine and not any(_same_word(reading, m) for m in mine)
    ]
    return bool(others) and max(others) >= READING_ODDS * max(weights[m] for m in mine)


def _same_word(one: str, other: str) -> bool:
    """Whether two lemmas are one word in two normal forms (`SAME_WORD_PREFIX`)."""
    return one[:SAME_WORD_PREFIX] == other[:SAME_WORD_PREFIX]


@lru_cache(maxsize=4096)
def _forms_of(term: Term) -> frozenset[str]:
    """A term's words as lemmas and as stems."""
    return _lemmas_of(term) | {stem(part) for word in term.words for part in _WORD.findall(word)}


def lookup(phrase: str) -> Term | None:
    """The first known term in a short phrase ("молочных перекусов" -> dairy)."""
    found = mentions(phrase)
    return found[0].term if found else None


def by_canonical(value: str) -> Term | None:
    """The term whose canonical value is `value`, for stored values."""
    for term in terms():
        if term.canonical == value:
            return term
    return lookup(value)


def categories_of(value: str) -> frozenset[str]:
    term = by_canonical(value)
    return term.categories if term else frozenset()
