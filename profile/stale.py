"""Is a recalled memory outdated? The profile is the current truth (DESIGN §3).

A memory is outdated when it asserts something the profile has since superseded
("I love steak" before "I stopped eating meat"), or when it contradicts a
current constraint (it praises a steakhouse while the diet is vegetarian). We
err towards catching: a memory wrongly marked outdated is still shown, marked,
while a stale one presented as current is exactly the failure plain RAG makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from aniso.profile import conflicts, lexicon, vocab
from aniso.profile.delta import Op
from aniso.profile.model import Profile, ProfileValue, is_list_field
from aniso.profile.rules import extract_rules

_NEGATED_BEFORE = re.compile(
    r"\b(?:не|нет|без|ни|ні|no|not|never|don't|doesn't|without|avoid\w*|избега\w*|уника\w*"
    r"|stopped|quit|gave\s+up|перестал\w*|перестав\w*|отказал\w*|instead\s+of|вместо|замість"
    r"|замен\w*|non|вегетарианск\w*|веганск\w*|vegetarian|vegan|veggie|plant|plant-based"
    r"|растительн\w*|соев\w*|soy|tofu|тофу|безглютенов\w*|безлактозн\w*|free)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_NEGATED_AFTER = re.compile(
    r"^\s*(?:[-‑]\s*free\b|free\b|(?:\w+\s+){0,3}(?:нельзя|не\s+можна|больше\s+не|уже\s+не"
    r"|більше\s+не|no\s+longer|is\s+out|не\s+подход\w*|не\s+ем|is\s+not\s+for\s+me"
    r"|doesn't\s+suit|не\s+для\s+меня))",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[.!?;,\n]")
_PRICEY = re.compile(
    r"\b(?:expensive|luxur\w*|premium|upscale|fine\s+dining|michelin|дорог\w*|люкс\w*|премиум\w*"
    r"|элитн\w*|мишлен\w*|роскошн\w*|дорож\w*|розкішн\w*)",
    re.IGNORECASE,
)
_TIGHT_BUDGETS = ("minimal", "low")


def positive(text: str, start: int, end: int) -> bool:
    """False when the words around a mention negate it: "без мяса", "dairy-free",
    "перестал есть мясо", "молочное нельзя", "vegetarian burger"."""
    before = text[:start]
    clause_start = max((m.end() for m in _CLAUSE.finditer(before)), default=0)
    if _NEGATED_BEFORE.search(before[clause_start:]):
        return False
    after = text[end:]
    clause_end = _CLAUSE.search(after)
    return not _NEGATED_AFTER.search(after[: clause_end.start()] if clause_end else after)


@lru_cache(maxsize=4096)
def positive_mentions(text: str) -> tuple[lexicon.Mention, ...]:
    """The terms a text mentions, not negated; read once per text, as `_stated` is:
    every recall judges its items again against the profile's bans, mostly the same
    texts turn after turn."""
    return tuple(m for m in lexicon.mentions(text) if positive(text, m.start, m.end))


@lru_cache(maxsize=4096)
def _stated(text: str) -> tuple[Op, ...]:
    """The ops a memory states (frozen values), read once per text: every recall
    judges its items again, mostly the same ones, and the rules cost about 0.2 ms a
    text."""
    return extract_rules(text).ops


@dataclass(frozen=True)
class StaleCheck:
    """The profile and its superseded values, taken once, to judge many memories."""

    profile: Profile
    superseded: tuple[ProfileValue, ...] = ()

    def is_outdated(self, text: str, at: datetime) -> bool:
        return self.reason(text, at) is not None

    def reason(self, text: str, at: datetime) -> str | None:
        """Why a memory written at `at` is outdated, or None when it is not."""
        for op in _stated(text):
            found = self._contradiction(op, at) or self._superseded_statement(op, at)
            if found:
                return found
        # Finding mentions costs about as much as the rules: only when a check needs
        # them (`positive_mentions` keeps them for both, and for the next recall).

        def mentions() -> tuple[lexicon.Mention, ...]:
            return positive_mentions(text)

        return self._superseded_mention(text, at, mentions) or self._banned_mention(text, mentions)

    def _since(self, field: str, value: str) -> datetime | None:
        for entry in self.profile.entries(field):
            if entry.value == value:
                return entry.since
        return None

    def _contradiction(self, op: Op, at: datetime) -> str | None:
        """A statement in the memory that the current profile contradicts."""
        if not is_list_field(op.field):
            now = self.profile.value(op.field)
            if now is None:
                return None
            if op.kind != "remove" and not vocab.restates(op.field, op.value, now):
                return f"says {op.field} {op.value!r}; the profile now says {now!r}"
            entry = self.profile.entries(op.field)[0]
            if op.kind == "remove" and (op.value in ("", now)) and entry.since > at:
                return f"says {op.field} is not {now!r}; the profile now says it is"
            return None
        if op.kind == "add" and op.field in conflicts.LIKING_FIELDS:
            for ban in conflicts.current_bans(self.profile):
                if ban.forbids(op.value):
                    return f"likes {op.value!r}, which {ban.reason}"
            for other in ("dislikes", "avoid"):
                if op.value in self.profile.values(other):
                    return f"likes {op.value!r}; the profile now has it in {other}"
        liked_since = [self._since(f, op.value) for f in conflicts.LIKING_FIELDS]
        later = [s for s in liked_since if s is not None and s > at]
        unliked = op.kind == "remove" or op.field in ("dislikes", "avoid")
        if unliked and later:
            return f"gives up {op.value!r}; the profile likes it again"
        return None

    def _superseded_statement(self, op: Op, at: datetime) -> str | None:
        """A single value the memory states that ended after it was written, with
        nothing current in its place ("I'm sick" before "I'm better now")."""
        if op.kind != "set" or is_list_field(op.field) or self.profile.value(op.field):
            return None
        for row in self.superseded:
            if row.field == op.field and row.value == op.value and row.ended and row.ended > at:
                ended = row.ended.date().isoformat()
                return f"says {op.field} {op.value!r}, which ended on {ended}"
        return None

    def _superseded_mention(
        self, text: str, at: datetime, mentions: Callable[[], tuple[lexicon.Mention, ...]]
    ) -> str | None:
        """A value that was still current when the memory was written, and has ended."""
        lowered = text.lower()
        for row in self.superseded:
            if row.ended is None or row.ended <= at or not is_list_field(row.field):
                continue
            if row.value in self.profile.values(row.field):
                continue  # said again since: current after all
            term = lexicon.by_canonical(row.value)
            if (term and term.canonical in {m.term.canonical for m in mentions()}) or (
                term is None and row.value.lower() in lowered
            ):
                ended = row.ended.date().isoformat()
                return f"mentions {row.value!r} ({row.field}), superseded on {ended}"
        return None

    def _banned_mention(
        self, text: str, mentions: Callable[[], tuple[lexicon.Mention, ...]]
    ) -> str | None:
        """A mention of something a current constraint rules out."""
        bans = conflicts.current_bans(self.profile)
        for mention in mentions() if bans else []:
            for ban in bans:
                if ban.forbids_term(mention.term):
                    return f"mentions {mention.term.canonical!r}, which {ban.reason}"
        if self.profile.value("budget") in _TIGHT_BUDGETS and _PRICEY.search(text):
            return f"suggests something pricey; the budget is {self.profile.value('budget')!r}"
        return None
