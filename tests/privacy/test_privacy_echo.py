"""Echoes of withheld values: recovered from the redaction, matched by their characters."""

from __future__ import annotations

from aniso.privacy.echo import Withheld, redact_echoes, withheld_values


def test_values_are_recovered_from_the_raw_and_redacted_pair() -> None:
    raw = "passport 4509 123456 and mail a.b@example.org, thanks"
    redacted = "passport [RU_PASSPORT] and mail [EMAIL], thanks"
    assert withheld_values(raw, redacted) == (
        Withheld("RU_PASSPORT", "4509 123456"),
        Withheld("EMAIL", "a.b@example.org"),
    )
    assert "4509" not in repr(withheld_values(raw, redacted)), "a value never prints"


def test_a_message_that_does_not_align_gives_nothing() -> None:
    assert withheld_values("no secrets here", "no secrets here") == ()
    assert withheld_values("something else", "[EMAIL] entirely") == ()


def test_numbers_match_whatever_groups_them_and_only_whole() -> None:
    withheld = (Withheld("RU_PASSPORT", "4509 123456"),)
    assert redact_echoes("it is 4509,123456.", withheld) == "it is [RU_PASSPORT]."
    assert redact_echoes("it is 4509-12-34-56", withheld) == "it is [RU_PASSPORT]"
    assert redact_echoes("order 145091234567", withheld) == "order 145091234567"
    text = redact_echoes("Mail A.B@EXAMPLE.ORG now", (Withheld("EMAIL", "a.b@example.org"),))
    assert text == "Mail [EMAIL] now"
