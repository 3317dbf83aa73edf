"""Words, stems, keywords and anchors: the deterministic text toolkit of the memory.

The embedded model cannot summarise or extract, so everything the tiers need from
text comes from here: Snowball stems (English, Russian, and Ukrainian through the
Russian stemmer, so inflected forms match), keywords, and anchors (dates, numbers,
names) that survive compression.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache

import snowballstemmer

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")

STOPWORDS_EN = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can could did do does doing don't down during each
    few for from further had has have having he her here hers herself him himself his how i i'm
    if in into is it it's its itself just let's me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than that
    that's the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would
    you your yours yourself yourselves also get got really yeah yes oh hey hi hello thanks thank
    okay ok well like just much many one two lot lots thing things something anything still
    going gonna wanna im ive its youre thats dont know think sure great good nice glad""".split()
)
STOPWORDS_RU = frozenset(
    """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
    ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть
    был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть
    надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто
    этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы нее сейчас были
    куда зачем всех никогда можно при наконец два об другой хоть после над больше тот через эти
    нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше
    чуть том нельзя такой им более всегда конечно всю между это привет пожалуйста спасибо""".split()
)
STOPWORDS_UK = frozenset(
    """і й та в у на з із зі зо до від для про по за при над під без через між біля коло я ти
    він вона воно ми ви вони мене мені мною тебе тобі тобою його йому ним нього її їй
    нею неї нас нам нами вас вам вами їх їм ними них себе собі собою мій моя моє мої
    мого моєї моїм твій твоя твоє твої свій своя своє свої наш наша наше наші ваш ваша
    ваше ваші це цей ця ці цього цієї цим цих той те ті того тієї тим тих що щоб як але
    або чи бо якщо коли де куди звідки чому навіщо хто кого кому ким чого чим який яка
    яке які якого якої якому якій яку яким якими яких ні не ані так теж ніж після перед
    свого своєї своїм своїх свою також ще вже тут там тоді потім зараз ось от ж же би б
    був була було були буде будуть бути є все всі весь вся усе усі дуже може можна треба
    хіба навіть лише тільки ну ага привіт дякую""".split()
)
STOPWORDS = STOPWORDS_EN | STOPWORDS_RU | STOPWORDS_UK

MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
    "январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?|"
    "сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе]|"
    "січ(?:ень|ня|ні)|лют(?:ий|ого|ому)|берез(?:ень|ня|ні)|квіт(?:ень|ня|ні)|трав(?:ень|ня|ні)|"
    "черв(?:ень|ня|ні)|лип(?:ень|ня|ні)|серп(?:ень|ня|ні)|верес(?:ень|ня|ні)|жовт(?:ень|ня|ні)|"
    "листопад(?:а|і)?|груд(?:ень|ня|ні)"
)
DATE_PATTERNS = [
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    re.compile(r"\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b"),
    re.compile(rf"\b\d{{1,2}}\s+(?:{MONTHS})\.?(?:,?\s+\d{{4}})?\b", re.IGNORECASE),
    re.compile(rf"\b(?:{MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b", re.IGNORECASE),
    re.compile(r"\b\d{1,2}:\d{2}(?:\s*[-–]\s*\d{1,2}:\d{2})?\b"),
]
NUMBER = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:%|€|\$|₽|руб\w*|usd|eur|km|км|kg|кг)?", re.IGNORECASE
)
# A capitalised word, with an apostrophe inside it as Ukrainian names have ("Мар'яна",
# "В'ячеслав").
_NAME = "[A-ZА-ЯЁІЇЄҐ](?:[a-zа-яёіїєґ]+|(?=['’ʼ]))(?:['’ʼ][a-zа-яёіїєґ]+)*"
# Not a sentence's first word, which any word can be: after a stop, a colon ("Tom:
# Excited. A bit nervous" is a speaker's turn, "the plan: Meet at five" a clause) or a
# line break.
CAPITALISED = re.compile(
    rf"(?<![.!?:]\s)(?<!\n)(?<!^)\b({_NAME}(?:[^\S\r\n]+{_NAME})*|[A-ZА-ЯЁІЇЄҐ]{{2,}}\w*)"
)
MONTH_WORD = re.compile(rf"^(?:{MONTHS})$", re.IGNORECASE)


