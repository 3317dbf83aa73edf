"""The profile extractor the chat loop uses: propose generously, then let the gate judge.

Two stages, because they fail in different ways and are fixed in different ways:

1. **Proposals.** The rule tables (`profile.rules`), the gazetteer (`profile.places`),
   the name finder and the reversal and note finders (`profile.slots`) each propose ops
   with the span that supports them. They answer *what* a sentence could mean for the
   profile, and can afford to be generous.
2. **The gate** (`profile.gate`), a small trained model, answers *whether* the sentence
   states the user's own standing preference, from the words around the span.

Questions and hypotheticals are refused before either stage, as before (`rules.is_statement`).
Everything is deterministic and offline; a capable model, when configured, still adds
what this missed (`delta.merge_deltas`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from aniso.profile import conflicts, cues, gate, measures, morph, slots
from aniso.profile.delta import EVIDENCE_MAX, VALUE_MAX, Op, ProfileDelta
from aniso.profile.model import is_list_field
from aniso.profile.rules import _tables, bounded, is_pictograph, is_statement, run, sentences


@dataclass(frozen=True)
class Candidate:
    """A proposed op with the sentence and span it came from."""

    op: Op
    sentence: str
    start: int
    end: int
    origin: str
    first: bool = True
    """Whether the sentence opens the message: a later one is more often an aside."""
    covers: bool = False
    """For a note: whether its words hold another field's proposal ("tables whenever you
    compare stuff" holds the format), so the note may only repeat what a field says."""

    def features(
        self, message: float | None = None, held: dict[str, list[str]] | None = None
    ) -> list[str]:
        """The gate's features; `message` is the message model's probability, if any,
        and `held` the profile's current values, if known."""
        found = gate.features(
            self.sentence, self.start, self.end, self.op, self.origin, first=self.first, held=held
        )
        if self.op.field == "notes" and self.op.kind == "add":
            found.append("x:note:covers" if self.covers else "x:note:alone")
        if self.origin == "rules":
            # A rule's whole phrasing is its evidence, and a request can carry a standing
            # constraint ("составь рутину, у меня есть время 06:30-08:30"): what the rest
            # of the message is about does not unsay it.
            return found
        return found + gate.message_features(message, self.op.field)


def _from_rules(piece: str) -> list[Candidate]:
    rules, table = _tables()
    found = []
    for op in run(rules, piece, table=table):
        start = piece.find(op.evidence) if op.evidence else -1
        start = max(start, 0)
        end = start + len(op.evidence) if op.evidence else len(piece)
        found.append(Candidate(op, piece, start, end, "rules"))
    return found


def _from_slots(piece: str) -> list[Candidate]:
    found = []
    finders = (
        slots.timezone,
        slots.name,
        slots.reversals,
        *cues.FINDERS,
        measures.measures,
        slots.notes,
        slots.note_removals,
    )
    for finder in finders:
        for proposal in finder(piece):
            evidence = piece[proposal.start : proposal.end].strip()
            op = proposal.op.model_copy(
                update={
                    "evidence": evidence[:EVIDENCE_MAX],
                    "said": (proposal.op.said or evidence)[:VALUE_MAX],
                }
            )
            found.append(Candidate(op, piece, proposal.start, proposal.end, proposal.origin))
    return found


_QUOTED = re.compile(
    r"«[^»]*»|“[^”]*”|„[^“”]*[“”]|\"[^\"]*\""
    # Single quotes hold apostrophes inside words: 'i'm allergic to cats', 'we're in'.
    r"|(?<!\w)'(?=\S)(?:[^']|(?<=\w)'(?=\w))*?(?<=\S)'(?!\w)"
)
_TRANSLATE = re.compile(
    r"\btranslat\w*|(?<![\w-])(?:переведи\w*|перевед\w*|переклад\w*|перекладіть)(?![\w-])",
    re.IGNORECASE,
)


def _translating(piece: str, candidate: Candidate) -> bool:
    """Whether a language the piece names is the one to translate into: a word of
    translating in the same part of the sentence, between commas or dashes."""
    if candidate.op.field != "language":
        return False
    part = next(
        (p for p in _SENTENCE_PART.finditer(piece) if p.start() <= candidate.start < p.end()),
        None,
    )
    return bool(_TRANSLATE.search(part.group() if part else piece))


