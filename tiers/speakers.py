"""Who said a turn, for speaker-aware matching.

A history replayed or imported from a conversation between people writes each turn
as "Name: text" (LoCoMo, another assistant storing a meeting over MCP). A question
about one of them ("what did Caroline research?") is answered by what she said: in
LoCoMo 26 and 30 and the three tuned synthetic conversations, 91-98% of the evidence
turns of a question that names one speaker are that speaker's own. BM25 gives her
name almost no weight, since it opens half the history, and a turn in which the other
speaker says "Caroline!" matches the question better than her own turns. So recall
favours the turns of the speakers a question names (`memory.SPEAKER_WEIGHT`).

A speaker is read from the text, not stored: the same prefix that shows the model who
spoke, one to three capitalised words before a colon. A history of the user's own
messages has none, and nothing changes there.

A name is matched by its form, not by a stem: the stemmer cuts "Мария" to "мар" and
"Артём" to "арт", which would name Марк and Артур too. English names do not inflect, so
an English name must be the same word; a Russian or Ukrainian one may differ by a case
ending ("Артёма", "Марине", "Соломії", "Олегові" name Артём, Марина, Соломія, Олег), or
be a form a dictionary reads as the same first name ("Павла", "Льва", "Ользі" name
Павел, Лев, Ольга; `lemmas.first_names`), since a name whose stem changes has no
common base. Only readings tagged as first names count: "Иванов" and "Гри" are forms
of "Иван" and "ігор" too, but name nobody.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aniso.tiers.entities import capitalised
from aniso.tiers.lemmas import first_names
from aniso.tiers.text import CYRILLIC

PREFIX_MAX = 64
"""Characters a speaker's prefix can take, colon and space included."""
PREFIX = re.compile(r"^\s*((?:[^\W\d_][\w'’-]*)(?:\s+[^\W\d_][\w'’-]*){0,2}):\s")
ENDINGS = frozenset(
    "а я е є и і ї ы у ю о й ь ой ей ою ею єю ом ем єм ям ам ах ях ові еві єві".split()
)
"""Russian and Ukrainian case endings of a first name, and the й, ь that other forms
drop ("Андрей"/"Андрея", "Игорь"/"Игорем"; "ём" is "ем": `_form`)."""
BASE_MIN = 2
"""Letters two forms of one name share before their endings."""


def _form(word: str) -> str:
    return word.lower().replace("ё", "е").replace("’", "'").replace("ʼ", "'")


def speaker_of(text: str) -> str | None:
    """The first word of a turn's speaker prefix, lower-cased, or None: "Caroline: hi"
    gives "caroline"; "note to self: ..." and "Remember this: ..." none."""
    if ":" not in text[:PREFIX_MAX]:
        return None  # most turns: no pattern to run
    match = PREFIX.match(text)
    if match is None:
        return None
    words = match.group(1).split()
    if not all(word[:1].isupper() for word in words):
        return None  # "Remember this: ..." is no one's name
    return _form(words[0].split("-")[0])  # "Mary-Jane" is named "Mary" in a question


def names_in(query: str) -> list[str]:
    """The names of `query` (`entities.capitalised`, and its first word, which may be a
    name too: "Anna, what did you bake?"), lower-cased and unstemmed."""
    return [_form(word) for word in capitalised(query, first=True)]


def same_name(a: str, b: str) -> bool:
    """Whether two lower-cased words are forms of one first name: a base and a case
    ending each, or singular forms of one name in a dictionary (`lemmas.first_names`:
    "Павла", "Льва" and "Ользі" change their stem, and name Павел, Лев and Ольга). The
    endings hold for names no dictionary lists ("Нейта", "Нейтом" for Нейт)."""
    if a == b:
        return True
    if not (CYRILLIC.search(a) and CYRILLIC.search(b)):
        return False
    for k in range(BASE_MIN, min(len(a), len(b)) + 1):
        if a[:k] != b[:k]:
            break
        if (a[k:] in ENDINGS or not a[k:]) and (b[k:] in ENDINGS or not b[k:]):
            return True
    return bool(_names(a) & _names(b))


def _names(word: str) -> frozenset[str]:
    return frozenset(_form(name) for name in first_names(word))


_NAME_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_POSSESSIVE = re.compile(r"(?:['’]s?)$")
NAME_STANDIN = "someone"
"""What stands for a named speaker in the query that searches by meaning (`unnamed`)."""


def unnamed(query: str, asked: set[str], standin: str = NAME_STANDIN) -> str:
    """`query` with each word naming one of the `asked` speakers replaced by `standin`
    (its possessive kept: "someone's"), or `query` as it is when none does: what the
    search by meaning mixes in (`memory.TieredMemory._query_vector` says why).

    A name of anyone else ("when did Marcus propose?") is what the question is about,
    and stays. So does a hyphenated name ("Anna-Lena" beside a speaker Anna), which is
    someone else as often as the speaker; `speaker_of` keeps only the first part of a
    hyphenated speaker's name, so "Mary-Jane" herself stays too (and gains as a speaker
    all the same). A case form two names share ("Александру" is a form of Александр and
    of Александра) is read as the speaker's, as `asked_about` reads it. The stand-in is
    English whatever the question's language: the embedder reads English only, and a
    Cyrillic question leans on its words (`memory.LEXICAL_WEIGHT_UNREAD`)."""
    swapped = False

    def swap(match: re.Match[str]) -> str:
        nonlocal swapped
        said = match.group()
        word = _POSSESSIVE.sub("", said)
        if not word[:1].isupper() or "-" in word:
            return said
        form = _form(word)
        if form in asked or any(same_name(form, speaker) for speaker in asked):
            swapped = True
            return standin + said[len(word) :] if standin else ""
        return said

    changed = _NAME_WORD.sub(swap, query)
    return " ".join(changed.split()) if swapped else query


def asked_about(names: Sequence[str], speakers: set[str]) -> set[str]:
    """The speakers among `speakers` that `names` (`names_in`) name. A name that is a
    speaker's own form names that speaker only: "Александра" is a woman's name and the
    genitive of "Александр", and with both speaking it means her."""
    found: set[str] = set()
    for name in names:
        if name in speakers:
            found.add(name)
        else:
            found |= {speaker for speaker in speakers if same_name(name, speaker)}
    return found
