"""Canonical values per field, and turning anyone's wording into them.

Closed fields (diet, budget, spice, language, timezone) only ever hold a value
from their vocabulary: the stale-memory check and the prompt rely on exact terms,
so an unknown value is refused rather than stored half-understood. Open fields
(tone, format, schedule...) are composed from known traits when possible
("коротко и по делу" -> "brief and to the point") and otherwise kept as written.
"""

from __future__ import annotations

import re
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from aniso.profile import lexicon
from aniso.profile.model import LIST_FIELDS

Table = tuple[tuple[str, str], ...]
"""(canonical value, regex of the words that mean it), most specific first."""

DIET: Table = (
    ("pescatarian", r"пескетариан\w*|пескетаріан\w*|pesc[ae]tarian\w*"),
    ("vegan", r"веган\w*|vegan\w*"),
    ("vegetarian", r"вегетариан\w*|вегетаріан\w*|vegetarian\w*|veggie"),
    (
        "omnivore",
        r"omnivor\w*|всеядн\w*|всеїдн\w*|carnivore|мясоед\w*|м['ʼ]ясоїд\w*|meat[\s-]eater"
        r"|eat(?:ing)?\s+(?:literally\s+|pretty\s+much\s+|basically\s+)?(?:anything|everything)"
        r"|(?:i|я)\s+(?:eat|ем|їм)\s+(?:meat|мясо|м['ʼ]ясо)|(?:мясо|м['ʼ]ясо)\s+(?:ем|їм)"
        r"|(?:ем|їм|ел|ела|їв|їла)\s+(?:вс[её]|усе)|(?:мне|мені)\s+(?:можно|можна)\s+вс[её]",
    ),
)
BROKE = r"broke(?!\s+(?:my|his|her|the|a|an|down|up|out|into|off|it|with))"
""""Broke" as out of money, not as broken: "i'm broke", not "broke my wrist"."""
BUDGET: Table = (
    (
        "minimal",
        rf"минимальн\w*|мінімальн\w*|minimal|minimum|shoestring|{BROKE}"
        r"|as\s+cheap\s+as\s+possible|на\s+мели|без\s+грошей|без\s+денег|zero|nil|tiny|минимум\w*|мінімум\w*"
        r"|(?:самые|самое|самых|самі|самий)\s+(?:экономн\w*|дешёв\w*|дешев\w*|економн\w*)"
        r"|найдешевш\w*|наидешевейш\w*|найекономніш\w*|найбюджетніш\w*",
    ),
    (
        "flexible",
        r"гибк\w*|гнучк\w*|неограниченн\w*|необмежен\w*|flexible|unlimited"
        r"|(?:doesn'?t|does\s+not|don'?t)\s+(?:really\s+)?matter|no\s+object"
        r"|(?:less\s+of\s+a|not\s+(?:a|an)|(?:isn'?t|is\s+not)\s+(?:much\s+of\s+)?(?:a|an))"
        r"\s+(?:concern|issue|problem|constraint)"
        r"|не\s+важн\w*|неважн\w*|не\s+имеет\s+значения|не\s+має\s+значення|неважлив\w*",
    ),
    (
        "low",
        r"низьк\w*|низк\w*|маленьк\w*|небольш\w*|невелик\w*|ограниченн\w*|скромн\w*|обмежен\w*"
        r"|low|tight|small|limited|modest|cheap\w*|affordable|inexpensive|дешев\w*|недорог\w*"
        r"|бюджетн\w*|економн\w*|экономн\w*",
    ),
    (
        "medium",
        r"средн\w*|умеренн\w*|середн\w*|medium|moderate|average"
        r"|mid[\s-]?range|mid|normal|middle\s+of\s+the\s+road|помірн\w*",
    ),
    (
        "high",
        r"высок\w*|больш\w*|висок\w*|велик\w*|high|large|big|generous|splurge|luxury"
        r"|premium|премиум\w*|преміум\w*|high[\s-]end",
    ),
)
SPICE: Table = (
    (
        "mild",
        r"мягк\w*|неостр\w*|не\s+остр\w*|м['ʼ]?як\w*|mild|not\s+spicy|no\s+spic\w*|негостр\w*"
        r"|не\s+гостр\w*|без\s+остр\w*|без\s+гостр\w*|(?:острое|острого|гостре|гострого|spicy)"
        r"\s+(?:(?:вообще|взагалі|уже|вже|больше|більше|совсем|зовсім)\s+)?(?:не\s+(?:ем|їм|можу"
        r"|могу|переношу)|ні|нельзя|не\s+можна)|not\s+(?:too|very|that)\s+spicy|gentle|no\s+heat",
    ),
    (
        "medium",
        r"(?:средн\w*|середн\w*|помірн\w*|умеренн\w*|в\s+меру|medium)(?:\s+(?:остр\w*|гостр\w*"
        r"|spic\w*|heat|hot))?|(?:остр\w*|гостр\w*)\s+(?:\w+\s+)?(?:помірно|умеренно|в\s+меру"
        r"|средн\w*|середн\w*)|(?:a\s+)?(?:little|bit\s+of|some)\s+(?:heat|kick)",
    ),
    ("hot", r"остр\w*|гостр\w*|пекуч\w*|жгуч\w*|hot|spicy|hottest"),
)
LANGUAGE: Table = (
    ("ru", r"русск\w*|по-русски|russian|російськ\w*|ru"),
    ("uk", r"украин\w*|україн\w*|по-украински|ukrainian|uk"),
    ("en", r"англ\w*|по-английски|english|en"),
)
FORMAT: Table = (
    ("tables", r"табл\w*|tables?|tabular"),
    (
        "numbered steps",
        r"нумерован\w*(?:\s+(?:спис\w*|шаг\w*|пункт\w*))?|numbered(?:\s+(?:lists?|steps))?"
        r"|по\s+шагам|пошагов\w*|step[- ]by[- ]step|шаг\w*|steps|нумеру\w*|покроков\w*|по\s+кроках"
        r"|кроки|крок\w*",
    ),
    (
        "bullet points",
        r"маркирован\w*(?:\s+спис\w*)?|маркован\w*(?:\s+спис\w*)?"
        r"|bullet\w*(?:\s+(?:points?|lists?))?|спис\w*|lists?|пунктами|по\s+пункт(?:ам|ах)",
    ),
    (
        "short paragraphs",
        r"(?:коротк\w*|небольш\w*)\s+абзац\w*|short\s+paragraphs?|абзац\w*|paragraphs?",
    ),
    (
        "plain text",
        r"plain\s+text|простым\s+текстом|без\s+форматирования|(?:просто|обычным|сплошным|обычный"
        r"|звичайним|простим|суцільним)\s+текст\w*|текстом\s+без\s+\w+|без\s+разметки|без\s+розмітки"
        r"|без\s+форматування|no\s+formatting|(?:just|normal|regular|plain)\s+(?:text|prose)",
    ),
)
TONE: Table = (
    (
        "to the point",
        r"по\s+делу|по\s+суті|по\s+ділу|без\s+воды|без\s+води|(?:straight\s+)?to\s+the\s+point|direct"
        r"|no[-\s]nonsense|skip\s+the\s+(?:pleasantries|fluff|small\s+talk)|прям\w*|чётко|четко"
        r"|чітко|(?:tell\s+me|say\s+it)\s+straight|no\s+(?:fluff|padding|filler|waffle)"
        r"|без\s+лишнего|без\s+зайвого|без\s+лишних\s+слов|без\s+зайвих\s+слів",
    ),
    (
        "informal",
        r"неформальн\w*|informal\w*|casual\w*|на\s+ты|на\s+ти|попроще|простіше|без\s+официоза"
        r"|без\s+офіціозу|relaxed|chill",
    ),
    (
        "formal",
        r"(?:по)?формальн\w*|(?:по)?официальн\w*|офіційн\w*|formal(?:ly)?|на\s+[«\"]?вы[»\"]?|на\s+[«\"]?ви[»\"]?"
        r"|делов\w*|ділов\w*|(?:по)?вежлив\w*|ввічлив\w*|polite\w*|professional\w*",
    ),
    (
        "brief",
        r"коротк\w*|кратк\w*|покороче|лаконичн\w*|стисл\w*|brief\w*|short\w*|concise\w*|terse"
        r"|succinct\w*|short\s+and\s+sweet|shorter|brevity|tl;?dr|короче|коротше|стисло",
    ),
    ("warm", r"(?:по)?т[её]пл\w*|warm\w*"),
    (
        "detailed",
        r"(?:по)?подробн\w*|разв[её]рнут\w*|розгорнут\w*|(?:по)?детальн\w*|докладн\w*|detailed"
        r"|in\s+detail|(?<!in\s)more\s+detail(?![\w-])|thorough\w*",
    ),
    (
        "friendly",
        r"(?:по)?дружелюбн\w*|friendl\w*|loosen\s+up|по-дружески|по-дружньому|как\s+друг\w*|як\s+(?:друг|подруга)"
        r"|like\s+a\s+friend|приязн\w*",
    ),
    ("reserved", r"сдержанн\w*|стриман\w*|reserved|restrained"),
)
LANGUAGE_WORDS: Table = (
    (
        "ru",
        r"русск\w*|по-русски|russian|російськ\w*|по-російськи|русском|руском|на\s+русском",
    ),
    ("uk", r"украин\w*|україн\w*|по-украински|по-українськи|ukrainian|українською"),
    ("en", r"англ\w*|по-английски|по-англійськи|english|англійською"),
)
"""Language names without the bare codes ("en", "uk"), which are also ordinary words
("the UK"): for finding a language in running text."""
CITY_ZONES: Table = (
    ("Europe/Moscow", r"москв\w*|moscow|петербург\w*|питер\w*|petersburg"),
    ("Europe/Madrid", r"мадрид\w*|madrid"),
    ("Asia/Shanghai", r"шанха\w*|shanghai|пекин\w*|beijing"),
    ("Europe/Kyiv", r"ки[еє]в\w*|київ\w*|kyiv|kiev|харк\w*|льв[оі]в\w*|одес\w*"),
    ("Europe/Berlin", r"берлин\w*|берлін\w*|berlin"),
    ("Europe/London", r"лондон\w*|london"),
    ("Europe/Paris", r"париж\w*|paris"),
    ("Europe/Warsaw", r"варшав\w*|warsaw"),
    ("America/New_York", r"нью-йорк\w*|new\s+york"),
)
CLOSED: dict[str, Table] = {
    "diet": DIET,
    "budget": BUDGET,
    "spice": SPICE,
    "language": LANGUAGE,
}
LANGUAGE_NAMES = {"en": "English", "ru": "Russian", "uk": "Ukrainian"}


