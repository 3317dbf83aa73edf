"""Time in words, resolved to dates: "yesterday", "last Saturday", "two weeks ago",
"в прошлую пятницу", "минулого тижня", "in June", "on 13 October, 2023".

People say when something happened relative to when they say it. A memory that keeps
"I went camping last weekend" only as words cannot answer "what did I do in June?"
a month later: the date has to be worked out when the message is stored, against the
message's own time, and the question's time expressions resolved against now. Both
sides become time terms (`terms`) that the lexical index holds next to the stems, so
a question about June meets what happened in June, said in any words.

The vocabulary (month and weekday names, "yesterday", "N days ago", number words in
English, Russian and Ukrainian) is dateparser's own translation data, read as data;
"last night" and "last weekend", which its tables lack, are a rule (`SPANS`).
Its parser is not used: on chat messages it took 10 to 300 ms each, cost 0.7 s to
import, and read "we" and "may" as dates. What is done here is the arithmetic, and
one rule: a Latin month or weekday name counts only beside a number or after a
preposition, because "may", "march" and "sat" are common words.
"""

from __future__ import annotations

import ast
import importlib.util
import logging
import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from pathlib import Path

from aniso.tiers.text import CYRILLIC, stem

log = logging.getLogger(__name__)

LANGUAGES = ("en", "ru", "uk")
MONTHS = (
    "january february march april may june july august september october november december"
).split()
WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
# Before a Latin month name, these make it a month and not a word ("in May", "since March").
LATIN_MONTH_CUES = frozenset("in during since until by of early late mid last this next".split())
# The same for a Cyrillic month found by its stem or first letters, not spelt as in the
# table: Ukrainian months are also words ("березень" March, "береза" a birch).
CYRILLIC_MONTH_CUES = frozenset("в во у с з до к от від після после".split())
# A 'last' word is one of a '1 week ago' phrase that is neither a unit nor a preposition;
# Cyrillic inflects it, so it is compared by its first letters.
PREFIX = 5
# Every full weekday name in Russian and Ukrainian has five letters or more ("среда").
WEEKDAY_STEM_FROM = 5
TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\d+", re.UNICODE)
LATIN = re.compile(r"^[a-z]+$")
TIME_TERM = re.compile(r"^t[dmy]\d{4,8}$")
APOSTROPHES = str.maketrans("ʼ’", "''")


@dataclass(frozen=True)
class Mention:
    """A time a text speaks of: a day, or a whole month, or a whole year."""

    kind: str  # "day" | "month" | "year"
    start: date

    def terms(self) -> list[str]:
        """Index terms: a day also stands for its month, so "in June" finds it."""
        if self.kind == "year":
            return [f"ty{self.start:%Y}"]
        if self.kind == "month":
            return [f"tm{self.start:%Y%m}"]
        return [f"td{self.start:%Y%m%d}", f"tm{self.start:%Y%m}"]


@dataclass(frozen=True)
class _Vocabulary:
    months: dict[str, int]  # exact word → month
    month_prefixes: dict[str, int]  # Cyrillic abbreviation → month
    month_stems: dict[str, int]  # Cyrillic stem → month ("мае" is not in the table)
    weekdays: dict[str, int]
    weekday_stems: dict[str, int]
    last_prefixes: frozenset[str]
    phrases: dict[str, tuple[int, str]]  # "позавчера" → (-2, "day")
    any_phrase: re.Pattern[str]
    counted: list[tuple[re.Pattern[str], int, str, bool]]  # (pattern, sign, unit, no count)
    any_counted: re.Pattern[str]
    numbers: list[tuple[re.Pattern[str], str]]
    any_number: re.Pattern[str]
    triggers: frozenset[str]  # the words without which no phrase or count can match


