"""LoCoMo replay: evidence recall of the memory on long, months-spanning conversations.

Each turn becomes an episode at its session's date (a simulated clock), then every
question is recalled at a time after the last session. We score evidence recall over
turns (k = 5, 10, 20), evidence recall within context budgets (1,000 and 2,000
tokens), the mean context tokens and recall latency. Category 5 (adversarial
questions without an answer in the conversation) is excluded.

By default memory stays hot-only (no compaction), the figure of the retrieval
issue. With `tiers=True` the nightly compactor (deterministic summaries) runs on
the simulated clock every night between sessions and until the questions, so old
sessions are warm or cold when they are asked about; recall then unpacks with the
product's own policy (`unpack.choose`, questions asked one after another
as in a chat) and recalls again after a restore.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import spread
from aniso.core.errors import InputError
from aniso.scheduler import nights
from aniso.tiers.blocks import counts_by_tier
from aniso.tiers.index import pieces

KS = (5, 10, 20)
BUDGETS = (1000, 2000)
SESSION_KEY = re.compile(r"^session_(\d+)$")
TURN_SPACING = timedelta(seconds=40)


@dataclass(frozen=True)
class Turn:
    ref: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]

    @property
    def end(self) -> datetime:
        return self.turns[-1].at


def parse_session_date(text: str) -> datetime:
    """LoCoMo writes dates like '1:56 pm on 8 May, 2023'."""
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        raise InputError(f"cannot read the LoCoMo session date {text!r}") from None


def _evidence(raw: Any) -> frozenset[str]:
    refs: set[str] = set()
    for item in raw or []:
        refs.update(part for part in re.split(r"[\s,;]+", str(item)) if part)
    return frozenset(refs)


def load(path: Path) -> Conversation:
    """Read one LoCoMo conversation file; errors name the file and the problem."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read LoCoMo file {path}: {error}") from None
    if isinstance(data, dict) and "conversation" in data:
        data = {**data["conversation"], "qa": data.get("qa", [])}
    if not isinstance(data, dict) or "qa" not in data:
        raise InputError(f"{path} is not a LoCoMo conversation (no 'qa' list)")
    sessions = sorted(
        (int(match.group(1)), key)
        for key in data
        if (match := SESSION_KEY.match(key)) and isinstance(data[key], list) and data[key]
    )
    turns: list[Turn] = []
    for number, key in sessions:
        start = parse_session_date(data[f"session_{number}_date_time"])
        for index, turn in enumerate(data[key]):
            text = turn.get("text", "")
            if turn.get("blip_caption"):
                text = f"{text} [shares a photo of {turn['blip_caption']}]"
            turns.append(
                Turn(
                    ref=turn["dia_id"],
                    speaker=turn.get("speaker", "?"),
                    text=text,
                    at=start + index * TURN_SPACING,
                )
            )
    questions = [
        Question(
            text=str(q["question"]),
            evidence=_evidence(q.get("evidence")),
            category=int(q.get("category", 0)),
        )
        for q in data["qa"]
        if int(q.get("category", 0)) != 5 and q.get("evidence")
    ]
    return Conversation(name=path.stem, turns=turns, questions=questions)


@dataclass
class Scores:
    """Running sums per category; `report` turns them into rates."""

    hits: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    latencies_ms: list[float] = field(default_factory=list)
    context_tokens: list[int] = field(default_factory=list)

    def add(self, category: str, name: str, value: float) -> None:
        self.hits[f"{category}/{name}"].append(value)
        self.hits[f"all/{name}"].append(value)

    def merge(self, other: Scores) -> None:
        for key, values in other.hits.items():
            self.hits[key].extend(values)
        self.latencies_ms.extend(other.latencies_ms)
        self.context_tokens.extend(other.context_tokens)

    def report(self) -> dict[str, Any]:
        categories: dict[str, dict[str, float]] = defaultdict(dict)
        for key, values in self.hits.items():
            category, name = key.split("/", 1)
            categories[category][name] = round(statistics.fmean(values), 4)
            categories[category]["questions"] = len(values)
        lat = sorted(self.latencies_ms)
        return {
            "categories": dict(sorted(categories.items())),
            "mean_context_tokens": round(statistics.fmean(self.context_tokens), 1)
            if self.context_tokens
            else 0.0,
            "latency_ms": spread(lat),
        }


