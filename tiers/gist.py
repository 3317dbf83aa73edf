"""Shallow unpacking: how an old memory is shown when nothing asked for its detail.

DESIGN §3: a warm item is given as it is, marked incomplete; a cold item as its
capsule, the gist with the anchors (dates, names, places, numbers) and the keywords
the query matched, in words. The block stays where it is: nothing is restored,
re-embedded or touched. The anchors are rendered because they are what the gist
was built to keep: a capsule found through a city's name used to tell the model
nothing about that city.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import sqlite_utils

from aniso.core.db import select_in
from aniso.core.tokens import count_tokens
from aniso.tiers.memory import FORM_OF_TIER
from aniso.tiers.model import MemoryItem, Quote, quoted
from aniso.tiers.summarize import CLIPPED, FRAME
from aniso.tiers.text import sentences, stems


def render(
    gist: str,
    keywords: Sequence[str],
    anchors: Sequence[str],
    query: str,
    quotes: Sequence[Quote] = (),
) -> str:
    """A capsule in words: the gist, its anchors (those the query named first; with
    quotes, only those), then the archived turns that matched, word for word, or else
    the keywords that did."""
    asked = set(stems(query))

    def matched(word: str) -> bool:
        return bool(set(stems(word)) & asked)

    lines = [_unquoted_lead(gist.strip(), quotes)]
    ordered = sorted(anchors, key=lambda anchor: not matched(anchor))
    if quotes:
        # The quoted turns say what matched in the user's words; an anchor beside them
        # earns its tokens only when the query named it.
        ordered = [anchor for anchor in ordered if matched(anchor)]
    if ordered:
        lines.append("Mentioned: " + ", ".join(ordered) + ".")
    hits = [word for word in keywords if matched(word)]
    hits += [anchor for anchor in anchors if matched(anchor) and anchor not in hits]
    if quotes:
        # The turns themselves show what matched, in fuller words than keywords.
        lines.append(quoted(quotes))
    elif hits:
        lines.append("Matched: " + ", ".join(hits) + ".")
    return "\n".join(line for line in lines if line)


LEAD_WORDS = 3


def _unquoted_lead(gist: str, quotes: Sequence[Quote]) -> str:
    """The gist without its lead when a quote says that sentence itself. The extractive
    gist is a frame ("That was about …, in <month>:") and the block's most telling
    sentence, which is often the very turn quoted below it, and would cost its tokens
    twice. The lead must be one of the quote's sentences (or, clipped with "…", the
    start of one), not words inside another ("My sister thinks I am moving…"), and
    three words at least. An LLM's gist has no such frame and is kept whole."""
    frame, _, lead = gist.partition(": ")
    if not frame.startswith(FRAME):
        return gist
    clipped = lead.rstrip().endswith(CLIPPED)
    words = lead.rstrip().removesuffix(CLIPPED).split()
    if len(words) < LEAD_WORDS:
        return gist
    said = " ".join(words)
    for quote in quotes:
        for sentence in sentences(quote.text):
            whole = " ".join(sentence.split())
            if whole == said or (clipped and whole.startswith(said + " ")):
                return frame + "."
    return gist


def shown_last(items: Sequence[MemoryItem]) -> list[int]:
    """The blocks of the items shown shallow (gist or incomplete), best first: what
    "tell me more about that" refers to on the next turn."""
    shallow = sorted((item for item in items if item.form != "full"), key=lambda i: -i.score)
    return list(dict.fromkeys(item.block_id for item in shallow))


def present(db: sqlite_utils.Database, query: str, items: Sequence[MemoryItem]) -> list[MemoryItem]:
    """`items` in the form each tier is shown in, best first: a cold block once, as its
    rendered capsule (form `gist`); a warm item as it is (form `incomplete`)."""
    cold = [item.block_id for item in items if item.tier == "cold"]
    capsules = {
        row["id"]: row
        for row in select_in(
            db, "SELECT id, summary, keywords, anchors FROM blocks WHERE id IN ({})", cold,
            dicts=True,
        )
    }  # fmt: skip
    shown: list[MemoryItem] = []
    seen: set[int] = set()
    for item in items:
        form = FORM_OF_TIER.get(item.tier, "full")
        if item.alone:  # a further archived turn, at its own rank: its quote is its text
            shown.append(_in_form(item, form))
            continue
        if item.tier != "cold" or item.block_id not in capsules:
            shown.append(_with_quotes(item, form))
            continue
        if item.block_id in seen:
            continue
        seen.add(item.block_id)
        row = capsules[item.block_id]
        text = render(
            row["summary"] or item.text, json.loads(row["keywords"]), json.loads(row["anchors"]),
            query, item.quotes,
        )  # fmt: skip
        shown.append(replace(item, text=text, form="gist", tokens=count_tokens(text)))
    return shown


def _with_quotes(item: MemoryItem, form: str) -> MemoryItem:
    """A warm item as it is, marked incomplete, with the archived turns it quotes."""
    if not item.quotes:
        return _in_form(item, form)
    text = f"{item.text.strip()}\n{quoted(item.quotes)}"
    return replace(item, form=form, text=text, tokens=count_tokens(text))


def _in_form(item: MemoryItem, form: str) -> MemoryItem:
    return replace(item, form=form) if item.form != form else item
