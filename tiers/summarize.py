"""Summaries, gists, keywords and anchors: extractive by default, upgraded by an LLM.

The embedded model cannot summarise, so the deterministic path is the real one:
salient sentences, TF-IDF keywords, regex anchors. A capable model, when
configured, writes them instead; if it fails or returns junk, the extractive path
answers. Either way the caller passes everything through the privacy guard again.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aniso.core.ports import Complete, CompletionRequest
from aniso.tiers.text import anchors as find_anchors
from aniso.tiers.text import keywords as find_keywords
from aniso.tiers.text import sentences, stems

log = logging.getLogger(__name__)
DIGIT_RUN = re.compile(r"\+?\d+(?:[ ().-]+\d+){2,}")  # cards, phones, ids: 3+ digit groups
MAX_KEYWORDS = 12
MAX_ANCHORS = 12  # warm keeps this many; the cold capsule fewer
CAPSULE_ANCHORS = 6
GIST_WORDS = 26  # the whole gist, its "That was about ..., in <month>:" frame included
FRAME = "That was about"
"""How an extractive gist opens: its frame, then its lead, the block's most telling
sentence (`gist._unquoted_lead` reads the lead back)."""
GIST_SENTENCES = 2
CLIPPED = "…"
"""What ends a sentence cut to a word limit."""


@dataclass(frozen=True)
class Forms:
    """What compression keeps of a block."""

    summary: str  # warm: salient sentences
    gist: str  # cold: one or two sentences
    keywords: list[str]
    anchors: list[str]

    def capsule(self) -> Forms:
        """The standard cold capsule of these forms (see `capsule`)."""
        gist, keywords, anchors = capsule(self.gist, self.keywords, self.anchors)
        return Forms(summary=self.summary, gist=gist, keywords=keywords, anchors=anchors)


def capsule(
    gist: str, keywords: Sequence[str], anchors: Sequence[str]
) -> tuple[str, list[str], list[str]]:
    """The standard cold capsule, the same size whatever the block's age or source.

    Only the capsule of a cold block is searchable, so every word must earn its
    place: the gist is cut to two sentences and GIST_WORDS words; anchors are bounded,
    deduplicated (case-insensitively, and against the gist), and the ones repeated
    most in the block come first (see `extractive`); a keyword whose stems the gist
    or an anchor already holds, or a repeat, adds nothing to recall and is dropped.
    Anchors go first: "Lisbon" says more than the keyword "lisbon" (a name, a place),
    and choosing keywords first dropped every name that was also a keyword.
    """
    gist = _clip_words(" ".join(sentences(" ".join(gist.split()))[:GIST_SENTENCES]), GIST_WORDS)
    seen = set(stems(gist))
    said = gist.lower()
    kept_anchors: list[str] = []
    for anchor in anchors:
        anchor = " ".join(anchor.split())
        terms = set(stems(anchor))
        if not anchor or anchor.lower() in said or (terms and terms <= seen):
            continue
        kept_anchors.append(anchor)
        seen |= terms
        said += " " + anchor.lower()
        if len(kept_anchors) >= CAPSULE_ANCHORS:
            break
    kept_keywords: list[str] = []
    for keyword in keywords:
        terms = set(stems(keyword))
        if not keyword.strip() or not terms or terms <= seen:
            continue
        kept_keywords.append(" ".join(keyword.split()))
        seen |= terms
        if len(kept_keywords) >= MAX_KEYWORDS:
            break
    return gist, kept_keywords, kept_anchors


def salience(texts: Sequence[str]) -> list[float]:
    """How central each text is to its block: shared stems, anchors, markers, length."""
    per_text = [set(stems(text)) for text in texts]
    frequency: Counter[str] = Counter(term for terms in per_text for term in terms)
    scores = []
    for text, terms in zip(texts, per_text, strict=True):
        shared = sum(frequency[t] - 1 for t in terms) / (1 + len(terms)) ** 0.5
        scores.append(shared + 0.5 * len(find_anchors(text)) + min(len(terms), 30) / 30)
    return scores


def _clip_words(text: str, limit: int) -> str:
    parts = text.split()
    return text if len(parts) <= limit else " ".join(parts[:limit]) + CLIPPED


def _month(at: datetime) -> str:
    return at.strftime("%B %Y")


Rarity = Callable[[Sequence[str]], tuple[Counter[str], int]]
"""Given stems, how many blocks hold each, and how many blocks there are (for IDF)."""


def extractive(
    texts: Sequence[str],
    *,
    start: datetime,
    end: datetime,
    max_sentences: int = 3,
    rarity: Rarity | None = None,
) -> Forms:
    """The deterministic forms of a block from its user texts.

    With `rarity`, keywords are TF-IDF over the blocks: a word every block has (a
    speaker's name, "really") tells a capsule apart from no other.
    """
    candidates = [s for text in texts for s in sentences(text) if len(s.split()) >= 3]
    if not candidates:
        candidates = [t for t in texts if t.strip()] or [""]
    ranked_scores = salience(candidates)
    order = sorted(range(len(candidates)), key=lambda i: (-ranked_scores[i], i))
    chosen = sorted(order[:max_sentences])
    summary = " ".join(_clip_words(candidates[i], 40) for i in chosen)
    frequency, documents = rarity(stems(" ".join(texts))) if rarity else (None, 0)
    keywords = find_keywords(
        texts, limit=MAX_KEYWORDS, document_frequency=frequency, documents=documents
    )
    anchors = _ranked_anchors(texts)
    about = ", ".join(keywords[:2]) if keywords else "a conversation"
    when = _month(start) if _month(start) == _month(end) else f"{_month(start)}–{_month(end)}"
    frame = f"{FRAME} {about}, in {when}:"
    lead = _clip_words(candidates[order[0]], max(6, GIST_WORDS - len(frame.split())))
    gist = f"{frame} {lead}"
    return Forms(summary=summary, gist=gist, keywords=keywords, anchors=anchors)


def _ranked_anchors(texts: Sequence[str]) -> list[str]:
    """Anchors of the block, the ones that recur across its texts first.

    A bare group of digits cut out of a longer run ("4111" of a card number, "916"
    of a phone) is dropped: the guard sees each anchor alone and cannot recognise
    a fragment, and a fragment is no use as a memory anchor anyway.
    """
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        runs = " ".join(match.group(0) for match in DIGIT_RUN.finditer(text))
        for anchor in find_anchors(text, limit=MAX_ANCHORS):
            if anchor.strip().isdigit() and anchor.strip() in runs:
                continue
            counts[anchor] += 1
            first.setdefault(anchor, len(first))
    ranked = sorted(counts, key=lambda a: (-counts[a], first[a]))
    unique: dict[str, str] = {}
    for anchor in ranked:
        unique.setdefault(anchor.lower(), anchor)
    return list(unique.values())[:MAX_ANCHORS]


FORMS_MAX_TOKENS = 700


class LLMForms(BaseModel):
    """What a capable model returns for a block (structured output)."""

    model_config = ConfigDict(extra="forbid")
    summary: str = Field(max_length=1200)
    """Three sentences at most: what was said, decided, left open."""
    gist: str = Field(max_length=300)
    """One or two sentences: 'that was about X, in the context of Y, in <month>'."""
    keywords: list[str] = Field(max_length=MAX_KEYWORDS)
    anchors: list[str] = Field(max_length=MAX_ANCHORS)
    """Dates, names, places and numbers that must survive compression."""


def with_llm(
    texts: Sequence[str],
    *,
    start: datetime,
    end: datetime,
    complete: Complete | None,
    rarity: Rarity | None = None,
) -> tuple[Forms, str]:
    """LLM forms when a capable model answers well, else extractive; with the source."""
    fallback = extractive(texts, start=start, end=end, rarity=rarity)
    if complete is None:
        return fallback, "extractive"
    prompt = (
        "Summarise this memory of a conversation with the user. Quote only what the user "
        f"said. It spans {_month(start)} to {_month(end)}.\n\n"
        + "\n".join(f"- {t}" for t in texts)[:8000]
    )
    schema = {
        "type": "json_schema",
        "json_schema": {
            "name": "memory_forms",
            "schema": LLMForms.model_json_schema(),
            "strict": True,
        },
    }
    try:
        request = CompletionRequest(
            messages=[{"role": "user", "content": prompt}],
            max_tokens=FORMS_MAX_TOKENS,
            temperature=0.0,
            response_format=schema,
        )
        raw = complete(request)
        forms = LLMForms.model_validate(json.loads(raw))
    except (ValidationError, ValueError, TypeError) as error:
        log.warning("LLM summary unusable (%s); using the extractive one", type(error).__name__)
        return fallback, "extractive"
    except Exception as error:  # a dead model must never stop compaction
        log.warning("LLM summary failed (%s); using the extractive one", type(error).__name__)
        return fallback, "extractive"
    return Forms(
        summary=forms.summary,
        gist=forms.gist,
        keywords=forms.keywords or fallback.keywords,
        anchors=forms.anchors or fallback.anchors,
    ), "llm"