@cache
def compiled(table: Table) -> tuple[tuple[str, re.Pattern[str]], ...]:
    # A word boundary on both sides, so "неформальный" is not "формальный" and
    # "небольшой" is not "большой".
    return tuple(
        (canonical, re.compile(rf"(?<![\w-])(?:{pattern})(?![\w])", re.IGNORECASE))
        for canonical, pattern in table
    )


def first_match(table: Table, text: str) -> str | None:
    """The canonical value whose words occur first in `text`, or None."""
    best: tuple[int, str] | None = None
    for canonical, pattern in compiled(table):
        found = pattern.search(text)
        if found and (best is None or found.start() < best[0]):
            best = (found.start(), canonical)
    return best[1] if best else None


def traits(table: Table, text: str) -> list[str]:
    """Every canonical value found in `text`, in order of appearance, without overlaps."""
    hits: list[tuple[int, int, str]] = []
    for canonical, pattern in compiled(table):
        hits.extend((m.start(), m.end(), canonical) for m in pattern.finditer(text))
    chosen: list[str] = []
    taken_until = -1
    for start, end, canonical in sorted(hits, key=lambda hit: (hit[0], -(hit[1] - hit[0]))):
        if start >= taken_until:
            taken_until = end
            if canonical not in chosen:
                chosen.append(canonical)
    return chosen


