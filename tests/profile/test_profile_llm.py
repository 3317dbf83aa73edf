"""The LLM extractor through a fake `complete` callable, and merging with the rules."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

import pytest

from aniso.core.errors import ModelError
from aniso.core.ports import CompletionRequest
from aniso.profile import Op, ProfileDelta, extract_llm, extract_rules, merge_deltas
from aniso.profile.delta import EMPTY

TEXT = "Update: a week ago I stopped eating meat. I also adore chess."


@dataclass
class FakeComplete:
    """Returns a scripted reply and records every request."""

    reply: str | BaseException
    requests: list[CompletionRequest] = field(default_factory=list)

    def __call__(self, request: CompletionRequest) -> str:
        self.requests.append(request)
        if isinstance(self.reply, BaseException):
            raise self.reply
        return self.reply


def reply(*ops: dict[str, str]) -> str:
    return json.dumps({"ops": list(ops)})


def test_valid_json_becomes_a_canonical_delta() -> None:
    fake = FakeComplete(
        reply(
            {
                "kind": "set",
                "field": "diet",
                "value": "Vegetarian",
                "said": "stopped eating meat",
                "evidence": "I stopped eating meat",
            },
            {
                "kind": "add",
                "field": "interests",
                "value": "Chess",
                "said": "chess",
                "evidence": "adore chess",
            },
        )  # fmt: skip
    )
    delta = extract_llm(TEXT, fake)
    assert [(op.kind, op.field, op.value, op.source) for op in delta.ops] == [
        ("set", "diet", "vegetarian", "llm"),
        ("add", "interests", "chess", "llm"),
    ]


def test_the_request_asks_for_the_delta_schema_at_temperature_zero() -> None:
    fake = FakeComplete(reply())
    assert extract_llm(TEXT, fake) == EMPTY
    (request,) = fake.requests
    assert request.temperature == 0
    assert request.messages[-1] == {"role": "user", "content": TEXT}
    assert request.response_format == {
        "type": "json_schema",
        "json_schema": {"name": "ProfileDelta", "schema": ProfileDelta.model_json_schema()},
    }
    op_schema = ProfileDelta.model_json_schema()["$defs"]["Op"]
    assert set(op_schema["properties"]) == {"kind", "field", "value", "said", "evidence"}
    assert "vegetarian" in op_schema["properties"]["value"]["description"]


def test_fenced_json_is_accepted() -> None:
    fenced = "```json\n" + reply({"kind": "add", "field": "likes", "value": "chess"}) + "\n```"
    assert [op.value for op in extract_llm(TEXT, FakeComplete(fenced)).ops] == ["chess"]


@pytest.mark.parametrize(
    "bad",
    [
        "Sure! The user is vegetarian.",
        '{"ops": [',
        json.dumps({"ops": [{"kind": "set", "field": "mood", "value": "happy"}]}),
        json.dumps({"ops": [{"kind": "replace", "field": "diet", "value": "vegan"}]}),
        json.dumps({"ops": [{"kind": "set", "field": "diet"}]}),
        json.dumps({"operations": []}),
        json.dumps([1, 2, 3]),
        "",
    ],
    ids=["prose", "truncated", "unknown-field", "unknown-kind", "no-value", "wrong-key",
         "array", "empty"],
)  # fmt: skip
def test_malformed_or_off_schema_output_gives_an_empty_delta(
    bad: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert extract_llm(TEXT, FakeComplete(bad)) == EMPTY
    assert "unusable JSON" in caplog.text


def test_a_failing_model_gives_an_empty_delta(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert extract_llm(TEXT, FakeComplete(ModelError("the model is down"))) == EMPTY
    assert "ModelError" in caplog.text
    assert "the model is down" not in caplog.text  # no message text in logs


def test_invented_or_unknown_values_are_dropped() -> None:
    fake = FakeComplete(
        reply(
            {"kind": "set", "field": "diet", "value": "keto"},
            {"kind": "add", "field": "likes", "value": "steak", "evidence": "I love steak"},
            {"kind": "set", "field": "budget", "value": "low", "evidence": "stopped eating meat"},
        )
    )
    assert [(op.field, op.value) for op in extract_llm(TEXT, fake).ops] == [("budget", "low")]


def test_rules_win_conflicts_and_the_llm_fills_gaps() -> None:
    rules = extract_rules("I'm vegetarian and I love yoga")
    llm = ProfileDelta(
        ops=(
            Op(kind="set", field="diet", value="vegan", source="llm"),
            Op(kind="remove", field="interests", value="yoga", source="llm"),
            Op(kind="add", field="interests", value="chess", source="llm"),
            Op(kind="set", field="tone", value="warm", source="llm"),
            Op(kind="add", field="interests", value="chess", source="llm"),
        )
    )
    merged = merge_deltas(rules, llm)
    assert [(op.kind, op.field, op.value, op.source) for op in merged.ops] == [
        ("set", "diet", "vegetarian", None),
        ("add", "interests", "yoga", None),
        ("add", "interests", "chess", "llm"),
        ("set", "tone", "warm", "llm"),
    ]


def test_merging_with_nothing() -> None:
    rules = extract_rules("бюджет низкий")
    assert merge_deltas(rules, EMPTY) == rules
    assert merge_deltas(EMPTY, rules) == rules
