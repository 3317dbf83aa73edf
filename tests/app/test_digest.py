"""The start-of-session digest: once per local day, open items, changes and moves."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from helpers import run_cli

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build


def session(clock: SimulatedClock, **overrides: object) -> Services:
    """A new session (a new process, as `aniso chat` or `aniso ask` would start)."""
    return build(load_settings({"model": "fake/scripted", **overrides}), clock=clock)


def nights(services: Services, clock: SimulatedClock, days: int) -> None:
    compactor = services.compactor()
    for _ in range(days):
        clock.advance(timedelta(days=1))
        compactor.run(clock())


@pytest.fixture
def history(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    first = session(clock)
    assert first.assistant.pending_digest() is None, "a new user has nothing to catch up on"
    first.assistant.send("The boiler doesn't work again, I need to fix it before Friday")
    clock.advance(timedelta(hours=8))
    first.assistant.send("My yoga studio is called Lotus Flow, it is on Rua Augusta")
    first.assistant.send("Lotus Flow yoga classes start at 7 am on Tuesdays")
    return first


def test_digest_once_a_day_with_open_items_changes_and_moves(
    history: Services, clock: SimulatedClock
) -> None:
    nights(history, clock, 20)
    later = session(clock)
    later.assistant.send("I became a vegetarian last week")  # a change in this session
    text = session(clock).assistant.pending_digest()
    assert text is not None
    assert text.startswith("**Since your last session**")
    assert "Still open:" in text and "boiler" in text
    assert "Memory moved: 1 hot → warm." in text and "Lotus Flow" in text
    assert "diet: vegetarian" in text
    assert session(clock).assistant.pending_digest() is None, "once per local day"
    clock.advance(timedelta(days=1))
    assert session(clock).assistant.pending_digest() is not None, "and again the next day"


def test_digest_day_follows_the_users_timezone(history: Services, clock: SimulatedClock) -> None:
    clock.set(clock().replace(hour=14, minute=0))  # Tuesday 14:00 UTC, 23:00 in Tokyo
    assert session(clock).assistant.pending_digest() is not None
    clock.advance(timedelta(minutes=90))  # 15:30 UTC: still Tuesday in UTC ...
    assert session(clock).assistant.pending_digest() is None
    # ... but already Wednesday 00:30 in Tokyo: a new day for a user living there.
    assert session(clock, timezone="Asia/Tokyo").assistant.pending_digest() is not None


def test_temporary_chat_has_no_digest(history: Services, clock: SimulatedClock) -> None:
    nights(history, clock, 20)
    temporary = build(load_settings({"model": "fake/scripted"}), clock=clock, temporary=True)
    assert temporary.assistant.pending_digest() is None
    assert session(clock).assistant.pending_digest() is not None, "temporary took nothing"


def test_ask_shows_the_digest_on_stderr_and_in_json(data_dir: Path) -> None:
    first = run_cli(
        "--now", "2026-01-05T19:00:00", "--model", "fake/x", "ask",
        "The boiler doesn't work again, I need to fix it", fake_reply="Let us look at it.",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert b"Since your last session" not in first.stderr
    plain = run_cli(
        "--now", "2026-01-07T09:00:00", "--model", "fake/x", "ask", "hello", fake_reply="Hi."
    )
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.decode().strip() == "Hi.", "stdout stays the reply alone"
    assert "Still open:" in plain.stderr.decode() and "boiler" in plain.stderr.decode()
    as_json = run_cli(
        "--now", "2026-01-08T09:00:00", "--model", "fake/x", "ask", "--json", "hi", fake_reply="-"
    )
    shown = json.loads(as_json.stdout)
    assert "boiler" in shown["digest"]
    again = run_cli(
        "--now", "2026-01-08T10:00:00", "--model", "fake/x", "ask", "--json", "hi", fake_reply="-"
    )
    assert "digest" not in json.loads(again.stdout), "the key appears only with a digest"


def test_chat_shows_the_digest_before_the_first_reply(data_dir: Path) -> None:
    first = run_cli(
        "--now", "2026-01-05T19:00:00", "--model", "fake/x", "ask",
        "The boiler doesn't work again, I need to fix it", fake_reply="Let us look at it.",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    chat = run_cli(
        "--now", "2026-01-07T09:00:00", "--model", "fake/x", "chat",
        fake_reply="Morning!", stdin=b"good morning\nand again\n",
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    stderr = chat.stderr.decode()
    assert stderr.count("Since your last session") == 1 and "boiler" in stderr
    assert chat.stdout.decode().split() == ["Morning!", "Morning!"]