Ranked = list[tuple[tuple[str, ...], int]]
"""Ranked items as (the turn refs each shows in full, its tokens): a hot episode
shows its own turn, a gist the archived turns it quotes, a summary none."""

RecallFn = Callable[[str], Ranked]
"""Given a question, its ranked items."""


Observe = Callable[[Question, Ranked | None], None]
"""Called before a question is recalled (with None) and after (with the ranking),
outside the timed recall: the diagnosis of `--why` reads the store there."""


def score_conversation(
    conversation: Conversation,
    recall: RecallFn,
    scores: Scores,
    *,
    context_budget: int = 2000,
    observe: Observe | None = None,
    after_reply: Callable[[], None] | None = None,
) -> None:
    """Ask every question in turn and score its ranking. `after_reply` runs after each
    one, untimed, as a chat runs its write-behind once the reply is out."""
    for question in conversation.questions:
        if observe is not None:
            observe(question, None)
        started = time.perf_counter()
        ranked = recall(question.text)
        scores.latencies_ms.append((time.perf_counter() - started) * 1000)
        if after_reply is not None:
            after_reply()
        if observe is not None:
            observe(question, ranked)
        category = str(question.category)
        turn_refs = [ref for refs, _ in ranked for ref in refs]
        for k in KS:
            found = question.evidence & set(turn_refs[:k])
            scores.add(category, f"recall@{k}", len(found) / len(question.evidence))
        for budget in BUDGETS:
            refs = set(_within_budget(ranked, budget))
            scores.add(
                category,
                f"recall@{budget}tok",
                len(question.evidence & refs) / len(question.evidence),
            )
        scores.context_tokens.append(sum(tokens for _, tokens in _fit(ranked, context_budget)))


def _fit(ranked: Ranked, budget: int) -> Iterator[tuple[tuple[str, ...], int]]:
    used = 0
    for refs, tokens in ranked:
        if used + tokens > budget:
            continue
        used += tokens
        yield refs, tokens


def _within_budget(ranked: Ranked, budget: int) -> list[str]:
    return [ref for refs, _ in _fit(ranked, budget) for ref in refs]


def replay(
    conversation: Conversation,
    memory: Any,
    *,
    nightly: Callable[[datetime, datetime], Any] | None = None,
) -> None:
    """Store every turn as an episode at its simulated time, one session batch at a time;
    `nightly(previous, next)` runs the compactor for the nights in between."""
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for turn in conversation.turns:
        by_session[turn.ref.split(":")[0]].append(turn)
    previous: datetime | None = None
    for turns in by_session.values():
        if nightly is not None and previous is not None:
            nightly(previous, turns[0].at)
        previous = turns[-1].at
        texts = [f"{turn.speaker}: {turn.text}" for turn in turns]
        vectors = memory.dense.embed(texts)
        for turn, text, vector in zip(turns, texts, vectors, strict=True):
            memory.store(
                text,
                at=turn.at,
                session=conversation.name,
                ref=turn.ref,
                status="observed",
                vector=vector,
            )


CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop"}