def _data(language: str) -> dict:
    """dateparser's translation table for `language`, read as a literal (no import of
    dateparser itself, whose start-up parses every time zone). A missing or unreadable
    table gives no time terms, never a failed store: this runs inside the write."""
    spec = importlib.util.find_spec("dateparser")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(spec.submodule_search_locations[0], "data", "date_translation_data")
    try:
        tree = ast.parse((path / f"{language}.py").read_text(encoding="utf-8"))
        return dict(ast.literal_eval(tree.body[0].value))  # type: ignore[attr-defined]
    except (OSError, SyntaxError, ValueError, TypeError, IndexError, AttributeError) as error:
        log.warning("time words in %s are not read: %s", language, type(error).__name__)
        return {}


def _relative(key: str) -> tuple[int, str] | None:
    """'2 day ago' → (-2, 'day'); 'in 1 week' → (1, 'week'); '\\1 month ago' → (-1, ...)."""
    match = re.fullmatch(r"(in )?(\\1|\d+) (day|week|month|year) ?(ago)?", key)
    if match is None:
        return None
    count = 1 if match.group(2) == "\\1" else int(match.group(2))
    if count == 0:
        return None  # "today", "this week": the day it was said, which own_terms gives
    return (count if match.group(1) else -count), match.group(3)


def _words(pattern: str) -> str:
    return rf"(?<![^\W_]){pattern}(?![^\W_])"


def _names(
    data: dict,
    keys: list[str],
    first: int,
    exact: dict[str, int],
    stems: dict[str, int],
    *,
    stem_from: int = 3,
) -> dict[str, int]:
    """Month or weekday names of one language into `exact` and `stems` (Cyrillic
    inflects: "июне", "суботи"); returns the four-letter prefixes of long names.
    Only names of `stem_from` letters or more are stemmed: the table's weekday
    abbreviations ("пят") are stems of common words ("пять", five) and count only
    as spelt."""
    prefixes: dict[str, int] = {}
    for number, key in enumerate(keys, start=first):
        for word in (w.lower() for w in data.get(key, []) if len(w) >= 3):
            exact[word] = number
            if not LATIN.match(word) and len(word) >= stem_from:
                stems[stem(word)] = number
                if len(word) >= 5:
                    prefixes[word[:4]] = number
    return prefixes


def _relatives(
    data: dict, phrases: dict[str, tuple[int, str]], last: set[str]
) -> list[tuple[re.Pattern[str], int, str, bool]]:
    """'yesterday'-like phrases into `phrases`, 'last' words into `last`; returns the
    counted patterns ('(N) days ago') with their direction, unit, and whether the
    pattern has no count (one unit).

    The table's patterns spell the unit in the forms that follow 1 and 2-4 only ("3 дня
    назад", "2 тижня тому"): the dictionary's words for the unit ("дней", "тижні",
    "років") were never tried, so "5 дней назад" and "2 тижні тому" gave no date. Each
    pattern's frame (the words around the count) is therefore taken with every form of
    its unit. Russian and Ukrainian say one unit with no count ("неделю назад",
    "рік тому"; English says "a week ago", which the table's "a" -> 1 covers), so the
    frame also takes the table's own unit words in the forms that follow 1 with no
    count (not those of 2-4, `AFTER_TWO_TO_FOUR`); the plural forms are left out of
    that: "несколько дней назад" is no one day. "через день" is left out too: it is
    "every other day" in Russian and "because of the day" in Ukrainian."""
    units = {w.lower() for unit in UNITS for w in data.get(unit, [])}
    for key, said in data.get("relative-type", {}).items():
        shift = _relative(key)
        if shift is None:
            continue
        for phrase in (p.lower() for p in said):
            phrases[phrase] = shift
            if key in ("1 week ago", "1 month ago", "1 year ago"):
                last.update(w[:PREFIX] for w in phrase.split() if w not in units and len(w) > 3)
    counted = []
    frames: dict[tuple[str, str, int, str], dict[str, str]] = {}
    for key, patterns in data.get("relative-type-regex", {}).items():
        shift = _relative(key)
        if shift is None:
            continue
        sign = 1 if shift[0] > 0 else -1
        for pattern in patterns:
            frame = _frame(pattern)
            if frame is None:
                counted.append((re.compile(_words(pattern)), sign, shift[1], False))
                continue
            head, unit_word, tail = frame
            frames.setdefault((head, tail, sign, shift[1]), {})[unit_word] = pattern
    return counted + _framed(data, frames)