def join_and(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def timezone(text: str) -> str | None:
    """An IANA name, from a zone name, "UTC+3" or a known city."""
    cleaned = text.strip()
    offset = re.fullmatch(r"(?:UTC|GMT)\s*([+-])\s*(\d{1,2})(?::00)?", cleaned, re.IGNORECASE)
    if offset:
        hours = int(offset.group(2))
        if hours > 14:
            return None
        # The Etc/ zones count the other way: UTC+3 is Etc/GMT-3.
        return "UTC" if hours == 0 else f"Etc/GMT{'-' if offset.group(1) == '+' else '+'}{hours}"
    if re.fullmatch(r"[A-Za-z_]+(?:/[A-Za-z_+-]+){1,2}|UTC", cleaned):
        try:
            ZoneInfo(cleaned)
        except (ZoneInfoNotFoundError, ValueError):
            return None
        return cleaned
    return first_match(CITY_ZONES, cleaned)


def normalise(field: str, text: str) -> str | None:
    """The canonical value of `text` for `field`, or None when a closed field
    does not know it. Open fields fall back to the text itself, tidied."""
    cleaned = " ".join(text.split()).strip(" .,;:!")
    if not cleaned:
        return None
    if field in CLOSED:
        return first_match(CLOSED[field], cleaned)
    if field == "timezone":
        return timezone(cleaned)
    if field == "format":
        return " or ".join(traits(FORMAT, cleaned)) or cleaned
    if field == "tone":
        return join_and(traits(TONE, cleaned)) or cleaned
    if field == "schedule":
        from aniso.profile.schedule import describe

        return describe(cleaned) or cleaned
    if field in LIST_FIELDS and field != "notes":
        term = lexicon.lookup(cleaned)
        return term.canonical if term else cleaned.lower()
    return cleaned


def choices(field: str) -> list[str]:
    """The allowed values of a closed field, for error messages."""
    return [canonical for canonical, _ in CLOSED.get(field, ())]


RESTATABLE = ("schedule", "tone", "format", "health")
"""Fields where saying part of the current value again is not a change: "after
19:00" restates "weekdays after 19:00", "brief" restates "brief and to the point"."""


def restates(field: str, new: str, old: str) -> bool:
    """True when `new` says nothing that `old` does not already say."""
    if new == old:
        return True
    if field not in RESTATABLE:
        return False
    pattern = r"\d{1,2}:\d{2}(?:-\d{1,2}:\d{2})?|\w+"
    words = set(re.findall(pattern, new.lower())) - {"and", "or", "only"}
    return bool(words) and words <= set(re.findall(pattern, old.lower()))


NOTE_FILLER = frozenset(
    """always never please anymore more stop stopped adding include including give giving using
    write writing mention need needed your with from that this them those these fine okay thing
    show showing shows skip putting sending listing suggest suggesting suggestions again
    take back time times every each totally drop ditch
    всегда больше более нужно нужны можешь писать пиши давай добавлять добавляй указывать
    указывай надо теперь завжди більше можеш писати пиши додавати додавай вказувати вказуй
    треба тепер потрібно предлагать предлагай предлагаешь пропонувати пропонуй снова знову
    можно можна никогда ніколи каждый каждом каждого кожен кожного кожному норм нормально
    забудь""".split()
)
"""Words that say how a note is asked for or taken back, not what it is about."""


@cache
def _filler_forms() -> frozenset[str]:
    """The filler words as written and as `lexicon.lemma` reads them: English lemmas are
    Snowball stems ("always" -> "alway", "please" -> "pleas"), so a filler word compared
    only after lemmatising passed as content, and two unrelated notes shared it."""
    lemmas = {lexicon.lemma(w) for w in NOTE_FILLER} | {lexicon.stem(w) for w in NOTE_FILLER}
    return NOTE_FILLER | lemmas


def _note_words(text: str) -> tuple[set[str], set[str]]:
    """A note's content words, each as its lemma (or English stem) and as its Snowball
    stem (for `_derived`); filler is left out by its written form and by its lemma."""
    filler = _filler_forms()
    lemmas, stems = set(), set()
    for word in re.findall(r"[\w'ʼ]+", text.lower()):
        if len(word) < 4 or word in filler:
            continue
        lemma = lexicon.lemma(word)
        if lemma in filler:
            continue
        if len(lemma) >= 3:
            lemmas.add(lemma)
        stems.add(lexicon.stem(word))
    return lemmas, stems


NOTE_STEM = 5
"""The shortest stem that may begin another word's stem and name the same thing: a
word and one derived from it ("калории" -> "калор", "калорийность" -> "калорийн").
Stems that only share first letters stay apart ("translat"/"transport",
"formal"/"format", "пример"/"примечан"): one must begin the other."""


def _derived(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= NOTE_STEM and long.startswith(short)


def _shared(said: tuple[set[str], set[str]], held: str) -> int:
    """How plainly a take-back's words (`_note_words`) name `held`: two for each content
    word they share (the same lemma or stem), one for each word derived from one of
    `held`'s (`_derived`)."""
    said_lemmas, said_stems = said
    kept_lemmas, kept_stems = _note_words(held)
    derived = {a for a in said_stems for k in kept_stems if a != k and _derived(a, k)}
    return 2 * len(said_lemmas & kept_lemmas) + len(derived)


def same_note(removal: str, held: str) -> bool:
    """Whether taking back `removal` ("you can stop adding packing lists") may end the
    held note `held` ("always add a packing list"): notes are kept in the user's words,
    so they match by a shared content word (lemma or stem, or one word's stem beginning
    the other's), not by equality."""
    return _shared(_note_words(removal), held) > 0


def named_note(removal: str, held: list[str]) -> int | None:
    """Which of the held notes a take-back names: the one it shares most content words
    with, or None when none shares one or two tie. "нічні потяги вже норм, можна знову"
    ends "ніколи не пропонуй нічні потяги" and leaves "ніколи не пропонуй страви з
    грибами", though both are about what to suggest."""
    said = _note_words(removal)
    scores = [_shared(said, note) for note in held]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best)