_SENTENCE_PART = re.compile(r"[^,;—–]+")


def _unquoted(text: str) -> str:
    """The message with what it quotes left out: quoted words are someone's (a forwarded
    "'Hi all, Jess here! I'm allergic to kiwi'"), and a quote can hold several sentences,
    which the finders read one at a time. The quotation marks stay, so the sentence
    around still reads as reporting words."""
    return _QUOTED.sub(lambda m: m.group()[0] + "…" + m.group()[-1], text)


def _quoted(sentence: str) -> list[tuple[int, int]]:
    """Spans in quotation marks: someone's words ("my coworker said 'I'm vegan!'") or
    text to translate, never the user's statement about themselves."""
    return [m.span() for m in _QUOTED.finditer(sentence)]


_ASKED = re.compile(r"(?:,|\s[—–-])\s+(?=[^,—–]*\?\s*$)")
"""Where a question that ends the sentence begins: at its last comma or dash."""

_CLAUSE = re.compile(
    r"\s*(?:[,;]|\s[—–-])\s*|\s+(?:but|while|whereas|а|але|но|зато|проте)\s+", re.IGNORECASE
)
"""Where one clause of a statement ends and the next begins: "my wife loves everything
fiery but I can only handle mild", "живу в Ужгороді, а сестра в Дубліні"."""

_TAG = re.compile(
    r"(?:,\s*|\s+)(?:ok|okay|k|right|yeah|ок|окей|хорошо|ладно|добре|домовились"
    r"|договорились|лады|годится|норм|да|так)\s*\?+\s*$",
    re.IGNORECASE,
)
"""A tag that makes a statement or a request sound like a question: "пиши на ты и
коротко, ок?", "reply in bullets from now on, ok?"."""

_ASKS_ME = re.compile(
    r"(?<![\w-])(?:(?:can|could|would|will)\s+(?:you|u|ya)(?![\w-])|(?:можно|можна|можешь|можете"
    r"|можеш)\s+(?:ты|ви|вы|ти|мне|мені|будь\s+ласка|пожалуйста|(?:(?:трохи|трошки|чуть|чуточку"
    r"|немного|немножко)\s+)?(?:по)?\w+(?:ше|ще|ее|ей|че)(?![\w-])))",
    re.IGNORECASE,
)
"""A request put as a question, anywhere in the sentence: "i'll write in english but can
you answer in ukrainian?", "можно ты будешь отвечать на английском?", "можна трохи
тепліше?"."""

_CONDITIONAL = re.compile(
    r"\s*(?:if|when|whenever|in\s+case|suppose|если|когда|коли|якщо|якби|в\s+случае|у\s+разі)(?![\w-])",
    re.IGNORECASE,
)


def _about_self(clause: str) -> bool:
    """Whether the user is the subject the clause speaks of: "I", "we", or a verb in
    the first person ("живу в Ужгороді"); and no one else is named in it."""
    words = {
        w.lower().replace("’", "'") for w in re.findall(r"[\w'’]+", gate.still_as_adverb(clause))
    }
    if any(w in gate.OTHERS or gate.lemma_of(w) in gate.OTHERS for w in words):
        return False
    return bool(words & (gate.SELF | gate.WE)) or any(
        morph.is_cyrillic(w) and morph.is_first_person_verb(w) for w in words
    )


