"""The privacy guard's public API: redaction, placeholders, robustness, audit, notice.

These run with sockets disabled (pyproject's pytest addopts), so any attempt by presidio,
spaCy or tldextract to download a model or suffix list fails the run.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aniso.privacy import Finding, Guard, ScanResult, audit_record, notice
from aniso.privacy import engine as privacy_engine
from aniso.privacy.findings import resolve
from aniso.privacy.guard import UNSCANNED

CARD = "4111 1111 1111 1111"
PASSPORT = "4510 123456"
AT = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def guard() -> Guard:
    # urllib3 (imported by tldextract via requests) creates, but never connects, an IPv6
    # socket at import time to probe for IPv6 support. Import it here so pytest-socket's
    # warning about that probe does not land on an arbitrary test; the subprocess test
    # below proves that nothing else touches the network.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import urllib3  # noqa: F401
    return Guard()


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_sockets_are_disabled_in_this_run() -> None:
    with pytest.raises(Exception, match="(?i)socket"):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"карта {CARD}", "карта [CREDIT_CARD]"),
        (f"паспорт {PASSPORT}", "паспорт [RU_PASSPORT]"),
        ("паспорт 12 34 567890", "паспорт [RU_PASSPORT]"),
        ("Мой ИНН 7707083893", "Мой ИНН [RU_INN]"),
        ("СНИЛС 112-233-445 95", "СНИЛС [RU_SNILS]"),
        ("паспорт МК 123456", "паспорт [UA_PASSPORT]"),
        ("номер ID-картки 123456789", "номер ID-картки [UA_ID_CARD]"),
        ("IBAN DE89 3704 0044 0532 0130 00, thanks", "IBAN [IBAN], thanks"),
        ("звони +7 912 345-67-89", "звони [PHONE]"),
        ("8 (912) 345-67-89", "[PHONE]"),
        ("мій номер +380 67 123 4567", "мій номер [PHONE]"),
        ("call +1 415 555 0132", "call [PHONE]"),
        ("write to ivan.petrov@mail.ru", "write to [EMAIL]"),
        ("password: hunter2", "password: [SECRET]"),
        ("пароль: qwerty123", "пароль: [SECRET]"),
        ("мой пароль от почты — Sup3rS3cret", "мой пароль от почты — [SECRET]"),
        ("key sk-proj-abcdefghijklmnopqrstuvwxyz0123", "key [SECRET]"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[SECRET]"),
        ("AKIAIOSFODNN7EXAMPLE", "[SECRET]"),
        ("xoxb-123456789012-abcdefghijkl", "[SECRET]"),
        ("api key: 9f2c4e7a1b3d5f60", "api key: [SECRET]"),
        ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX18", "token [SECRET]"),
    ],
)
def test_redacts_into_typed_placeholders(guard: Guard, text: str, expected: str) -> None:
    result = guard.scan(text)
    assert result.text == expected
    assert result.redacted
    assert guard.redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "заказ №123456789",
        "Встреча 2026-01-05 в 14:30, дедлайн 05.01.2026",
        "Квартира стоит 1 234 567 руб, а машина $4,242.42",
        "Upgrade to version 2.14.0",
        "Трек-номер RA123456789RU",
        "Transaction id 4111111111111112",
        "IBAN DE89 3704 0044 0532 0130 01",
        "1234567890",
        "I forgot my password again",
        "my password is wrong",
    ],
)
def test_leaves_lookalikes_alone(guard: Guard, text: str) -> None:
    result = guard.scan(text)
    assert result == ScanResult(text=text, findings=(), types=())
    assert not result.redacted


def test_bare_ten_digits_need_a_cue(guard: Guard) -> None:
    assert guard.scan("4510123456").findings == ()
    assert guard.scan("паспорт 4510123456").types == ("RU_PASSPORT",)
    assert guard.scan("passport 4510123456").types == ("RU_PASSPORT",)


def test_a_cue_does_not_vouch_for_a_later_number(guard: Guard) -> None:
    result = guard.scan("паспорт 4510 123456, заказ 7701234567")
    assert result.text == "паспорт [RU_PASSPORT], заказ 7701234567"


def test_patterns_fire_whatever_the_language(guard: Guard) -> None:
    for prefix in ("My card", "Моя карта", "Моя картка", "カード"):
        assert guard.scan(f"{prefix} {CARD}").types == ("CREDIT_CARD",)


def test_several_types_in_one_message(guard: Guard) -> None:
    text = f"Карта {CARD}, паспорт {PASSPORT}, почта olena@ukr.net, тел. +380 67 123 4567"
    result = guard.scan(text)
    assert result.types == ("CREDIT_CARD", "RU_PASSPORT", "EMAIL", "PHONE")
    assert result.text == (
        "Карта [CREDIT_CARD], паспорт [RU_PASSPORT], почта [EMAIL], тел. [PHONE]"
    )
    assert [text[f.start : f.end] for f in result.findings] == [
        CARD,
        PASSPORT,
        "olena@ukr.net",
        "+380 67 123 4567",
    ]


def test_results_never_hold_the_value(guard: Guard) -> None:
    values = [CARD, "hunter2", "olena@ukr.net", "+380 67 123 4567"]
    text = f"card {values[0]} password: {values[1]} mail {values[2]} tel {values[3]}"
    result = guard.scan(text)
    assert len(result.findings) == 4
    dumped = repr(result) + str(result) + repr(result.findings) + repr(result.types)
    for value in values:
        assert value not in dumped
        assert value.replace(" ", "") not in dumped
    assert set(Finding.__dataclass_fields__) == {"type", "start", "end", "score"}


def test_results_are_frozen(guard: Guard) -> None:
    result = guard.scan(f"card {CARD}")
    with pytest.raises(AttributeError):
        result.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.findings[0].type = "x"  # type: ignore[misc]


def test_overlaps_resolve_to_best_type_and_union_span() -> None:
    findings = [
        Finding("PHONE", 10, 24, 0.6),
        Finding("RU_SNILS", 8, 22, 0.85),
        Finding("EMAIL", 30, 40, 0.85),
        Finding("SECRET", 30, 40, 0.9),
        Finding("PHONE", 50, 60, 0.6),
        Finding("RU_INN", 50, 62, 0.6),
    ]
    assert resolve(findings) == (
        Finding("RU_SNILS", 8, 24, 0.85),
        Finding("SECRET", 30, 40, 0.9),
        Finding("RU_INN", 50, 62, 0.6),
    )


# --- robustness ------------------------------------------------------------------------


def test_empty_string(guard: Guard) -> None:
    assert guard.scan("") == ScanResult(text="", findings=(), types=())
    assert guard.redact("") == ""


def test_non_string_input_does_not_raise(guard: Guard) -> None:
    assert guard.scan(None).text == ""  # type: ignore[arg-type]
    assert guard.scan(12345).text == "12345"  # type: ignore[arg-type]


def test_nuls_and_control_characters(guard: Guard) -> None:
    text = f"\x00\x01карта\x00{CARD}\x07\x1b[31m\r\nпароль: qwerty123\x00\x7f\ufeff"
    result = guard.scan(text)
    assert "[CREDIT_CARD]" in result.text and "[SECRET]" in result.text
    assert CARD not in result.text and "qwerty123" not in result.text
    assert result.text.startswith("\x00\x01карта\x00")


@pytest.mark.parametrize(
    "separator", ["\u00a0", "\u2009", "\u202f", "\t", "\u200b", "\u2011"], ids=repr
)
def test_pasted_separators_do_not_hide_a_card(guard: Guard, separator: str) -> None:
    text = f"card {CARD.replace(' ', separator)} ok"
    assert guard.scan(text).text == "card [CREDIT_CARD] ok"


def test_full_width_digits_and_lone_surrogates(guard: Guard) -> None:
    wide = CARD.translate({ord(d): chr(0xFF10 + int(d)) for d in "0123456789"})
    assert guard.scan(f"\ud800 карта {wide} \udfff").text == "\ud800 карта [CREDIT_CARD] \udfff"
    assert guard.scan("тел ＋７ ９１２ ３４５-６７-８９").text == "тел [PHONE]"


def test_only_control_characters(guard: Guard) -> None:
    text = "".join(chr(i) for i in range(32)) * 50
    assert guard.scan(text).text == text


def test_hundred_kilobyte_message(guard: Guard) -> None:
    filler = "Напомни купить молоко и хлеб, встреча 2026-01-05 в 14:30. Hello there! "
    body = (filler * 1500)[:100_000]
    text = f"паспорт {PASSPORT} " + body[:50_000] + f" card {CARD} " + body[50_000:]
    text += " password: hunter2"
    assert len(text) > 100_000
    result = guard.scan(text)
    assert result.types == ("RU_PASSPORT", "CREDIT_CARD", "SECRET")
    assert PASSPORT not in result.text and CARD not in result.text
    assert "hunter2" not in result.text


def test_falls_back_to_direct_recognizers_when_presidio_fails(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> list[Finding]:
        raise ValueError("[E088] Text of length 2000000 exceeds maximum")

    monkeypatch.setattr(privacy_engine, "analyze", broken)
    assert guard.scan(f"паспорт {PASSPORT}, карта {CARD}").text == (
        "паспорт [RU_PASSPORT], карта [CREDIT_CARD]"
    )


def test_fails_closed_when_nothing_works(guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> list[Finding]:
        raise RuntimeError("boom")

    monkeypatch.setattr(privacy_engine, "analyze", broken)
    monkeypatch.setattr(privacy_engine, "analyze_without_nlp", broken)
    result = guard.scan(f"card {CARD}")
    assert result.text == f"[{UNSCANNED}]"
    assert result.types == (UNSCANNED,)
    assert CARD not in repr(result)


# --- offline -----------------------------------------------------------------------------


def test_email_validation_uses_the_bundled_suffix_list(guard: Guard) -> None:
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    from aniso.privacy.offline import has_public_suffix, offline_extractor

    guard.scan("warm the engine up")  # installs the offline default for tldextract
    assert offline_extractor().suffix_list_urls == ()
    assert has_public_suffix("ukr.net") and has_public_suffix("corp.example.co.uk")
    assert not has_public_suffix("localhost")
    # presidio's stock recognizer goes through tldextract.extract: it must not fetch either.
    assert EmailRecognizer().validate_result("someone@gmail.com") is True
    assert guard.scan("mail me: user@nonexistent-tld.zzzz").findings == ()


NO_NETWORK_PROBE = """
import socket, sys
import urllib3  # its import-time IPv6 probe is the one socket we expect; not traffic
attempts = []
def refuse(name):
    def blocked(*args, **kwargs):
        attempts.append(name)
        raise OSError("network disabled by test: " + name)
    return blocked
