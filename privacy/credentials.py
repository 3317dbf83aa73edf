"""Secrets: passwords, PINs, API keys and tokens.

Two very different signals. Vendor tokens (sk-..., ghp_..., AKIA..., JWTs) carry their
own unmistakable prefix and are caught anywhere. Passwords have no shape at all, so we
rely on the user labelling them ("password: hunter2", "мой пароль от почты — Sup3rS3cret")
and redact only the value after the label, never the label itself: the stored memory
should still say that a password was mentioned.

How much we demand of the value depends on how clearly it was labelled: after ":" or "="
nearly anything goes; after "is"/"это"/"—" it must look like a password (digits, symbols
or inner capitals) so that "my password is wrong" stays intact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from aniso.privacy.hits import Hit

SCORE = 0.9
VENDOR_SCORE = 0.95

_TOKEN_CHARS = r"[A-Za-z0-9_\-]"
VENDOR_TOKENS = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-|admin-)?" + _TOKEN_CHARS + r"{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{22,}"
    r"|glpat-" + _TOKEN_CHARS + r"{20,}"
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}"
    r"|xox[abprse]-[A-Za-z0-9\-]{10,}"
    r"|eyJ" + _TOKEN_CHARS + r"{8,}\." + _TOKEN_CHARS + r"{8,}\." + _TOKEN_CHARS + r"{8,}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|\d{8,10}:AA" + _TOKEN_CHARS + r"{30,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"
    r")(?![A-Za-z0-9_\-])"
)

_BEARER = re.compile(r"(?<!\w)bearer\s+([A-Za-z0-9._~+/=\-]{16,})", re.IGNORECASE)

# Label words. The group name says what the value must look like.
_KEYWORD = re.compile(
    r"(?<![A-Za-zА-Яа-яІіЇїЄєҐґ0-9])(?:"
    r"(?P<pin>pin(?:[- ]?(?:code|код))?|пин(?:[- ]?код)?\w*|пін(?:[- ]?код)?\w*|cvv2?|cvc2?"
    r"|код безопасности|код безпеки)"
    r"|(?P<password>passwords?|passwd|passcode|passphrase|pwd|парол[ьяюеиі]\w*|гасло)"
    r"|(?P<short>pass|pw)"
    r"|(?P<key>api[ _-]?keys?|apikey|api[ _-]?token|access[ _-]?(?:key|token)"
    r"|secret(?:[ _-]?key)?|client[ _-]?secret|auth[ _-]?token|tokens?"
    r"|токен\w*|ключ\w*|api[ -]?ключ\w*|секрет(?!ар)\w*)"
    r")(?![A-Za-zА-Яа-яІіЇїЄєҐґ])",
    re.IGNORECASE,
)

_STRONG_SEP = re.compile(r"[ \t]*[:=][ \t]*\n?[ \t]*")
_WEAK_SEP = re.compile(
    r"[ \t]*(?:[—–]|(?<=\s)-{1,2}(?=\s)|(?<=\s)(?:is|was|это|будет|це|буде)(?=\s))[ \t]*",
    re.IGNORECASE,
)
_QUOTES = "\"'«»“”‘’`"
_VALUE = re.compile(
    r"(?:[\"'«“‘`](?P<quoted>[^\"'»”’`\n]{1,200})[\"'»”’`]|(?P<bare>[^\s\"'«»“”‘’`]{1,200}))"
)
_GAP_WORD = re.compile(
    r"[ \t]+(?:[\"'«“‘`](?P<quoted>[^\"'»”’`\n]{3,200})[\"'»”’`]|(?P<word>[^\s:=]{1,40}))"
)
_MAX_GAP = 3  # words allowed between the label and its separator or value
# "pass"/"pw" are labels only when a separator follows at once, and not in these phrases.
_NOT_A_PASSWORD_BEFORE = re.compile(r"(?:boarding|bus|season|ski|day|guest|press)\s*$", re.I)
_TRAILING = ".,;:)]}>"

# Words that follow "password:" in ordinary sentences and are not passwords.
_NOT_VALUES = frozenset(
    """reset changed change required expired incorrect wrong forgot forgotten none null
    empty hidden same below above sent here this that not no yes is the for and or
    сброшен сброшён изменен изменён забыл забыла неверный не нет да такой тот этот от
    для и или тут здесь змінено забув забула невірний ні так від до для тут""".split()
)

_TOKEN_VALUE = re.compile(r"[A-Za-z0-9_\-./+=:~]+")


def _complex(value: str) -> bool:
    """Looks machine- or deliberately-made: a digit, a symbol, or an inner capital."""
    return (
        any(ch.isdigit() for ch in value)
        or any(not ch.isalnum() for ch in value)
        or any(ch.isupper() for ch in value[1:])
    )


def _acceptable(kind: str, value: str, label: str) -> bool:
    """Whether `value` is plausibly the secret that `label` ("strong", "weak", "adjacent")
    introduced, for a keyword of `kind`."""
    if kind == "pin":
        return value.isdigit() and 3 <= len(value) <= 8
    if kind == "key":
        minimum = 8 if label == "strong" else 12
        has_digit = any(ch.isdigit() for ch in value)
        return (
            len(value) >= minimum
            and _TOKEN_VALUE.fullmatch(value) is not None
            and (has_digit or len(value) >= 16)
        )
    if value.lower() in _NOT_VALUES or len(value) < 3:
        return False
    if label == "strong":  # after ":" a short plain word is more likely prose than a password
        return len(value) >= 4 or _complex(value)
    if label == "weak":
        return len(value) >= 4 and _complex(value)
    digits = sum(ch.isdigit() for ch in value)
    letters = sum(ch.isalpha() for ch in value)
    return len(value) >= 6 and digits > 0 and (letters > 0 or digits == len(value))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while end - start > 3 and text[end - 1] in _TRAILING:
        end -= 1
    while end - start > 3 and text[start] in _QUOTES:
        start += 1
    while end - start > 3 and text[end - 1] in _QUOTES:
        end -= 1
    return start, end


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    group = "quoted" if match.group("quoted") is not None else "bare"
    return match.span(group)


def _after_label(text: str, kind: str, pos: int) -> Hit | None:
    """The value introduced by a label ending at `pos`, if it looks like one."""
    words: list[tuple[int, int, str]] = []
    for _ in range(_MAX_GAP + 1):
        sep = _STRONG_SEP.match(text, pos) or _WEAK_SEP.match(text, pos)
        if sep:
            strength = "strong" if sep.re is _STRONG_SEP else "weak"
            value = _VALUE.match(text, sep.end())
            if value is None or (kind == "short" and (strength == "weak" or words)):
                return None
            start, end = _trim(text, *_value_span(value))
            ok = _acceptable(kind, text[start:end], strength)
            return Hit(start, end, SCORE) if ok else None
        word = _GAP_WORD.match(text, pos)
        if not word:
            break
        quoted = word.group("quoted") is not None
        start, end = _trim(text, *word.span("quoted" if quoted else "word"))
        words.append((start, end, "strong" if quoted else "adjacent"))
        pos = word.end()
    if kind == "short":
        return None
    # No separator: the value may follow the label directly ("пароль qwerty123"), possibly
    # after a few words ("пароль от почты Sup3rS3cret"), or quoted ("пароль 'a b c'").
    for start, end, strength in words:
        if _acceptable(kind, text[start:end], strength):
            return Hit(start, end, SCORE)
    return None


def _labelled(text: str) -> Iterator[Hit]:
    for keyword in _KEYWORD.finditer(text):
        kind = keyword.lastgroup or "password"
        before = text[max(0, keyword.start() - 16) : keyword.start()]
        if kind == "short" and _NOT_A_PASSWORD_BEFORE.search(before):
            continue
        hit = _after_label(text, kind, keyword.end())
        if hit is not None:
            yield hit


def find_secrets(text: str) -> list[Hit]:
    """Vendor tokens anywhere, plus values explicitly labelled as passwords, PINs or keys."""
    hits = [Hit(m.start(), m.end(), VENDOR_SCORE) for m in VENDOR_TOKENS.finditer(text)]
    hits += [Hit(m.start(1), m.end(1), VENDOR_SCORE) for m in _BEARER.finditer(text)]
    hits += _labelled(text)
    return hits
