"""The embedded model keeps its own name: told "Hi, I'm Marta", it is still Aniso.

SmolLM2-135M takes a name near the top of its prompt for its own; with the profile
block "Name: Marta" it answered "I'm Marta, a personal assistant". Its prompt now says
who it is first and gives the profile as facts about the user.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aniso.core.settings import load_settings
from aniso.prompt import (
    ABOUT_USER_HEADER,
    ABOUT_USER_RULE,
    SMALL_MODEL_PREAMBLE,
    SMALL_MODEL_START,
    system_prompt,
)
from aniso.services import build

CALLS_ITSELF_MARTA = re.compile(r"\b(i'?m|i am|my name is|my name's)\s+marta\b", re.IGNORECASE)
ROUNDS = 3


def test_the_small_model_prompt_says_who_is_who() -> None:
    prompt = system_prompt(
        profile_text="Name: Marta\nDiet: vegetarian\nAllergies: nuts",
        memories=[],
        now=datetime(2026, 1, 5, tzinfo=UTC),
        small_model=True,
    )
    assert prompt == (
        f"{SMALL_MODEL_START}\n\n"
        "Current date: 2026-01-05.\n\n"
        f"{ABOUT_USER_HEADER}\n"
        "The user's name is Marta.\n"
        "The user's diet is vegetarian.\n"
        "The user is allergic to nuts.\n"
        f"{ABOUT_USER_RULE}"
    )
    assert SMALL_MODEL_START.startswith(SMALL_MODEL_PREAMBLE)
    assert SMALL_MODEL_PREAMBLE.startswith("Your name is Aniso.")


def test_the_pattern_catches_the_old_reply() -> None:
    """The check below must be able to fail: this is what the model used to say."""
    assert CALLS_ITSELF_MARTA.search("I'm Marta, I am a personal assistant.")
    assert CALLS_ITSELF_MARTA.search("Hello! My name is Marta.")
    assert not CALLS_ITSELF_MARTA.search("Hi Marta, welcome! I'm Aniso.")


@pytest.mark.embedded_model
def test_the_embedded_model_does_not_take_the_users_name(tmp_path: Path) -> None:
    replies = []
    for round_ in range(ROUNDS):  # the model samples; each round draws anew
        settings = load_settings(
            {"data_dir": str(tmp_path / f"round{round_}"), "now": "2026-01-05T19:00:00"}
        )
        assert settings.is_embedded_model
        services = build(settings)
        try:
            # The profile knows her name, as it does once a message has said it.
            services.profile.set("name", "Marta")
            for message in ("Hi, I'm Marta", "Who are you?"):
                reply = services.assistant.send(message)
                assert reply.error is None, reply.error
                replies.append((message, reply.text))
        finally:
            services.close()
    confused = [(message, text) for message, text in replies if CALLS_ITSELF_MARTA.search(text)]
    assert confused == [], confused
    assert all(text.strip() for _, text in replies)
