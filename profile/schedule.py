"""When the user has time: clock ranges, "after 19:00", days and parts of the day.

Schedules are free text in people's mouths ("будни после 19:00", "Tue/Thu
evenings", "только раннее утро"); we keep them as one short English phrase so the
prompt reads the same whatever language set them. A clock time is strong
evidence on its own; days and parts of the day count only next to an
availability cue ("I have time", "только"), so "a place for Thursday evening" is
a request, not a schedule.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_H = r"(\d{1,2})(?:[:.](\d{2}))?"
_RANGE = re.compile(
    r"(?:\b(?:с|from|з)\s+)?\b(\d{1,2})[:.](\d{2})\s*(?:-|–|—|\bдо\b|\bto\b|\bпо\b)\s*"
    r"(\d{1,2})[:.](\d{2})\b",
    re.IGNORECASE,
)
_SPOKEN_RANGE = re.compile(
    r"\b(?:between|from|с|з|від|от)\s+(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|утра|вечера|дня|ранку)?\s*"
    r"(?:and|to|till|until|-|–|—|до|по)\s*(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|утра|вечера|дня|ночи"
    r"|вечора|ранку)\b",
    re.IGNORECASE,
)
"""A range said with am/pm ("between 10am and 2pm", "с 9 утра до 6 вечера")."""
_MARKED_RANGE = re.compile(
    r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?\s*(?:-|–|—|to|till|until)\s*"
    r"(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)\b",
    re.IGNORECASE,
)
"""A range whose end carries am/pm, with no word before it: "6-8pm", "free 2pm to 6pm"."""
_HOUR_RANGE = re.compile(
    r"\b(?:from|с|з|від|от)\s+(\d{1,2})\s*(?:-|–|—|to|till|until|до|по)\s*(\d{1,2})(?![\d:.])",
    re.IGNORECASE,
)
"""Whole hours after "from" ("с 12 до 17"): read only when both are hours of a day and no
unit follows ("с 5 до 10 кг" is no time)."""
_AT = re.compile(
    r"(?:\b(?:at|around|в|о|об|на)\s+|(?<![\w:.]))(\d{1,2}):(\d{2})(?![\d:.])"
    r"|\b(?:at|around|о|об)\s+(\d{1,2})\s*(am|pm|утра|вечера|ранку|вечора)?(?![\w:.])",
    re.IGNORECASE,
)
"""A clock time on its own: "в 21:00", "around 20:00", "о 8"; a bare hour only after
"at"/"о", since "в 8" is as often a count or a grade as a time. Alone it says when
something happens, not when the user is free: it counts only beside an availability
cue (`schedule_in`)."""
_UNIT = re.compile(
    r"\s*(?:недел\w*|тижн\w*|тиж\w*|лет|год\w*|рок\w*|дн\w*|минут\w*|хвилин\w*|час\w*|годин\w*"
    r"|weeks?|wks?|years?|yrs?|days?|months?|mos?|minutes?|mins?|hours?|hrs?|мес\w*|міс\w*|%|km|км|kg|кг)\b",
    re.IGNORECASE,
)
_AFTER = re.compile(
    rf"\b(?:после|after|після)\s+{_H}\s*(pm|p\.m\.|am|a\.m\.|вечера|вечора|утра"
    r"|ранку|дня|ночи|ночі|h)?(?!\w)",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    rf"\b(?:до|before|by|раньше|раніше)\s+{_H}\s*(pm|p\.m\.|am|a\.m\.|вечера|вечора|утра|ранку"
    r"|дня|h)?(?!\w)",
    re.IGNORECASE,
)
_EVENING = re.compile(r"\b(?:вечер\w*|вечор\w*|ввечері|evenings?|tonight|pm)\b", re.IGNORECASE)
"""An evening in the clause makes a bare hour ("після 9") the evening's."""
_FROM = re.compile(
    r"\b(?:from|since|с|з|від)\s+(\d{1,2})[:.](\d{2})\s*(pm|am)?(?!\w)(?!\s*(?:-|–|—|to|до|по)\s*\d)",
    re.IGNORECASE,
)
"""Free from a clock time on ("вільна вже з 20:00"): after it, unless a range follows."""
_ONLY = re.compile(r"\b(?:только|лишь|only|тільки|лише)\b", re.IGNORECASE)
_AVAILABLE = re.compile(
    r"\b(?:врем\w*|час\w*|свобод\w*|вільн\w*|free|available|have\s+time|могу|можу"
    r"|удобно|зручно|works\s+for\s+me|time\s*:)",
    re.IGNORECASE,
)
_REACH = re.compile(
    # When to reach the user, and days off: a standing schedule as much as "free", but
    # as often said of one appointment, so these go to the gate as a finder's proposals
    # (`cues.schedule`), not as the rule tables' sure ones.
    r"\b(?:off|days?\s+off|remind\w*|reminders?|best|better|window|on\s+call|reach\s+me"
    r"|text\s+me|message\s+me|write\s+to\s+me|напомина\w*|напомни\w*|нагаду\w*|пиши\w*"
    r"|пишіть|лучше|краще|освобожда\w*|звільня\w*|на\s+связи"
    r"|на\s+зв['ʼ]язку|график\w*|графік\w*|schedule)",
    re.IGNORECASE,
)
_TASK = re.compile(
    r"\b(?:remind\w*\s+(?:me\s+)?(?:that|to|about|of)|напомни\w*\s+(?:мне\s+)?(?:что|про|о|об|чтобы)"
    r"|нагадай\w*\s+(?:мені\s+)?(?:що|про|щоб))\b",
    re.IGNORECASE,
)
"""A reminder of something ("remind me that the honey goes to my sister on Friday",
"напомни про врача в среду"): the day is the task's, not when to reach the user."""
_UNAVAILABLE = re.compile(
    r"\b(?:never|not|n't|не|ні|ніколи|никогда)\s+(?:\w+\s+)?(?:free|available|свобод\w*"
    r"|вільн\w*)",
    re.IGNORECASE,
)
"""When the user is not free ("never free before noon"): no schedule of its own."""
_NOT_MINE = re.compile(
    r"\b(?:open\w*|clos\w*|работает|работают|открыт\w*|закрыва\w*|поезд\w*|train|flight"
    r"|рейс\w*|самол[её]т\w*|прибыва\w*|arriv\w*|depart\w*|отправл\w*|начина\w*|starts?"
    r"|встреч\w*|meeting|концерт\w*|сеанс\w*)",
    re.IGNORECASE,
)
_GROUPS: tuple[tuple[str, str], ...] = (
    ("weekdays", r"будн\w*|weekdays?|робоч\w+\s+дн\w*"),
    ("weekends", r"выходн\w*|weekends?|вихідн\w*"),
)
_DAYS: tuple[tuple[str, str], ...] = (
    ("Monday", r"понедельник\w*|понеділ\w*|mondays?"),
    ("Tuesday", r"вторник\w*|вівтор\w*|tuesdays?|tues"),
    ("Wednesday", r"по\s+средам|в\s+среду|серед\w*|wednesdays?"),
    ("Thursday", r"четверг\w*|четвер\w*|thursdays?|thurs"),
    ("Friday", r"пятниц\w*|п['ʼ]?ятниц\w*|fridays?"),
    ("Saturday", r"суббот\w*|субот\w*|saturdays?"),
    ("Sunday", r"воскресень\w*|неділ\w*|sundays?"),
)
_ABBREVIATIONS = {
    "пн": "Monday", "mon": "Monday", "вт": "Tuesday", "tue": "Tuesday", "tues": "Tuesday",
    "ср": "Wednesday", "wed": "Wednesday", "чт": "Thursday", "thu": "Thursday",
    "thurs": "Thursday", "пт": "Friday", "fri": "Friday", "сб": "Saturday", "sat": "Saturday",
    "вс": "Sunday", "нд": "Sunday", "sun": "Sunday",
}  # fmt: skip
_ABBREVIATION_GROUP = re.compile(
    r"\b(?:" + "|".join(_ABBREVIATIONS) + r")(?:\s*/\s*(?:" + "|".join(_ABBREVIATIONS) + r"))+\b",
    re.IGNORECASE,
)
_PARTS: tuple[tuple[str, str], ...] = (
    (
        "early morning",
        r"ранн\w+\s+утр\w*|рано\s+утром|early(?:\s+in\s+the)?\s+mornings?|рано\s+вранці"
        r"|ранн\w+\s+ран\w*",
    ),
    ("mornings", r"утр\w*|по\s+утрам|mornings?|вранці|зранку|ранку|ранок|before\s+noon"),
    ("afternoons", r"дн[её]м|afternoons?|вдень|после\s+обеда|с\s+обеда|після\s+обіду|з\s+обіду"),
    ("lunchtime", r"lunch\w*|в\s+обед|на\s+обед|в\s+обід|на\s+обід"),
    ("evenings", r"вечер\w*|вечор\w*|evenings?|ввечері|after\s+supper|after\s+dinner"),
)


