"""The rule extractor: profile operations from plain text, with no model at all.

The embedded model is far too small to extract JSON, so the profile must be
right with rules alone. The rules are data (one table per language, pattern ->
builder) and this module is the engine that runs them:

- the text is split into sentences; questions and hypotheticals are skipped, so
  "what is a vegetarian diet?" never sets a diet;
- each language's rules run in table order, most specific first; the span a rule
  used is masked, so "не люблю толпы" is not read again as "люблю толпы";
- items ("кино и йогу") are split, looked up in the lexicon by stem, and routed
  to the right list (a film is an interest, a steak is a liking).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from aniso.profile import allowance, lexicon, morph, vocab
from aniso.profile.delta import EVIDENCE_MAX, VALUE_MAX, Op, ProfileDelta, make_op
from aniso.profile.lexicon import Term
from aniso.profile.rules import prefilter


@dataclass(frozen=True)
class Hit:
    """What a rule made of a match, and the span of the sentence it used."""

    ops: list[Op]
    start: int
    end: int


Builder = Callable[[re.Match[str]], Hit | None]


@dataclass(frozen=True)
class Rule:
    """One pattern and what a match of it means for the profile."""

    name: str
    pattern: re.Pattern[str]
    build: Builder
    needs: prefilter.Needs = ()
    """Words any match contains (`prefilter`): without them the pattern is not run."""


def rule(name: str, pattern: str, build: Builder) -> Rule:
    compiled = re.compile(pattern, re.IGNORECASE)
    return Rule(name, compiled, build, prefilter.needs(compiled, mask=MASK))


ITEMS = r"(?P<items>[^.;!?|]+)"
"""An item list: everything up to the end of the sentence or a masked span; the
builder decides how much of it really is a list of items."""
MASK = "|"

# Side effects of liking or giving up a kind of food, by lexicon category.
IMPLIED: dict[str, dict[str, tuple[str, str]]] = {
    "spicy": {"like": ("spice", "hot"), "unlike": ("spice", "mild")},
}

_FILLERS = {
    "очень", "тоже", "также", "ещё", "еще", "особенно", "просто", "всякие", "разные",
    "мой", "моя", "мои", "моё", "мое", "свой", "свои", "про", "о", "об", "really", "also",
    "too", "especially", "the", "a", "an", "my", "some", "about", "всі", "дуже", "теж",
}  # fmt: skip
_ENDS_ITEM = frozenset("again too anymore lately nowadays recently tho though lol haha".split())
"""Words after an item that say when or how much, not what ("carrom again", "nasi goreng
too"): the item ends before them, as before a preposition."""
_ENDS_BEFORE = {
    "a": frozenset("lot bit ton little bunch".split()),
    "way": frozenset("too more less much".split()),
}
"""Words that end an item only before these ("stardew a lot", "factorio way too much"):
"vitamin a" and "the milky way" are items."""
_PRONOUNS = {
    "это", "то", "их", "его", "её", "ее", "всё", "все", "такое", "что", "it", "that",
    "this", "them", "those", "these", "everything", "you", "тебя", "вас", "you're", "when",
    "це", "їх", "так", "how", "what",
}  # fmt: skip
_PREPOSITIONS = {
    "в", "во", "на", "с", "со", "у", "для", "по", "из", "за", "при", "к", "от", "до", "когда",
    "если", "чтобы", "потому", "in", "at", "on", "for", "with", "from", "near", "around",
    "during", "when", "if", "because", "to", "than", "as", "з", "із", "коли", "бо", "after",
    "before", "until", "since", "every", "all", "online",
}  # fmt: skip
_STANCE_VERBS = {
    "love", "like", "hate", "adore", "enjoy", "dislike", "despise", "loathe", "detest", "can't",
    "cant", "don't", "dont", "not", "no", "never", "люблю", "обожаю", "ненавижу", "не", "ні",
    "обожнюю", "ненавиджу", "нет",
}  # fmt: skip
_REPLY_WORDS = {
    "answers", "answer", "replies", "reply", "responses", "response", "ответы", "ответ",
    "відповіді", "відповідь", "explanations", "format", "tone",
}  # fmt: skip
_CLAUSE_BREAK = re.compile(
    r"[.;!?|:]"
    r"|,?\s+(?:и|а|но|and|but|so|because|потому\s+что|чтобы|если|when|когда|бо|але|та|й)\s+"
    r"(?:я|i|мне|me|мені|ты|you|он|она|he|she|it|мы|we|это|це)\b"
    r"|,?\s+(?:но|а|but|however|однако|зато|але|хоча|although|though)\b"
    r"|\s+[-—–]\s+"
    r"|,\s*(?:не|not|no|я|i|мне|мені|посоветуй|предложи|подскажи|помоги|suggest|recommend)\b"
    rf"|,\s*(?:{allowance.KEPT})\b",  # "no pork, only chicken": what is left in
    re.IGNORECASE,
)
_ITEM_SPLIT = re.compile(
    r"\s*,\s*|\s+(?:и|і|та|й|and|or|или|або|либо|чи|&)\s+|\s*/\s*", re.IGNORECASE
)
_WORD = re.compile(r"[\w'ʼ’-]+")


def _pieces(text: str, offset: int) -> list[tuple[str, int, int]]:
    """`text` split into item phrases, each with its (start, end) in the fragment."""
    out = []
    position = 0
    for m in [*_ITEM_SPLIT.finditer(text), None]:
        stop = m.start() if m else len(text)
        piece = text[position:stop]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            out.append(
                (
                    piece.strip(),
                    offset + position + lead,
                    offset + position + lead + len(piece.strip()),
                )
            )
        position = m.end() if m else len(text)
    return out


def split_items(fragment: str, *, listed: bool = False) -> list[tuple[str, int, int]]:
    """The item phrases at the start of `fragment`, each with its span in it.

    The first comma-separated segment is always read; later segments only while
    every item in them is a known term, so "кино, йогу и дизайн" is a list but
    "кино, посоветуй фильм" stops after "кино". After a heading ("fav foods:") the
    fragment is `listed`: later segments are read while each looks like an item.
    """
    cut = _CLAUSE_BREAK.search(fragment)
    head = fragment[: cut.start()] if cut else fragment
    segments = head.split(",")
    phrases = _pieces(segments[0], 0)
    offset = len(segments[0]) + 1
    for segment in segments[1:]:
        parts = _pieces(segment, offset)
        if not parts or not all(_listed(phrase, listed=listed) for phrase, _, _ in parts):
            break
        phrases += parts
        offset += len(segment) + 1
    return phrases


def _listed(phrase: str, *, listed: bool) -> bool:
    """Whether a later segment's phrase continues a list: a known thing, or after a
    heading anything that looks like an item."""
    if allowance.ALLOWED.search(phrase) or _own_clause(phrase):
        return False
    return lexicon.lookup(phrase) is not None or (listed and clean_unknown(phrase) is not None)


def _own_clause(phrase: str) -> bool:
    """Whether a later segment says the user has its thing: a verb of having or of liking,
    not negated ("без обмежень, м'ясо люблю", "без молока, рыбу ем"). It is a clause,
    not one more item of the list before it. Other verbs do not end a list: a later
    segment of an allergy often tells the reaction ("алергія на горіхи, від полуниці
    теж висипає") or hedges ("здається ще на ківі")."""
    from aniso.profile.cues import LIKE_VERB_AFTER

    return allowance.eaten_in(phrase, 0, len(phrase), liking=LIKE_VERB_AFTER) is not None


def clean_unknown(phrase: str) -> str | None:
    """An item not in the lexicon, kept as said when it looks like an item: at
    most three words, cut before a preposition, not a pronoun."""
    words = [w.lower() for w in _WORD.findall(phrase)]
    while words and words[0] in _FILLERS:
        words.pop(0)
    for index, word in enumerate(words[1:], start=1):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in _PREPOSITIONS or word in _ENDS_ITEM or following in _ENDS_BEFORE.get(word, ()):
            words = words[:index]
            break
    if not words or len(words) > 3 or words[0] in _PRONOUNS or words[0] in _PREPOSITIONS:
        return None
    if words[0] in _STANCE_VERBS:  # "love arepas and hate reggaeton": a new clause
        return None
    if _function_word(words[0]):  # "оливки ненавижу как и раньше"
        return None
    if any(word in _REPLY_WORDS for word in words):  # "I like my answers short": a tone
        return None
    if len(" ".join(words)) < 2:
        return None
    return " ".join(words)


_FUNCTION = frozenset({"CONJ", "PRCL", "ADVB", "COMP", "PREP", "NPRO", "INTJ", "PRED"})
"""Parts of speech that name no thing: conjunctions, particles, adverbs, pronouns."""


def _function_word(word: str) -> bool:
    """Whether a Russian or Ukrainian word's likeliest reading is a word that names no
    thing ("как", "раньше", "вообще"). The dictionary knows every such word, where a
    hand list of them ran out; English words stay with the lists above."""
    return morph.is_cyrillic(word) and morph.part_of_speech(word) in _FUNCTION


def route(field: str, term: Term | None) -> str | None:
    """Which list a known term belongs in when said with a verb aimed at `field`."""
    if term is None:
        return field
    if field in ("likes", "interests"):
        return "interests" if term.kind == "interest" else "likes"
    if field == "avoid":
        return "avoid" if term.kind == "food" else None
    return field


def _implied(kind: str, field: str, term: Term | None, said: str) -> list[Op]:
    if term is None:
        return []
    liked = kind == "add" and field in ("likes", "interests")
    mood = "like" if liked else "unlike"
    if kind == "add" and field not in ("likes", "interests", "dislikes", "avoid"):
        return []
    ops = []
    for category in sorted(term.categories):
        implied = IMPLIED.get(category, {}).get(mood)
        if implied:
            ops.append(make_op("set", implied[0], implied[1], said))
    return ops


def items(kind: str, field: str, *, known_only: bool = False) -> Builder:
    """Add or remove each item of the match's `items` group."""

    def build(m: re.Match[str]) -> Hit | None:
        base = m.start("items")
        ops: list[Op] = []
        used = base
        for phrase, _, end in split_items(m.group("items")):
            found = lexicon.mentions(phrase)
            term = found[0].term if found else None
            if term is None and known_only:
                continue
            value = term.canonical if term else clean_unknown(phrase)
            said = phrase[found[0].start : found[0].end] if found else (value or "")
            targets = [route(field, term)]
            if kind == "remove" and term is None and field in ("likes", "interests"):
                targets = ["likes", "interests"]
            for target in targets:
                if value is None or target is None:
                    continue
                ops.append(make_op(kind, target, value, said))
                ops += _implied(kind, target, term, said)
                used = max(used, base + end)
        if not ops:
            return None
        # Items before the verb ("молочное всё ещё нельзя"): the whole match is used.
        return Hit(ops, m.start(), m.end() if base == m.start() else used)

    return build


def group(m: re.Match[str], key: str) -> tuple[str, int, int] | None:
    """The text and span of group `key` or its twin `key2` (Python forbids one name
    twice, so a pattern with two alternatives names them `v` and `v2`)."""
    for each in (key, f"{key}2"):
        if each in m.re.groupindex and m.group(each) is not None:
            return m.group(each), m.start(each), m.end(each)
    return None


def _span(m: re.Match[str]) -> tuple[int, int]:
    found = group(m, "ev")
    return (found[1], found[2]) if found else m.span()


def const(kind: str, field: str, value: str) -> Builder:
    """A fixed operation; `said` is the `said` group if the pattern has one."""

    def build(m: re.Match[str]) -> Hit | None:
        found = group(m, "said")
        said = found[0] if found else m.group()
        return Hit([make_op(kind, field, value, said.strip())], *_span(m))

    return build


def level(field: str, *, kind: str = "set") -> Builder:
    """Set (or remove) a field to the canonical form of the `v` group."""

    def build(m: re.Match[str]) -> Hit | None:
        found = group(m, "v")
        if found is None:
            return None
        said = found[0].strip()
        value = vocab.normalise(field, said)
        if value is None:
            return None
        return Hit([make_op(kind, field, value, said)], *_span(m))

    return build


def name(m: re.Match[str]) -> Hit | None:
    """A name must be capitalised as written: "call me Max", never "call me later"."""
    found = group(m, "v")
    if found is None or not found[0][:1].isupper():
        return None
    said = found[0].strip()
    return Hit([make_op("set", "name", said, said)], *m.span())


def schedule(m: re.Match[str]) -> Hit | None:
    from aniso.profile.schedule import schedule_in

    found = schedule_in(m.group())
    if not found:
        return None
    value, clause = found[0]
    start = m.group().find(clause)
    return Hit(
        [Op(kind="set", field="schedule", value=value)],
        m.start() + max(start, 0),
        m.start() + max(start, 0) + len(clause),
    )


def blocks(m: re.Match[str]) -> Hit | None:
    """A preferred length of work blocks: "короткие блоки по 10-15 минут"."""
    minutes = re.sub(r"\s*[-–—]\s*", "-", m.group("n").strip())
    note = f"short blocks of {minutes} min"
    return Hit([make_op("add", "notes", note, m.group().strip())], *m.span())


def prefers(m: re.Match[str]) -> Hit | None:
    """A standing preference no other rule understood, kept as said in the notes."""
    cut = _CLAUSE_BREAK.search(m.group("items"))
    said = (m.group("items")[: cut.start()] if cut else m.group("items")).strip(" ,")
    if not said or len(said.split()) > 8 or said.split()[0].lower() in _PRONOUNS:
        return None
    end = m.start("items") + len(m.group("items")[: cut.start()] if cut else m.group("items"))
    return Hit([make_op("add", "notes", f"prefers {said}", said)], m.start(), end)


SENTENCE_MAX = 500
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{title}\.)" for title in ("dr", "mr", "ms", "st", "mrs", "prof", "vs", "etc"))
    + r"(?<=[.!?…])\s+|\n+",
    re.IGNORECASE,
)
"""A sentence ends at . ! ? … and a space, except after a title or abbreviation ("Dr.
Okafor", "St. John's"); and at a pictograph and a space (`_after_pictographs`)."""
_GAP = re.compile(r"\s+")
_PREFIX = re.compile(
    r"^\s*(?:апдейт|update|upd|обновление|оновлення|поправка|correction|edit|p\.?s\.?)\s*[:—–-]\s*",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^\s*(?:can|could|would|will)\s+(?:you|u|ya)\b|^\s*(?:please|pls|plz)\b|^\s*(?:(?:вы|ты|ви|ти)\s+)?(?:можешь|можете|сможешь|не\s+мог\w*"
    r"\s+бы|пожалуйста|будь\s+ласка|можеш)\b",
    re.IGNORECASE,
)
_INTERROGATIVE = re.compile(
    # Openers that make a question even without "?"; words that also open statements
    # ("как всегда, ...", "when I was ...") count only with a question-like next word.
    r"^\s*(?:what(?:'s|\s+(?:is|are|does|do|should|would|about))|why|how\s+(?:to|do|does|can|should"
    r"|much|many|about)|which|who|whom|where|is|are|was|were"
    r"|does|did|isn't|aren't|should\s+i|что\s+(?:такое|значит|лучше|выбрать|посоветуешь|можно"
    r"|нужно|делать)|чем\s+отлича\w*|почему|зачем|какой|какая|какое|какие|каков\w*|сколько"
    r"|где|кто|разве|неужели|как\s+(?:сделать|приготовить|выбрать|лучше|мне|быть|понять|начать)"
    r"|можно\s+ли|есть\s+ли|нужно\s+ли|що\s+таке|чому|навіщо|який|яка|яке|які|скільки|де|хто"
    r"|чи|як\s+(?:зробити|приготувати|обрати|краще))(?![-\w])",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if\s+(?:i|we)\s+(?:\w+\s+)?(?:were|was|became|went|had|took|got|did|ate|quit"
    r"|(?!(?:need|feed|speed|bleed)\b)\w+ed)\b|if\s+(?:i|we)\s+ever|what\s+if|imagine|suppose"
    r"|если\s+бы|якби|если\s+(?:я\s+|мы\s+)?когда-нибудь|якщо\s+(?:я\s+|ми\s+)?колись"
    r"|представь\w*|допустим|предположим|уяви\w*)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """Sentences, with update prefixes ("Апдейт:", "Update:") taken off."""
    text = re.sub(r"\b([ap])\.m\.", r"\1m", text, flags=re.IGNORECASE)
    told = (part for s in _SENTENCE_END.split(text) for part in _after_pictographs(s))
    return [_PREFIX.sub("", s).strip() for s in told if s.strip()]


def _after_pictographs(text: str) -> list[str]:
    """`text` cut after each pictograph that a space follows: people end "im vegan 🌱 my
    bf eats steak though" with an emoji where they would put a full stop."""
    if text.isascii():
        return [text]
    cuts = [m.end() for m in _GAP.finditer(text) if is_pictograph(text[m.start() - 1 : m.start()])]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def is_pictograph(char: str) -> bool:
    """An emoji or other pictograph (Unicode's category So, with the joiner and the emoji
    selector that build them): the one definition the sentence splitter and the finders
    (`understand.symbols_as_spaces`) share, rather than a list of emoji ranges."""
    return bool(char) and (unicodedata.category(char) == "So" or char in "\u200d\ufe0f")


def is_statement(sentence: str) -> bool:
    """False for questions and hypotheticals, which must never change the profile.
    A request phrased as a question ("could you use tables?") still counts."""
    if _HYPOTHETICAL.search(sentence):
        return False
    if _REQUEST.search(sentence):
        return True
    return not (sentence.rstrip().endswith("?") or _INTERROGATIVE.search(sentence))


def run(
    rules: tuple[Rule, ...], sentence: str, *, table: prefilter.Index | None = None
) -> list[Op]:
    """Every op the rules find in one sentence, masking each used span. `table` is
    `prefilter.index` of the rules' needs, to skip building it per call."""
    working = sentence
    # Masking only blanks characters out, so a word missing from the sentence is
    # missing from every masked version of it too.
    may = [True] * len(rules)
    if prefilter.plain_text(sentence):
        table = table or prefilter.index([each.needs for each in rules])
        may = prefilter.candidates(table, sentence.lower())
    found: list[tuple[int, Op, str]] = []
    for each, possible in zip(rules, may, strict=True):
        if not possible:
            continue
        for m in each.pattern.finditer(working):
            hit = each.build(m)
            if hit is None:
                continue
            evidence = sentence[hit.start : hit.end].strip(" ,;:.!")
            found += [(hit.start, op, evidence) for op in hit.ops]
            working = working[: hit.start] + MASK * (hit.end - hit.start) + working[hit.end :]
    # In the order stated, so a later statement in the same sentence wins; `said`
    # defaults to the evidence, for builders that only saw the masked sentence.
    found.sort(key=lambda each: each[0])
    return [
        op.model_copy(
            update={"evidence": evidence[:EVIDENCE_MAX], "said": (op.said or evidence)[:VALUE_MAX]}
        )
        for _, op, evidence in found
    ]


def bounded(sentence: str, limit: int = SENTENCE_MAX) -> list[str]:
    """The sentence in pieces of at most `limit` characters, cut at whitespace where
    there is some. The rules' patterns scan from every position, so one 100,000-
    character "sentence" (a pasted log, a run of one letter) took minutes; nobody
    states a profile fact across five hundred characters."""
    pieces = []
    while len(sentence) > limit:
        cut = sentence.rfind(" ", limit // 2, limit)
        cut = cut if cut > 0 else limit
        pieces.append(sentence[:cut])
        sentence = sentence[cut:]
    return [*pieces, sentence]


@functools.cache
def _tables() -> tuple[tuple[Rule, ...], prefilter.Index]:
    """Every language's rules in order, and their prefilter, built on first use."""
    from aniso.profile.rules.en import RULES as EN
    from aniso.profile.rules.ru import RULES as RU

    rules = RU + EN
    return rules, prefilter.index([each.needs for each in rules])


def extract_rules(text: str) -> ProfileDelta:
    """The profile operations stated in `text`, in EN, RU and UK, by rules alone."""
    rules, table = _tables()
    ops: list[Op] = []
    for sentence in sentences(text):
        if is_statement(sentence):
            for piece in bounded(sentence):
                ops += run(rules, piece, table=table)
    # A repeated op counts once, at its last position, so the latest statement wins.
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for op in reversed(ops):
        if (op.kind, op.field, op.value) not in seen:
            seen.add((op.kind, op.field, op.value))
            kept.append(op)
    return ProfileDelta(ops=tuple(reversed(kept)))
