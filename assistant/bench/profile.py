"""How well the profile learns from what people write, for `aniso bench profile`.

The labelled set (`tests/data/profile_statements.jsonl`) holds threads of messages in
EN, RU and UK, each message labelled with the values that must be current right after
it (`expect`) and those that must not (`absent`). Every thread starts from an empty
profile and runs through the same `ProfileLearner` the chat loop uses, so the figures
are the product's, not a test double's.

Four figures answer the questions a user would ask:
- **recall**: of the facts people stated about themselves, how many the profile holds;
- **precision**: of the values a message started, how many it was meant to start;
- **kept out**: of the wrong or superseded values, how many stayed out;
- **false updates**: of the messages that say nothing about the user's standing
  preferences (distractors), how many changed the profile at all.

Labels match leniently, as people would judge: `a|b` lists alternatives; a label
matches a value it equals or that holds it as whole words ("price range" matches
"always include the price range"); `*` stands for any value.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench.measure import spread
from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import ProfileStore
from aniso.profile.learner import ProfileLearner

DATASET = "profile_statements.jsonl"
KINDS = ("fact", "update", "mixed", "distractor")


@dataclass(frozen=True)
class Message:
    """One labelled message of a thread."""

    thread: str
    turn: int
    lang: str
    kind: str
    text: str
    split: str
    expect: dict[str, list[str]]
    absent: dict[str, list[str]]


TEST_SHARE = 2
"""Threads whose id hashes (CRC-32) to 0 or 1 modulo 5 are the test part: 40% of them."""


def split_of(thread: str) -> str:
    """The part a thread belongs to, from a hash of its id alone: a batch written later
    is split by the same rule, before anyone reads it, and no thread straddles the split."""
    return "test" if zlib.crc32(thread.encode()) % 5 < TEST_SHARE else "train"


def load(path: Path) -> list[Message]:
    """The labelled messages, in thread and turn order."""
    messages = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            messages.append(
                Message(
                    thread=str(raw["thread"]),
                    turn=int(raw["turn"]),
                    lang=str(raw["lang"]),
                    kind=str(raw["kind"]),
                    text=str(raw["text"]),
                    split=str(raw.get("split", "test")),
                    expect={k: list(v) for k, v in (raw.get("expect") or {}).items()},
                    absent={k: list(v) for k, v in (raw.get("absent") or {}).items()},
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path.name} line {number}: {error}") from None
    return sorted(messages, key=lambda m: (m.thread, m.turn))


def matches(label: str, value: str) -> bool:
    """Whether a stored value satisfies a label (see the module doc)."""
    value = value.lower()
    for alternative in label.lower().split("|"):
        alternative = alternative.strip()
        if alternative == "*" or alternative == value:
            return True
        if alternative and re.search(rf"(?<!\w){re.escape(alternative)}(?!\w)", value):
            return True
    return False


def _held(values: dict[str, list[str]], field_name: str, label: str) -> bool:
    return any(matches(label, value) for value in values.get(field_name, []))


@dataclass
class Tally:
    """Counts for one slice (a language, a field, a kind, or everything)."""

    stated: int = 0
    captured: int = 0
    started: int = 0
    started_right: int = 0
    wrong: int = 0
    kept_out: int = 0
    distractors: int = 0
    false_updates: int = 0

    def figures(self) -> dict[str, Any]:
        def ratio(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "recall": ratio(self.captured, self.stated),
            "precision": ratio(self.started_right, self.started),
            "kept_out": ratio(self.kept_out, self.wrong),
            "false_update_rate": ratio(self.false_updates, self.distractors),
            "stated": self.stated,
            "wrong": self.wrong,
            "distractors": self.distractors,
        }


@dataclass
class Report:
    """Tallies by slice, the misses to read, and the extraction timings."""

    overall: Tally = field(default_factory=Tally)
    by_lang: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_field: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_kind: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    misses: list[dict[str, Any]] = field(default_factory=list)
    timings_ms: list[float] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")

    def slices(self, lang: str, kind: str, field_name: str | None) -> list[Tally]:
        found = [self.overall, self.by_lang[lang], self.by_kind[kind]]
        return found + ([self.by_field[field_name]] if field_name else [])

    def as_dict(self, *, misses: int = 0) -> dict[str, Any]:
        ms, text = self.slowest
        return {
            **self.overall.figures(),
            "messages": len(self.timings_ms),
            "by_lang": {k: v.figures() for k, v in sorted(self.by_lang.items())},
            "by_field": {k: v.figures() for k, v in sorted(self.by_field.items())},
            "by_kind": {k: v.figures() for k, v in sorted(self.by_kind.items())},
            "extract_ms": spread(self.timings_ms),
            "slowest": {"ms": round(ms, 2), "text": text[:200]},
            "misses": self.misses[:misses],
        }


def _values(store: ProfileStore) -> dict[str, list[str]]:
    return store.current().as_values()


def _started(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [
        (name, value)
        for name, values in after.items()
        for value in values
        if value not in before.get(name, [])
    ]


def evaluate(
    messages: Iterable[Message],
    *,
    learner_for: Callable[[ProfileStore], ProfileLearner] | None = None,
    extract_timer: Callable[[str], float] | None = None,
) -> Report:
    """Run every thread from an empty profile and tally the labels.

    `extract_timer(text)` returns the milliseconds the extractor alone took on a
    message (the store's writes are not what users wait for); by default the rule
    extractor is timed.
    """
    from aniso.profile.understand import understand

    def timed(text: str) -> float:
        begin = time.perf_counter()
        understand(text)
        return (time.perf_counter() - begin) * 1000

    timer = extract_timer or timed
    report = Report()
    with tempfile.TemporaryDirectory(prefix="aniso-bench-profile-") as scratch:
        db = open_db(Path(scratch))
        clock = SimulatedClock()
        store = ProfileStore(db, clock=clock)
        make = learner_for or (lambda s: ProfileLearner(store=s))
        learner = make(store)
        thread = None
        for episode, message in enumerate(messages, start=1):
            if message.thread != thread:
                thread = message.thread
                db.execute("DELETE FROM profile_values")
                db.conn.commit()
            clock.advance(timedelta(minutes=5))
            before = _values(store)
            learner.learn(message.text, episode_id=episode)
            after = _values(store)
            spent = timer(message.text)
            report.timings_ms.append(spent)
            if spent > report.slowest[0]:
                report.slowest = (spent, message.text)
            _tally(report, message, before, after)
        db.conn.close()
    return report


def _tally(
    report: Report, message: Message, before: dict[str, list[str]], after: dict[str, list[str]]
) -> None:
    _tally_expected(report, message, after)
    _tally_absent(report, message, after)
    lang, kind = message.lang, message.kind
    for name, value in _started(before, after):
        right = any(matches(label, value) for label in message.expect.get(name, []))
        for tally in report.slices(lang, kind, name):
            tally.started += 1
            tally.started_right += right
        if not right and kind != "distractor":
            report.misses.append(_miss("unwanted value", message, name, value, after))
    if kind == "distractor":
        changed = before != after
        for tally in report.slices(lang, kind, None):
            tally.distractors += 1
            tally.false_updates += changed
        if changed:
            report.misses.append(_miss("distractor changed", message, "", "", after))


def _tally_expected(report: Report, message: Message, after: dict[str, list[str]]) -> None:
    for name, labels in message.expect.items():
        for label in labels:
            hit = _held(after, name, label)
            for tally in report.slices(message.lang, message.kind, name):
                tally.stated += 1
                tally.captured += hit
            if not hit:
                report.misses.append(_miss("not captured", message, name, label, after))


def _tally_absent(report: Report, message: Message, after: dict[str, list[str]]) -> None:
    for name, labels in message.absent.items():
        for label in labels:
            held = bool(after.get(name)) if label == "*" else _held(after, name, label)
            for tally in report.slices(message.lang, message.kind, name):
                tally.wrong += 1
                tally.kept_out += not held
            if held:
                report.misses.append(_miss("kept a wrong value", message, name, label, after))


def _miss(
    what: str, message: Message, name: str, label: str, after: dict[str, list[str]]
) -> dict[str, Any]:
    return {
        "what": what,
        "thread": message.thread,
        "turn": message.turn,
        "kind": message.kind,
        "field": name,
        "label": label,
        "text": message.text,
        "profile": after.get(name) if name else after,
    }


def run(path: Path, *, split: str = "test") -> Report:
    """Evaluate one split (`train`, `test` or `all`) of the labelled set at `path`."""
    messages = [m for m in load(path) if split == "all" or m.split == split]
    if not messages:
        raise ValueError(f"no {split!r} messages in {path}")
    return evaluate(messages)
