"""Which texts could hold anything the guard redacts, decided without presidio.

Why: importing presidio and spaCy costs over a second of a 2-core machine, and most
messages people write ("hello", "what should I cook tonight?") hold no digit, no "@"
and no labelled secret, which every recognizer needs (`recognizers.build_recognizers`):
- the pattern recognizers (cards, passports, INN, SNILS, ID cards) need at least six
  digits (`min_digits`), and the e-mail pattern an "@";
- phones need seven digits (`phones.find_phones`), and IBANs two after the country;
- secrets are found by `credentials.find_secrets`, plain regexes, run here as well.

So a text with no digit, no "@" and no secret hit gets the verdict the engine would
give, "nothing found", without the engine being built. Every other text goes through
presidio as before. `tests/privacy/test_screen.py` holds the rule to that: every
recognizer the guard builds must need what this screen looks for, and on every
labelled text the screen never passes one the engine would redact.
"""

from __future__ import annotations

import functools

import regex

from aniso.privacy.credentials import find_secrets
from aniso.privacy.normalize import fold

_DIGIT = regex.compile(r"\d")
"""The patterns' own `\\d` (the `regex` module's, which knows more digits than
`str.isdecimal`, e.g. Osmanya)."""


@functools.lru_cache(maxsize=16)
def digit_count(text: str) -> int:
    """How many characters of `text` are digits to the patterns (`_DIGIT`).

    Counted once per text for all recognizers: most texts people write hold no long
    number, and a pattern that needs ten digits cannot match in a text with nine.
    """
    return len(_DIGIT.findall(text))


def could_hold(text: str) -> bool:
    """False only when no recognizer of the guard can find anything in `text`."""
    folded = fold(text)
    return "@" in folded or _DIGIT.search(folded) is not None or bool(find_secrets(folded))
