"""IBANs: country prefix, registered length, mod-97.

IBANs are printed in groups of four, and the last group is often short, so a regex
cannot know where one ends and the next word ("... 6600 1 and") begins. We match
generously, then cut the candidate at exactly the length registered for its country and
only accept it if the cut falls on a word boundary and the mod-97 check passes.
"""

from __future__ import annotations

import re

from aniso.privacy.checksums import IBAN_LENGTHS, compact_iban, iban_ok
from aniso.privacy.hits import Hit

SCORE = 0.95

_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]){8,32}")


def _cut(text: str, start: int, end: int, length: int) -> int | None:
    """Index just after the `length`-th alphanumeric of text[start:end], if on a boundary."""
    seen = 0
    for index in range(start, end):
        if text[index].isalnum():
            seen += 1
            if seen == length:
                after = index + 1
                if after < len(text) and text[after].isascii() and text[after].isalnum():
                    return None
                return after
    return None


def find_ibans(text: str) -> list[Hit]:
    """Every substring that is a well-formed IBAN with a valid check number."""
    hits = []
    pos = 0
    while match := _CANDIDATE.search(text, pos):
        # The generous match may run into the next IBAN; resume right after what we keep.
        pos = match.start() + 1
        length = IBAN_LENGTHS.get(match.group()[:2].upper())
        end = _cut(text, match.start(), match.end(), length) if length else None
        if end is not None and iban_ok(compact_iban(text[match.start() : end])):
            hits.append(Hit(match.start(), end, SCORE))
            pos = end
    return hits
