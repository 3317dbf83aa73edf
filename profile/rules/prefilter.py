"""Words a rule cannot match without: a cheap test that skips most rules per sentence.

The rule tables hold about ninety patterns, and staleness runs them over every
recalled memory (a dozen per turn, each several sentences). Most patterns cannot
match most sentences, yet the regex engine still tries them at every position: the
ones that open with an item list (`(?:\\w+\\s+){0,2}\\w+ ...`) are the slowest.

So, once per pattern, we read its syntax tree and collect the literal words any
match must contain: for a sequence, every literal run and every group it cannot
skip; for an alternation, one word from each branch. A sentence that lacks one of
those words cannot match, and the pattern is not run. The test is exact: a rule
is only skipped when it could not have matched, so the rules' output is unchanged.

Case: the rules ignore case, so the test compares lower-cased text. Lower-casing
agrees with the regex engine's case folding for ASCII and the basic Cyrillic block
(and for characters without case), but not everywhere (the engine also equates
"ı" with "i", "ſ" with "s"), so a sentence with any other cased character is
checked with every rule, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

try:  # the parser the `re` module itself uses; private, so any surprise disables the test
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without it simply runs every rule
    _c = _p = None

Needs = tuple[frozenset[str], ...]
"""Groups of words: a match contains at least one word of every group."""

_CYRILLIC = range(0x0400, 0x0500)


def _plain(char: str) -> bool:
    """Whether lower-casing folds `char` exactly as the regex engine's IGNORECASE does."""
    return char.isascii() or ord(char) in _CYRILLIC or char.lower() == char.upper() == char


def plain_text(text: str) -> bool:
    """Whether the lower-cased `text` can stand for it in the test (see module doc)."""
    return text.isascii() or all(_plain(char) for char in text)


def _sequence(items: list[tuple[object, object]], mask: str) -> list[frozenset[str]]:
    """Every group of words a match of this sequence must contain."""
    groups: list[frozenset[str]] = []
    run = ""

    def close() -> None:
        nonlocal run
        if run:
            groups.append(frozenset({run}))
        run = ""

    for op, av in items:
        if op is _c.LITERAL:
            char = chr(av)  # type: ignore[call-overload,arg-type]
            if char == mask or not _plain(char):
                close()  # a masked span or an exotic letter: no word can span it
            else:
                run += char.lower()
            continue
        close()
        groups.extend(_required(op, av, mask))
    close()
    return groups


def _required(op: object, av: object, mask: str) -> list[frozenset[str]]:
    if op is _c.SUBPATTERN:
        return _sequence(list(av[-1]), mask)  # type: ignore[index]
    if op is _c.ATOMIC_GROUP:
        return _sequence(list(av), mask)  # type: ignore[call-overload]
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, _, body = av  # type: ignore[misc]
        return _sequence(list(body), mask) if int(low) >= 1 else []  # type: ignore[has-type]
    if op is _c.BRANCH:
        # One word from each branch: the branch's most selective group stands for it.
        words: set[str] = set()
        for branch in av[1]:  # type: ignore[index]
            groups = _sequence(list(branch), mask)
            if not groups:
                return []
            words |= max(groups, key=_selectivity)
        return [frozenset(words)]
    return []  # anchors, classes, look-arounds, back-references: no word required


def _selectivity(group: AbstractSet[str]) -> tuple[int, int]:
    return (min(len(word) for word in group), -len(group))


def needs(pattern: re.Pattern[str], *, mask: str = "") -> Needs:
    """The word groups every match of `pattern` contains, most selective first; empty
    when nothing is certain (the rule then always runs). Words never contain `mask`,
    the character that blanks out spans already used."""
    if _p is None:
        return ()
    try:
        tree = _p.parse(pattern.pattern, pattern.flags)
        groups = _sequence(list(tree), mask)
    except Exception:  # an unexpected tree shape: no test, never a wrong one
        return ()
    return tuple(sorted(dict.fromkeys(groups), key=_selectivity, reverse=True))


@dataclass(frozen=True)
class Index:
    """Which rules of a table may match a sentence, found from the words in it: each
    word once per sentence, then one bit per group a present word satisfies."""

    words: tuple[str, ...]
    holders: dict[str, tuple[tuple[int, int], ...]]
    """word -> (rule position, bit of the group holding it)"""
    full: tuple[int, ...]
    """Per rule, the bits of all its groups (0: no group, the rule always runs)."""


def index(all_needs: Sequence[Needs]) -> Index:
    holders: dict[str, list[tuple[int, int]]] = {}
    for position, needed in enumerate(all_needs):
        for number, group in enumerate(needed):
            for word in group:
                holders.setdefault(word, []).append((position, 1 << number))
    full = tuple((1 << len(needed)) - 1 for needed in all_needs)
    frozen = {word: tuple(pairs) for word, pairs in holders.items()}
    return Index(tuple(sorted(frozen)), frozen, full)


def candidates(table: Index, lowered: str) -> list[bool]:
    """Per rule: False only when the lower-cased sentence lacks every word of one of
    its groups, so the rule cannot match it."""
    satisfied = [0] * len(table.full)
    for word in table.words:
        if word in lowered:
            for position, bit in table.holders[word]:
                satisfied[position] |= bit
    return [have == need for have, need in zip(satisfied, table.full, strict=True)]