def stated_parts(sentence: str) -> list[str]:
    """The statements a question leans on: "у мене непереносимість лактози, які сири
    можна?" states the intolerance, then asks; "my wife loves everything fiery but I can
    only handle mild, what's a curry…?" states the user's own taste beside someone
    else's. Each clause of the head counts alone, so another person's clause no longer
    silences the user's. A request asked as a question ("…, can you answer in
    ukrainian?") or with a tag ("пиши коротко, ок?") is a request. Empty when the
    sentence is a question from its start ("is a vegan diet healthy, or a myth?") or
    hypothetical throughout."""
    untagged = _TAG.sub("", sentence)
    if untagged != sentence and untagged.strip() and is_statement(untagged):
        return [untagged]
    breaks = [m.start() for m in _ASKED.finditer(sentence)]
    parts: list[str] = []
    head = sentence[: breaks[-1]].strip() if breaks else ""
    if _CONDITIONAL.match(head):  # "if i moved to Tbilisi, would i need a visa?"
        return []
    if len(head.split()) >= 3 and is_statement(head) and _about_self(head):
        parts.append(head)
    elif head:
        for clause in _CLAUSE.split(head):
            clause = clause.strip()
            if len(clause.split()) >= 2 and is_statement(clause) and _about_self(clause):
                parts.append(clause)
    request = _ASKS_ME.search(sentence)
    if request is not None and request.start() > 0:
        # Asked after a statement: ", can you…", "but can you…".
        if not _LEADS_TO_ASK.search(sentence[: request.start()]):
            request = None
    if request is not None:
        asked = sentence[request.start() :]
        if not parts and _one_off_head(sentence, request.start()):
            # "Just this once, can you make it a table?": the occasion heads the request,
            # and the gate is to read it there.
            asked = sentence
        if not _HYPOTHETICAL_ASK.search(asked) and asked.strip() not in parts:
            parts.append(asked.strip())
    return parts


_OCCASION_HEAD = re.compile(
    r"\W*(?:(?:ok(?:ay)?|so|hey|well|and|but|ну|ок|так|слушай|слухай)\W+)*"
    r"(?:(?:just|only|только|лише|тільки)\s+)?(?:" + gate.ONCE.pattern + r")\s*",
    re.IGNORECASE,
)
"""A head that is the occasion and nothing else, once the comma or conjunction that
leads to the request (`_LEADS_TO_ASK`) is taken off: "just this once, …", "ok so
today, …", "на этот раз, …"; not "not only today, …", "from today on, …" or "today's
answers were too long, …"."""

_KEEP = re.compile(
    r"(?<![\w-])(?:remember|note|keep\s+in\s+mind|permanently|forever|for\s+good"
    r"|запомни\w*|запам.ята\w*|навсегда|назавжди)(?![\w-])",
    re.IGNORECASE,
)
"""Words that ask for a thing to be kept, which no occasion before them makes a one-off
("tonight, can you note that i'm allergic to peanuts?")."""


def _one_off_head(sentence: str, request: int) -> bool:
    """Whether the words before a request are only an occasion ("just this once, can
    you …"), and nothing in the sentence says the request stands (`slots` reads
    "always", "from now on", "завжди") or is to be kept."""
    return bool(
        _OCCASION_HEAD.fullmatch(_LEADS_TO_ASK.sub("", sentence[:request]))
        and not slots.STANDING.search(sentence)
        and not _KEEP.search(sentence)
    )


_LEADS_TO_ASK = re.compile(r"(?:[,—–-]|\b(?:but|so|and|а|але|но|і|и|то))\s*$", re.IGNORECASE)
_HYPOTHETICAL_ASK = re.compile(r"\b(?:what\s+if|if\s+i|если\s+я|якщо\s+я)\b", re.IGNORECASE)


READ_CHARS = 8_000
"""How much of a message the finders read. People state preferences in messages, not in
the middle of a pasted report; a 100,000-character paste with no full stops took the
finders seconds, and the message is stored whole whatever the profile reads of it."""


