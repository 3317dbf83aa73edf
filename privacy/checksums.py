"""Check digits for the identifiers the guard looks for.

A regex alone cannot tell a card number from an order number: both are runs of digits.
The check digit can. Each function takes the text as it was matched (separators and all)
and answers whether the digits are internally consistent, so recognizers can discard the
nine in ten random numbers that merely have the right shape.
"""

from __future__ import annotations

# Registered IBAN lengths by country (SWIFT IBAN registry). A candidate whose length
# disagrees with its country prefix is not an IBAN, whatever its mod-97 remainder says.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
    "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
    "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
    "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}  # fmt: skip


def digits_of(text: str) -> str:
    """Keep only ASCII digits: separators vary, the check digits do not."""
    return "".join(ch for ch in text if "0" <= ch <= "9")


def luhn_ok(text: str) -> bool:
    """Luhn (mod 10) check used by every payment card scheme."""
    digits = digits_of(text)
    if not digits:
        return False
    total = 0
    for index, ch in enumerate(reversed(digits)):
        value = ord(ch) - 48
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _weighted_check(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights, strict=False)) % 11 % 10


def inn_ok(text: str) -> bool:
    """Russian taxpayer number: 10 digits (companies, one check digit) or 12 (people, two)."""
    digits = digits_of(text)
    if len(digits) == 10:
        return _weighted_check(digits, (2, 4, 10, 3, 5, 9, 4, 6, 8)) == int(digits[9])
    if len(digits) == 12:
        first = _weighted_check(digits, (7, 2, 4, 10, 3, 5, 9, 4, 6, 8))
        second = _weighted_check(digits, (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8))
        return first == int(digits[10]) and second == int(digits[11])
    return False


def snils_ok(text: str) -> bool:
    """Russian SNILS: 9-digit number plus a 2-digit checksum of position-weighted digits.

    Numbers up to 001-001-998 were issued before the checksum existed; they are so rare
    in practice that treating them as invalid costs less than the false positives.
    """
    digits = digits_of(text)
    if len(digits) != 11:
        return False
    number, check = digits[:9], int(digits[9:])
    if int(number) <= 1001998:
        return False
    total = sum(int(d) * w for d, w in zip(number, range(9, 0, -1), strict=True))
    expected = total % 101
    if expected == 100:
        expected = 0
    return expected == check


def compact_iban(text: str) -> str:
    """Upper-case alphanumerics only, the form the mod-97 rule is defined on."""
    return "".join(ch for ch in text.upper() if ch.isascii() and ch.isalnum())


def iban_ok(text: str) -> bool:
    """ISO 13616 IBAN: known country, registered length, and remainder 1 modulo 97."""
    iban = compact_iban(text)
    country = iban[:2]
    if IBAN_LENGTHS.get(country) != len(iban) or not iban[2:4].isdigit():
        return False
    rearranged = iban[4:] + iban[:4]
    numeric = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(numeric) % 97 == 1
