"""The one sentence the user sees when part of their message was not stored.

Silently dropping data would make the assistant look forgetful; saying what kind of
thing was withheld (never the thing itself) explains it and reminds the user that
chat is not a safe place for card numbers.
"""

from __future__ import annotations

from collections.abc import Iterable

NAMES: dict[str, str] = {
    "CREDIT_CARD": "card number",
    "RU_PASSPORT": "passport number",
    "UA_PASSPORT": "passport number",
    "UA_ID_CARD": "ID card number",
    "RU_INN": "tax number (INN)",
    "RU_SNILS": "SNILS number",
    "IBAN": "bank account number (IBAN)",
    "PHONE": "phone number",
    "EMAIL": "email address",
    "SECRET": "password or access key",
    "UNSCANNED": "message (it could not be checked for private data)",
}


def _name(kind: str) -> str:
    return NAMES.get(kind, kind.lower().replace("_", " "))


def _join(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def notice(types: Iterable[str]) -> str:
    """E.g. "I did not store the card number and passport number you sent." ("" if none)."""
    names = list(dict.fromkeys(_name(kind) for kind in types))
    if not names:
        return ""
    return f"I did not store the {_join(names)} you sent."