def _framed(
    data: dict, frames: dict[tuple[str, str, int, str], dict[str, str]]
) -> list[tuple[re.Pattern[str], int, str, bool]]:
    """The counted patterns of each frame (words before the count, words after it,
    direction, unit), from the unit words the table gave it, each with the table's own
    pattern (`_relatives`)."""
    counted: list[tuple[re.Pattern[str], int, str, bool]] = []
    for (head, tail, sign, unit), patterns in frames.items():
        said = set(patterns)
        if max(map(len, said)) < FULL_UNIT:  # only abbreviations: "за 3 дн" is the table's,
            counted += [  # "за 3 дні" is "within"
                (re.compile(_words(pattern)), sign, unit, False) for pattern in patterns.values()
            ]
            continue
        forms = said | {w.lower() for w in data.get(unit, []) if len(w) >= 3}
        before = rf"{re.escape(head)}\s+" if head else ""
        after = rf"\s+{re.escape(tail)}{NOT_A_CONJUNCTION}" if tail else NOT_FROM_AN_EVENT
        numbered = rf"{before}({NUMBER})\s+{_alternatives(forms)}{after}"
        counted.append((re.compile(_words(numbered)), sign, unit, False))
        singular = {w for w in said if len(w) >= 3 and w[-1] not in AFTER_TWO_TO_FOUR}
        if singular and CYRILLIC.search(" ".join(singular)) and not (head and unit == "day"):
            bare = f"{before}{_alternatives(singular)}{after}"
            counted.append((re.compile(_words(bare)), sign, unit, True))
    return counted


AFTER_TWO_TO_FOUR = "аяиу"
"""The endings of the unit forms the tables list for 2-4 ("дня", "недели", "года",
"тижня", "року"), which are also the genitive singular: with no count before them they
are no one unit ("полтора месяца назад", "пол года назад"). The forms that follow 1
("день", "неделю", "год", "тиждень", "рік") end otherwise."""
NOT_A_CONJUNCTION = r"(?!,?\s*(?:що|як)(?![^\W_]))"
"""Ukrainian "тому" is also "because" in "тому що" and "тому як": "цього року тому що"
is no year ago."""
NOT_FROM_AN_EVENT = r"(?!\s+(?:после|після|от|від|с\s+тех|з\s+тих)(?![^\W_]))"
""""через год после свадьбы" counts from the wedding, not from when it is said."""
NOT_A_SPAN = frozenset(
    "мені тобі йому їй нам вам їм мне тебе ему ей весь увесь цілий цілу цілий целый целую"
    " каждый кожен кожну за на".split()
)
"""Words before a counted time that make it a span or an age, not a time ago: "мені 25
років тому я…" ("I am 25, so I…"), "цілий тиждень тому не писав" ("a whole week, so I
did not write"), "перенесли на неделю назад". Ukrainian "тому" is also "so"."""


NUMBER = r"\d++[.,]?\d*+"
"""dateparser's own pattern of a count."""
FULL_UNIT = 4
"""A direction word ("назад", "через") takes every form of a unit only when the table
pairs it with a unit spelt out ("через 2 недели"). Ukrainian "за" is paired with
abbreviations only ("за 3 дн"): "за три дні" is as often "within three days"."""


def _frame(pattern: str) -> tuple[str, str, str] | None:
    """A counted pattern of the table as (words before the count, the unit word, words
    after it): "(N) дня назад" -> ("", "дня", "назад"), "через (N) день" -> ("через",
    "день", ""). None for any other shape ("(N)d ago")."""
    match = re.fullmatch(
        rf"(?:(?P<head>[^\W\d_]+) )?\({re.escape(NUMBER)}\) (?P<unit>[^\W\d_]+)"
        r"(?: (?P<tail>[^\W\d_]+))?",
        pattern,
    )
    if match is None or (match["head"] is None) == (match["tail"] is None):
        return None
    return match["head"] or "", match["unit"], match["tail"] or ""


