"""The process's one pair of pymorphy3 analysers, for the profile and the tiers alike.

A pair (Russian with OpenCorpora, Ukrainian with VESUM) takes about 65 ms and 36 MB
to load; the profile reads what a message says with them and the tiers compare names
and request words, so both share this pair rather than each loading its own. It loads
lazily, when a Cyrillic word is first read.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def analyser(lang: str) -> Any:
    """pymorphy3's analyser for "ru" or "uk"."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang=lang)
