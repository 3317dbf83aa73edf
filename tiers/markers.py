"""Markers a person puts on a memory: "remember this", an open problem, its resolution.

They hold a block up against migration: importance and open problems keep it hot,
and blocks linked to an open problem keep it from going cold. "That's done", "это уже
не важно" or "це вже не важливо" takes them back (`CLEARED`), as the TUI's `c` does.
Rules cover English, Russian and Ukrainian; they look at the user's words only.
"""

from __future__ import annotations

import re
from functools import cache

IMPORTANT = re.compile(
    r"\b(remember (this|that|it)|don'?t forget|never forget|this is important|important:|"
    r"keep in mind|make a note)\b|"
    r"(запомни|не забудь|это важно|важно:|имей в виду|запам'?ятай|це важливо|не забудь)",
    re.IGNORECASE,
)
OPEN = re.compile(
    r"\b(doesn'?t work|does not work|not working|broken|stuck|can'?t (figure|get|make)|"
    r"problem with|issue with|bug in|error (in|when)|todo|to-do|remind me|deadline|"
    r"i need to (fix|solve|find|finish|decide))\b|"
    r"(не работает|сломал|не могу (понять|разобраться|решить)|проблема с|застрял|"
    r"надо (решить|починить|доделать)|нужно (решить|починить|доделать)|дедлайн|напомни|"
    r"не працює|проблема з)",
    re.IGNORECASE,
)
RESOLVED = re.compile(
    r"\b(it works now|works now|solved|fixed it|fixed now|figured it out|resolved|"
    r"all done|never mind|no longer needed)\b|"
    r"(заработало|получилось|решено|решил[аи]? проблему|починил[аи]?|разобрал(ся|ась)|"
    r"уже не актуально|запрацювало|вирішено)",
    re.IGNORECASE,
)

CLEARED = re.compile(
    r"\b(that'?s done|it'?s done|(that|it)'?s (no longer|not) important( any ?more)?|"
    r"(that|it) (doesn'?t|does not) matter any ?more|no longer (important|matters|relevant)|"
    r"not important any ?more|not relevant any ?more)\b|"
    r"((это|оно)\s+(уже|больше)\s+не\s*важно|уже\s+неважно|больше\s+не\s+важно|"
    r"(це|воно)\s+(вже|більше)\s+не\s*важливо|вже\s+неважливо|більше\s+не\s+важливо|"
    r"вже\s+не\s+актуально)",
    re.IGNORECASE,
)
"""The user takes a marker back: what was important, or open, no longer is."""


_PLAIN = re.compile(r"[\x00-\x7f\u0400-\u04ff]*")
"""ASCII and basic Cyrillic (Russian, Ukrainian): letters that fold case one to one."""


@cache
def _case_sensitive(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


def finds(pattern: re.Pattern[str], text: str) -> bool:
    """`pattern.search(text)` for a case-insensitive pattern written in lower case.

    For a text in ASCII and basic Cyrillic, lower-casing it and searching case by case
    finds exactly the same, about four times faster: Python's case-insensitive search
    cannot skip ahead on a literal. Recall checks these markers on a few hundred texts
    a turn on a busy day (`triage`). Other texts take the case-insensitive search."""
    if _PLAIN.fullmatch(text):
        return bool(_case_sensitive(pattern).search(text.lower()))
    return bool(pattern.search(text))


def is_important(text: str) -> bool:
    return finds(IMPORTANT, text)


def clears_markers(text: str) -> bool:
    return finds(CLEARED, text)


def opens_problem(text: str) -> bool:
    return finds(OPEN, text) and not finds(RESOLVED, text)


def resolves_problem(text: str) -> bool:
    return finds(RESOLVED, text)