def _alternatives(words: set[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


def _numbers(data: dict) -> list[tuple[re.Pattern[str], str]]:
    """Number words ('two', 'дв(а|е|ух)', 'три') with their digits, and the words for a
    count of a unit ('полгода' -> '6 месяцев', 'півтора року' -> '18 місяців')."""
    return [
        (re.compile(_words(pattern)), digits)
        for simplification in data.get("simplifications", [])
        for pattern, digits in simplification.items()
        if (
            digits.isdigit()
            and ("(" not in pattern.replace("(?:", "") or _INFLECTED.fullmatch(pattern))
        )
        or (_COUNTED.fullmatch(digits) and _PLAIN.fullmatch(pattern))
    ]


_INFLECTED = re.compile(r"[^\W\d_]+\([^()]*\)")  # "дв(а|е|ух)"
_COUNTED = re.compile(r"\d+ [^\W\d_]+")  # "6 месяцев"
_PLAIN = re.compile(r"[^\W\d_ ]+(?: [^\W\d_]+)?")  # "полгода", "півтора року"


@cache
def vocabulary() -> _Vocabulary:
    months: dict[str, int] = {}
    month_prefixes: dict[str, int] = {}
    month_stems: dict[str, int] = {}
    weekdays: dict[str, int] = {}
    weekday_stems: dict[str, int] = {}
    last: set[str] = set()
    phrases: dict[str, tuple[int, str]] = {}
    counted: list[tuple[re.Pattern[str], int, str, bool]] = []
    numbers: list[tuple[re.Pattern[str], str]] = []
    for data in filter(None, map(_data, LANGUAGES)):
        month_prefixes |= _names(data, MONTHS, 1, months, month_stems)
        _names(data, WEEKDAYS, 0, weekdays, weekday_stems, stem_from=WEEKDAY_STEM_FROM)
        counted += _relatives(data, phrases, last)
        numbers += _numbers(data)
    # One alternation per kind, so a message is read once and not once per phrase;
    # the longest phrase is tried first ("day before yesterday" before "yesterday").
    ordered = sorted(phrases, key=len, reverse=True)
    return _Vocabulary(
        months,
        month_prefixes,
        month_stems,
        weekdays,
        weekday_stems,
        frozenset(last),
        phrases,
        _either([_words(re.escape(phrase)) for phrase in ordered]),
        counted,
        _either([pattern.pattern for pattern, _, _, _ in counted]),
        numbers,
        _either([pattern.pattern for pattern, _ in numbers]),
        frozenset(
            word
            for text in [*phrases, *(pattern.pattern for pattern, _, _, _ in counted)]
            for word in re.findall(r"[^\W\d_]{3,}", text)
        ),
    )


def _either(patterns: list[str]) -> re.Pattern[str]:
    """One pattern matching any of `patterns` (their groups made non-capturing).

    The word boundaries `_words` puts around each are put once around the whole
    alternation: the same matches, but inside a word the engine fails at the boundary
    instead of trying every alternative, which made reading a message with a time word
    in it cost a third of a millisecond per pattern (the largest part of an import's
    indexing)."""
    if not patterns:
        return re.compile(r"(?!)")
    before, after = _words("\0").split("\0")
    bounded = all(p.startswith(before) and p.endswith(after) for p in patterns)
    if bounded:
        patterns = [p[len(before) : len(p) - len(after)] for p in patterns]
    either = "|".join(re.sub(r"\((?!\?)", "(?:", p) for p in patterns)
    return re.compile(f"{before}(?:{either}){after}" if bounded else either)


def _shift(at: date, count: int, unit: str) -> Mention:
    if unit == "day":
        return Mention("day", at + timedelta(days=count))
    if unit == "week":
        return Mention("day", at + timedelta(days=7 * count))
    if unit == "month":
        month = at.month - 1 + count
        year = at.year + month // 12
        return Mention("month", date(year, month % 12 + 1, 1))
    return Mention("year", date(at.year + count, 1, 1))


def _counts(text: str, vocab: _Vocabulary) -> str:
    """`text` with its number words as digits; a tens word and a units word in a row
    ("двадцать пять", "twenty five") are one count, not a five after a twenty. Digits
    the user typed are left as they are ("за 20 2 дня назад")."""
    found = list(vocab.any_number.finditer(text))
    out: list[str] = []
    position = index = 0
    while index < len(found):
        match = found[index]
        value = _number(match.group(0), vocab)
        after = found[index + 1] if index + 1 < len(found) else None
        if (
            after is not None
            and value in _TENS
            and text[match.end() : after.start()].isspace()
            and _number(after.group(0), vocab) in _UNITS
        ):
            out += [
                text[position : match.start()],
                str(int(value) + int(_number(after.group(0), vocab))),
            ]
            position, index = after.end(), index + 2
            continue
        out += [text[position : match.start()], value]
        position, index = match.end(), index + 1
    return "".join([*out, text[position:]])


_TENS = frozenset(str(n) for n in range(20, 100, 10))
_UNITS = frozenset(str(n) for n in range(1, 10))


def _word_before(text: str, at: int) -> str:
    words = re.findall(r"[^\W\d_]+", text[max(0, at - 40) : at])
    return words[-1] if words else ""


def _number(word: str, vocab: _Vocabulary) -> str:
    for pattern, digits in vocab.numbers:
        if pattern.fullmatch(word):
            return digits
    return word


def _name_of(
    word: str,
    exact: dict[str, int],
    stems: dict[str, int],
    prefixes: dict[str, int] | None = None,
    *,
    shortest: int = 3,
) -> int | None:
    """A month's or weekday's number: spelt as in the table, or (Cyrillic words of
    `shortest` letters or more) by stem, or by the first four letters of a long word."""
    if word in exact:
        return exact[word]
    if LATIN.match(word) or len(word) < shortest:
        return None
    found = stems.get(stem(word))
    if found is None and prefixes is not None and len(word) >= 5:
        found = prefixes.get(word[:4])
    return found


def _past_month(month: int, year: int | None, at: date) -> date:
    """A month said without a year is the latest one not after `at` (people speak of
    the past far more than of a future month)."""
    if year is not None:
        return date(year, month, 1)
    return date(at.year if month <= at.month else at.year - 1, month, 1)


NIGHT_BEFORE = re.compile(
    r"(?<![^\W_])(?:last\s+night|прошлой\s+ночью|минулої\s+ночі|минулою\s+ніччю)(?![^\W_])"
)
"""The night before the day it is said, in dateparser's languages: its tables have
"yesterday" but neither this nor `LAST_WEEKEND`, so these two are a rule."""
LAST_WEEKEND = re.compile(
    r"(?<![^\W_])(?:(?:last|past)\s+weekend|(?:на\s+)?прошлых\s+выходных|(?:в\s+)?прошлые"
    r"\s+выходные|(?:на\s+|у\s+)?минулих\s+вихідних|(?:у\s+|в\s+)?минулі\s+вихідні)(?![^\W_])"
)
"""The Saturday and Sunday before the day it is said: said on a Sunday, the weekend a
week before, as "last Sunday" is (`_named`)."""
SPANS = re.compile(f"{NIGHT_BEFORE.pattern}|{LAST_WEEKEND.pattern}")
"""Either rule, for finding the turns that say one (`tiers.index.reindex.retime`)."""


FINAL = frozenset("the a one our my your his her their its that this every".split())
"""Words before "last" that make it "final": "on our last night in Paris", "my last
weekend at the old job", "the last weekend of June" name no night or weekend before."""


def _spans(lowered: str, today: date) -> tuple[list[Mention], str]:
    """The nights and weekends before that `lowered` speaks of (`SPANS`), and the text
    with them blanked out, so that their "last" is not read again by `_named`."""
    found: list[Mention] = []
    for m in SPANS.finditer(lowered):
        if m.group(0).startswith("last") and _word_before(lowered, m.start()) in FINAL:
            continue
        if NIGHT_BEFORE.fullmatch(m.group(0)):
            found.append(Mention("day", today - timedelta(days=1)))
        else:
            sunday = today - timedelta(days=(today.weekday() - 6) % 7 or 7)
            found += [Mention("day", sunday - timedelta(days=1)), Mention("day", sunday)]
        lowered = lowered[: m.start()] + " " * len(m.group(0)) + lowered[m.end() :]
    return found, lowered


def mentions(text: str, at: datetime | date) -> list[Mention]:
    """The days, months and years `text` speaks of, resolved against `at`."""
    today = at.date() if isinstance(at, datetime) else at
    vocab = vocabulary()
    lowered = text.lower().translate(APOSTROPHES)  # the table spells "п'ять" with '
    found, lowered = _spans(lowered, today)
    if vocab.triggers.isdisjoint(TOKEN.findall(lowered)):
        found.extend(_named(TOKEN.findall(lowered), today, vocab))
        return list(dict.fromkeys(found))
    for match in vocab.any_phrase.finditer(lowered):
        count, unit = vocab.phrases[match.group(0)]
        found.append(_shift(today, count, unit))
    lowered = vocab.any_phrase.sub(" ", lowered)
    numbered = _counts(lowered, vocab)
    for match in vocab.any_counted.finditer(numbered):
        if _word_before(numbered, match.start()) in NOT_A_SPAN:
            continue
        for pattern, sign, unit, bare in vocab.counted:
            exact = pattern.fullmatch(match.group(0))
            if exact is None:
                continue
            try:
                count = 1 if bare else int(float(exact.group(1).replace(",", ".")))
            except ValueError:
                break
            if 0 < count <= 100:
                found.append(_shift(today, sign * count, unit))
            break
    found.extend(_named(TOKEN.findall(lowered), today, vocab))
    return list(dict.fromkeys(found))


def _named(tokens: list[str], today: date, vocab: _Vocabulary) -> list[Mention]:
    """Month names with their day and year, weekday names, and bare years."""
    found: list[Mention] = []
    used: set[int] = set()
    for i, token in enumerate(tokens):
        before = tokens[i - 1] if i > 0 else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        month = _name_of(token, vocab.months, vocab.month_stems, vocab.month_prefixes)
        if month is not None:
            day = next((int(t) for t in (before, after) if t.isdigit() and 1 <= int(t) <= 31), None)
            year = next(
                (int(t) for t in tokens[i + 1 : i + 4] if t.isdigit() and 1900 <= int(t) <= 2100),
                None,
            )
            spelt = token in vocab.months and len(token) > 3
            cues = LATIN_MONTH_CUES if LATIN.match(token) else CYRILLIC_MONTH_CUES
            if not (spelt and not LATIN.match(token)) and day is None and year is None:
                if before not in cues:
                    continue
            start = _past_month(month, year, today)
            used.update(j for j in range(i + 1, i + 4) if j < len(tokens))
            if day is not None and day <= monthrange(start.year, start.month)[1]:
                found.append(Mention("day", start.replace(day=day)))
            else:
                found.append(Mention("month", start))
            continue
        weekday = _name_of(token, vocab.weekdays, vocab.weekday_stems, shortest=4)
        if weekday is not None:
            latin = bool(LATIN.match(token))
            is_last = before[:PREFIX] in vocab.last_prefixes
            if latin and not is_last and before not in ("on", "last", "this", "past"):
                continue
            back = (today.weekday() - weekday) % 7 or 7
            found.append(Mention("day", today - timedelta(days=back)))
            continue
        if i not in used and token.isdigit() and len(token) == 4 and 1900 <= int(token) <= 2100:
            found.append(Mention("year", date(int(token), 1, 1)))
    return found


def terms(text: str, at: datetime | date) -> list[str]:
    """The time terms of `text` for the lexical index or a query (see `Mention.terms`)."""
    return list(dict.fromkeys(term for mention in mentions(text, at) for term in mention.terms()))


def is_term(word: str) -> bool:
    """Whether an index word is a time term (`Mention.terms`) and not a stem."""
    return TIME_TERM.match(word) is not None


def own_terms(at: datetime) -> list[str]:
    """The terms of the day a message was said: what happened then is found by it too."""
    return Mention("day", at.date()).terms()