socket.socket.connect = refuse("connect")
socket.socket.connect_ex = refuse("connect_ex")
socket.create_connection = refuse("create_connection")
socket.getaddrinfo = refuse("getaddrinfo")
import aniso.privacy as p
result = p.Guard().scan(
    "mail olena@ukr.net or see https://example.com, card 4111 1111 1111 1111, "
    "паспорт 4510 123456, +380 67 123 4567"
)
from presidio_analyzer.predefined_recognizers import EmailRecognizer
assert EmailRecognizer().validate_result("someone@gmail.com") is True
assert result.types == ("EMAIL", "CREDIT_CARD", "RU_PASSPORT", "PHONE"), result.types
assert not attempts, attempts
"""


def test_building_and_scanning_never_touch_the_network(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", NO_NETWORK_PROBE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / ".cache" / "python-tldextract").exists()


def test_import_is_cheap_and_engine_is_lazy(tmp_path: Path) -> None:
    code = (
        "import sys, aniso.privacy as p\n"
        "g = p.Guard()\n"
        "assert 'presidio_analyzer' not in sys.modules, 'presidio imported eagerly'\n"
        "assert 'spacy' not in sys.modules, 'spacy imported eagerly'\n"
        "from aniso.privacy import engine\n"
        "assert not engine.is_built()\n"
        "g.scan('карта 4111 1111 1111 1111')\n"
        "first = engine.shared_analyzer()\n"
        "g.scan('again'); p.Guard().scan('and again')\n"
        "assert engine.shared_analyzer() is first\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr


# --- audit and notice ----------------------------------------------------------------------


def test_audit_record_is_salted_and_holds_no_value() -> None:
    finding = Finding("CREDIT_CARD", 6, 25, 0.9)
    first = audit_record(finding, CARD, salt=b"salt-one", at=AT)
    second = audit_record(finding, CARD, salt=b"salt-two", at=AT)
    assert set(first) == {"type", "at", "hash"}
    assert first["type"] == "CREDIT_CARD" and first["at"] == "2026-01-05T19:00:00+00:00"
    assert first["hash"] != second["hash"]
    assert len(first["hash"]) == 64
    assert CARD not in repr(first) and CARD.replace(" ", "") not in repr(first)


def test_audit_hash_is_stable_across_formatting() -> None:
    finding = Finding("CREDIT_CARD", 0, 19, 0.9)
    spaced = audit_record(finding, CARD, salt=b"s", at=AT)
    dashed = audit_record(finding, CARD.replace(" ", "-"), salt=b"s", at=AT)
    assert spaced["hash"] == dashed["hash"]


def test_audit_refuses_an_empty_salt() -> None:
    with pytest.raises(ValueError):
        audit_record(Finding("PHONE", 0, 5, 0.9), "+79123456789", salt=b"", at=AT)


def test_notice_names_the_kinds_not_the_values() -> None:
    assert notice(["CREDIT_CARD", "RU_PASSPORT"]) == (
        "I did not store the card number and passport number you sent."
    )
    assert notice(("PHONE",)) == "I did not store the phone number you sent."
    assert notice(["RU_PASSPORT", "UA_PASSPORT", "EMAIL", "SECRET"]) == (
        "I did not store the passport number, email address and password or access key you sent."
    )
    assert notice([]) == ""
    assert notice(["SOMETHING_NEW"]) == "I did not store the something new you sent."


def test_notice_from_a_scan(guard: Guard) -> None:
    result = guard.scan(f"карта {CARD}, паспорт {PASSPORT}")
    assert notice(result.types) == "I did not store the card number and passport number you sent."


def test_the_tests_run_the_full_presidio_engine() -> None:
    """Run as `python -m pytest` from the repo root, the source folder `profile/` once hid
    the standard library's `profile`, spaCy failed to import and the guard quietly ran
    its recognizers without presidio's engine in every in-process test."""
    import cProfile

    from aniso.privacy.engine import shared_analyzer

    assert hasattr(cProfile, "run")
    assert shared_analyzer().nlp_engine is not None


def test_the_tokenizer_vocabulary_stays_bounded_over_a_long_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every new token used to stay in spaCy's vocabulary for good; past the limit the
    pipeline is renewed, and detection works the same before and after."""
    from aniso.privacy import engine

    pipelines = engine.shared_analyzer().nlp_engine.nlp
    start = len(pipelines["en"].vocab.strings)
    monkeypatch.setattr(engine, "VOCABULARY_LIMIT", start + 50)
    sizes = []
    for n in range(300):
        found = engine.analyze(f"note {n} token{n}x, card 4111 1111 1111 1111")
        assert [f.type for f in found] == ["CREDIT_CARD"], found
        sizes.append(len(pipelines["en"].vocab.strings))
    assert max(sizes) <= start + 50 + 3  # one message's new strings past the limit at most
    assert sizes.index(min(sizes[10:])) > 10  # it was renewed, not merely slow to grow