@dataclass(frozen=True)
class _Found:
    text: str
    start: int
    end: int


def _clock(hour: str, minute: str | None, marker: str | None) -> str | None:
    value, minutes = int(hour), int(minute or 0)
    marker = (marker or "").lower().replace(".", "")
    if marker in {"pm", "вечера", "вечора", "дня"} and value < 12:
        value += 12
    if marker == "am" and value == 12:
        value = 0
    if value > 23 or minutes > 59:
        return None
    return f"{value:02d}:{minutes:02d}"


def _same_half(marker: str | None, hour: str) -> str | None:
    """The first hour of "between 1 and 3pm" is pm too; of "between 10 and 2pm", am."""
    if marker and marker.lower() == "pm":
        return None if int(hour) >= 10 else "pm"
    return None


def _clock_times(clause: str) -> list[_Found]:
    found = _ranges(clause)
    taken = [(f.start, f.end) for f in found]
    found += _bounds(clause, taken)
    found += _at_times(clause, taken)
    return sorted(found, key=lambda f: f.start)


def _ranges(clause: str) -> list[_Found]:
    """Clock ranges: "06:30-08:30", "between 10am and 2pm", "6-8pm", "с 12 до 17"."""
    found: list[_Found] = []
    for m in _RANGE.finditer(clause):
        start, end = _clock(m.group(1), m.group(2), None), _clock(m.group(3), m.group(4), None)
        if start and end:
            found.append(_Found(f"{start}-{end}", m.start(), m.end()))
    for pattern in (_SPOKEN_RANGE, _MARKED_RANGE):
        for m in pattern.finditer(clause):
            if any(f.start <= m.start() < f.end for f in found):
                continue
            end = _clock(m.group(4), m.group(5), m.group(6))
            half = m.group(3) or _same_half(m.group(6), m.group(1))
            start = _clock(m.group(1), m.group(2), half)
            if start and end:
                found.append(_Found(f"{start}-{end}", m.start(), m.end()))
    for m in _HOUR_RANGE.finditer(clause):
        if any(f.start <= m.start() < f.end for f in found) or _UNIT.match(clause, m.end()):
            continue
        start, end = _clock(m.group(1), None, None), _clock(m.group(2), None, None)
        if start and end and int(m.group(1)) < int(m.group(2)):
            found.append(_Found(f"{start}-{end}", m.start(), m.end()))
    return found


