"""Is the user asking to hear more of a memory, and about what?

A deep unpack on request must work in English, Russian and Ukrainian alike, and for
the follow-ups people actually type: "tell me more about that", "подробнее",
"розкажи докладніше", "tell me more about the Lisbon trip". Words are compared by
dictionary form (pymorphy3 for Cyrillic, lower case otherwise), so "подробнее",
"поподробней" and "подробно" are one word, and a short list of "more / detail"
lemmas per language is the rule: three languages need a few dozen lemmas, where a
classifier would need training data this product does not have.

A bare "more" ("I want more coffee") is not a request: it counts only next to a
verb of telling ("tell", "расскажи", "розкажи") or as the whole message.
"""

from __future__ import annotations

import re

from aniso.tiers.lemmas import lemmas
from aniso.tiers.text import stems, words

# A request on its own: asking for detail needs no other word.
DETAIL = frozenset(
    """detail details detailed elaborate elaboration specifics
    подробный подробно подробность деталь детальный детально поподробнее
    детальний детальніший детальніше докладний докладніший докладніше докладно подробиця""".split()
)
# "More" asks for detail only next to a verb of telling, or alone.
MORE = frozenset("more further больше большой более ещё ще більше більший далі".split())
TELL = frozenset(
    """tell say explain remind describe continue go
    рассказать рассказывать сказать объяснить напомнить описать продолжить
    розказати розповісти розповідати сказати пояснити нагадати описати продовжити""".split()
)
# Words of the request itself and pointers back ("that", "это", "це"): what is left
# once they go is the topic, if the user named one.
FRAME = frozenset(
    """me us about on of the that this it those these them again please can could you would
    will bit little some thing things story part what happened was exactly
    мне мы о об про это этом том то тот та эту него нём ней ещё немного пожалуйста можешь
    мені нам це цього цьому той та то ту його ньому ній трохи будь ласка можеш""".split()
)
PHRASES = re.compile(
    r"\b(remember when|do you remember|go on|what exactly)\b|"
    r"(помнишь|вспомни|пам'ятаєш|пам’ятаєш|згадай)",
    re.IGNORECASE,
)


def asks_for_detail(text: str) -> bool:
    """An explicit request to unpack: "tell me more", "подробнее", "remember when…"."""
    if PHRASES.search(text):
        return True
    found = [lemmas(word) for word in words(text)]
    if any(forms & DETAIL for forms in found):
        return True
    if not any(forms & MORE for forms in found):
        return False
    return any(forms & TELL for forms in found) or len(found) <= 2


def topic_terms(text: str) -> list[str]:
    """The stems of what a request is about, without the request's own words: empty
    for "tell me more about that", ["lisbon", "trip"] for "…about the Lisbon trip"."""
    kept = [
        word
        for word in words(text)
        if not lemmas(word) & (DETAIL | MORE | TELL | FRAME) and word not in FRAME
    ]
    return list(dict.fromkeys(stems(" ".join(kept))))


def is_anaphoric(text: str) -> bool:
    """A request that names nothing: it is about what was shown last."""
    return asks_for_detail(text) and not topic_terms(text)
