"""Context words ("cues") in English, Russian and Ukrainian, and the window they must sit in.

Many identifiers are indistinguishable from ordinary numbers by shape: nine digits is a
Ukrainian ID card or an order number, ten digits a passport, an INN or a phone. People
label what they paste ("паспорт 4510 123456", "my INN is ..."), so a weak match is only
trusted when a cue for its type sits just before it (or shortly after, "... выдан ОВД").

Presidio's own context enhancer compares lemmas, and the blank spaCy pipelines we can
afford offline have none; Russian and Ukrainian inflect heavily. So cues here are regexes
matched as word prefixes ("паспорт" covers "паспорта", "паспортні") against the raw text.
"""

from __future__ import annotations

import re

# Each entry is a regex fragment matched at a word start, case-insensitively. A trailing
# `\b` marks a cue that must be a whole word (short words that hide inside longer ones).
CUE_WORDS: dict[str, tuple[str, ...]] = {
    "RU_PASSPORT": (
        "passport", "паспорт", "серия", "серии", "серія", "серії", "выдан", "видан",
        r"удостоверени\w* личности",
    ),
    "UA_PASSPORT": ("passport", "паспорт", "серія", "серії", "серия", "серии", "видан", "выдан"),
    "UA_ID_CARD": (
        r"id[- ]?card", r"id[- ]?карт", r"айд[иі][- ]?карт", "ідентифікаційн", "идентификационн",
        "паспорт", "passport", r"номер документ", r"document (?:no|number)\b",
        r"УНЗР",
    ),
    "RU_INN": (
        r"инн\b", r"інн\b", r"inn\b", r"tin\b", "taxpayer", r"tax (?:id|number|identification)",
        r"налогов\w* номер", r"идентификационн\w* номер налогоплательщик",
    ),
    "RU_SNILS": (
        "снилс", "snils", r"страхов\w* (?:номер|свидетельств)", "пенсионн", "пенсійн",
        r"insurance (?:no|number)\b",
    ),
    "PHONE": (
        "phone", r"tel\b", "telephone", "mobile", r"cell\b", "cellphone", r"call\b", "calling",
        "text me", "whatsapp", "viber", "telegram", r"sms\b", r"fax\b", r"dial\b",
        r"my number\b", r"(?:her|his) number\b", "reach me",
        "телефон", r"тел\b", r"моб\b", "мобильн", "мобільн", "сотов", "звон", "позвон",
        "дзвон", "подзвон", "зателефону", "набери", "вотсап", "ватсап", "вайбер", "телеграм",
        r"смс\b", r"факс\b", r"мой номер\b", r"мій номер\b", r"мой новый номер\b",
        r"мій новий номер\b",
    ),
}  # fmt: skip

# Labels that say a number is something else: an order, a waybill, a price. They cancel
# one cue, so "заказ 123-456-789 12" is not a phone, while "позвони в службу заказа такси
# 8 (495) 123-45-67" still is.
ANTI_CUE_WORDS: tuple[str, ...] = (
    "заказ", "замовлен", "order", "накладн", r"ттн\b", r"ttn\b", "трек", "tracking",
    r"track\b", "invoice", r"сч[её]т-фактур", "артикул", r"sku\b", "договор",
    "contract", "ticket", "тикет", "квитанц", "receipt", r"чек\b", "рейс", "flight",
    "сумм", "amount", "цена", "ціна", "price", "total", "итого", "разом",
)  # fmt: skip

# How far (in characters) a cue may sit from the match.
BEFORE = 48
AFTER = 24
ANTI_BEFORE = 24


def _compile(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(words) + ")", re.IGNORECASE)


CUES: dict[str, re.Pattern[str]] = {name: _compile(words) for name, words in CUE_WORDS.items()}
ANTI_CUES: re.Pattern[str] = _compile(ANTI_CUE_WORDS)


def _before(text: str, start: int, width: int) -> str:
    """Up to `width` characters before `start`, cut after the nearest other digit."""
    before = text[max(0, start - width) : start]
    last_digit = max((i for i, ch in enumerate(before) if ch.isdigit()), default=-1)
    return before[last_digit + 1 :]


def has_cue(text: str, start: int, end: int, cue: re.Pattern[str]) -> bool:
    """Whether `cue` labels the span text[start:end].

    The window stops at the nearest other number on either side: in
    "паспорт 4510 123456, заказ 7701234567" the word "паспорт" belongs to the first number,
    not the second, so it must not vouch for it.
    """
    after = text[end : end + AFTER]
    first_digit = next((i for i, ch in enumerate(after) if ch.isdigit()), len(after))
    return bool(cue.search(_before(text, start, BEFORE)) or cue.search(after[:first_digit]))


def has_anti_cue(text: str, start: int) -> bool:
    """Whether the words just before `start` label it as an order, waybill, price..."""
    return bool(ANTI_CUES.search(_before(text, start, ANTI_BEFORE)))
