"""A current health or activity state: "sick: light home activity only".

People mention being ill in passing ("на этой неделе я заболела, нужна только
легкая активность дома"), and it changes what a good suggestion is more than any
interest does. The state is one short English phrase: a condition, a limit, or
both, so the prompt can say it plainly; "I'm better" ends it.
"""

from __future__ import annotations

import re

from aniso.profile.delta import make_op
from aniso.profile.rules import Hit

_INJURED = re.compile(
    r"травм\w*|потянул\w*|растянул\w*|сломал\w*|injur\w*|hurt|sprain\w*|broke", re.IGNORECASE
)
_LIMIT = re.compile(
    r"\b(?:только|лишь|тільки|лише|only|нужн\w*|потрібн\w*|need\w*|можно|можна|can)\s+"
    r"(?:(?:только|лишь|тільки|лише|only|do|a|some)\s+)*(?P<r>[^,.;!?|]+)",
    re.IGNORECASE,
)
_LIMIT_WORDS: tuple[tuple[str, str], ...] = (
    ("light", r"л[её]гк\w*|легк\w*|light|gentle|easy|невелик\w*"),
    ("home", r"дома|домашн\w*|вдома|at\s+home|indoors?|home"),
    ("activity", r"активност\w*|активніст\w*|нагрузк\w*|навантаж\w*|activit\w*|exercise\w*"),
    ("rest", r"отдых\w*|отдыхать|відпочин\w*|rest"),
    ("walks", r"прогулк\w*|прогулян\w*|walks?|walking"),
)


def limit(sentence: str) -> str | None:
    """The activity limit in a sentence, as "light home activity only", or None."""
    found = _LIMIT.search(sentence)
    if not found:
        return None
    said = found.group("r")
    words = [w for w, pattern in _LIMIT_WORDS if re.search(rf"\b(?:{pattern})", said, re.I)]
    if not words or words == ["home"]:
        return None
    only = re.search(r"\b(?:только|лишь|тільки|лише|only)\b", found.group(), re.IGNORECASE)
    return " ".join(words + (["only"] if only else []))


def state(m: re.Match[str]) -> Hit | None:
    """A condition ("заболела", "I got sick"), with any limit in the same sentence."""
    condition = "injured" if _INJURED.search(m.group("c")) else "sick"
    restriction = limit(m.string)
    value = f"{condition}: {restriction}" if restriction else condition
    end = m.end()
    if restriction:
        found = _LIMIT.search(m.string)
        end = max(end, found.end()) if found else end
    said = m.string[m.start() : end].strip(" ,|")
    return Hit([make_op("set", "health", value, said)], m.start(), end)


def limit_only(m: re.Match[str]) -> Hit | None:
    """A limit without a named condition: "I can only do light activity at home"."""
    restriction = limit(m.group())
    if restriction is None:
        return None
    return Hit([make_op("set", "health", restriction, m.group())], *m.span())