# Ukrainian through the Russian stemmer: its letters mapped to the Russian ones that
# play their part in endings, so "роботі", "роботу" and "роботою" share a stem.
_AS_RUSSIAN = str.maketrans({"ё": "е", "і": "и", "ї": "и", "є": "е", "ґ": "г", "'": "", "ʼ": ""})
UKRAINIAN_WRITING = re.compile("[іїєґІЇЄҐ]|[а-яА-Я]['’ʼ][а-яА-Я]")
"""A letter only Ukrainian has, or an apostrophe inside a Cyrillic word ("мʼясо"): the
text whose stems `_AS_RUSSIAN` makes differ from the Russian stemmer's alone."""


@cache
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(language)


def words(text: str) -> list[str]:
    """Lower-cased word tokens; apostrophes and hyphens stay inside a word."""
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """One stem: English Snowball for a Latin word, Russian for a Cyrillic one. A
    Ukrainian word goes through the Russian stemmer with its letters mapped
    (`_AS_RUSSIAN`); a Russian word has none of them, so it keeps its Russian stem.

    Cached: Snowball in pure Python costs ~0.2 ms a word, and every message and
    query stems the same everyday words again."""
    if CYRILLIC.search(word):
        return _stemmer("russian").stemWord(word.translate(_AS_RUSSIAN))
    return _stemmer("english").stemWord(word)


def stems(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Stems of the content words of `text`, in order, for FTS and term links."""
    return [stem(w) for w in words(text) if not (drop_stopwords and (w in STOPWORDS or len(w) < 2))]


MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """The distinct stems of a query, in order, at most MAX_QUERY_TERMS of them."""
    return list(dict.fromkeys(stems(text)))[:MAX_QUERY_TERMS]


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted.

    Quoting keeps user text from being parsed as FTS syntax (AND, NEAR, quotes...).
    """
    return " OR ".join(f'"{term}"' for term in terms)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.split(text) if s and s.strip()]


def keywords(
    texts: Sequence[str],
    *,
    limit: int = 12,
    document_frequency: Counter[str] | None = None,
    documents: int = 0,
) -> list[str]:
    """The most characteristic words of `texts`, as surface forms, best first.

    TF-IDF when corpus statistics (stem → number of blocks) are given, plain term
    frequency otherwise. Surface forms are kept for display; matching uses stems.
    """
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for text in texts:
        for word in words(text):
            if word in STOPWORDS or len(word) < 3 or word.isdigit():
                continue
            key = stem(word)
            counts[key] += 1
            surface.setdefault(key, word)
    if not counts:
        return []

    def weight(key: str) -> float:
        if document_frequency is None or documents <= 0:
            return counts[key]
        idf = math.log((1 + documents) / (1 + document_frequency.get(key, 0))) + 1
        return counts[key] * idf

    ranked = sorted(counts, key=lambda key: (-weight(key), key))
    return [surface[key] for key in ranked[:limit]]


def anchors(text: str, *, limit: int = 12) -> list[str]:
    """Dates, times, numbers and names: the facts a gist must not lose."""
    found: list[str] = []
    for pattern in DATE_PATTERNS:
        found.extend(m.group(0) for m in pattern.finditer(text))
    for match in CAPITALISED.finditer(text):
        name = match.group(1)
        if name.lower() not in STOPWORDS and len(name) > 1 and not MONTH_WORD.match(name):
            found.append(name)
    taken = " ".join(found)
    for match in NUMBER.finditer(text):
        value = match.group(0).strip()
        if value not in taken and len(value.strip("%€$₽")) >= 2:
            found.append(value)
    return list(dict.fromkeys(found))[:limit]