def candidates(text: str) -> list[Candidate]:
    """Every op proposed for `text`, in the order stated; one per (kind, field, value)
    and sentence, the rules' first."""
    found: list[Candidate] = []
    told = sentences(_unquoted(text[:READ_CHARS]))
    for position, whole in enumerate(told):
        parts = [whole] if is_statement(whole) else stated_parts(whole)
        for written in (piece for part in parts for piece in bounded(part)):
            piece = symbols_as_spaces(written)
            seen: set[tuple[str, str, str]] = set()
            ruled = _from_rules(piece)
            understood = [(c.start, c.end) for c in ruled]
            slotted = _from_slots(piece)
            if not any(c.op.field == "timezone" for c in slotted):
                slotted += _here(told[:position], piece)
            # The gazetteer and the dictionaries know places and names better than a
            # pattern's capture does ("Оксаной" is "Оксана").
            library = {c.op.field for c in slotted if c.origin in ("place", "name")}
            # Where a rule and a cue finder say the same, or read the same words, the
            # rule's reading stands: its span is used, as the rules mask it for each other.
            # The exception is taking something back: a pattern that reads "avoiding
            # beef" in "not avoiding beef anymore" has missed the point, so a finder's
            # removal of the same item replaces the rule's addition.
            taken_back = {(c.op.field, c.op.value) for c in slotted if c.op.kind == "remove"}
            ruled = [
                c for c in ruled if c.op.kind != "add" or (c.op.field, c.op.value) not in taken_back
            ]
            said = {c.op.key() for c in ruled}
            # A rule's note is what no slot understood: it masks nothing. Nor does a time
            # the schedule rules read from the whole sentence: "розпиши рутину з 6 до 8 і
            # без кави" is a schedule and no coffee.
            used = [(c.start, c.end) for c in ruled if c.op.field not in ("notes", "schedule")]
            slotted = [
                c
                for c in slotted
                if c.origin not in ("cue", "request")
                or c.op.kind == "remove"
                or (c.op.key() not in said and not any(a <= c.start < b for a, b in used))
            ]
            ruled = [c for c in ruled if c.op.field not in library]
            # "предпочитаю официальный тон": the tone, not a note that quotes it.
            ruled = [
                c
                for c in ruled
                if c.op.field != "notes"
                or not any(c.start <= s.start < c.end for s in slotted if s.op.field != "notes")
            ]
            quoted = _quoted(piece)
            ruled = [c for c in ruled if not any(a <= c.start < b for a, b in quoted)]
            slotted = [c for c in slotted if not any(a <= c.start < b for a, b in quoted)]
            # "translate into Ukrainian" is not a reply language; "switch back to Ukrainian,
            # I'll translate the letters myself" is.
            ruled = [c for c in ruled if not _translating(piece, c)]
            slotted = [c for c in slotted if not _translating(piece, c)]
            named = [(c.start, c.end) for c in slotted if c.origin == "name"]
            slotted = [
                c
                for c in slotted
                if c.origin != "place-bare" or not any(a < c.end and c.start < b for a, b in named)
            ]
            proposed = sorted(ruled + slotted, key=lambda c: c.start)
            for candidate in proposed:
                key = (candidate.op.kind, candidate.op.field, candidate.op.value)
                if key in seen:
                    continue
                if candidate.origin in ("notes", "standing", "request") and any(
                    a <= candidate.start < b for a, b in understood
                ):
                    continue  # a note is only for what nothing else understood
                seen.add(key)
                if candidate.op.field == "notes":
                    candidate = replace(candidate, covers=_covers(candidate, proposed))
                if written != piece:  # what stood for a pictograph is no part of a value
                    candidate = replace(candidate, op=_squeezed(candidate.op))
                found.append(replace(candidate, sentence=written, first=position == 0))
    return _most_specific(found)


def _covers(note: Candidate, proposed: list[Candidate]) -> bool:
    """Whether another field's proposal lies within the note's span."""
    return any(
        c.op.field != "notes" and note.start <= c.start and c.end <= note.end for c in proposed
    )


def symbols_as_spaces(text: str) -> str:
    """`text` with each emoji or other pictograph a space, so a finder reads "hey 👋 im
    Kenji" as it reads "hey im Kenji": a pictograph stands between words as punctuation
    does, and no pattern can list them all. Same length, so spans stay where they were;
    the gate still reads the sentence as written (an eye-roll is a cue of sarcasm)."""
    if text.isascii():
        return text
    return "".join(" " if is_pictograph(char) else char for char in text)


def _squeezed(op: Op) -> Op:
    """`op` with the runs of spaces that stood for pictographs made one: a note keeps
    the user's words, not the gaps between them."""
    return op.model_copy(
        update={
            "value": " ".join(op.value.split()),
            "said": " ".join(op.said.split()),
            "evidence": " ".join(op.evidence.split()),
        }
    )


HERE_REACH = 200
"""How much of the sentence before "here" is read for its place, in characters."""


def _here(earlier: list[str], piece: str) -> list[Candidate]:
    """Where "here" is, when a statement with no place of its own says the user lives
    here: the place of the nearest earlier sentence, often a question ("куди піти на
    обід в Харкові? я тут живу"), read as if the two were said together."""
    if not gate.HERE.search(piece):
        return []
    for before in reversed(earlier[-2:]):
        # Its end is what "here" points back to; a pasted page before it is not read again.
        said = before.rstrip(" ?!.")[-HERE_REACH:]
        joined = f"{said[said.find(' ') + 1 :] if len(said) == HERE_REACH else said}, {piece}"
        found = [c for c in _from_slots(joined) if c.op.field == "timezone"]
        if found:
            return found
    return []


