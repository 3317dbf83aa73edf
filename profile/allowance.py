"""What a refusal leaves in: "no pork, only chicken", "no onions, garlic is fine".

A list of things refused often ends with the exception: the one thing kept ("i don't
eat red meat, mostly chicken", "не ем свинину, только курицу") or a thing allowed
("без цибулі, часник можна"). Read as one more item of the list, the exception became
a ban: the profile then refused exactly what the user said they eat. These are closed
classes of function words, so they are written out, once, for the rules' item lists
(`rules.split_items`) and for the cues' reach (`cues.ONLY`, `cues._stance`).
"""

from __future__ import annotations

import re

KEPT = (
    r"instead|only|except|apart\s+from|other\s+than|зато|натомість|замість|вместо|только"
    r"|тільки|лише|лишь|а\s+от|а\s+вот|кроме|крім|окрім|разве\s+что"
)
"""Words that turn from the things refused to the ones kept. "Mostly" and "mainly" are
not among them: "allergic to tree nuts, mainly walnuts" narrows the refusal."""

ALLOWED = re.compile(
    r"(?<![\w'’])(?:is|are|'s|’s)\s+(?:totally\s+|perfectly\s+|absolutely\s+|still\s+)?"
    r"(?:fine|ok|okay|alright|allowed)(?![\w-])"
    r"|(?<!не\s)(?<!ні\s)(?<![\w-])(?:можно|можна|нормально|норм)(?![\w-])",
    re.IGNORECASE,
)
"""A word saying a thing is allowed; "не можна" and "is not ok" are no such word."""
EATEN = re.compile(
    r"(?<![\w-])(?<!не\s)(?<!ні\s)(?:ем|едим|їм|їмо|пью|п['ʼ]ю|yes|да|так)(?![\w-])",
    re.IGNORECASE,
)
"""A thing's own predicate saying the user has it ("рыбу *ем*, мясо нет", "fish *yes*
meat no", "рибу *їм*, м'ясо ні"): a refusal after it is the next thing's, not this
one's. Russian and Ukrainian say it with the verb after the thing; English puts "eat"
before it, and "drink" after a thing is as often a noun ("a caffeinated drink")."""
_SEGMENT_END = re.compile(r"[,.;!?:\n]|\s+(?:but|а|но|але)\s")
_WORD = re.compile(r"[\w'’ʼ-]+")
REACH = 2
"""Words that may stand between a thing and its permission ("one coffee *a day* is
fine"); farther, the permission is about something else."""


def allowed_after(text: str, end: int) -> bool:
    """Whether the words just after `end`, in the same part of the sentence, allow the
    thing just named ("garlic *is fine*", "часник *можна*") or say the user has it
    ("no dairy, fish *yes*", "без молока, рыбу *ем*")."""
    stop = _SEGMENT_END.search(text, end)
    limit = stop.start() if stop else len(text)
    found = [m for m in (ALLOWED.search(text, end, limit), EATEN.search(text, end, limit)) if m]
    if not found:
        return False
    first = min(m.start() for m in found)
    return len(_WORD.findall(text[end:first])) <= REACH
