"""`Guard.scan_many` (the import's batch path) gives exactly `Guard.scan`'s verdicts.

The batch path skips presidio's engine (tokenizing, NLP artifacts) and calls the
recognizers directly; the recognizers skip texts with too few digits for any of their
patterns. Both shortcuts are only allowed because they change no redaction, which is
what these tests hold them to, on the labelled set and on every text the other privacy
tests use.
"""

from __future__ import annotations

import pytest
from presidio_analyzer import PatternRecognizer

from aniso.privacy import Guard
from aniso.privacy import engine as privacy_engine
from aniso.privacy.guard import UNSCANNED
from aniso.privacy.recognizers import CuedPatternRecognizer, build_recognizers

CARD = "4111 1111 1111 1111"


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
    sample = [texts[3], "", texts[3], f"card {CARD}", texts[3]]
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