def _most_specific(found: list[Candidate]) -> list[Candidate]:
    """One value per thing named: in "my favourite tea is jasmine green tea" the lexicon
    finds "tea" and "green tea", and the user likes one thing, the more specific. An add
    to a list field is dropped when another add of the same sentence and field holds it
    as whole words."""
    adds = [(c.sentence, c.op.field, c.op.value) for c in found if c.op.kind == "add"]

    def general(c: Candidate) -> bool:
        if c.op.kind != "add" or not is_list_field(c.op.field):
            return False
        return any(
            sentence == c.sentence
            and field == c.op.field
            and value != c.op.value
            and gate.holds(value, c.op.value)
            for sentence, field, value in adds
        )

    return [c for c in found if not general(c)]


def understand(
    text: str, *, model: gate.Model | None = None, held: dict[str, list[str]] | None = None
) -> ProfileDelta:
    """The profile operations `text` states about the user (EN, RU, UK); `held` is the
    profile's current values (`Profile.as_values`), which tell an update from news."""
    judge = model or gate.load()
    proposed = candidates(text)
    message = judge.message_probability(text) if judge and proposed else None
    scored = [(c, judge.probability(c.features(message, held)) if judge else 1.0) for c in proposed]
    kept = _settle(
        [
            (c, p)
            for c, p in scored
            if judge is None or p >= judge.cut(c.origin, c.op.kind, c.op.field)
        ],
        held or {},
    )
    # A repeated op counts once, at its last position, so the latest statement wins.
    seen: set[tuple[str, str, str]] = set()
    ops: list[Op] = []
    for candidate in reversed(kept):
        op = candidate.op
        if (op.kind, op.field, op.value) not in seen:
            seen.add((op.kind, op.field, op.value))
            ops.append(op)
    return ProfileDelta(ops=tuple(reversed(ops)))


def _is_heat(value: str) -> bool:
    """Whether a value names heat itself ("spicy food"), not a dish that has it."""
    return conflicts.CATEGORY_NAMES.get(value) == "spicy"


def _settle(kept: list[tuple[Candidate, float]], held: dict[str, list[str]]) -> list[Candidate]:
    """One reading per value: the likeliest value of a single-valued field ("moved to
    Denver, New York got too expensive" sets Denver), a reversal over an add of the
    same item ("outgrew the soy allergy"), and no avoided food that the diet already
    rules out ("я пескетарианка, рыбу ем, мясо нет": the meat is the diet's, and an
    "avoid meat" of its own would outlive a return to meat), nor spicy food liked or
    disliked beside a spice level."""
    best: dict[str, float] = {}
    for candidate, p in kept:
        if candidate.op.kind == "set" and not is_list_field(candidate.op.field):
            best[candidate.op.field] = max(best.get(candidate.op.field, 0.0), p)
    said = [(c.op.kind, c.op.value, p) for c, p in kept if c.op.field == "diet"]
    # The diet this message leaves: its own, none if it drops one, else the one held.
    diets = [v for kind, v, p in said if kind == "set" and p >= best["diet"]]
    if not said:
        diets = held.get("diet", [])[:1]
    bans = [b for b in (conflicts.ban("diet", d) for d in diets) if b is not None]
    spice = "spice" in best or bool(held.get("spice"))
    reversed_items = {
        (c.op.field, c.op.value)
        for c, _ in kept
        if c.op.kind == "remove" and c.origin == "reversal"
    }
    settled = []
    for candidate, p in kept:
        op = candidate.op
        if op.kind == "set" and not is_list_field(op.field) and p < best[op.field]:
            continue
        if op.kind == "add" and (op.field, op.value) in reversed_items:
            continue
        if op.kind == "add" and op.field == "avoid" and any(b.forbids(op.value) for b in bans):
            continue
        if op.kind == "add" and op.field in ("likes", "dislikes") and spice and _is_heat(op.value):
            continue  # "острое люблю средне": how hot is the spice level's to say
        settled.append(candidate)
    return settled
