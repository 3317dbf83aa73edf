"""The chat loop: the message is stored first, the reply streams, failures lose nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.errors import InputError
from aniso.core.settings import load_settings
from aniso.prompt import MEMORY_HEADER
from aniso.services import build


def make(clock: SimulatedClock, **overrides: object):  # type: ignore[no-untyped-def]
    return build(load_settings({"model": "fake/scripted", **overrides}), clock=clock)


def episode_rows(services) -> list[dict]:  # type: ignore[no-untyped-def]
    return [
        {k: row[k] for k in ("user_text", "reply", "status", "error")}
        for row in services.db.query("SELECT * FROM episodes ORDER BY id")
    ]


def test_reply_streams_and_episode_is_stored(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    llm.reply("Hello there, how can I help?")
    services = make(clock)
    pieces: list[str] = []
    reply = services.assistant.send("hello", on_token=pieces.append)
    assert reply.text == "Hello there, how can I help?"
    assert len(pieces) > 1 and "".join(pieces) == reply.text
    assert episode_rows(services) == [
        {
            "user_text": "hello",
            "reply": "Hello there, how can I help?",
            "status": "answered",
            "error": None,
        }
    ]
    row = next(services.db.query("SELECT at, session FROM episodes"))
    assert row["at"] == clock().isoformat()


def test_llm_failure_keeps_the_message(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    llm.reply(ValueError("upstream exploded"))
    services = make(clock, llm_retries=0)
    reply = services.assistant.send("remember that my sister is Olga")
    assert reply.error is not None and "upstream exploded" in reply.error
    assert "\n" not in reply.error
    rows = episode_rows(services)
    assert rows[0]["user_text"] == "remember that my sister is Olga"
    assert rows[0]["status"] == "failed" and rows[0]["reply"] is None


def test_transient_failures_are_retried(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    import litellm

    flaky = litellm.exceptions.RateLimitError("slow down", llm_provider="fake", model="scripted")
    llm.reply(flaky, flaky, "third time lucky")
    settings = load_settings({"model": "fake/scripted", "llm_retries": 2})
    from aniso.llm.gateway import LLMGateway

    waits: list[float] = []
    services = build(settings, clock=clock, gateway=LLMGateway(settings, sleep=waits.append))
    assert services.assistant.send("hi").text == "third time lucky"
    assert waits == [0.5, 1.0]


def test_bad_input_is_refused_before_storing(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    for bad, message in [("   ", "empty"), ("a\x00b", "NUL"), ("x" * 200_001, "limit")]:
        with pytest.raises(InputError, match=message):
            services.assistant.send(bad)
    assert episode_rows(services) == []
    assert llm.calls == []


def test_prompt_structure_and_recent_turns(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    llm.reply("first answer", "second answer")
    services.assistant.send("first question")
    services.assistant.send("second question")
    messages = llm.last_messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0]["content"].startswith("You are Aniso")
    assert "Current date: 2026-01-05." in messages[0]["content"]
    assert MEMORY_HEADER not in messages[0]["content"]  # nothing recalled yet
    assert [m["content"] for m in messages[1:]] == [
        "first question",
        "first answer",
        "second question",
    ]


def test_temporary_chat_writes_nothing(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = build(load_settings({"model": "fake/scripted"}), clock=clock, temporary=True)
    llm.reply("one", "two")
    services.assistant.send("my temporary secret plan")
    services.assistant.send("and more")
    assert episode_rows(services) == []
    assert [m["content"] for m in llm.last_messages[1:]] == [
        "my temporary secret plan",
        "one",
        "and more",
    ]


def test_the_message_being_answered_is_never_recalled_as_a_memory(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    """Not even through a link from the thread it asks about (graph expansion)."""
    from datetime import timedelta

    from aniso.core.settings import load_settings
    from aniso.services import build

    first = build(load_settings({"model": "fake/x"}), clock=clock)
    first.assistant.send("My yoga studio is called Lotus Flow, classes are on Tuesdays at 7 am")
    first.assistant.send("Lotus Flow yoga also has a sauna after the class")
    clock.advance(timedelta(days=2))
    later = build(load_settings({"model": "fake/x"}), clock=clock)
    reply = later.assistant.send("When is my yoga class at Lotus Flow?")
    assert reply.recalled, "the yoga thread is recalled"
    texts = [item.text for item in reply.recalled]
    assert not any(text.startswith("When is my yoga class") for text in texts), texts
