"""Which constraints rule out which likings: the one table behind two behaviours.

When the user becomes vegetarian, an earlier "I love steak" stops being true, so
the store ends it; and an old memory about steak must be marked outdated. Both
questions are "does this constraint ban that food?", answered here from lexicon
categories so that "стейки", "steak" and "bacon" are all meat.
"""

from __future__ import annotations

from dataclasses import dataclass

from aniso.profile import lexicon
from aniso.profile.model import Profile

DIET_BANS: dict[str, frozenset[str]] = {
    "vegetarian": frozenset({"meat", "fish"}),
    "vegan": frozenset({"meat", "fish", "dairy", "eggs", "honey"}),
    "pescatarian": frozenset({"meat"}),
}
SPICE_BANS: dict[str, frozenset[str]] = {"mild": frozenset({"spicy"})}
CATEGORY_NAMES: dict[str, str] = {
    "meat": "meat",
    "fish": "fish",
    "dairy": "dairy",
    "gluten": "gluten",
    "nuts": "nuts",
    "eggs": "eggs",
    "sugar": "sugar",
    "spicy food": "spicy",
    "lactose": "dairy",
}
"""Canonical items that name a whole category: avoiding "dairy" bans cheese too,
while avoiding "cheese" bans only cheese."""
CONSTRAINT_FIELDS = ("diet", "spice", "avoid", "allergies")
LIKING_FIELDS = ("likes", "interests")


@dataclass(frozen=True)
class Ban:
    """What one constraint rules out, and how to say so."""

    categories: frozenset[str]
    values: frozenset[str]
    reason: str

    def forbids(self, value: str) -> bool:
        return value in self.values or bool(lexicon.categories_of(value) & self.categories)

    def forbids_term(self, term: lexicon.Term) -> bool:
        return term.canonical in self.values or bool(term.categories & self.categories)


def ban(field: str, value: str) -> Ban | None:
    """What a constraint value rules out, or None when it rules out nothing."""
    reason = f"conflicts with {field} {value!r}"
    if field == "diet" and value in DIET_BANS:
        return Ban(DIET_BANS[value], frozenset(), reason)
    if field == "spice" and value in SPICE_BANS:
        return Ban(SPICE_BANS[value], frozenset(), reason)
    if field in ("avoid", "allergies"):
        category = CATEGORY_NAMES.get(value)
        return Ban(frozenset({category} if category else ()), frozenset({value}), reason)
    return None


def current_bans(profile: Profile) -> list[Ban]:
    """Every ban the current profile imposes."""
    bans = []
    for field in CONSTRAINT_FIELDS:
        for entry in profile.entries(field):
            found = ban(field, entry.value)
            if found is not None:
                bans.append(found)
    return bans


def same_kind(item: str, held: str) -> bool:
    """Whether allowing `item` again allows `held` too: `item` names the category `held`
    is in ("dairy" is fine again, so cheese is), or `item` is only of the kind `held`
    names ("wine" is alcohol; "beer" is also gluten, so it does not end avoiding gluten)."""
    one, other = lexicon.by_canonical(item), lexicon.by_canonical(held)
    if one is None or other is None:
        return False
    return one.canonical in other.categories or one.categories == {other.canonical}
