"""Whose fault a correction is: memory's (a retrieval miss) or the reply's.

"I already told you I'm vegetarian" after a steak suggestion says the user had to
repeat a fact. Counted as a retrieval miss every time, it blamed memory even when the
profile held "vegetarian" and the prompt carried it, and the small model ignored it:
one run measured a 40% miss rate with the profile correct. So a correction is a
retrieval miss only when memory did not supply the fact to the reply it corrects
(it was not injected, or not held); otherwise it is a reply miss.

"Supplied" is decided on words, without a model: the fact is what the correction
says once its "I already told you" is taken out, as content stems; it was supplied
when at least `SUPPLIED_SHARE` of them are in what that reply's prompt carried (the
profile as it stood before this message, and the memories injected last turn). A
fact stated across languages (profile in English, correction in Russian) is not
matched and counts against memory, the side the old count took.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from aniso.profile.correction import restated
from aniso.tiers.text import stems

Cause = Literal["retrieval", "reply"]
SUPPLIED_SHARE = 2 / 3
"""A fact of 1–3 content words must be found whole but for one of three; the share
keeps "my sister Ana lives in Porto" from counting as supplied by a memory about
Ana's visit (2 of 4)."""


def fact_terms(correction: str) -> list[str]:
    """The content stems of what the correction restates, in order, once each."""
    return list(dict.fromkeys(term for term in stems(restated(correction)) if len(term) > 2))


def attribute(correction: str, supplied: Sequence[str]) -> tuple[Cause, list[str]]:
    """The cause of a correction and the fact's terms found in what was `supplied`
    (the texts the corrected reply's prompt carried)."""
    terms = fact_terms(correction)
    carried = set(stems(" ".join(supplied)))
    found = [term for term in terms if term in carried]
    if terms and len(found) >= math.ceil(SUPPLIED_SHARE * len(terms)):
        return "reply", found
    return "retrieval", found
