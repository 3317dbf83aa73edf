"""`Guard.scan_many` (the import's batch path) gives exactly `Guard.scan`'s verdicts.

The batch path skips presidio's engine (tokenizing, NLP artifacts) and calls the
recognizers directly; the recognizers skip texts with too few digits for any of their
patterns. Both shortcuts are only allowed because they change no redaction, which is
what these tests hold them to, on the labelled set and on every text the other privacy
tests use.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from presidio_analyzer import PatternRecognizer

from aniso.bench.evaluate import load, packaged_dataset
from aniso.privacy import Guard
from aniso.privacy import engine as privacy_engine
from aniso.privacy.guard import UNSCANNED
from aniso.privacy.recognizers import CuedPatternRecognizer, build_recognizers

HERE = Path(__file__).parent
CARD = "4111 1111 1111 1111"

# Texts near the recognizers' digit minimums and in unusual scripts: Osmanya digits
# (U+104A0..) are `\d` for the patterns' regex module but not folded to ASCII.
EDGE = [
    "",
    "no digits at all, just words about a trip to Porto",
    "password: hunter",
    "мой пароль от почты — Sup3rS3cret",
    "api key sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "write to me at someone@example.com",
    "someone at example dot com",
    "паспорт МК 123456",
    "паспорт МК 12345",
    "ID card 123456789",
    "ID card 12345678",
    "паспорт 4510 123456",
    "паспорт 4510 12345",
    "СНИЛС 112-233-445 95",
    "СНИЛС 112-233-445 9",
    "Мой ИНН 7707083893",
    "card 4111 1111 1111",
    f"card {CARD}",
    "card " + CARD.translate({ord(d): chr(0xFF10 + int(d)) for d in "0123456789"}),
    "card " + CARD.translate({ord(d): chr(0x104A0 + int(d)) for d in "0123456789"}),
    "паспорт " + "4510 123456".translate({ord(d): chr(0x104A0 + int(d)) for d in "0123456789"}),
    "тел ＋７ ９１２ ３４５-６７-８９",
    f"card {CARD.replace(' ', chr(0xA0))} ok",
    "IBAN DE89 3704 0044 0532 0130 00, thanks",
    "звони +7 912 345-67-89",
    "\ud800 карта 4111 1111 1111 1111 \udfff",
    "x" * 1_200_000 + f" card {CARD}",  # beyond spaCy's max_length: the engine falls back
]


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _texts_of_other_tests() -> list[str]:
    """Every string parametrizing the other privacy tests (PII and look-alikes)."""
    texts: list[str] = []
    for name in ("test_privacy.py", "test_privacy_recognizers.py"):
        spec = importlib.util.spec_from_file_location(f"_batch_{name[:-3]}", HERE / name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for test in vars(module).values():
            for mark in getattr(test, "pytestmark", []):
                if mark.name == "parametrize":
                    texts += _strings(mark.args[1])
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    labelled = [record["text"] for record in load(packaged_dataset())]
    others = _texts_of_other_tests()
    assert len(labelled) > 600 and len(others) > 50  # the sources are really read
    return [*labelled, *others, *EDGE]


def test_batch_redacts_exactly_as_single_scans(texts: list[str]) -> None:
    guard = Guard()
    single = [guard.scan(text) for text in texts]
    batch = guard.scan_many(texts)
    assert sum(result.redacted for result in single) > 500
    mismatches = [
        (text[:80], one, many)
        for text, one, many in zip(texts, single, batch, strict=True)
        if one != many
    ]
    assert mismatches == []


def test_batch_keeps_order_and_repeats(texts: list[str]) -> None:
    guard = Guard()
    sample = [texts[3], EDGE[0], texts[3], f"card {CARD}", texts[3]]
    results = guard.scan_many(sample)
    assert [r.text for r in results] == [guard.scan(t).text for t in sample]
    assert results[3].text == "card [CREDIT_CARD]"


def test_digit_minimums_skip_nothing_a_pattern_finds(texts: list[str]) -> None:
    """Each recognizer's gate (`min_digits`, `needs`) against its own ungated patterns:
    a minimum set one too high would skip labelled positives and fail here."""
    gated = [r for r in build_recognizers("en") if isinstance(r, CuedPatternRecognizer)]
    assert {r.min_digits for r in gated} - {0} and any(r.needs for r in gated)
    for recognizer in gated:
        entities = recognizer.get_supported_entities()
        skipped = 0
        for text in texts:
            folded = privacy_engine.fold(text)
            ungated = PatternRecognizer.analyze(recognizer, folded, entities, None)
            found = recognizer.analyze(folded, entities, None)
            assert [(r.start, r.end, r.score) for r in found] == [
                (r.start, r.end, r.score) for r in ungated
            ], (recognizer.name, text[:80])
            skipped += not recognizer.could_match(folded)
        assert skipped > 0, recognizer.name  # the gate does skip ordinary texts


def test_a_failing_text_is_withheld_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    real = privacy_engine.analyze_without_nlp

    def failing(text: str) -> list:
        if "boom" in text:
            raise RuntimeError("recognizer crashed")
        return real(text)

    monkeypatch.setattr(privacy_engine, "analyze_without_nlp", failing)
    results = Guard().scan_many(["fine text", f"boom {CARD}", f"card {CARD}"])
    assert [r.text for r in results] == [
        "fine text",
        f"[{UNSCANNED}]",
        "card [CREDIT_CARD]",
    ]
