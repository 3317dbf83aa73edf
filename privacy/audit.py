"""Audit records: proof that something was withheld, without keeping what it was.

The hash lets an operator answer "did the same card number come up twice?" or "is this
the value the user asked about?" by recomputing it, while the record alone reveals
nothing. It must be keyed: a passport number has only 10^10 values and a plain SHA-256
of it is reversed by brute force in minutes.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from datetime import datetime

from aniso.privacy.checksums import compact_iban, digits_of
from aniso.privacy.findings import Finding

# Types whose value is a number however it was typed: "4111 1111..." and "4111-1111..."
# are the same card and must hash the same.
_DIGIT_TYPES = frozenset(
    {"CREDIT_CARD", "PHONE", "RU_PASSPORT", "RU_INN", "RU_SNILS", "UA_ID_CARD"}
)


def normalize(kind: str, value: str) -> str:
    """The canonical form of a value before hashing."""
    value = unicodedata.normalize("NFKC", value).strip()
    if kind in _DIGIT_TYPES:
        return digits_of(value) or value
    if kind == "IBAN":
        return compact_iban(value)
    if kind == "EMAIL":
        return value.lower()
    if kind == "UA_PASSPORT":
        return "".join(value.split()).upper()
    return value


def audit_record(finding: Finding, value: str, *, salt: bytes, at: datetime) -> dict[str, str]:
    """{"type", "at", "hash"}: HMAC-SHA-256 of the normalized value keyed by `salt`."""
    if not salt:
        raise ValueError("audit_record needs a non-empty salt; unsalted hashes of PII reverse")
    digest = hmac.new(
        salt, normalize(finding.type, value).encode("utf-8", "surrogatepass"), hashlib.sha256
    )
    return {"type": finding.type, "at": at.isoformat(), "hash": digest.hexdigest()}
