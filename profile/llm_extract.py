"""The LLM extractor: an upgrade over the rules when a capable model is configured.

It asks for a `ProfileDelta` as JSON, with the schema generated from the very
model that validates the answer, at temperature 0. Extraction is optional
polish on the write path, so it never raises: bad output, a schema violation or
a failing model all yield an empty delta and a warning, and the rules' delta
stands. Each op must quote its evidence from the message, which filters out
values the model invented.
"""

from __future__ import annotations

import json
import logging
import re

from pydantic import ValidationError

from aniso.core.ports import Complete, CompletionRequest
from aniso.profile import lexicon, vocab
from aniso.profile.delta import EMPTY, Op, ProfileDelta
from aniso.profile.model import is_list_field

log = logging.getLogger(__name__)


MAX_TOKENS = 600
SYSTEM = """You update a user's profile from one message the user wrote.
Return JSON matching the schema: {"ops": [...]}. Only record what the user states about
THEMSELF as a standing fact or preference. Ignore questions, hypotheticals, other people,
and one-off requests. Use English canonical values:
- diet: omnivore | vegetarian | vegan | pescatarian
- budget: minimal | low | medium | high | flexible
- spice: mild | medium | hot
- language: en | ru | uk
- format: tables | bullet points | numbered steps | short paragraphs | plain text
- tone: e.g. "brief and to the point", "warm and detailed"
- schedule: e.g. "weekdays after 19:00", "06:30-08:30"
- health: e.g. "sick: light home activity only"
- list items (interests, likes, dislikes, allergies, avoid, notes): short English nouns,
  e.g. "film", "steak", "crowds", "dairy"
Use "set" for single-valued fields, "add"/"remove" for list items. When the user gives
something up ("I stopped eating meat"), set the new state (diet vegetarian) and remove the
old liking. "said" is the user's own words for the value; "evidence" is an exact quote
from the message. Return {"ops": []} when the message states nothing about the user."""


def response_format() -> dict[str, object]:
    """The JSON-schema response format for litellm, from the pydantic model."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "ProfileDelta", "schema": ProfileDelta.model_json_schema()},
    }


def _json_text(reply: str) -> str:
    """The JSON object in a reply, without Markdown fences some models add."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", reply, re.DOTALL)
    return (fenced.group(1) if fenced else reply).strip()


def _canonical(op: Op, text: str) -> Op | None:
    """The op with its value in canonical form, or None when it cannot be trusted."""
    if op.evidence and op.evidence.lower() not in text.lower():
        return None  # the quote is not in the message: invented
    value = op.value
    if op.kind != "remove" or value:
        if op.field in vocab.CLOSED or op.field in ("timezone", "format", "tone"):
            value = vocab.normalise(op.field, value) or ""
        elif is_list_field(op.field) and op.field != "notes":
            term = lexicon.lookup(value)
            value = term.canonical if term else value.strip().lower()
        if not value:
            return None
    return op.model_copy(update={"value": value, "source": "llm"})


def extract_llm(text: str, complete: Complete) -> ProfileDelta:
    """The profile ops a capable model finds in `text`; empty on any failure."""
    request = CompletionRequest(
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
        max_tokens=MAX_TOKENS,
        temperature=0,
        response_format=response_format(),
    )
    try:
        reply = complete(request)
    except Exception as error:  # an optional upgrade must not break the write path
        log.warning(
            "LLM profile extraction failed (%s); using the rules only", type(error).__name__
        )
        return EMPTY
    try:
        delta = ProfileDelta.model_validate_json(_json_text(reply))
    except (ValidationError, json.JSONDecodeError, ValueError) as error:
        count = error.error_count() if isinstance(error, ValidationError) else 1
        log.warning("LLM profile extraction returned unusable JSON (%d errors); ignored", count)
        return EMPTY
    ops = [op for op in (_canonical(op, text) for op in delta.ops) if op is not None]
    if len(ops) < len(delta.ops):
        log.warning("LLM profile extraction: dropped %d ops", len(delta.ops) - len(ops))
    return ProfileDelta(ops=tuple(ops))
