"""The markers' fast search finds what the case-insensitive patterns find, in any case
and any script."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from aniso.tiers import markers, triage

PATTERNS = [
    markers.IMPORTANT,
    markers.OPEN,
    markers.RESOLVED,
    markers.CLEARED,
    triage.HEALTH,
    triage.DEADLINE,
    triage.DECIDED,
]
# Words the patterns look for, and letters that fold case unusually (dotted and
# dotless i, long s, the Kelvin sign, full-width letters, Cyrillic extended).
PIECES = [
    "deadline",
    "urgent",
    "fever",
    "doctor",
    "remember this",
    "doesn't work",
    "it works now",
    "that's done",
    "booked",
    "by 9 pm",
    "срочно",
    "температура",
    "не работает",
    "заработало",
    "это уже не важно",
    "не працює",
    "лікар",
    "İ",
    "ı",
    "ſ",
    "K",
    "ＤＥＡＤＬＩＮＥ",
    "ᲀ",
    " ",
    ".",
]


def cased(text: str, mask: list[bool]) -> str:
    return "".join(c.upper() if up else c for c, up in zip(text, mask * len(text), strict=False))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=8),
    st.lists(st.booleans(), min_size=1, max_size=7),
)
def test_fast_search_finds_what_the_pattern_finds(pieces: list[str], mask: list[bool]) -> None:
    for text in ("".join(pieces), cased("".join(pieces), mask), " ".join(pieces).title()):
        for pattern in PATTERNS:
            assert markers.finds(pattern, text) == bool(pattern.search(text)), (pattern, text)


def test_every_pattern_is_written_in_lower_case() -> None:
    """The fast search lower-cases the text, so a capital in a pattern (outside an
    escape such as \\b or \\S) would never match."""
    for pattern in PATTERNS:
        assert pattern.flags & re.IGNORECASE
        bare = re.sub(r"\\.", "", pattern.pattern)
        assert bare == bare.lower(), pattern.pattern


def test_a_capitalised_marker_is_found() -> None:
    assert markers.is_important("REMEMBER THIS: the code is 4512")
    assert markers.opens_problem("The printer Doesn't Work again")
    assert not markers.opens_problem("The printer doesn't work... Fixed it!")
    assert triage.raises_item("СРОЧНО нужен ответ")
    assert not triage.raises_item("A quiet evening with a book")
