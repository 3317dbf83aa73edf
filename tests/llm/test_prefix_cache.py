"""The embedded model's prompt cache: the same replies, one file, and a broken file costs
one log line, on the real model."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from embedded_helpers import fresh_model, whole_reply

from aniso.llm import embedded, prefix_cache
from aniso.prompt import SMALL_MODEL_PREAMBLE

pytestmark = pytest.mark.embedded_model

MESSAGES = [
    {"role": "system", "content": SMALL_MODEL_PREAMBLE + "\n\nCurrent date: 2026-01-05."},
    {"role": "user", "content": "Hello! Who are you?"},
]


def _reply(messages: list[dict[str, Any]] = MESSAGES) -> str:
    return "".join(embedded.generate(messages, max_tokens=24, temperature=0.0))


def _uncached_reply() -> str:
    return whole_reply(MESSAGES)


def test_a_loaded_prefix_gives_the_same_reply(cache: Path) -> None:
    plain = _uncached_reply()
    fresh_model()
    assert embedded.prime(MESSAGES) == "saved"
    assert [p.name for p in cache.iterdir()] and plain
    fresh_model()
    assert embedded.prime(MESSAGES) == "loaded"
    assert _reply() == plain
    fresh_model()
    assert _reply() == plain  # primed inside the generation too


def test_a_corrupt_file_is_one_log_line_and_is_rebuilt(
    cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plain = _uncached_reply()
    fresh_model()
    embedded.prime(MESSAGES)
    (state,) = cache.iterdir()
    state.write_bytes(state.read_bytes()[:1000])  # cut short, as by a full disk
    fresh_model()
    with caplog.at_level(logging.WARNING, logger="aniso.llm.prefix_cache"):
        assert _reply() == plain
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "\n" not in warnings[0], warnings
    assert state.read_bytes().startswith(prefix_cache.MAGIC)
    fresh_model()
    assert embedded.prime(MESSAGES) == "loaded"


def test_one_file_at_a_time(cache: Path) -> None:
    fresh_model()
    embedded.prime(MESSAGES)
    other = [{"role": "system", "content": "You are a terse assistant.\n\nToday."}, MESSAGES[1]]
    fresh_model()
    assert embedded.prime(other) == "saved"
    assert len(list(cache.iterdir())) == 1


def test_the_cached_start_holds_the_memory_rule() -> None:
    """A turn with memories evaluates neither the identity nor the memory rule: both are
    in the fixed start the cache holds, and nothing after it is."""
    from datetime import UTC, datetime

    from aniso.prompt import MEMORY_HEADER, SMALL_MODEL_START, system_prompt
    from aniso.tiers.model import MemoryItem

    item = MemoryItem(
        block_id=1, episode_id=2, tier="hot", at=datetime(2026, 1, 4, tzinfo=UTC),
        text="I moved to Porto", score=0.9, tokens=5,
    )  # fmt: skip
    content = system_prompt(
        profile_text="", memories=[item], now=datetime(2026, 1, 5, tzinfo=UTC), small_model=True
    )
    assert content.split("\n\n")[0] == SMALL_MODEL_START
    assert f"{MEMORY_HEADER}\n\n[memory 1 | hot | 2026-01-04]" in content
    llama = fresh_model()
    messages = [{"role": "system", "content": content}, {"role": "user", "content": "hi"}]
    prefix = prefix_cache.prefix_tokens(llama, messages)
    start = prefix_cache.prefix_tokens(llama, [{"role": "system", "content": SMALL_MODEL_START}])
    rule = llama.tokenize(SMALL_MODEL_START.encode(), add_bos=False)
    assert len(prefix) >= len(rule) > 80
    assert prefix == start[: len(prefix)]
