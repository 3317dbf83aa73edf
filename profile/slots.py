"""Slot finders backed by libraries: where a message names a place, a name.

The rule tables hear a closed set of phrasings. These finders propose values from
what a dictionary or a gazetteer recognises in the sentence (any city GeoNames knows,
any first name the Russian or Ukrainian dictionaries list, any capitalised name after
a self-introduction) and leave the judgement whether the sentence states the user's
own standing fact to the trained gate (`profile.gate`). So they are generous by
design: a trip to Tokyo is proposed as a timezone here, and refused there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from aniso.profile import given_names, lexicon, morph, places, vocab
from aniso.profile.delta import Op, make_op


@dataclass(frozen=True)
class Proposal:
    """An op a finder proposes, with the span of the sentence that supports it."""

    op: Op
    start: int
    end: int
    origin: str


def about(mention: lexicon.Mention, sentence: str, origin: str) -> Callable[..., Proposal]:
    """A maker of proposals about one lexicon mention: (kind, field[, canonical])."""
    said = sentence[mention.start : mention.end]

    def make(kind: str, field: str, canonical: str | None = None) -> Proposal:
        op = make_op(kind, field, canonical or mention.term.canonical, said)
        return Proposal(op, mention.start, mention.end, origin)

    return make


_BEFORE_PLACE = re.compile(
    r"(?:\b(?:in|to|from|at|near|around|outside|of)|(?<![\w-])(?:в|во|из|у|з|із|зі|до|на|под"
    r"|під|около|біля|возле))\s+$",
    re.IGNORECASE,
)


_ASKS_FOR = re.compile(
    r"\b(?:suggest|recommend|find\s+me|any\s+ideas|where\s+(?:to|can|should))\b|(?<![\w-])"
    r"(?:посоветуй\w*|подскажи\w*|предложи\w*|порадь\w*|підкажи\w*|запропонуй\w*|знайди|найди)"
    r"(?![\w-])",
    re.IGNORECASE,
)
_LIVES = re.compile(
    r"\b(?:live|living|lives|based|moved|moving|relocat\w*|settled|home|from|here)\b|(?<![\w-])"
    r"(?:живу|живём|живем|живемо|мешкаю|переехал\w*|переїхал\w*|перебрал\w*|из|з|із|тут|здесь"
    r"|родом|дома|вдома)(?![\w-])",
    re.IGNORECASE,
)


_STANDS_ALONE = re.compile(r"\s*(?:[.,!;:)—–-]|here\b|$)", re.IGNORECASE)


_FRAGMENT = re.compile(r"[,.!(]")
INTRO_WORDS = 3
"""Words in each fragment before a bare lower-case city in a telegraphic introduction."""


def _opens_sentence(sentence: str, start: int) -> bool:
    """Whether nothing but punctuation or spaces stands before `start`."""
    return not any(c.isalnum() for c in sentence[:start])


def _after_introduction(before: str) -> bool:
    """Whether `before` is the start of a telegraphic introduction that a city's name
    follows as a fragment of its own: "hi im liam, dublin.", "hi, rafael here, são
    paulo", "nz, auckland". Each fragment before it is a greeting or a name, a few words
    long; "we went to lisbon, porto" has a longer one."""
    if not _FRAGMENT.fullmatch(before.rstrip()[-1:]):
        return False
    parts = [p.split() for p in _FRAGMENT.split(before)]
    return all(len(p) <= INTRO_WORDS for p in parts)


def _opens(sentence: str, mention: places.Mention) -> bool:
    """Whether a lower-case place opens the sentence as a capitalised one would: chat
    drops the capital a sentence starts with ("utrecht. i cycle everywhere", "manila
    here!", "хабаровск на связи"). A Latin word must stand alone there (punctuation or
    "here" after it): "nice to meet you" and "reading is my thing" name no city. It must
    also be a big city's own name: a greeting opens a message the same way, and GeoNames
    lists towns and other names that are everyday words of some language ("hola!" is
    Hola, Kenya; "selam," is one of Salem's names), so neither a small town nor another
    name is read there without a capital or a preposition. The gazetteer's Cyrillic
    lower-case names are the dictionary's places already."""
    if not _opens_sentence(sentence, mention.start) and not _after_introduction(
        sentence[: mention.start]
    ):
        return False
    written = sentence[mention.start : mention.end]
    if morph.is_cyrillic(written):
        return True
    return (
        mention.own_name
        and mention.place.size >= places.BIG_OTHER_NAME
        and bool(_STANDS_ALONE.match(sentence, mention.end))
    )


def _greets(sentence: str, mention: places.Mention) -> bool:
    """Whether a capitalised word opening the sentence, then a comma or "!", is a greeting
    more likely than a town: "Hola, Sofía aquí" is no home in Hola, Kenya, "Aloha!" in
    Aloha, Oregon, nor "Okay, I agreed" in Okay, Oklahoma. A big city there is the place
    ("Utrecht, i cycle"), and so is a Cyrillic name ("Саратов, если это важно")."""
    if not _opens_sentence(sentence, mention.start):
        return False
    if morph.is_cyrillic(sentence[mention.start : mention.end]):
        return False  # "Иркутск, Байкал рядом": the dictionary's places already
    if not re.match(r"\s*[,!]", sentence[mention.end :]):
        return False
    return mention.place.size < places.BIG_OTHER_NAME


def timezone(sentence: str) -> list[Proposal]:
    """A timezone for every place the sentence names: after a preposition of place, or
    on its own written with a capital or opening the sentence ("we moved to the
    mainland, San Diego now")."""
    found = []
    # "suggest a steakhouse in Madrid" is where the user wants something, not where they
    # live, unless the sentence also says they live there.
    if _ASKS_FOR.search(sentence) and not _LIVES.search(sentence):
        return []
    for mention in places.mentions(sentence):
        written = sentence[mention.start : mention.end]
        before = sentence[max(0, mention.start - 12) : mention.start]
        after_preposition = bool(_BEFORE_PLACE.search(before))
        if not after_preposition and not written[:1].isupper() and not _opens(sentence, mention):
            continue
        if len(written) < 3 and not _home_initials(sentence, before, mention.end):
            continue
        if not after_preposition and places.is_common_word(written):
            # "Tell me more…" is not a move to Tell, nor "Best of all…" to Best: a name
            # that is also an everyday word needs a preposition of place before it.
            continue
        if not after_preposition and _greets(sentence, mention):
            continue
        if not after_preposition and _a_person(sentence, mention.start, mention.end):
            continue
        if _ordinary_word(sentence, mention) and not _LIVES.search(sentence):
            # "хожу в бассейн" is no move to Pathein, nor "back to normal" to Normal, IL.
            continue
        if _former_home(sentence, mention.start) or _moved_from(sentence, mention.start):
            continue
        op = make_op("set", "timezone", mention.place.timezone, written)
        origin = "place" if after_preposition else "place-bare"
        found.append(Proposal(op, mention.start, mention.end, origin))
    return found


_PART_BREAK = re.compile(
    r"[,;:()—–.!?]|\s-\s|(?<![\w-])(?:but|and\s+now|а|але|но|і\s+тепер|и\s+теперь)(?![\w-])",
    re.IGNORECASE,
)
_LIVED = re.compile(
    r"(?<![\w-])(?:lived|used\s+to\s+live|was\s+living|were\s+living"
    r"|spent\s+(?:\d{4}|\w+\s+years?)\s+living)(?![\w-])",
    re.IGNORECASE,
)
_NOW = re.compile(
    r"(?<![\w-])(?:now|currently|still|these\s+days|since|(?:i|we)\s+live|(?:i'm|we're)\s+living"
    r"|(?:i've|we've|ive|have|has)"
    r"\s+lived|теперь|сейчас|тепер|зараз|досі|до\s+сих\s+пор|всё\s+ещё|все\s+ещё)(?![\w-])",
    re.IGNORECASE,
)
_LIVING = frozenset("жить проживать пожить жити проживати пожити мешкати".split())
"""The verbs of living whose tense says whether a Russian or Ukrainian home is now."""


def _living(part: str, forms: tuple[str, ...], *, ukrainian: bool) -> bool:
    """Whether `part` has a Russian or Ukrainian verb of living in one of `forms`
    (`morph.verb_form`): "жила", "мешкали" are past; "живу", "живём" now. `ukrainian`
    says the sentence is: "мешкав" alone reads as a Russian gerund."""
    return any(
        any(r[morph.POS] == "VERB" and r[morph.LEMMA] in _LIVING for r in morph.parses(word))
        and morph.verb_form(word, ukrainian=ukrainian) in forms
        for word in morph.WORD.findall(part.lower())
    )


def _former_home(sentence: str, start: int) -> bool:
    """Whether the place at `start` is where the user lived once, not now: its part of the
    sentence (up to the place, from the last comma or "but"/"а") says "lived", "жили",
    "мешкав" (pymorphy3's past tense of a verb of living), and nothing in its part brings
    it to now ("now", "still", "since", "have lived", a present verb of living). "back
    when i lived in Oslo" and "в 2016 ми жили в Барселоні" name no zone; "Раньше жил в
    Хабаровске, а теперь в Ульяновске" names Ульяновск's only."""
    low, high = clause_of(sentence, start, _PART_BREAK)
    part, whole = sentence[low:start], sentence[low:high]
    ukrainian = morph.has_ukrainian_letters(sentence)
    past = bool(_LIVED.search(part)) or _living(part, ("past_sg", "past_pl"), ukrainian=ukrainian)
    return past and not _NOW.search(whole) and not _living(whole, ("v1", "v3"), ukrainian=ukrainian)


_FROM = re.compile(r"(?:\bfrom|(?<![\w-])(?:из|изо|с|со|з|із|зі|від))\s+$", re.IGNORECASE)
_MOVING = frozenset(
    """переехать переезжать уехать уезжать перебраться выехать съехать эмигрировать
    переїхати переїжджати виїхати виїжджати перебратися емігрувати""".split()
)
_MOVED = re.compile(r"moved|moving|move|relocated|relocating|emigrated", re.IGNORECASE)


def _moved_from(sentence: str, start: int) -> bool:
    """Whether the place at `start` is where a move began: "from", "из", "з" before it
    and a verb of moving in its part of the sentence (up to a comma or "but"; pymorphy3's
    lemma for Russian and Ukrainian), not negated. "moved to Hanoi from Seattle",
    "переехал из Москвы", "переїхали з Торонто до Калгарі": the source of a move is, by
    the verb's meaning, no longer home. "я из Омска и сейчас тут же, никуда не уезжал"
    moved nowhere."""
    if not _FROM.search(sentence[max(0, start - 6) : start]):
        return False
    part = sentence[slice(*clause_of(sentence, start, _PART_BREAK))]
    words = _WORDS.findall(part.lower())
    return any(
        (_MOVED.fullmatch(word) or any(lemma in _MOVING for lemma in morph.lemmas(word)))
        and (i == 0 or words[i - 1] not in _NOT)
        for i, word in enumerate(words)
    )


_WORDS = re.compile(r"[\w'’ʼ-]+")
_NOT = frozenset("not never didn't didnt haven't havent не ні ніколи никогда".split())


_MIXED_CASE = re.compile(r"^\w+[A-Z]\w*$")
_PROPER = ("Geox", "Name", "Surn", "Patr")


def _ordinary_word(sentence: str, mention: places.Mention) -> bool:
    """Whether a place's name, as written there, reads first as an everyday word, so only a
    sentence about where the user lives makes it the place: a lower-case word (or one
    capitalised only because it opens the sentence) that the Russian or Ukrainian
    dictionary's likeliest reading makes a common noun, adjective or verb ("бассейн",
    "метро", "судака", "Свободна"); a lower-case English word more frequent than the
    place ("normal"); a short word with a capital inside ("PhD", "MSc") is an
    abbreviation, where a longer one may be a place ("McAllen")."""
    written = sentence[mention.start : mention.end]
    if " " in written.strip():
        return False
    opens = _opens_sentence(sentence, mention.start)
    if not morph.is_cyrillic(written):
        if len(written) <= 4 and _MIXED_CASE.match(written) and not written.isupper():
            return True
        return written.islower() and places.is_common_word(written)
    if not (written.islower() or opens):
        return False
    readings = morph.parses(written)
    if not readings or not morph.is_known(written):
        return False
    return not any(mark in readings[0][morph.TAG] for mark in _PROPER)


_PERSON_VERB = re.compile(
    r"\s+(?:(?:also|just|always|once|never|then|still|even)\s+)?(?:suggest|recommend|said|say"
    r"|says|told|tell|tells|think|thinks|thought|ask|asks|asked|want|wants|wanted|mention"
    r"|insist|swear|swears|swore|reckon|texted|text|texts|messaged|wrote|writes|called|calls"
    r"|promised|promises|invited|invites|convinced|taught|teaches|gave|gives|bought|made"
    r"|loves|hates|likes|dislikes)\w*(?![\w-])",
    re.IGNORECASE,
)
"""Verbs whose subject is a person: "Rui suggested I try…", "Nadia says…". A bare name
before one is someone talking, not a place the user lives in."""
_TITLES = ("dr", "mr", "mrs", "ms", "miss", "prof", "professor", "doctor")
"""Titles that go with a name ("Dr. Okafor", "Professor Hartmann"): the person check
below and the name finder's patterns read this one list."""
_TITLE_WORDS = "|".join(_TITLES)


def _a_person(sentence: str, start: int, end: int) -> bool:
    """Whether a bare (no preposition) place name reads as a person there. GeoNames lists
    given names as some town's other name ("Rui" is Loei, "Nadia" Navadwīp, "Ліля"
    Lille), and a sentence names people far more often than it names a town alone. A
    person it is when the dictionaries' likeliest reading is a first name (Russian,
    Ukrainian), when a person word or a title stands just before it ("my cousin Nadia",
    "Mrs. Ferreira"), when it is the subject of a verb only people do ("Rui suggested"),
    or when a self-introduction names it ("i'm Marek", "Я Марко")."""
    from aniso.profile.gate import OTHERS  # the gate reads these finders' output

    written = sentence[start:end]
    if OTHERS.intersection((written.lower(), morph.lemma(written.lower()))):
        return True  # "кума переїхала" is a godmother, not Qom
    own_name = _own_place_name(written)
    if morph.is_cyrillic(written):
        if " " not in written.strip() and morph.likely_name(written):
            # A guess from the ending is no evidence: "Кашкайш" is no name the
            # dictionary knows.
            return morph.is_known(written)
    elif _PERSON_VERB.match(sentence, end):
        return True
    before = re.findall(r"[\w'’ʼ]+", sentence[:start])[-1:]
    if before and (before[0].lower() in OTHERS or before[0].lower() in _TITLES):
        return True
    if written.lower() in _TITLES:
        return True
    if given_names.is_given_name(written) and not own_name:
        return True  # "Marco, Milan.": Marco is a town in Brazil, and a man here
    # "Yerevan here." introduces a city as "Mei here." does a person: the city's own
    # name is the place, another city's alternate name the person. Words before it that
    # introduce the user ("i'm Artem,", "call me Paris") make it a person whatever the
    # town: Artem is a city of 100,000 by Vladivostok. Not when the town goes on into
    # where the user is from: "I'm Paris-based", "I'm London born and raised".
    introduced = not _FROM_THERE.match(sentence, end)
    return any(
        p.start <= start < p.end and (not own_name or (p.start < start and introduced))
        for p in name(sentence)
    )


_FROM_THERE = re.compile(r"(?:-|\s+)(?:based|born|raised|bred|native)\b", re.IGNORECASE)
_AT = re.compile(r"\bat\s+$", re.IGNORECASE)


def _home_initials(sentence: str, before: str, end: int) -> bool:
    """Whether a city's initials ("SF", "LA"), with `before` the text just before them
    (as `timezone` reads it), are said as where someone is: after a preposition of place
    other than "at" ("in SF", "moved to LA"; not "I'm at LA Fitness"), or before
    "-based", "born" and the like ("LA based"). "here" is no such word: "JB here" is as
    often a person's initials."""
    if _BEFORE_PLACE.search(before):
        return not _AT.search(before)
    return bool(_FROM_THERE.match(sentence, end))


_STRONG = re.compile(
    r"\b(?:my\s+name\s+is|my\s+name'?s|name'?s|call\s+me|i\s+go\s+by|you\s+can\s+call\s+me"
    rf"|address\s+me\s+as)\s+(?P<v>(?:(?:{_TITLE_WORDS})\.?\s+)?[\w'-]+)"
    r"|(?<![\w-])(?:меня\s+зовут|зовут\s+меня|зови(?:те)?\s+меня|называй(?:те)?\s+меня"
    r"|мо[её]\s+имя|обращайся\s+ко\s+мне|мене\s+звати|звати\s+мене|звуть\s+мене|мене\s+звуть"
    r"|клич(?:те)?\s+мене|називай(?:те)?\s+мене|моє\s+ім['ʼ]я|звертайся\s+до\s+мене)"
    r"\s*[—–:-]?\s*(?:(?:лучше|просто|теперь|уже|краще|тепер|вже|just|simply|now)\s+)?"
    r"(?P<v2>[\w'ʼ-]+)",
    re.IGNORECASE,
)
_HELLO = r"hi+|he+y+|hell+o+|hiya|yo+"
"""The English greetings a name follows ("heyy im Tomás", "Mei here"), one pattern for
every name finder."""
_GREETING = (
    rf"{_HELLO}|sup|hola|ciao|kia\s+ora|good\s+(?:morning|afternoon|evening|day)|g'day"
    r"|hi\s+there|hello\s+there|namaste|merhaba|salut|bonjour|hallo|ola|olá|oi|привет|привіт"
    r"|вітаю|здравствуйте|добрый\s+день|добрий\s+день|доброго\s+дня|здарова|хай"
)
"""The greetings a message may open on before a name ("hola, Sofía aquí"), and after a
name that the message greets ("Женя, привет!"): one list for both, so a greeting read
in one place is read in the other."""
_BEFORE_I_AM = rf"(?i:^|[,.!]\s*|\b(?:{_HELLO}|and|but|btw|also|oh|ok|so)[,!]?\s+)"
"""What may stand before "I'm" in an introduction: a sentence's start, a comma, a
greeting or a filler word."""
_WEAK = re.compile(
    _BEFORE_I_AM + r"(?i:i'?m|i\s+am|it'?s|this\s+is|myself)\s+"
    rf"(?P<v>(?:(?:{_TITLE_WORDS.title()})\.?\s+)?[A-Z][\w'-]+)(?:\s+here)?"
    r"|(?i:^|[,.!]\s*|(?<![\w-])(?:привет|здравствуй\w*|добрый\s+день|привіт|вітаю|и|а|і|й"
    r"|кстати|до\s+речі|до\s+речи)[,!]?\s+)"
    r"(?i:я|это|це)\s*[—–-]?\s+(?P<v2>[\w'ʼ-]+)",
)


_SOFT = re.compile(
    # A name said without "my name is": "Mei here", "just Anna is fine", "go with Sofi",
    # "давай всё-таки Евгения". Only a capitalised word that is no known thing (English)
    # or a word the dictionaries list as a first name (Russian, Ukrainian) passes.
    rf"(?:^|[,.!]\s*|\b(?:{_HELLO})[,!]?\s+)(?P<v>[A-Z][\w'-]+)\s+here\b"
    r"|\b(?i:just|actually|pls|please|ok|okay|so)\s+(?P<v3>[A-Z][\w'-]+)\s+is\s+(?:fine|good"
    r"|ok|okay|better)\b|\b(?:go\s+with|go\s+by|stick\s+with|call\s+me\s+by\s+my\s+(?:middle\s+|first\s+)?"
    r"name,?)\s+(?P<v4>[A-Z][\w'-]+)"
    r"|(?<![\w-])(?i:давай(?:те)?|можно|можна|лучше|краще)\s+(?:(?i:вс[её]-таки|таки|лучше|краще"
    r"|просто|уже|вже|ти\s+мене|мене|меня)\s+){0,3}(?:[—–-]\s+)?(?P<v2>[А-ЯЁІЇЄҐ][\w'ʼ-]+)"
    # The name the user goes by: "all my friends call me Mari", "все зовут Женя",
    # "всі кличуть Бодя". Only people at large, not one person ("my mum calls me…").
    r"|(?<![\w-])(?i:everyone|everybody|(?:all\s+)?(?:my\s+)?friends|people|все|всі|друзья|друзі"
    r"|друзі\s+мої|мои\s+друзья)\s+(?i:call|calls|зовут|звуть|кличуть|называют|називають)"
    r"\s+(?:(?i:me|меня|мене)\s+)?(?P<v5>[\w'ʼ-]+)"
    # The name, then how to use it: "Ирина Петровна, так меня и называйте".
    r"|(?P<v6>[А-ЯЁІЇЄҐ][\w'ʼ-]+)(?:\s+[А-ЯЁІЇЄҐ][\w'ʼ-]+)?\s*[,—–-]?\s*(?i:так|вот\s+так)\s+"
    r"(?i:меня|мене)\s+(?:(?i:и|і|й)\s+)?(?i:называй\w*|зови\w*|звіть|кличте|клич|називай\w*"
    r"|звертайтесь|обращайтесь)"
    # A signature that closes the message: "Regards, — Ingrid Solberg", "З повагою, Олена",
    # a line "— Олена".
    r"|(?:^\s*[—–]|(?i:regards|best|cheers|thanks|thank\s+you|с\s+уважением|з\s+повагою|спасибо"
    r"|дякую)\s*,?\s*[—–-]?)\s*(?P<v7>[A-ZА-ЯЁІЇЄҐ][\w'ʼ-]+)(?:\s+[A-ZА-ЯЁІЇЄҐ][\w'ʼ-]+)?\s*$"
)


def _common_word(word: str, *, places_too: bool = True) -> bool:
    """A word that names something the profile knows (a diet, a language, a food): "I'm
    Vegan", "я веган" introduce a diet, not a person."""
    lowered = word.lower()
    tables = (vocab.DIET, vocab.LANGUAGE, vocab.TONE, vocab.BUDGET, vocab.SPICE, vocab.FORMAT)
    if any(vocab.first_match(table, lowered) for table in tables):
        return True
    if lexicon.lookup(lowered) is not None:
        return True
    return places_too and places.lookup(word) is not None


BIG_CITY = 100_000
"""A city this big is better known by its name than a person is: "Yerevan here." is a
place, "Fatima here" (Fátima, Portugal, about 11,000 people) a person."""


def _own_place_name(word: str) -> bool:
    """Whether a word is a big city's own name (not another city's alternate one)."""
    entry = places.lookup_entry(word)
    return entry is not None and entry[0] and entry[1] >= BIG_CITY


_NAMED = re.compile(
    # Russian and Ukrainian say "I" and a name anywhere in a sentence ("слушай я Петя",
    # "вводные: я полина") and put the name inside "меня … зовут" ("меня Вовой звать").
    # Only a word whose likeliest reading is a first name passes (`morph.likely_name`).
    r"(?<![\w-])(?i:я|это\s+я|це\s+я)\s+(?P<v>[\w'ʼ-]+)"
    r"|(?<![\w-])(?i:меня|мене)\s+(?P<v2>[\w'ʼ-]+)\s+(?i:зовут|звать|звати|звуть|кличуть|называют)"
    r"(?![\w-])"
)


_CASUAL = re.compile(
    # How chat introduces a name without a capital or "my name is": "hi im liam, dublin",
    # "rafael here", and a message that opens on a name as its first fragment ("Marco,
    # Milan.", "hi, Anna, living in Vienna", "Hey! Alex (he/him)", "Hamid from Tehran",
    # "Алёна, Уфа."; not "Dan (husband)").
    # Only a given name that is no everyday word passes (`given_names.bare_name`).
    _BEFORE_I_AM + r"(?i:i'?m|i\s+am|this\s+is|myself)\s+(?P<v>[a-z][\w'-]+)"
    r"(?=\s*(?:[.,!;:)—–-]|and\b|$))"
    rf"|^(?i:(?:{_GREETING})[,!.]*\s+)?"
    # A name that opens a question or a request is whom it is asked of ("Sam, what do you
    # think", "Siri, tell me"), and one a description follows someone else ("Lucas, my
    # friend from Porto, says hi").
    r"(?P<v2>[A-Za-zА-ЯЁІЇЄҐа-яёіїєґ][\w'ʼ-]+)"
    r"(?=(?:\s*(?:[,.|]|\((?i:he|she|they)/)|\s+(?i:from|here|из|з|із)\s)"
    r"(?!\s*(?i:what|how|can|could|would|will|tell|please|pls|do|does|did|is|are|why|where"
    r"|who|when|which|give|show|help|let|you|my|our|his|her|their|the|a|an|says|said)\b))"
    rf"|(?:^|[,.!]\s*|\b(?i:{_HELLO})[,!]?\s+)(?P<v3>[a-z][\w'-]+)\s+here\b"
)


_NEXT_WORD = re.compile(r"\s*[,.|]?\s*(?P<from>(?i:from|из|з|із)\s+)?(?P<w>[\w'ʼ-]+)")
_GREETED = re.compile(
    rf"\s*[,!]?\s*(?i:{_GREETING}|thanks|thank\s+you|thx|спасибо|спасибі|дякую)(?![\w'ʼ-])"
)
"""A greeting or thanks after the name a message opens on: the name is whom the message
greets ("Женя, привет!", "Sam, hi!", "Оля, спасибо"). After "I'm Liam," a thanks is
the user's to the assistant, so only the opening name is checked."""
_ASKING = frozenset(
    "как что где когда почему зачем можешь можете ты вы як що де коли чому можеш".split()
)


def _not_introduced(sentence: str, end: int) -> bool:
    """Whether what follows a name says it is not the user's: "Марина, подскажи рецепт"
    asks Marina (an imperative or a question word next), and "Сергей из бухгалтерии" is
    from a department, not a place (after "from"/"из" a place must follow)."""
    after = _NEXT_WORD.match(sentence, end)
    if after is None:
        return False
    word = after.group("w")
    if after.group("from"):
        return not any(
            m.start == after.start("w") for m in places.mentions(sentence[: after.end("w") + 40])
        )
    return morph.is_cyrillic(word) and (
        word.lower() in _ASKING or morph.is_imperative(word.lower())
    )


def _casual_name(word: str) -> str | None:
    """The name a casual introduction gives (`_CASUAL`), if the word is one: a given
    name, no everyday word, no big city ("Paris, France"), no nationality, no diet. A
    Cyrillic word is a name if the dictionaries' likeliest reading makes it one, in the
    nominative ("Алёна, Уфа.", "Юля. Миколаїв.")."""
    if morph.is_cyrillic(word):
        # A name given as a fragment is in the nominative; the guesser reads unknown
        # words ("прив", "лол", "Колега") as some name's genitive.
        named = morph.likely_name(word) and "nomn" in morph.parses(word)[0][morph.TAG]
        return morph.first_name(word) if named else None
    if not given_names.bare_name(word) or _own_place_name(word):
        return None
    if _common_word(word, places_too=False):
        return None
    if word.lower() in places.demonyms() or word.lower() in _NOT_NAMES:
        return None
    return word[:1].upper() + word[1:]


def name(sentence: str) -> list[Proposal]:
    """A name after a self-introduction: any word after a strong cue ("my name is",
    "меня зовут"), a capitalised non-word after a weak one ("Hi, I'm Marta"), and
    for Russian and Ukrainian a word the dictionary lists as a first name."""
    found: list[tuple[bool, Proposal]] = []
    patterns = ((_STRONG, True), (_WEAK, False), (_SOFT, False), (_NAMED, False), (_CASUAL, False))
    for pattern, strong in patterns:
        for m in pattern.finditer(sentence):
            group = next(
                g
                for g in ("v", "v2", "v3", "v4", "v5", "v6", "v7")
                if g in m.re.groupindex and m.group(g)
            )
            word, end = m.group(group), m.end(group)
            if pattern is _NAMED and not (
                morph.is_cyrillic(word)
                # Inside "меня … зовут" a word is a name if any reading makes it one:
                # "Ира" reads first as a form of "ир".
                and (morph.likely_name(word) or (group == "v2" and morph.is_first_name(word)))
            ):
                continue
            if group == "v7" and m.group().lstrip()[:1] in "—–" and morph.is_cyrillic(word):
                if not morph.likely_name(word):
                    continue  # "— Привет": a line of dialogue, not a signature
            if pattern is _SOFT and (
                not morph.is_first_name(word)
                if morph.is_cyrillic(word)
                else _common_word(word, places_too=False)
            ):
                continue
            if group == "v" and pattern is _SOFT and _own_place_name(word):
                continue  # "Yerevan here." is where the user is, not who
            if pattern is _CASUAL:
                # Only a name the message opens on can be the one it greets: "hi im liam,
                # thanks for the help" thanks the assistant.
                greeted = group == "v2" and bool(_GREETED.match(sentence, end))
                refused = greeted or _not_introduced(sentence, end)
                value = None if refused else _casual_name(word)
            else:
                value = _name_value(word, strong=strong)
            if value is not None and morph.is_cyrillic(word):
                value = _with_patronymic(value, sentence[end:])
            if value is not None:
                op = make_op("set", "name", value, word)
                address = group in ("v4", "v5", "v6") or (pattern is _SOFT and group == "v2")
                address = address or bool(_ADDRESS.search(sentence, m.start(), m.start(group)))
                found.append((address, Proposal(op, m.start(), end, "name")))
    named = {p.op.value for _, p in found}
    found += [(True, p) for p in _called(sentence) if p.op.value not in named]
    if any(address for address, _ in found):
        # "I'm Aleksandr, but everyone calls me Sasha", "мене звати Олександр, але всі
        # кличуть Сашко": the name to use is the one the user says to use.
        return [p for address, p in found if address]
    return [p for _, p in found]


_CALL = frozenset("звать называть величать кликать звати називати величати кликати".split())
"""Verbs of calling someone by a name, as lemmas: any form the dictionaries know ("зви",
"кличь", "звіть", "можеш мене називати") is found, where a pattern listed a few."""
_ME = frozenset({"меня", "мене", "мне"})
_MAY = frozenset("можеш можете можна можно можешь будеш будете будешь давай давайте".split())
_EVERYONE = frozenset({"все", "всі", "усі", "друзья", "друзі"})
_BEFORE_NAME = frozenset(
    "меня мене мне просто лучше краще теперь тепер уже вже так и і й ты ти вы ви".split()
)
_CALL_WORD = re.compile(r"[\w'ʼ’-]+")


def _called(sentence: str) -> list[Proposal]:
    """The name the user asks to be called, read through the verb's dictionary form:
    "зви мене Макс", "кличь мене просто Саша", "всі мене кличуть Марічка", "можеш мене
    називати Фросею". Only a request (an imperative, or an infinitive after "можеш",
    "будеш") or people at large ("всі мене кличуть") count: "мама меня называет
    котёнком" is one person's pet name, "кум каже що мене треба звати Дімон" his
    joke, and "меня зовут" an introduction, which `_STRONG` reads."""
    words = list(_CALL_WORD.finditer(sentence))
    found = []
    for i, verb in enumerate(words):
        text = verb.group()
        if not morph.is_cyrillic(text):
            continue
        tags = [r[morph.TAG] for r in morph.parses(text) if r[morph.LEMMA] in _CALL]
        if not tags:
            continue
        before = {w.group().lower() for w in words[max(0, i - 3) : i]}
        infinitive = any("INFN" in t or "infn" in t for t in tags) or text.lower() in _CALL
        request = any("impr" in t for t in tags) or (infinitive and bool(_MAY & before))
        at_large = any("plur" in t and "3per" in t for t in tags) and bool(_EVERYONE & before)
        if not (request or at_large):
            continue
        near = {w.group().lower() for w in words[max(0, i - 2) : i + 3]}
        if not near & _ME:
            continue
        for word in words[i + 1 : i + 5]:
            if word.group().lower() in _BEFORE_NAME:
                continue
            said = word.group()
            value = _name_value(said, strong=True)
            if value is not None and (morph.is_first_name(said) or said[:1].isupper()):
                op = make_op("set", "name", value, said)
                found.append(Proposal(op, verb.start(), word.end(), "name"))
            break
    return found


_ADDRESS = re.compile(
    r"\b(?:call|calls|go\s+by|address)\b|(?<![\w-])(?:зови|называ|клич|назива|зверта|обраща)",
    re.IGNORECASE,
)
"""How the user asks to be called, as against how they introduce themselves."""


def _with_patronymic(name: str, rest: str) -> str:
    """ "Маргарита Павловна": a patronymic right after the name belongs to it."""
    following = re.match(r"\s+([\w'ʼ-]+)", rest)
    if following and morph.is_patronymic(following.group(1)):
        patronymic = following.group(1)
        return f"{name} {patronymic[:1].upper()}{patronymic[1:]}"
    return name


_TITLE = re.compile(rf"^(?:{_TITLE_WORDS})\.?\s+", re.IGNORECASE)


_NOT_NAMES = frozenset(
    """such that this it so too also not just only now here there sure fine ok okay good
    back home done sorry new still always never от это так тоже after before later tomorrow
    today tonight when whenever anytime if at in on around between""".split()
)
"""Words that follow "call me" or "I'm" without naming anyone ("call me after 6pm")."""


def _a_modifier(word: str) -> bool:
    """ "I'm Berlin-born", "I'm Toronto-based": where the user is from, not a double name
    ("Anna-Maria", "Jean-luc")."""
    return _FROM_THERE.search(word) is not None


def _name_value(word: str, *, strong: bool) -> str | None:
    word = word.strip("'ʼ-")
    title = _TITLE.match(word)
    if title:  # "Dr. Okafor": the title is part of how the user wants to be addressed
        rest = _name_value(word[title.end() :], strong=True)
        return f"{title.group().strip().capitalize()} {rest}" if rest else None
    if len(word) < 2 or any(char.isdigit() for char in word) or _a_modifier(word):
        return None
    if word.lower() in _NOT_NAMES or (word.isupper() and not strong):
        return None  # "address me as such", "i'm NOT allergic"
    if morph.is_cyrillic(word):
        if word[:1].isupper() and morph.likely_name(word):
            return morph.first_name(word)
        if not strong and _common_word(word, places_too=False):
            return None
        if morph.is_first_name(word) and (strong or word[:1].isupper() or morph.likely_name(word)):
            return morph.first_name(word)
        if strong and word[:1].isupper() and not _common_word(word):
            return word
        return None
    if not word[:1].isupper() and not strong:
        return None
    if _common_word(word, places_too=False):
        return None
    if not strong and word.lower() in places.demonyms():
        return None  # "I am Greek", "i'm Canadian, so metric please"
    return word[:1].upper() + word[1:]


_CUT = re.compile(r"[.;!?]|\s+(?:but|however|но|але|однак|однако)\s+", re.IGNORECASE)
_RULED_OUT = re.compile(
    # The negation must be about the allergy itself: right before the allergy word
    # ("not allergic", "не аллергия"), or a verdict after it ("allergy ruled out",
    # "аллергии нет"). A bare "не" elsewhere ("аллергия на орехи, не ем их") is not one.
    r"\b(?:not|no\s+longer|isn't|aren't|never\s+was|wasn't)\s+(?:\w+\s+)?(?=allerg|intoleran)"
    r"|\b(?:allerg\w*|intoleran\w*)\b[^.;!?]{0,40}\b(?:ruled\s+out|negative|after\s+all|gone"
    r"|anymore|any\s+more|was\s+wrong|false\s+alarm)\b|\boutgrew\b"
    r"|(?<![\w-])(?:не|больше\s+не|уже\s+не|вже\s+не|більше\s+не)\s+(?=аллерг|алерг)"
    r"|(?<![\w-])(?:аллерги\w*|алергі\w*)[^.;!?]{0,40}(?<![\w-])(?:нет|нету|немає|нема|не\s+подтвердил\w*"
    r"|не\s+підтвердил\w*|прошла|минула|отрицательн\w*|негативн\w*)(?![\w-])"
    r"|(?<![\w-])(?:реакции\s+нет|реакції\s+немає|не\s+аллергия|не\s+алергія)(?![\w-])",
    re.IGNORECASE,
)
_AGAIN = re.compile(
    r"\b(?:again|back\s+(?:to|on)|(?:is|are)\s+back|anymore|no\s+longer|these\s+days\s+i\s+do"
    r"|allowed|cleared|fine\s+now|ok\s+now)\b"
    r"|(?<![\w-])(?:снова|опять|вновь|обратно|опять|знову|знов|вже\s+можу|уже\s+можу|можно)(?![\w-])",
    re.IGNORECASE,
)
_BACK = re.compile(
    r"\b(?:is|are)\s+back\b|\b(?:is|are|'s|'re)\s+(?:fine|ok|okay|allowed|back\s+on)\s+(?:again|now)\b"
    r"|\b(?:can|could)\s+(?:eat|have|drink)\b|(?<![\w-])(?:возвращается|повертається|разрешил\w*"
    r"|дозволи\w*|разрешен\w*|дозволен\w*|уже\s+можно|вже\s+можна|можно\s+снова|знову\s+можна"
    r"|снова\s+можно)(?![\w-])",
    re.IGNORECASE,
)
_EAT = re.compile(
    r"\b(?:eat\w*|ate|having|have|can\s+have|drink\w*|back\s+on)\b|(?<![\w-])(?:ем|ешь|есть|ела|ел"
    r"|кушаю|употребля\w*|пью|пить|їм|їсти|їла|їв|вживаю|п'ю|пʼю|пити|можу)(?![\w-])",
    re.IGNORECASE,
)
_QUIT = re.compile(
    r"\b(?:quit|quitting|gave\s+up|give\s+up|given\s+up|stopped|dropped|no\s+longer|not\s+into"
    r"|anymore|any\s+more"
    r"|done\s+with|over\s+(?:it|that)|lost\s+interest)\b|(?<![\w-])(?:бросил\w*|забросил\w*"
    r"|перестал\w*|больше\s+не|уже\s+не|надоел\w*|кинув|кинула|покинув|покинула|закинув|закинула"
    r"|перестав|перестала|більше\s+не|вже\s+не|набрид\w*)(?![\w-])",
    re.IGNORECASE,
)
_UNLIKED = re.compile(
    r"\b(?:went\s+off|i'?m\s+off|over\s+(?:it|them)|not\s+a\s+fave|phase\s+is\s+(?:\w+\s+)?over"
    r"|no\s+longer\s+(?:like|love|into)|(?:don'?t|do\s+not)\s+(?:like|love|want)\s+(?:\w+\s+)?anymore"
    r"|not\s+into\s+(?:\w+\s+)?anymore|quit|gave\s+up|sick\s+of|tired\s+of)\b"
    r"|(?<![\w-])(?:разлюбил\w*|розлюбил\w*|(?:больше|уже)\s+не\s+(?:хочу|люблю|нравится|нравятся)"
    r"|(?:більше|вже)\s+не\s+(?:хочу|люблю|подобається|подобаються)|надоел\w*|набрид\w*"
    r"|бросил\w*|кинув|кинула|переел\w*|переїв|переїла)(?![\w-])",
    re.IGNORECASE,
)
"""A liking taken back ("went off sushi", "каву розлюбила")."""
_UNDISLIKED = re.compile(
    r"\b(?:(?:is|are|'s)\s+(?:actually\s+)?(?:fine|ok|okay|growing\s+on\s+me)|not\s+(?:a\s+)?dealbreaker"
    r"|take\s+(?:it|that)\s+back|don'?t\s+(?:hate|mind)|changed\s+my\s+mind)\b"
    r"|(?<![\w-])(?:(?:уже|вже|больше|більше|теперь|тепер)\s+не\s+(?:бесит|бісить|ненавижу|ненавиджу"
    r"|раздражает|дратує)|беру\s+слова\s+назад|беру\s+свої\s+слова\s+назад|передумал\w*"
    r"|передумав|звикл\w*\s+до|привык\w*\s+к)(?![\w-])",
    re.IGNORECASE,
)
"""A dislike taken back ("jazz is fine, i actually kinda love it", "джаз теперь не бесит")."""
_STOP = re.compile(
    r"\b(?:stop|no\s+more|don't\s+use|do\s+not\s+use|without|quit|enough\s+(?:of|with)|drop\s+the"
    r"|ditch\s+the|lose\s+the|not)\b|(?<![\w-])(?:хватит|без|не\s+надо|не\s+нужно|не\s+используй"
    r"\w*|перестань|не\s+делай|уже\s+не|досить|годі|не\s+треба|не\s+використовуй\w*|припини"
    r"|більше\s+не|больше\s+не)(?![\w-])",
    re.IGNORECASE,
)


def clause_of(
    sentence: str, start: int, cut: re.Pattern[str] = _CUT, *, end: int | None = None
) -> tuple[int, int]:
    """The clause around `start`: from the last break before it to the next after it,
    a break being `cut` (a sentence's end or "but" unless told otherwise). Given the
    `end` of a span at `start`, the next break is looked for from there, so a break
    inside a name ("Trinidad and Tobago") cuts nothing."""
    before = [m.end() for m in cut.finditer(sentence, 0, start)]
    after = cut.search(sentence, start if end is None else end)
    return (before[-1] if before else 0, after.start() if after else len(sentence))


NEAR = 25
"""How far (in characters) a taking-back word may stand from the thing it takes back:
"каву розлюбила, тепер тільки матча" ends coffee, not matcha."""


def _owns(
    mentions: list[lexicon.Mention],
    mention: lexicon.Mention,
    cue: re.Pattern[str],
    sentence: str,
    start: int,
    end: int,
) -> bool:
    """Whether a `cue` within reach of `mention` is nearer to it than to any other
    mention: in "dairy's fine again, gluten is the thing i cut now" the "again" is
    dairy's."""

    def gap(m: lexicon.Mention, a: int, b: int) -> int:
        between = sentence[min(m.end, b) : max(m.start, a)]
        return max(a - m.end, m.start - b, 0) + (NEAR if re.search(r"[,;:—–]", between) else 0)

    low, high = max(start, mention.start - 2 * NEAR), min(end, mention.end + 2 * NEAR)
    for m in cue.finditer(sentence, low, high):
        mine = gap(mention, *m.span())
        if all(gap(other, *m.span()) >= mine for other in mentions if other is not mention):
            return True
    return False


_JOINED = re.compile(r"(?:[\s,]|\b(?:and|or|и|или|й|і|та|чи|або)\b)*", re.IGNORECASE)


def _quits(
    mentions: list[lexicon.Mention],
    mention: lexicon.Mention,
    sentence: str,
    start: int,
    end: int,
) -> bool:
    """Whether a giving-up word in the clause is this hobby's: the nearest hobby to it,
    or one listed with that one ("quit running and swimming"). "бокс кинув, тепер тільки
    плавання" gives up boxing only, and "гітару закинула… а от йогу продовжую" keeps
    yoga: a hobby beyond another thing is the other part of a contrast."""
    if _owns(mentions, mention, _QUIT, sentence, start, end):
        return True
    for cue in _QUIT.finditer(sentence, start, end):
        if cue.end() <= mention.start:
            low, high = cue.end(), mention.start
        else:
            low, high = mention.end, cue.start()
        between = sentence[low:high]
        for other in sorted(mentions, key=lambda m: -m.start):
            if low <= other.start and other.end <= high:
                between = between[: other.start - low] + between[other.end - low :]
        if _JOINED.fullmatch(between):
            return True
    return False


def reversals(sentence: str) -> list[Proposal]:
    """Ops that take something back: an allergy ruled out, a food eaten again (and with
    meat, the diet), a hobby given up, a format no longer wanted."""
    found: list[Proposal] = []
    mentions = lexicon.mentions(sentence)
    for mention in mentions:
        start, end = clause_of(sentence, mention.start)
        clause = sentence[start:end]
        term = mention.term
        propose = about(mention, sentence, "reversal")
        around = sentence[max(start, mention.start - 2 * NEAR) : min(end, mention.end + 2 * NEAR)]
        if _RULED_OUT.search(clause):
            found.append(propose("remove", "allergies"))
        elif (
            _owns(mentions, mention, _AGAIN, sentence, start, end)
            and term.kind == "food"
            and (_EAT.search(around) or _BACK.search(around))
        ):
            found += [propose("remove", "avoid"), propose("remove", "allergies")]
            if "meat" in term.categories:
                found.append(propose("set", "diet", "omnivore"))
        elif term.kind == "interest" and _quits(mentions, mention, sentence, start, end):
            found.append(propose("remove", "interests"))
        near = sentence[max(start, mention.start - NEAR) : min(end, mention.end + NEAR)]
        if _UNLIKED.search(near) and term.kind == "food" and not _AGAIN.search(clause):
            found.append(propose("remove", "likes"))
        if _UNDISLIKED.search(near):
            found.append(propose("remove", "dislikes"))
    for m in vocab_mentions(vocab.FORMAT, sentence):
        canonical, start, end = m
        c_start, _ = clause_of(sentence, start)
        if _STOP.search(sentence[c_start:start]) and canonical != "plain text":
            op = make_op("remove", "format", canonical, sentence[start:end])
            found.append(Proposal(op, start, end, "reversal"))
    return found


def vocab_mentions(table: vocab.Table, text: str) -> list[tuple[str, int, int]]:
    """(canonical, start, end) of every word of a vocabulary table in `text`."""
    hits = []
    for canonical, pattern in vocab.compiled(table):
        hits += [(canonical, m.start(), m.end()) for m in pattern.finditer(text)]
    # The longest reading at a position wins ("гостре не їм" is mild, not "гостре").
    kept: list[tuple[str, int, int]] = []
    for hit in sorted(hits, key=lambda hit: (hit[1], hit[1] - hit[2])):
        if not kept or hit[1] >= kept[-1][2]:
            kept.append(hit)
    return kept


STANDING = re.compile(
    r"\b(?:always|never(?!\s+mind\b)|from\s+now\s+on|every\s+time|whenever|in\s+(?:the\s+)?future|going"
    r"\s+forward|each\s+time|by\s+default|make\s+sure\s+(?:to|you)|remember\s+(?:to|that)"
    r"|for\s+(?:any|every|all|each)(?!\s+of\s+(?:these|those|this|the|them)\b)|in\s+everything|every\s+(?:answer|reply|response|recipe)"
    r"|whenever)\b"
    r"|(?<![\w-])(?:всегда|никогда|впредь|каждый\s+раз|отныне|в\s+дальнейшем|по\s+умолчанию"
    r"|с\s+этого\s+момента|обязательно|завжди|ніколи|надалі|щоразу|кожного\s+разу|відтепер"
    r"|за\s+замовчуванням|обов['ʼ]язково|каждого|каждом|кожного|кожній|кожному|любо[йго]"
    r"|будь-як\w*|во\s+всех|у\s+всіх|для\s+рецептов|для\s+рецептів)(?![\w-])",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:and|also|oh|ok|okay|pls|please|и|а|ещё|еще|і|й|та|також|будь\s+ласка"
    r"|пожалуйста)\b[\s,]*",
    re.IGNORECASE,
)
NOTE_WORDS = 25
"""A longer clause is a story, not a preference."""


_EN_IMPERATIVE = re.compile(
    r"^(?:(?:and|also|oh|ok|so)\s+)?(?:please\s+|pls\s+|plz\s+)?(?:include|use|give|mention|add|show"
    r"|list|keep|write|put|group|convert|tell|avoid|skip|don'?t|do\s+not|never|always|assume"
    r"|remember|note|stick\s+to|only)\b",
    re.IGNORECASE,
)


_LEAVE_OUT = re.compile(
    r"\b(?:no|without|skip|drop|ditch|lose|stop\s+(?:using|adding|with)|don'?t\s+(?:use|add|put))"
    r"\s+(?:the\s+|any\s+|more\s+)?(?:\w+\s+)?(?:emojis?|emoticons?|smileys?|jargon|disclaimers?"
    r"|markdown|links?|caveats?|exclamation\s+marks?|abbreviations?|slang|small\s+talk|pleasantries"
    r"|intros?|summaries|warnings)\b"
    r"|(?<![\w-])(?:без|никаких|ніяких|жодних|не\s+используй\w*|не\s+використовуй\w*|не\s+ставь"
    r"|не\s+став|не\s+пиши|не\s+добавляй|не\s+додавай)\s+(?:\w+\s+)?(?:смайлик\w*|эмодзи|емодзі"
    r"|емоджі|эмоджи|жаргон\w*|ссыл\w*|посилан\w*|сленг\w*|англицизм\w*|канцеляр\w*"
    r"|дисклеймер\w*|предупреждени\w*|попереджен\w*|вступлени\w*|вступ\w*)(?![\w-])",
    re.IGNORECASE,
)
"""An element of the reply the user wants left out ("no emojis", "без смайликов"): a
standing note about how to write, whatever the rest of the sentence asks for."""


def _imperative(sentence: str) -> re.Match[str] | None:
    """The first word of the sentence that orders the assistant: a Russian or Ukrainian
    verb in the imperative (pymorphy3), or an English clause that opens with one."""
    ukrainian = morph.has_ukrainian_letters(sentence)
    for m in re.finditer(r"[\w'ʼ-]+", sentence):
        if morph.is_cyrillic(m.group()) and (
            morph.is_imperative(m.group()) or (ukrainian and _ukrainian_order(m.group()))
        ):
            return m
    return _EN_IMPERATIVE.search(sentence.strip())


def _ukrainian_order(word: str) -> bool:
    """Whether a word of a Ukrainian sentence is an order by the Ukrainian dictionary,
    where the Russian one, which reads a word with no Ukrainian letter first, does not
    say so ("рахуй" is a Russian slang noun). Only a word every Ukrainian reading of
    which is an imperative: that dictionary does not rank its readings, and "три"
    (three), "став" (became) and "склади" (warehouses) have an imperative among them."""
    lowered = word.lower()
    if morph.has_ukrainian_letters(word) or lowered in _PARTICLES:
        return False  # read by the Ukrainian dictionary first already; "бач", "знач"
    if morph.language_of(lowered) != "uk":
        return False  # a Russian word in a Ukrainian sentence: "наши", "свой", "запись"
    found = morph.readings("uk", lowered)
    return bool(found) and all("impr" in reading[morph.TAG] for reading in found)


_PARTICLES = frozenset({"бач", "знач", "пробач", "вибач", "пробачте", "вибачте"})
"""Ukrainian particles and apologies ("you see", "so", "sorry") that are imperatives by
form only: "пробач, коли радиш ресторани, пиши ціни" orders "пиши"."""


_EN_CONDITION = re.compile(
    r"\s*(?:(?:and|also|oh|ok|okay|so|btw|quick\s+one)\s*[-—:,]?\s+)?"
    r"(?:(?:for|in|with)\s+(?P<topic>(?:[a-z'-]+\s+){0,2}[a-z'-]+)"
    r"|(?:when|whenever|if|every\s+time|any\s+time)\s+"
    r"(?:(?:you|u)(?:'re|’re|\s+are)?\s+[a-z]+|[a-z]+ing)\s+"
    r"(?P<object>(?:[a-z'-]+\s+){0,2}[a-z'-]+))"
    r"(?P<rest>[^,.;:!?—–]{0,40})\s*[,:—–]\s*",
    re.IGNORECASE,
)
"""An English topic or task before the order it is for: "for email drafts, leave …",
"in recipes: put …", "If you're suggesting restaurants, check …", "When planning trips
for me, add …". A condition names its task by a verb, then the task's thing, so "if the
meeting runs late" names none."""
_EN_ONCE = frozenset(
    """this that these those next today tonight tomorrow tmrw tmr now yesterday once week
    weekend until till upcoming monday tuesday wednesday thursday friday saturday
    sunday""".split()
)
"""Words that point an English topic at one occasion ("for this trip", "for the next
two weeks", "for tomorrow's meetings", "for thursday's calls")."""
_EN_COUNTS = frozenset(
    """two three four five six seven eight nine ten fifteen twenty thirty forty fifty few
    several couple many minute minutes mins min hour hours hrs day days week weeks month
    months year years second seconds""".split()
)
"""A count or a span of time: "in two days", "in thirty mins" name when, not a kind of
task."""
_EN_GROUP_ENDS = frozenset(
    """to of on at by from with about into for in near as than that which who what where
    when while if because so and or but it it's he she they them we you i me him us
    is are was were""".split()
)
"""Words that end the noun group naming the task's thing: "email drafts to Олег",
"restaurants near me", "case it rains"."""
_EN_PARTICULAR = frozenset("the my his her our their its this that these those".split())
"""A group these open names particular things ("for the slides", "when you get my
messages"), not a kind: "your" ("in your answers") and a bare plural do."""
_EN_SET_PHRASES = frozenset(
    "words starters instance example intents purposes lols case cases meantime sure".split()
)
"""Heads of set phrases that open a sentence and name no topic: "in other words", "for
starters", "in most cases"."""
_EN_BACK = re.compile(r"\b(?:them|one|two|both)\b", re.IGNORECASE)
"""An order that points back at the things ("send them to me", "book two") is about
these ones."""
_EN_NOT_PLURAL = frozenset(
    "this always sometimes perhaps was has does goes its his hers yours ours theirs unless"
    " whereas plus across besides towards afterwards".split()
)


@functools.lru_cache(maxsize=1024)
def _en_task_order(sentence: str) -> re.Match[str] | None:
    """The English order after a topic or task named in the plural ("When planning trips
    for me, add …", "for podcast recs, tell me …"): what "when you give me a recipe" says
    of every recipe. English marks no aspect (`standing_task`), so the plural is the
    sign: the head of the noun group that names the thing, read by whether wordfreq
    knows its singular ("trips" from "trip", "recs" from "rec"). Particular things ("for
    the slides", "send them"), a name, a person ("for my kids"), a count or span ("in
    two days") and a word of one occasion ("for this trip", "… today") make no kind.
    Cached: `notes` and the gate's habit cue (`standing_task`) ask of the same sentence."""
    condition = _EN_CONDITION.match(sentence)
    if condition is None:
        return None
    order = _EN_IMPERATIVE_AT.match(sentence, condition.end())
    if order is None:
        return None
    said = re.findall(
        r"[^\W\d_][\w'’-]*",
        f"{condition.group('topic') or condition.group('object')} {condition.group('rest')}",
    )
    bare = [re.sub(r"['’]s$", "", w.lower()) for w in said]
    clause = sentence[order.start() : clause_of(sentence, order.start(), _CLAUSE_STOP)[1]]
    if any(w in _EN_ONCE or w in _EN_COUNTS for w in bare) or _EN_ONCE_ORDER.search(clause):
        return None
    group = []
    for written, word in zip(said, bare, strict=True):
        if word in _EN_GROUP_ENDS:
            break
        if written[:1].isupper() or not written.isascii():
            return None  # "for James", "for Олег": a name
        group.append(word)
    if not group or group[0] in _EN_PARTICULAR or group[-1] in _EN_SET_PHRASES:
        return None
    if _EN_BACK.search(clause):
        return None
    return order if _en_plural(group[-1]) else None


_EN_ONCE_ORDER = re.compile(
    r"\b(?:today|tonight|tomorrow|tmrw|right\s+now|this\s+(?:time|once|week|weekend)"
    r"|for\s+now|until|till)\b",
    re.IGNORECASE,
)
"""An English order's own clause pointing at one occasion ("… today", "… this once",
"… for now", "… until friday"), not "from now on"."""


def _en_plural(word: str) -> bool:
    """Whether the head of a noun group is a plural: in -s, its singular a word wordfreq
    knows, and that singular no person the gate knows ("kids", "friends"). A verb in -s
    passes too ("rains"), which is why only a group's head is asked."""
    from aniso.profile.gate import OTHERS

    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is", "'s")):
        return False
    if word in _EN_NOT_PLURAL:
        return False
    from wordfreq import zipf_frequency

    singular = [word[:-1]]
    if word.endswith("ies"):
        singular.append(word[:-3] + "y")
    elif word.endswith("es"):
        singular.append(word[:-2])
    if word in OTHERS or any(s in OTHERS for s in singular):
        return False
    return max(zipf_frequency(s, "en") for s in singular) >= PLURAL_ZIPF


PLURAL_ZIPF = 3.0
"""How common (wordfreq's Zipf scale) the singular must be for a word in -s to read as
its plural: "trip" 4.9, "draft" 4.6, "rec" 3.6; "alway" 2.6 is no word. The short
function words whose cut form is a word ("this", "its") are `_EN_NOT_PLURAL`."""


_CONDITION_WORD = re.compile(
    r"(?<![\w-])(?:когда|если|коли|якщо|щоразу|каждый\s+раз|кожного\s+разу|котор\w+|яку|які"
    r"|який|яка|яке)(?![\w-])",
    re.IGNORECASE,
)
CONDITION_REACH = 3
"""Words after "когда", "якщо" within which the assistant's verb stands."""
_TODAY = frozenset("сейчас щас сегодня зараз сьогодні".split())
_THIS_TIME = _TODAY | frozenset(
    "этот эта эту этого этой этом этих эти этим этими этому цей ця цю цього цієї цією ці"
    " цих цим цими цьому завтра вчера послезавтра вчора післязавтра".split()
)
"""Words that point at one occasion ("сейчас", "этот бюджет", "цей лист"): a task or
an order about it is for once, however its verbs read. Read in the task's clause and
(only "now" and "today") the order's own, not the whole sentence: "когда даёшь рецепты,
пиши калории, сейчас я на диете" stands. The neuter "это"/"це" is left out: it is as
often a particle ("это важно"). "теперь"/"тепер" is too: "теперь всегда пиши …" is
from now on."""
_CLAUSE_STOP = re.compile(r"[,;:—–.!?]")
_NO_TASK = frozenset("мочь хотеть быть могти хотіти бути".split())
"""Verbs that say whether or when, not what: "если можешь, …", "якщо хочеш, …"."""


@functools.lru_cache(maxsize=1024)
def standing_task(sentence: str) -> bool:
    """Whether the sentence's order (its first Russian or Ukrainian imperative,
    `_imperative`, or else an English order after its task, `_en_task_order`) is for a
    task the assistant does again and again, as "always" would make it: "когда даёшь
    рецепт, пиши калорийность", "коли радиш готелі, пиши, чи можна з собакою", "к каждой
    тренировке, которую составляешь, добавляй растяжку". Two facts of the grammar, read
    by pymorphy3, say so together:

    - a conjunction or relative word with, within a few words, a verb in the second
      person that may be imperfective (`morph.task_verb`): the imperfective present is a
      task done again, the perfective future one event ("когда закончишь, скинь файл"),
      and modal verbs name no task ("если можешь, …");
    - the order itself in the imperfective (`morph.imperative_aspect`): "пиши",
      "добавляй" order every such task, "подскажи", "скинь", "распечатай" one. The
      condition alone is often a state of knowing or liking, not a task ("если знаешь,
      подскажи ресторан", "книгу, которую ты советуешь, скинь ссылку"), and a review of
      84 such one-offs found 25 made notes without this check.

    Or the order's clause names a kind of thing the assistant makes (`_task_class`: "в
    рецептах пиши …").

    English marks neither, so "when you suggest hotels" (every time) and "when you get a
    minute" (once) have the same shape; a finder that took any verb made thirty of 124
    one-off requests notes (DESIGN-NOTES, standing orders told as a task). What English
    does mark is the plural of the task's thing (`_en_task_order`)."""
    order = _imperative(sentence)
    verb = order and morph.WORD.match(sentence, order.start())
    if not verb:  # no Russian or Ukrainian order (and no English one that opens the
        # sentence): an English order after its task, if any
        return _en_task_order(sentence) is not None
    ukrainian = morph.has_ukrainian_letters(sentence)
    if morph.imperative_aspect(verb.group().lower(), ukrainian=ukrainian) != "impf":
        return False
    if _names(sentence, verb.start(), _clause_end(sentence, verb.end(), None), _TODAY):
        return False  # "отвечай нормально сейчас": this once
    if _task_class(sentence, verb.start(), verb.end(), ukrainian=ukrainian):
        return True
    words = list(morph.WORD.finditer(sentence))
    for i, word in enumerate(words):
        condition = _CONDITION_WORD.match(sentence, word.start())
        if condition is None:
            continue
        near = words[i + 1 : i + 3 + CONDITION_REACH]  # "каждый раз" is two words
        for after in [w for w in near if w.start() >= condition.end()][:CONDITION_REACH]:
            if morph.task_verb(after.group().lower(), ukrainian=ukrainian, skip=_NO_TASK):
                # "ты когда считаешь этот бюджет, учитывай …": the task is this one
                end = _clause_end(sentence, condition.end(), verb.start())
                return not _names(sentence, condition.start(), end, _THIS_TIME)
    return False


_CLASS_PREPOSITIONS = frozenset("в во у для по при к ко на".split())
"""Prepositions before a kind of task. Russian "до" is "until" ("до праздников
напоминай"); Ukrainian "до" is also "to" ("до листів додавай підпис")."""
_EACH = re.compile(r"(?:кажд|кожн|кожен)\w*", re.IGNORECASE)
_TIME_UNITS = frozenset(
    """день неделя минута час год месяц секунда сутки итог результат тиждень хвилина
    година рік місяць доба підсумок""".split()
)
"""Lemmas of a span of time or an outcome: "на днях", "каждые 10 минут", "по итогам"
say when, not what kind of task."""
_PROPER_TAGS = ("Geox", "Name", "Surn", "Patr", "Orgn", "Trad")
"""Tags of a proper name: "на Мальдивах", "в Штатах" are places, not kinds of task."""


def _task_class(sentence: str, order: int, order_end: int, *, ukrainian: bool) -> bool:
    """Whether the order's clause names a kind of thing the assistant makes, not one
    thing: a plural after a preposition ("в рецептах пиши, на сколько порций", "для
    маршрутов предлагай только метро", "у відповідях пиши коротко"), or "каждый",
    "кожен" ("к каждой новости пиши, почему это важно"). The likeliest reading in the
    sentence's language decides; an animate plural ("для дітей") names people and a
    proper name (by its capital or the dictionary's tags: "на Мальдивах") a place. A
    plural object alone is not enough: "вещи собирай, мы уезжаем" is one packing."""
    start = clause_of(sentence, order, _CLAUSE_STOP)[0]
    end = _clause_end(sentence, order_end, None)
    if _names(sentence, start, end, _THIS_TIME):
        return False
    words = list(morph.WORD.finditer(sentence, start, end))
    for i, word in enumerate(words):
        text = word.group().lower()
        if _EACH.fullmatch(text):
            following = words[i + 1].group().lower() if i + 1 < len(words) else ""
            if following.isdigit() or (following and _a_time_unit(following)):
                continue  # "каждые 10 минут", "кожні пів години": within one session
            return True
        preposition = words[i - 1].group().lower() if i else ""
        if preposition not in _CLASS_PREPOSITIONS and not (preposition == "до" and ukrainian):
            continue
        if word.group()[:1].isupper():
            continue
        readings = morph.readings("uk" if ukrainian else "ru", text) or morph.parses(text)
        if not readings:
            continue
        tag = readings[0][morph.TAG]
        if (
            readings[0][morph.POS] == "NOUN"
            and readings[0][morph.LEMMA] not in _TIME_UNITS
            and "plur" in tag
            and "anim" not in tag
            and not any(name in tag for name in _PROPER_TAGS)
        ):
            return True
    return False


def _a_time_unit(word: str) -> bool:
    """Whether a word after "каждые"/"кожні" names a span ("минут", "пів години")."""
    return any(r[morph.LEMMA] in _TIME_UNITS for r in morph.parses(word)) or word in ("пів", "пол")


def _clause_end(sentence: str, start: int, order: int | None) -> int:
    """Where the clause from `start` ends (`clause_of`, cut at a comma, dash or colon
    too), or where the order begins."""
    end = clause_of(sentence, start, _CLAUSE_STOP)[1]
    return min(end, order) if order is not None and order > start else end


def _names(sentence: str, start: int, end: int, words: frozenset[str]) -> bool:
    return any(w.group().lower() in words for w in morph.WORD.finditer(sentence, start, end))


_TAKE_BACK_NOTE = re.compile(
    r"\b(?:stop|stopped|quit)\s+(?:adding|including|giving|using|putting|sending|mentioning"
    r"|listing|tracking|showing|writing)\b|\b(?:can|could)\s+stop\s+with\b"
    r"|\b(?:is|are|isn'?t|aren'?t)\s+(?:not\s+)?needed\s+any\s*more\b"
    r"|\bno\s+need\s+for\b[^.;!?]*\b(?:any\s*more|now)\b"
    r"|\b(?:you|u)\s+can\s+(?:use|suggest|recommend|include|give|add|mention)\s+"
    r"(?!(?:that|this|the\s+same|it)\b)[^.;!?]*\bagain\b"
    r"|\b(?:don'?t|no\s+need\s+to)\s+(?:include|add|mention|give|list|put)\b[^.;!?]*"
    r"\b(?:anymore|any\s+more)\b|\b(?:are|is)\s+(?:fine|ok|okay)\s+(?:now|again)\b"
    r"|\bi\s+take\s+(?:it|that)\s+back\b|\bforget\s+(?:about\s+)?the\b"
    r"|(?<![\w-])(?:больше\s+не\s+(?:нужн\w*|нужен|пиши|пишите|добавляй|указывай|надо)"
    r"|можно\s+(?:больше|уже)\s+не\s+[^\W\d_]+|не\s+нужен\s+больше"
    r"|можна\s+(?:більше|вже)\s+не\s+[^\W\d_]+"
    r"|(?:отменяю|відміняю|скасовую)(?=\s*(?:[.!;)]|$))"
    r"|можешь\s+больше\s+не|забудь\s+(?:про|о|об)|уже\s+не\s+актуальн\w*"
    r"|більше\s+не\s+(?:треба|потрібн\w*|пиши|додавай|вказуй|діє)|можеш\s+більше\s+не"
    r"|вже\s+не\s+актуальн\w*|вже\s+ок|уже\s+ок|не\s+нужны\s+больше)(?![\w-])",
    re.IGNORECASE,
)
"""Taking a standing instruction back ("you can stop adding packing lists", "калорийность
больше не пиши", "isn't needed anymore"): the note it names ends (`vocab.named_note`)."""
_TAKE_BACK_WEAK = re.compile(
    r"\b(?:can|could)\s+(?:skip|drop|ditch|forget)\b|\b(?:are|is)\s+(?:totally|completely"
    r"|actually|now)\s+(?:fine|ok|okay)\b|(?<![\w-])(?:(?:теперь|уже|тепер|вже)\s+норм\w*"
    r"|можно\s+снова|снова\s+можно|можна\s+знову|знову\s+можна|забудь|можно\s+не\s+[^\W\d_]+"
    r"|можна\s+не\s+[^\W\d_]+|можна\s+прибрати|теперь\s+можно|тепер\s+можна)(?![\w-])",
    re.IGNORECASE,
)
"""Words that take a note back only where the clause asks for nothing standing: "you
can skip the cooking times now", "ночные поезда теперь норм", "можна не писати", but not
"list the stops i could skip every time" or "можно не здороваться каждый раз" (notes
asked for)."""
_NOT_BEFORE = re.compile(r"(?<![\w-])(?:не|ні)\s+$", re.IGNORECASE)
""""не забудь про калории" (don't forget) asks for what "забудь про калории" takes back."""


def _takes_back(sentence: str, m: re.Match[str], start: int, end: int) -> bool:
    if _NOT_BEFORE.search(sentence, 0, m.start()):
        return False
    if _LEAVE_OUT.search(sentence, start, end):
        return False  # "stop with the emojis", "drop the intros": a note asked for
    return m.re is _TAKE_BACK_NOTE or not STANDING.search(sentence, start, end)


def _take_backs(sentence: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The clauses that take a note back in sentence[start:end], in order, each once
    ("is fine now, you can drop it" is one take-back; `_takes_back`)."""
    end = len(sentence) if end is None else end
    found = set()
    for pattern in (_TAKE_BACK_NOTE, _TAKE_BACK_WEAK):
        for m in pattern.finditer(sentence, start, end):
            lo, hi = clause_of(sentence, m.start())
            if _takes_back(sentence, m, lo, hi):
                found.add((lo, hi))
    return sorted(found)


def note_removals(sentence: str) -> list[Proposal]:
    """A note taken back, in the user's words; the store ends the held note it names
    most plainly (`vocab.named_note`), and nothing when none or several tie."""
    found = []
    for start, end in _take_backs(sentence):
        said = sentence[start:end].strip(" ,—–-:")
        if said:
            found.append(Proposal(make_op("remove", "notes", said, said), start, end, "reversal"))
    return found


_TO_YOU = re.compile(
    r"(?<![\w-])(?:(?i:you|your|pls|please|plz|ты|вы|тебя|вас|тобой|вами|тебе|вам|твой|ваш"
    r"|пожалуйста|ти|ви|тобі|тобою|твій|будь\s+ласка)(?!\s+(?:know|see)\b)|u(?![\w.-]))(?![\w-])"
)
"""Words that speak to the assistant; "you know" and "you see" are filler, and "U.S."
no "u"."""
_WISH = re.compile(
    r"(?<![\w-])(?:want|wanna|would\s+like|i'?d\s+like|need|should|prefer|хочу|хотел\w*"
    r"|хотіл\w*|нужн\w*|нужен|потрібн\w*|треба|надо|хочеться|хотелось\w*)(?![\w-])",
    re.IGNORECASE,
)
"""A wish, said of what the replies should be: "I want the calories listed every time",
"мне всегда нужны калории"."""
_STATES = re.compile(
    r"(?<![\w-])(?:i|i'm|im|i've|we|we're|he|she|they|my|our|his|her|their|this|that|these"
    r"|those|am)(?![\w-])|\b(?:never|always)\s+(?:again|the\s+same)\b",
    re.IGNORECASE,
)
"""An English clause with a subject of its own, or an exclamation: "I always run on
Sundays", "my colleague always signs off…", "never again am I flying…", "always the same
with this bus"."""
_EN_ORDER = re.compile(
    r"^(?:(?:and|also|oh|ok|okay|so|just|but|then)\s+){0,3}(?:please\s+|pls\s+|plz\s+)?"
    r"(?:(?:never|always)\s+(?!(?:again|the|a|an|my|i|same|been|was|is|are)\b)[a-z]"
    r"|(?:include|use|give|mention|add|show|list|keep|write|put|group|convert|tell|avoid|skip"
    r"|suggest|recommend|send|reply|answer|respond|remind|round|cite|link|start|end|sign"
    r"|format|explain|translate|check|say|call|address|assume|remember|note|stick\s+to|don'?t"
    r"|do\s+not|be|ask|let|warn|try|double-check|make|book|leave)(?![\w-]))",
    re.IGNORECASE,
)
"""An English clause or part of one that opens with an order; "never" and "always" before
any word but "again", "the same" and the like ("never book flights before 8am")."""
_EN_IMPERATIVE_AT = re.compile(_EN_ORDER.pattern.removeprefix("^"), re.IGNORECASE)
"""An order where a condition ends (`_EN_CONDITION`), with `_EN_ORDER`'s wider choice of
verbs: after "If you're suggesting restaurants," a "check" is an order."""
_SAYING = re.compile(
    r"(?<![\w-])(?:says?|said|tells?|told|говорит|говорил\w*|сказал\w*|каже|казав\w*"
    r"|казала|говорить|сказав\w*)(?![\w-])",
    re.IGNORECASE,
)
"""A verb of saying: an order after it is someone else's words ("мій тренер завжди
каже: ніколи не пропускай день ніг"); after "я" it is the user's own ("я же говорил,
всегда пиши калории")."""
_SELF = re.compile(r"(?<![\w-])(?:я|i)(?![\w-])", re.IGNORECASE)
_SEGMENT = re.compile(r"[^,;:—–]+")


def _ordered(clause: str) -> bool:
    """Whether the clause orders the assistant: a Russian or Ukrainian imperative that is
    not a standing word the dictionary also reads as one ("завжди"), and not in someone
    else's words; or a part of it between commas that opens with an English order."""
    for m in morph.WORD.finditer(clause):
        word = m.group()
        if STANDING.fullmatch(word):
            continue
        if morph.is_imperative(word):
            said = _SAYING.search(clause, 0, m.start())
            if said is None or _SELF.search(clause, 0, said.start()):
                return True
    return any(_EN_ORDER.search(part.group().strip()) for part in _SEGMENT.finditer(clause))


def _tells_of_someone(clause: str) -> bool:
    """Whether the clause states something of someone (the user, another person, a
    thing) rather than asking for anything: an English subject or exclamation
    (`_STATES`), or a Russian or Ukrainian verb in the first or third person or the
    past ("я завжди лягаю спати до одинадцятої", "подруга завжди купує")."""
    if _STATES.search(clause):
        return True
    ukrainian = morph.has_ukrainian_letters(clause)
    return any(
        morph.verb_form(w, ukrainian=ukrainian) in ("v1", "v3", "past_sg", "past_pl")
        for w in morph.WORD.findall(clause)
    )


def _addressed(clause: str) -> bool:
    """Whether a standing clause is an instruction to the assistant. It is unless it
    states something of someone and neither asks nor orders: "I always run on Sundays",
    "my colleague always signs off with 'cheers'", "never again am I flying with them"
    and "я завжди лягаю спати до одинадцятої" are not; "в рецептах всегда граммы", "I
    want the calories listed every time" and "always be honest with me" are. A standing
    word in a clause that is not keeps the global cut (origin "standing")."""
    if _TO_YOU.search(clause) or _LEAVE_OUT.search(clause) or _WISH.search(clause):
        return True
    return _ordered(clause) or not _tells_of_someone(clause)


def notes(sentence: str) -> list[Proposal]:
    """A standing preference no field holds ("always include the price range"), kept
    in the user's words: a clause with a word that makes it standing, or an order to
    the assistant (whether that order stands or was for once is the gate's call). A
    standing word in a clause that tells the assistant nothing has an origin of its own,
    "standing", which `NOTE_MAX` does not cover."""
    marker = STANDING.search(sentence) or _LEAVE_OUT.search(sentence)
    origin = "notes"
    if marker is None:
        marker, origin = _imperative(sentence), "request"
    if marker is None and (order := _en_task_order(sentence)):
        marker, origin = order, "notes"  # "for email drafts, leave the subject line empty"
    if marker is None:
        return []
    if origin == "request" and standing_task(sentence):
        origin = "notes"  # "когда даёшь рецепт, пиши …": for every such task, as "always" says
    start, end = clause_of(sentence, marker.start())
    if _take_backs(sentence, start, end):
        return []  # taken back, not asked for (`note_removals`)
    if origin == "notes" and not _addressed(sentence[start:end]):
        origin = "standing"  # "I always run on Sundays": a standing word, no one told
    said = _LEAD.sub("", sentence[start:end].strip(" ,—–-:")).strip()
    if not said or len(said.split()) > NOTE_WORDS:
        return []
    if len(said.split()) < 3 and not _LEAVE_OUT.search(said):  # "pls no emojis" says enough
        return []
    op = make_op("add", "notes", said, said)
    return [Proposal(op, start, end, origin)]
