"""The guard's screen (`privacy.screen`) passes only texts presidio would leave alone.

A message with no digit, no "@" and no labelled secret is scanned without building
presidio's engine. That shortcut is only allowed because it changes no redaction: every
recognizer the guard builds needs one of those, and on every labelled text the screen
never lets through one the engine redacts.
"""

from __future__ import annotations

import json
import subprocess
import sys

from aniso.privacy import engine
from aniso.privacy.credentials import find_secrets
from aniso.privacy.iban import find_ibans
from aniso.privacy.phones import find_phones
from aniso.privacy.recognizers import CuedPatternRecognizer, FinderRecognizer, build_recognizers
from aniso.privacy.screen import could_hold

CARD = "4111 1111 1111 1111"


def test_every_recognizer_needs_what_the_screen_looks_for() -> None:
    """A new recognizer that needs neither a digit nor "@" must teach the screen first."""
    for language in engine.LANGUAGES:
        for recognizer in build_recognizers(language):
            if isinstance(recognizer, CuedPatternRecognizer):
                assert recognizer.min_digits >= 1 or recognizer.needs == "@", recognizer.name
            else:
                assert isinstance(recognizer, FinderRecognizer), recognizer.name
                # phones and IBANs need digits; secrets are run by the screen itself
                assert recognizer._finder in {find_phones, find_ibans, find_secrets}


def test_the_screen_passes_nothing_the_engine_redacts(texts: list[str]) -> None:
    screened = [text for text in texts if not could_hold(text)]
    assert len(screened) > 50  # ordinary prose is screened out (the set is mostly PII)
    assert len(screened) < len(texts) - 500  # and what holds PII is not
    redacted = [text[:80] for text in screened if engine.analyze(text)]
    assert redacted == []


def test_screen_edges() -> None:
    assert not could_hold("hello, what should I cook tonight?")
    assert not could_hold("мій пароль неправильний")  # "password" with no value
    assert could_hold("password: hunter")  # a labelled secret, no digit
    assert could_hold("api key sk-proj-abcdefghijklmnopqrstuvwxyz")
    assert could_hold("mail me at someone@example")
    assert could_hold("card " + CARD.translate({ord(d): chr(0xFF10 + int(d)) for d in "0123"}))
    assert could_hold(
        "паспорт " + "4510".translate({ord(d): chr(0x104A0 + int(d)) for d in "0145"})
    )


PROBE = """
import json, sys
from aniso.privacy import Guard
guard = Guard()
clean = guard.scan("hello, what should I cook tonight?")
before = "presidio_analyzer" in sys.modules
card = guard.scan("my card is 4111 1111 1111 1111")
print(json.dumps([clean.text, before, card.text, "presidio_analyzer" in sys.modules]))
"""


def test_a_clean_message_is_scanned_without_presidio() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", PROBE], capture_output=True, text=True, check=True
    )
    clean, built_before, card, built_after = json.loads(done.stdout.strip().splitlines()[-1])
    assert clean == "hello, what should I cook tonight?"
    assert built_before is False
    assert card == "my card is [CREDIT_CARD]"
    assert built_after is True
