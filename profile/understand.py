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

from aniso.profile import cues, gate, slots
from aniso.profile.delta import EVIDENCE_MAX, VALUE_MAX, Op, ProfileDelta
from aniso.profile.model import is_list_field
from aniso.profile.rules import _tables, bounded, is_statement, run, sentences


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

    def features(
        self, message: float | None = None, held: dict[str, list[str]] | None = None
    ) -> list[str]:
        """The gate's features; `message` is the message model's probability, if any,
        and `held` the profile's current values, if known."""
        found = gate.features(
            self.sentence, self.start, self.end, self.op, self.origin, first=self.first, held=held
        )
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


_CONDITIONAL = re.compile(
    r"\s*(?:if|when|whenever|in\s+case|suppose|если|когда|коли|якщо|якби|в\s+случае|у\s+разі)(?![\w-])",
    re.IGNORECASE,
)


def stated_part(sentence: str) -> str:
    """The statement a question leans on: "у мене непереносимість лактози, які сири
    можна?" states the intolerance, then asks. Empty when the sentence is a question
    from its start ("is a vegan diet healthy, or a myth?") or hypothetical throughout."""
    cut = None
    for m in _ASKED.finditer(sentence):
        cut = m
    if cut is None:
        return ""
    head = sentence[: cut.start()].strip()
    if _CONDITIONAL.match(head):  # "if i moved to Tbilisi, would i need a visa?"
        return ""
    # Only the asker's own situation: "у сина алергія на арахіс, що дати йому?" asks
    # about the son.
    words = {w.lower().replace("’", "'") for w in re.findall(r"[\w'’]+", head)}
    if not words & gate.SELF or any(
        w in gate.OTHERS or gate.lemma_of(w) in gate.OTHERS for w in words
    ):
        return ""
    return head if len(head.split()) >= 3 and is_statement(head) else ""


READ_CHARS = 8_000
"""How much of a message the finders read. People state preferences in messages, not in
the middle of a pasted report; a 100,000-character paste with no full stops took the
finders seconds, and the message is stored whole whatever the profile reads of it."""


def candidates(text: str) -> list[Candidate]:
    """Every op proposed for `text`, in the order stated; one per (kind, field, value)
    and sentence, the rules' first."""
    found: list[Candidate] = []
    for position, whole in enumerate(sentences(_unquoted(text[:READ_CHARS]))):
        sentence = whole if is_statement(whole) else stated_part(whole)
        if not sentence:
            continue
        for piece in bounded(sentence):
            seen: set[tuple[str, str, str]] = set()
            ruled = _from_rules(piece)
            understood = [(c.start, c.end) for c in ruled]
            slotted = _from_slots(piece)
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
            used = [(c.start, c.end) for c in ruled]
            slotted = [
                c
                for c in slotted
                if c.origin not in ("cue", "request")
                or c.op.kind == "remove"
                or (c.op.key() not in said and not any(a <= c.start < b for a, b in used))
            ]
            ruled = [c for c in ruled if c.op.field not in library]
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
                if candidate.origin in ("notes", "request") and any(
                    a <= candidate.start < b for a, b in understood
                ):
                    continue  # a note is only for what nothing else understood
                seen.add(key)
                found.append(replace(candidate, first=position == 0))
    return _most_specific(found)


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
        ]
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


def _settle(kept: list[tuple[Candidate, float]]) -> list[Candidate]:
    """One reading per value: the likeliest value of a single-valued field ("moved to
    Denver, New York got too expensive" sets Denver), and a reversal over an add of
    the same item ("outgrew the soy allergy")."""
    best: dict[str, float] = {}
    for candidate, p in kept:
        if candidate.op.kind == "set" and not is_list_field(candidate.op.field):
            best[candidate.op.field] = max(best.get(candidate.op.field, 0.0), p)
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
        settled.append(candidate)
    return settled