def _bounds(clause: str, taken: list[tuple[int, int]]) -> list[_Found]:
    """Open ranges: "after 19:00", "з 20:00", "before 11:00"; adds their spans to `taken`."""
    found: list[_Found] = []
    for pattern, word in ((_AFTER, "after"), (_FROM, "after"), (_BEFORE, "before")):
        for m in pattern.finditer(clause):
            if any(a <= m.start() < b for a, b in taken):
                continue
            bare = m.group(2) is None and m.group(3) is None
            if bare and (
                word == "before" or not 5 <= int(m.group(1)) <= 23 or _UNIT.match(clause, m.end())
            ):
                continue  # "после 2 недель", "by 10" are no time of day; "после 18 свободна" is
            evening = _EVENING.search(clause) or (word == "after" and int(m.group(1)) <= 7)
            marker = m.group(3) or ("pm" if bare and evening else None)
            time = _clock(m.group(1), m.group(2), marker)
            if time:
                found.append(_Found(f"{word} {time}", m.start(), m.end()))
                taken.append((m.start(), m.end()))
    return found


def _at_times(clause: str, taken: list[tuple[int, int]]) -> list[_Found]:
    """Single clock times ("в 21:00", "о 8"), outside the spans already read."""
    found: list[_Found] = []
    for m in _AT.finditer(clause):
        digits = m.start(1 if m.group(1) else 3)
        if any(a <= m.start() < b or a <= digits < b for a, b in taken):
            continue
        if m.group(1):
            time = _clock(m.group(1), m.group(2), None)
        else:
            evening = m.group(4) is None and _EVENING.search(clause) is not None
            time = _clock(m.group(3), None, m.group(4) or ("pm" if evening else None))
        if time:
            found.append(_Found(f"at {time}", m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return found


def _scan(table: tuple[tuple[str, str], ...], text: str, taken: list[tuple[int, int]]) -> list[str]:
    hits = []
    for canonical, pattern in table:
        for m in re.finditer(rf"\b(?:{pattern})\b", text, re.IGNORECASE):
            if not any(a <= m.start() < b for a, b in taken):
                hits.append((m.start(), canonical))
                taken.append((m.start(), m.end()))
    return [canonical for _, canonical in sorted(hits)]


def _days(text: str, taken: list[tuple[int, int]]) -> str:
    # Named days first: in "вихідні в мене вівторок і середа" and "fridays and weekends"
    # the days are what the user means.
    named = _scan(_DAYS, text, taken)
    groups = _scan(_GROUPS, text, taken)
    if groups and not named:
        return groups[0]
    for m in _ABBREVIATION_GROUP.finditer(text):
        named += [_ABBREVIATIONS[part.strip().lower()] for part in m.group().split("/")]
    order = [day for day, _ in _DAYS]
    days = sorted(set(named), key=order.index)
    # Whole day names: the prompt and the profile read "Sundays", not "Sun".
    return f"{days[0]}s" if len(days) == 1 else "/".join(days)


def describe(clause: str) -> str | None:
    """A canonical schedule phrase for a clause, or None when it names no time at all."""
    times = _clock_times(clause)
    taken = [(f.start, f.end) for f in times]
    days = _days(clause, taken)
    # A clock time says it all: "утренний план 06:30-08:30" is not "mornings 06:30-08:30".
    parts = [] if times else _scan(_PARTS, clause, taken)
    if not (times or days or parts):
        return None
    words: list[str] = []
    if days and parts:
        day = {"weekdays": "weekday", "weekends": "weekend"}.get(days, days)
        words.append(f"{day} {parts[0]}")
    else:
        words += [days] if days else []
        words += parts[:1]
    words += [f.text for f in times]
    if _ONLY.search(clause):
        words.append("only")
    return " ".join(words)


_ACTIVITY = re.compile(
    r"(?<![\w-])(?:drink\w*|drank|eat|eats|eating|ate|snack\w*|caffeine|screens?|sleep\w*|nap\w*"
    r"|пью|пить|выпью|ем|есть|поем|кушать|перекус\w*|сплю|спать|ложусь|п['ʼ]ю|пити|їм|їсти|сплю"
    r"|спати|лягаю)(?![\w-])",
    re.IGNORECASE,
)
"""Verbs of doing something to oneself at a time: eating, drinking, sleeping."""


def _bounds_an_activity(clause: str, clocks: list[_Found]) -> bool:
    """Whether the clause's clock times only bound something the user does: "too much
    coffee after 4pm", "не ем после 18:00". Such a time says when the user eats or
    drinks, not when to reach them; "free after 18:00" has an availability cue and is
    not asked about. A range ("06:30-08:30") is a slot of its own and stays."""
    if not all(f.text.startswith(("after ", "before ")) for f in clocks):
        return False
    from aniso.profile import lexicon

    first = min(f.start for f in clocks)
    head = clause[:first]
    return bool(_ACTIVITY.search(head)) or any(
        m.term.kind == "food" for m in lexicon.mentions(head)
    )


@functools.lru_cache(maxsize=256)
def schedule_in(sentence: str, *, reach: bool = False) -> tuple[tuple[str, str], ...]:
    """(canonical schedule, evidence clause) for each clause of a sentence that
    states when the user has time; with `reach`, also when to reach them and their
    days off ("remind me at 21:00", "days off are monday and tuesday"). Cached: both
    languages' rule tables ask about every sentence, and staleness asks again about
    memories recalled turn after turn."""
    found: list[tuple[str, str]] = []
    for clause in re.split(r"[,;]", sentence):
        if _NOT_MINE.search(clause) or _UNAVAILABLE.search(clause):
            continue
        clocks = [f for f in _clock_times(clause) if not f.text.startswith("at ")]
        has_clock = bool(clocks)
        cued = _AVAILABLE.search(clause) or _ONLY.search(clause)
        if has_clock and not cued and _bounds_an_activity(clause, clocks):
            continue
        reached = reach and _REACH.search(clause) and not _TASK.search(clause)
        if not has_clock and not cued and not reached:
            continue
        described = describe(clause)
        if described and described != "only":
            found.append((described, clause.strip()))
    return tuple(found)
