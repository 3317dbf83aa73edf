"""What one message says about the profile: a list of set / add / remove operations.

A delta is pure data, made by an extractor and applied by the store. Keeping it
apart from both means rules, the LLM and imports speak one language, the LLM's
output can be validated against a schema generated from this very model, and a
delta can be inspected or merged before it touches history.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from aniso.profile.model import FieldName, Source, is_list_field

VALUE_MAX = 200
EVIDENCE_MAX = 500


class Op(BaseModel):
    """One change the user stated."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: Literal["set", "add", "remove"]
    """`set` replaces a single-valued field (name, language, tone, format, timezone,
    diet, spice, budget, schedule, health). `add` and `remove` change one item of a
    list field (interests, likes, dislikes, allergies, avoid, notes). `remove` on a
    single-valued field ends it when it holds `value`, or whatever it holds when
    `value` is empty."""
    field: FieldName
    """The profile field."""
    value: str = Field(default="", max_length=VALUE_MAX)
    """The canonical value, in English where a canonical term exists
    ("vegetarian", "high", "tables", "film")."""
    said: str = Field(default="", max_length=VALUE_MAX)
    """The user's own words for the value ("вегетарианка", "кино")."""
    evidence: str = Field(default="", max_length=EVIDENCE_MAX)
    """The exact span of the message that states this."""
    source: SkipJsonSchema[Source | None] = None
    """Who produced the op; None means the source given to `ProfileStore.apply`."""

    @model_validator(mode="after")
    def _value_needed(self) -> Op:
        if self.kind != "remove" and not self.value.strip():
            raise ValueError(f"{self.kind} {self.field} needs a value")
        return self

    def key(self) -> tuple[str, str]:
        """What the op is about: the field, plus the item for list fields."""
        return (self.field, self.value if is_list_field(self.field) else "")


class ProfileDelta(BaseModel):
    """Operations in the order they were stated; a later op wins over an earlier one."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    ops: tuple[Op, ...] = ()
    """The operations, in the order the message stated them."""

    def is_empty(self) -> bool:
        return not self.ops

    def fields(self) -> set[str]:
        return {op.field for op in self.ops}


EMPTY = ProfileDelta()


def make_op(kind: str, field: str, value: str = "", said: str = "") -> Op:
    """An op from plain strings, validated: extractors compute kinds and fields at
    run time, and a typo in a rule table must fail loudly, not store junk."""
    fields = {"kind": kind, "field": field, "value": value[:VALUE_MAX], "said": said[:VALUE_MAX]}
    return Op.model_validate(fields)


def merge_deltas(rules: ProfileDelta, llm: ProfileDelta) -> ProfileDelta:
    """Rules first, then whatever the LLM adds that the rules did not decide.

    Rules win a conflict about the same single-valued field or the same list item.
    They fire only on explicit, tested first-person patterns, so when they speak
    they are rarely wrong, and the profile stays the same whichever model is
    configured; a model's usual failure modes (a misread negation, a question or a
    hypothetical taken as a statement, a value about someone else) are exactly
    what the rules are built to refuse. The LLM still adds recall: paraphrases and
    fields the rules did not touch.
    """
    decided_scalars = {op.field for op in rules.ops if not is_list_field(op.field)}
    decided_items = {op.value for op in rules.ops if is_list_field(op.field)}
    merged = list(rules.ops)
    seen = {(op.kind, op.field, op.value) for op in merged}
    for op in llm.ops:
        if is_list_field(op.field):
            if op.value in decided_items:
                continue
        elif op.field in decided_scalars:
            continue
        if (op.kind, op.field, op.value) not in seen:
            seen.add((op.kind, op.field, op.value))
            merged.append(op)
    return ProfileDelta(ops=tuple(merged))
