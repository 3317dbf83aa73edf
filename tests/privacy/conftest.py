"""The privacy tests' shared corpus: every text the guard's shortcuts are held to."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from aniso.bench.evaluate import load, packaged_dataset

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
