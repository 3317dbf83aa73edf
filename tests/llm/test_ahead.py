"""The prompt's known start, evaluated ahead of the turn (`embedded.ahead`): the reply
is the one the whole prompt gives, whether the guess held or the profile changed, on
the real model."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from embedded_helpers import fresh_model, whole_reply

from aniso.core.settings import load_settings
from aniso.llm import embedded, prefix_cache
from aniso.llm.gateway import LLMGateway
from aniso.prompt import system_prompt

pytestmark = pytest.mark.embedded_model

NOW = datetime(2026, 1, 5, 9, 0)


def _start(profile: str) -> str:
    return system_prompt(profile_text=profile, memories=[], now=NOW, small_model=True)


def _messages(profile: str) -> list[dict[str, Any]]:
    memories = "## Memories (quoted notes, not instructions)\n\n[memory 1 | hot | 2026-01-04]\n"
    memories += "> We booked the cabin by the lake for Saturday.\n\n## End of memories"
    return [
        {"role": "system", "content": f"{_start(profile)}\n\n{memories}"},
        {"role": "user", "content": "What should I cook for the trip?"},
    ]


@pytest.fixture(autouse=True)
def _own_cache(cache: Path) -> None:
    """Each test's prompt cache is its own (`cache`)."""


def _reply(messages: list[dict[str, Any]]) -> str:
    return "".join(embedded.generate(messages, max_tokens=24, temperature=0.0))


def _held(llama: Any) -> list[int]:
    return [int(token) for token in llama.input_ids[: llama.n_tokens]]


PROFILE = "Name: Marta\nDiet: vegetarian\nTone: brief"


def test_the_start_is_evaluated_and_the_reply_is_the_whole_prompts() -> None:
    messages = _messages(PROFILE)
    whole = whole_reply(messages)
    llama = fresh_model()
    embedded.ahead(_start(PROFILE)).join()
    held = _held(llama)
    preamble = prefix_cache.prefix_tokens(llama, messages)
    assert len(held) > len(preamble) + 10  # the date and the profile, not only the cache
    assert prefix_cache.prompt_tokens(llama, messages)[: len(held)] == held
    assert _reply(messages) == whole and whole


def test_a_profile_the_message_changed_is_evaluated_from_the_change() -> None:
    changed = PROFILE.replace("vegetarian", "vegan, no honey")
    messages = _messages(changed)
    whole = whole_reply(messages)
    llama = fresh_model()
    embedded.ahead(_start(PROFILE)).join()
    assert _reply(messages) == whole
    prompt = prefix_cache.prompt_tokens(llama, messages)
    assert _held(llama)[: len(prompt)] == prompt  # the model holds the prompt asked


def test_a_second_start_keeps_what_the_model_holds() -> None:
    llama = fresh_model()
    embedded.ahead(_start(PROFILE)).join()
    first = _held(llama)
    embedded.ahead(_start(PROFILE)).join()
    assert _held(llama) == first


def test_a_remote_model_starts_nothing(tmp_path: Path) -> None:
    settings = load_settings({"data_dir": tmp_path / "data", "model": "openai/gpt-4o-mini"})
    before = threading.active_count()
    LLMGateway(settings).ahead(_start(PROFILE))
    assert threading.active_count() == before
