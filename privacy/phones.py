"""Phone numbers, found by libphonenumber rather than by regex.

A regex for "phone numbers" either misses real formats (+380 67 123 4567,
8 (912) 345-67-89) or swallows prices and dates. libphonenumber knows every numbering
plan and already skips dates, times and prices, so we only decide how much to trust
what it finds: an international "+..." number is unmistakable, a grouped national one
is very likely, a bare digit run is just as likely an order number and needs a cue.
"""

from __future__ import annotations

import re

from phonenumbers import Leniency, PhoneNumberMatcher

from aniso.privacy.hits import Hit

# Regions whose *national* formats we accept ("8 (912) ...", "067 ...", "(415) ...").
# International numbers are recognised from any region.
REGIONS = ("RU", "UA", "US", "GB")

INTERNATIONAL = 0.85
GROUPED = 0.6
BARE = 0.3

_MIN_DIGITS = 7


def _score(raw: str) -> float:
    if raw.startswith("+"):
        return INTERNATIONAL
    if any(ch in raw for ch in " -().") and sum(ch.isdigit() for ch in raw) >= 10:
        return GROUPED
    return BARE


# Numeric things libphonenumber may still take for a number: ISO dates and times, and
# a match that is only part of a longer dotted or colon-separated figure.
_DATE_OR_TIME = re.compile(
    r"(?<!\d)(?:\d{4}-\d\d-\d\d|\d\d?[./]\d\d?[./](?:\d{4}|\d\d)|\d\d?:\d\d)(?!\d)"
)
_GLUED_BEFORE = re.compile(r"\d[.:,/]$")
_GLUED_AFTER = re.compile(r"^[.:,/]\d")


def _part_of_other_figure(text: str, start: int, end: int) -> bool:
    return bool(
        _DATE_OR_TIME.search(text[start:end])
        or _GLUED_BEFORE.search(text[max(0, start - 2) : start])
        or _GLUED_AFTER.match(text[end : end + 2])
    )


def find_phones(text: str) -> list[Hit]:
    """All plausible phone numbers in `text`, one hit per distinct span."""
    if sum(map(str.isdigit, text)) < _MIN_DIGITS:  # map: a hot path, 4x the generator
        return []
    best: dict[tuple[int, int], float] = {}
    for region in REGIONS:
        for match in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
            span = (match.start, match.end)
            if _part_of_other_figure(text, *span):
                continue
            best[span] = max(best.get(span, 0.0), _score(match.raw_string))
    return [Hit(start, end, score) for (start, end), score in best.items()]
