"""A same-length "folded" copy of the text for the recognizers to read.

Numbers pasted from banking apps and web pages arrive with no-break or thin spaces
between digit groups, sometimes zero-width joiners or full-width digits; a user can also
type them on purpose. Recognizers written for ASCII would miss them. Folding maps each
such character to its plain equivalent one-for-one, so every offset found in the folded
copy is valid in the original, which is what gets redacted.

Lone surrogates (possible in strings decoded with errors="surrogateescape") crash
spaCy's tokenizer; they become U+FFFD.
"""

from __future__ import annotations

import functools
import unicodedata

_SPACES = "\t\x0b\x0c\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
_SPACES += "\u200a\u202f\u205f\u3000"
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_HYPHENS = "\u2010\u2011\u2012\u2212\ufe63\uff0d"
_ASCII_SPACES = {ord(ch): " " for ch in "\t\x0b\x0c"}


@functools.cache
def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for ch in _SPACES + _INVISIBLE:
        table[ord(ch)] = " "
    for ch in _HYPHENS:
        table[ord(ch)] = "-"
    for code in (*range(0x80, 0x10000), *range(0x1D7CE, 0x1D800)):
        if 0xD800 <= code <= 0xDFFF:
            table[code] = "\ufffd"
            continue
        value = unicodedata.decimal(chr(code), None)
        if value is not None:
            table[code] = str(value)
    table[0xFF0B] = "+"  # full-width plus, as in "＋７ ９１２ ..."
    return table


def fold(text: str) -> str:
    """`text` with exotic spaces, hyphens and digits made ASCII; same length, same offsets."""
    if text.isascii():
        return text.translate(_ASCII_SPACES)
    folded = text.translate(_table())
    assert len(folded) == len(text)  # every mapping is one character to one character
    return folded
