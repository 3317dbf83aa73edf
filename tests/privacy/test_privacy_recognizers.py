"""The building blocks of the guard, without presidio: check digits, cues, detectors."""

from __future__ import annotations

import pytest

from aniso.privacy.checksums import iban_ok, inn_ok, luhn_ok, snils_ok
from aniso.privacy.credentials import find_secrets
from aniso.privacy.cues import CUES, has_anti_cue, has_cue
from aniso.privacy.engine import pick_language
from aniso.privacy.iban import find_ibans
from aniso.privacy.normalize import fold
from aniso.privacy.phones import find_phones


def spans(text: str, hits: list) -> list[str]:
    return [text[h.start : h.end] for h in hits]


def test_luhn() -> None:
    assert luhn_ok("4111 1111 1111 1111") and luhn_ok("3782-822463-10005")
    assert not luhn_ok("4111 1111 1111 1112") and not luhn_ok("")


def test_inn() -> None:
    assert inn_ok("7707083893") and inn_ok("500100732259")
    assert not inn_ok("7707083894") and not inn_ok("500100732258") and not inn_ok("12345")


def test_snils() -> None:
    assert snils_ok("112-233-445 95") and snils_ok("11223344595")
    assert not snils_ok("112-233-445 96")
    assert not snils_ok("001-001-998 00")  # issued before checksums: not trusted


def test_iban() -> None:
    assert iban_ok("DE89 3704 0044 0532 0130 00") and iban_ok("gb82west12345698765432")
    assert iban_ok("UA213223130000026007233566001")
    assert not iban_ok("DE89 3704 0044 0532 0130 01")  # mod-97 fails
    assert not iban_ok("DE89 3704 0044 0532 0130 0")  # wrong length for DE
    assert not iban_ok("QQ89 3704 0044 0532 0130 00")  # no such country


def test_iban_ends_at_its_registered_length() -> None:
    text = "IBAN UA21 3223 1300 0002 6007 2335 6600 1 and DE89 3704 0044 0532 0130 00 2024"
    assert spans(text, find_ibans(text)) == [
        "UA21 3223 1300 0002 6007 2335 6600 1",
        "DE89 3704 0044 0532 0130 00",
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("паспорт 4510 123456", "4510 123456"),
        ("4510 123456 выдан ОВД", "4510 123456"),
        ("мой Passport: 4510123456", "4510123456"),
    ],
)
def test_cue_before_or_after(text: str, value: str) -> None:
    start = text.index(value)
    assert has_cue(text, start, start + len(value), CUES["RU_PASSPORT"])


def test_cue_window_stops_at_another_number() -> None:
    text = "паспорт 4510 123456, заказ 7701234567"
    start = text.index("7701234567")
    assert not has_cue(text, start, start + 10, CUES["RU_PASSPORT"])
    assert has_anti_cue(text, start)


def test_short_cues_are_whole_words() -> None:
    text = "dinner 7707083893"
    assert not has_cue(text, 7, 17, CUES["RU_INN"])
    assert has_cue("my INN 7707083893", 7, 17, CUES["RU_INN"])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("password: hunter2", "hunter2"),
        ("Password=hunter2;", "hunter2"),
        ("пароль: qwerty123", "qwerty123"),
        ("мой пароль от почты — Sup3rS3cret", "Sup3rS3cret"),
        ("пароль от почты Sup3rS3cret", "Sup3rS3cret"),
        ("Пароль від пошти: Kyiv2024!", "Kyiv2024!"),
        ("my wifi password is hunter22.", "hunter22"),
        ("password for user42 is hunter2", "hunter2"),
        ("пароль 'correct horse battery'", "correct horse battery"),
        ("pass: Sunshine2024", "Sunshine2024"),
        ("DB_PASSWORD=s3cr3t", "s3cr3t"),
        ("PIN-код от карты: 4821", "4821"),
        ("my pin is 1234", "1234"),
        ("api key: abcd1234efgh5678", "abcd1234efgh5678"),
        ("токен: 9f2c4e7a1b3d5f60aa", "9f2c4e7a1b3d5f60aa"),
        ("sk-ant-api03-" + "x" * 40, "sk-ant-api03-" + "x" * 40),
        ("ghp_" + "a1" * 18, "ghp_" + "a1" * 18),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        ("Authorization: Bearer 8f14e45fceea167a5a36", "8f14e45fceea167a5a36"),
    ],
)
def test_secrets_redact_only_the_value(text: str, value: str) -> None:
    assert value in spans(text, find_secrets(text))


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password again",
        "my password is wrong",
        "password: see the sticky note",
        "Пароль: не скажу",
        "Пароль должен содержать 8 символов",
        "boarding pass: 12A",
        "секретарь: Иванова",
        "ключ от квартиры под ковриком",
        "The token economy is booming in 2026",
        "My PIN is the same as before",
        "task-force meeting",
    ],
)
def test_secret_words_without_secrets(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "+7 912 345-67-89",
        "8 (912) 345-67-89",
        "+380 67 123 4567",
        "(415) 555-0132",
        "067 123 45 67",
    ],
)
def test_phones(text: str) -> None:
    assert spans(text, find_phones(f"тел {text}.")) != []


@pytest.mark.parametrize(
    "text", ["2026-01-05 05.01.2026", "в 14:30", "1 234 567 руб", "$4,242.42", "v 1.2.3"]
)
def test_not_phones(text: str) -> None:
    assert find_phones(text) == []


def test_phone_scores_reflect_the_format() -> None:
    scores = {h.score for h in find_phones("+7 912 345-67-89")}
    assert scores == {0.85}
    assert {h.score for h in find_phones("9123456789")} == {0.3}  # bare: needs a cue


def test_fold_keeps_offsets() -> None:
    text = "карта\u00a04111\u20091111\u200b1111 ４１１１ \ud800"
    folded = fold(text)
    assert len(folded) == len(text)
    assert folded == "карта 4111 1111 1111 4111 \ufffd"
    assert fold("plain\ttext") == "plain text"


@pytest.mark.parametrize(
    ("text", "language"),
    [("hello", "en"), ("привет, как дела", "ru"), ("привіт, як справи", "uk"), ("", "en")],
)
def test_pick_language(text: str, language: str) -> None:
    assert pick_language(text) == language
