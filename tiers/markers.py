"""Markers a person puts on a memory: "remember this", an open problem, its resolution.

They hold a block up against migration: importance and open problems keep it hot,
and blocks linked to an open problem keep it from going cold. "That's done", "это уже
не важно" or "це вже не важливо" takes them back (`CLEARED`), as the TUI's `c` does.
Rules cover English, Russian and Ukrainian; they look at the user's words only.
"""

from __future__ import annotations

import re

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


def is_important(text: str) -> bool:
    return bool(IMPORTANT.search(text))


def clears_markers(text: str) -> bool:
    return bool(CLEARED.search(text))


def opens_problem(text: str) -> bool:
    return bool(OPEN.search(text)) and not RESOLVED.search(text)


def resolves_problem(text: str) -> bool:
    return bool(RESOLVED.search(text))
