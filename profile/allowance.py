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
EATEN = re.compile(r"(?<![\w-])(?:ем|едим|їм|їмо|пью|п['ʼ’]ю)(?![\w-])", re.IGNORECASE)
"""A thing's own verb saying the user has it ("рыбу *ем*, мясо нет", "рибу *їм*, м'ясо
ні"): Russian and Ukrainian put it after the thing. English puts "eat" before the thing,
and "drink" after one is as often a noun ("a caffeinated drink"). Not "да" and "так":
they are "and" and "so" as often as "yes" ("молоко да сыр не ем", "лук так не люблю")."""
YES = re.compile(r"(?<![\w-])yes(?![\w-])", re.IGNORECASE)
""""fish *yes* meat no": a yes that another thing's refusal follows. Only there: after a
list of refusals it is agreement ("allergic to peanuts, shellfish yes")."""
_EATEN_OR_YES = re.compile(f"{EATEN.pattern}|{YES.pattern}", re.IGNORECASE)
SOFTENERS = r"очень|особо|особенно|сильно|слишком|дуже|надто|особливо|really|very|that|too|much"
"""Words that soften a negation and leave it one: "не очень люблю", "не особо ем", "not
really". Not "так": "не так люблю каву, як чай" compares, and the coffee is still liked."""
NEGATED_NEAR = re.compile(
    rf"(?<![\w-])(?:не|ні|not|don'?t|never)\s+(?:(?:{SOFTENERS})\s+)?$", re.IGNORECASE
)
"""A negation just before what follows, or a softener apart: "не ем", "не особо ем", "не
очень люблю". Another word between is another verb's negation ("кофе не пью люблю
чай")."""
SEGMENT_END = re.compile(r"[,.;!?:\n—–]|\s-\s|\s+(?:but|а|но|але)\s")
"""Where a part of a sentence ends: a comma, a dash (spaced hyphens too: chat types
"мясо не ем - рыбу ем"), a colon, or "but"."""
_WORD = re.compile(r"[\w'’ʼ-]+")
REACH = 2
"""Words that may stand between a thing and its permission ("one coffee *a day* is
fine"); farther, the permission is about something else."""


def allowed_after(text: str, end: int) -> bool:
    """Whether the words just after `end`, in the same part of the sentence, allow the
    thing just named ("garlic *is fine*", "часник *можна*")."""
    stop = SEGMENT_END.search(text, end)
    found = ALLOWED.search(text, end, stop.start() if stop else len(text))
    if found is None:
        return False
    return len(_WORD.findall(text[end : found.start()])) <= REACH


def eaten_in(
    text: str,
    start: int,
    stop: int,
    *,
    answered: bool = False,
    liking: re.Pattern[str] | None = None,
) -> re.Match[str] | None:
    """The first word of having (`EATEN`; `YES` when `answered`; the verbs of `liking`
    when given) in text[start:stop] with no negation up to a word before it ("не ем",
    "не особо ем", "не очень люблю")."""
    patterns = [_EATEN_OR_YES if answered else EATEN, *([liking] if liking else [])]
    found = sorted(
        (m for pattern in patterns for m in pattern.finditer(text, start, stop)),
        key=lambda m: m.start(),
    )
    for match in found:
        if not NEGATED_NEAR.search(text, max(0, match.start() - 40), match.start()):
            return match
    return None
