"""Checks on what a user sends, so bad input gets a clear error and loses nothing."""

from __future__ import annotations

import re

from aniso.core.errors import InputError

MAX_MESSAGE_CHARS = 100_000
_ALLOWED_CONTROLS = {"\n", "\r", "\t"}
# Lone UTF-16 surrogates: a Python str can hold them (a paste, a JSON "\ud800"), but
# UTF-8 cannot, so SQLite, the tokenizers and every export would fail on them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_message(text: str, *, max_chars: int = MAX_MESSAGE_CHARS) -> str:
    """Return the message ready to store, or raise InputError saying what is wrong.

    A message is refused before anything is stored when it is empty, longer than
    `max_chars` (a pasted file, most likely) or binary. Stray control characters
    are dropped rather than refused: terminals produce them by accident; lone
    surrogates become U+FFFD, the replacement character.
    """
    if "\x00" in text:
        raise InputError("the message contains NUL bytes; it looks like binary data, not text")
    cleaned = "".join(ch for ch in text if ch >= " " or ch in _ALLOWED_CONTROLS)
    cleaned = _SURROGATE.sub("\ufffd", cleaned)
    cleaned = cleaned.replace("\r\n", "\n").strip()
    if not cleaned:
        raise InputError("the message is empty; type some text")
    if len(cleaned) > max_chars:
        raise InputError(
            f"the message is {len(cleaned):,} characters; the limit is {max_chars:,}. "
            "Split it, or summarise the document first"
        )
    return cleaned


def decode_input(raw: bytes, *, source: str = "stdin") -> str:
    """Decode bytes as UTF-8, naming the source and the first bad byte if it fails."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = raw[error.start : error.start + 1].hex()
        raise InputError(
            f"{source} is not valid UTF-8 (byte 0x{bad} at offset {error.start}); "
            "send text in UTF-8"
        ) from None
