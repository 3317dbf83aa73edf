"""Spotting a user who corrects a memory miss: "I already told you I'm vegetarian".

Such a message means recall failed on something the user had said. The caller
records the miss (for the benchmarks) and the extractor still reads the
restated fact, so the profile is repaired either way.
"""

from __future__ import annotations

import re

_CORRECTION = re.compile(
    r"\bI\s+(?:already|just)\s+(?:told|said|mentioned)\b"
    r"|\bI(?:'ve|\s+have)\s+(?:already\s+)?(?:told\s+you|said\s+(?:this|that|it)|mentioned)"
    r"|\bI\s+told\s+you\b|\bas\s+I\s+(?:already\s+)?(?:said|mentioned|told\s+you)\b"
    r"|\blike\s+I\s+(?:said|told\s+you)\b|\bdid\s+you\s+forget\b|\byou\s+forgot\b"
    r"|\bremember\s*,?\s+I(?:'m|\s+am|\s+told|\s+said)\b"
    r"|\bя\s+(?:же|ж|ведь|уже|тебе|вам)\s+(?:(?:уже|тебе|вам)\s+)?"
    r"(?:говорил|сказал|писал|упоминал|просил|объяснял)\w*"
    r"|\bкак\s+я\s+(?:уже\s+)?(?:говорил|сказал|писал|упоминал)\w*"
    r"|\bты\s+(?:что\s+)?(?:забыл|не\s+помнишь)\w*|\bповторяю\b"
    r"|\bя\s+(?:же|ж|вже|тобі)\s+(?:(?:вже|тобі)\s+)?(?:казав|казала|говорив|говорила|писав|писала)"
    r"|\bяк\s+я\s+(?:вже\s+)?(?:казав|казала|говорив|говорила)|\bти\s+(?:що\s+)?забу\w*",
    re.IGNORECASE,
)


def is_correction(text: str) -> bool:
    """True when the user says they have told us this before."""
    return _CORRECTION.search(text) is not None


def restated(text: str) -> str:
    """The fact a correction restates: the message without its "I already told you"."""
    return _CORRECTION.sub(" ", text)
