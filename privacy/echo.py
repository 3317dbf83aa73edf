"""Echoes: a sensitive value of this turn coming back in the model's reply.

When the privacy policy lets the model see the raw message, the model can repeat a
value in a form the recognizers do not know: a passport "1234 567890" echoed as
"1234,567890", a card number with its groups run together. The reply is stored, so
every value withheld from the user's message is also looked for in the reply, by
its characters rather than its format, and replaced with the same placeholder.

The values live only in memory for the length of one turn; nothing here is stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PLACEHOLDER = re.compile(r"\[([A-Z][A-Z0-9_]*)\]")
# Between the digits of an echoed number: nothing, or a short run of separators.
_DIGIT_GAP = r"[\s\-.,/()]{0,3}"
_MIN_DIGITS = 6


@dataclass(frozen=True)
class Withheld:
    """One value the guard took out of this turn's message, with its placeholder."""

    kind: str
    value: str

    def __repr__(self) -> str:  # never print a value by accident
        return f"Withheld({self.kind}, <{len(self.value)} chars>)"


def withheld_values(raw: str, redacted: str) -> tuple[Withheld, ...]:
    """The values that `redacted` replaced with placeholders in `raw`.

    The redacted text is the raw text with some spans replaced, so its literal parts
    anchor a pattern that captures what each placeholder stands for. A raw message
    that already contained a placeholder-like "[EMAIL]" may not align; then nothing
    is returned, and the reply still passes through the guard as usual.
    """
    parts = _PLACEHOLDER.split(redacted)
    literals, kinds = parts[0::2], parts[1::2]
    if not kinds:
        return ()
    pattern = "(.+?)".join(re.escape(literal) for literal in literals)
    found = re.fullmatch(pattern, raw, flags=re.DOTALL)
    if found is None:
        return ()
    return tuple(
        Withheld(kind, value.strip())
        for kind, value in zip(kinds, found.groups(), strict=True)
        if value.strip()
    )


def _echo_pattern(value: str) -> re.Pattern[str]:
    digits = re.sub(r"\D", "", value)
    if len(digits) >= _MIN_DIGITS and len(digits) * 2 >= len(re.sub(r"\s", "", value)):
        # A number: the same digits in order, whatever groups them.
        body = _DIGIT_GAP.join(digits)
        return re.compile(rf"(?<!\d){body}(?!\d)")
    return re.compile(re.escape(value), re.IGNORECASE)


def redact_echoes(reply: str, withheld: tuple[Withheld, ...]) -> str:
    """The reply with every echo of a withheld value replaced by its placeholder."""
    for item in withheld:
        reply = _echo_pattern(item.value).sub(f"[{item.kind}]", reply)
    return reply