def run(
    paths: list[Path],
    *,
    work_dir: Path,
    settings: Any,
    progress: Callable[[str], None] | None = None,
    tiers: bool = False,
    why: bool = False,
) -> dict[str, Any]:
    """Replay each conversation into a fresh data dir and score recall over its QA.

    With `why` (tiers only) each conversation is replayed hot-only first, in the same
    run, and the result gains a `why` section (`locomo_why`): the hot-only figures,
    the p95 ratio, and every evidence turn tiers lost with where it lived."""
    from aniso.bench.locomo_why import Diagnosis

    conversations = [load(path) for path in paths]
    diagnosis = Diagnosis() if why and tiers else None
    scores, hot_scores = Scores(), Scores()
    per_conversation, hot_per_conversation = {}, {}
    for conversation in conversations:
        if diagnosis is not None:
            hot_own, _ = _score_one(
                conversation,
                work_dir / f"{conversation.name}-hot",
                settings,
                tiers=False,
                watch=lambda _services, _state, name=conversation.name: diagnosis.hot_observer(
                    name, _within_budget
                ),
            )
            hot_scores.merge(hot_own)
            hot_per_conversation[conversation.name] = hot_own.report()
        watch = None
        if diagnosis is not None:

            def watch(
                services: Any, state: dict[str, Any], name: str = conversation.name
            ) -> Observe:
                return diagnosis.tier_observer(name, services.memory.db, state, _within_budget)

        own, tier_state = _score_one(
            conversation, work_dir / conversation.name, settings, tiers=tiers, watch=watch
        )
        scores.merge(own)
        per_conversation[conversation.name] = own.report()
        if tiers:
            per_conversation[conversation.name]["tiers"] = {
                "compactor_runs": tier_state["runs"],
                "blocks_before_questions": tier_state["blocks"],
                "restored": tier_state["restored"],
            }
        if progress is not None:
            progress(conversation.name)
    result: dict[str, Any] = {
        "mode": "tiers" if tiers else "hot-only",
        "overall": scores.report(),
        "conversations": per_conversation,
        "turns": sum(len(c.turns) for c in conversations),
        "questions": sum(len(c.questions) for c in conversations),
        "category_names": CATEGORY_NAMES,
    }
    if diagnosis is not None:
        hot = {"overall": hot_scores.report(), "conversations": hot_per_conversation}
        result["why"] = diagnosis.report(result, hot)
    return result


def _score_one(
    conversation: Conversation,
    data_dir: Path,
    settings: Any,
    *,
    tiers: bool,
    watch: Callable[[Any, dict[str, Any]], Observe] | None = None,
) -> tuple[Scores, dict[str, Any]]:
    from aniso.services import build

    services = build(settings.model_copy(update={"data_dir": data_dir}))
    now = conversation.end + timedelta(days=1)
    own = Scores()
    recall, tier_state = _prepare(conversation, services, now=now, tiers=tiers)
    observe = watch(services, tier_state) if watch is not None else None
    score_conversation(
        conversation,
        recall,
        own,
        context_budget=settings.context_budget_tokens,
        observe=observe,
        after_reply=services.memory.dense.push_held,
    )
    services.close()
    return own, tier_state


def _prepare(
    conversation: Conversation, services: Any, *, now: datetime, tiers: bool
) -> tuple[RecallFn, dict[str, Any]]:
    """Replay the conversation (with nightly compaction in tier mode) and return the
    recall function for its questions, with the tier figures it keeps up to date."""
    memory, settings = services.memory, services.settings
    state: dict[str, Any] = {"previous": set(), "restored": 0, "runs": 0}
    if tiers:
        compactor = services.compactor()

        def nightly(start: datetime, end: datetime) -> None:
            for night in nights(start, end, at=settings.compact_at, zone=settings.timezone):
                compactor.run(night)
                state["runs"] += 1

        replay(conversation, memory, nightly=nightly)
        nightly(conversation.end, now)
    else:
        replay(conversation, memory)
        # The questions come after the nights that follow the last session: hot only
        # compacts nothing, but the nightly run still derives a turn's pieces.
        pieces.refresh(memory.db, memory.dense)
    state["blocks"] = counts_by_tier(memory.db)
    return recaller(services, now=now, tiers=tiers, state=state), state


def recaller(services: Any, *, now: datetime, tiers: bool, state: dict[str, Any]) -> RecallFn:
    """The recall of a replayed store, as a chat would run it: in tier mode old blocks
    unpack by the product's policy, questions asked one after another."""
    from aniso.tiers import gist, unpack

    memory, settings = services.memory, services.settings
    state.setdefault("previous", set())
    state.setdefault("restored", 0)

    def recall(question: str) -> Ranked:
        items = memory.recall(question, now=now, limit=40).items
        if tiers:
            state["first_pass"] = [(i.block_id, i.tier, i.score) for i in items]
            chosen, state["previous"] = unpack.choose(
                memory, question, items, state["previous"], score=settings.unpack_score
            )
            restored = [b for b in chosen if unpack.deep(memory, b, now=now) is not None]
            state["restored_now"] = restored
            if restored:
                state["restored"] += len(restored)
                items = memory.recall(question, now=now, limit=40).items
        # Scored as shown: old items in their gist form, with the turns they quote.
        return [(item.refs, item.tokens) for item in gist.present(memory.db, question, items)]

    return recall
