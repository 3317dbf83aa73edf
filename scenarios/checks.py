"""Deterministic checks: what each variant's memory put in front of the model, and
what it left on disk. No judge, no model output except the reply's shape (`format`).

A check scores in [0, 1], or None when it does not apply to the scenario or the
variant (a profile expectation on a variant without a profile). Reasons say why a
check failed, never the sensitive value itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from aniso.scenarios.oracle import CONSTRAINT_FIELDS, Truth, Value
from aniso.scenarios.suite import Expect
from aniso.tiers.text import stems

Message = dict[str, str]
SIGNATURE_CHARS = 32
_TABLE = re.compile(r"^\s*\|.*\|\s*$\n^\s*\|?\s*:?-{3,}", re.MULTILINE)
_LIST = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+\S", re.MULTILINE)


@dataclass(frozen=True)
class Turn:
    """One user message as a variant handled it."""

    text: str
    at: datetime
    messages: list[Message]
    """Exactly what the model received; the last one is the current user message."""
    reply: str
    error: str | None = None
    replied: bool = True
    """False when the run generated no replies (`--replies off`): `reply` is empty."""


RAN = "ran"
NOT_RUN = "not_run"


@dataclass
class CheckResult:
    name: str
    score: float | None
    reasons: list[str] = field(default_factory=list)
    detail: dict[str, object] = field(default_factory=dict)
    status: str = RAN
    """`not_run` when the check applied but needs something the run did not produce (a
    reply, under `--replies off`); its score is then None, which is not a pass. A score
    of None with `ran` means the check does not apply to the scenario or the variant."""


def not_run(name: str, why: str) -> CheckResult:
    return CheckResult(name, None, [f"not run: {why}"], status=NOT_RUN)


@dataclass
class Memory:
    """The variant's state after the last step, for `privacy_leak` and `expect`."""

    data_dir: Path
    profile: dict[str, list[str]] | None
    tier_of: Callable[[str], str | None]
    restored: bool | None
    hidden: list[bytes] = field(default_factory=list)
    """Bytes a raw scan cannot read as such (compressed archive payloads)."""


def normalise(text: str) -> str:
    lines = [line.lstrip().removeprefix(">").strip() for line in text.casefold().splitlines()]
    return " ".join(" ".join(lines).split())


def prior_context(turn: Turn) -> list[Message]:
    return turn.messages[:-1]


def full_text(messages: list[Message]) -> str:
    return "\n".join(m.get("content", "") for m in messages)


def mentions(text: str, value: Value) -> bool:
    """The value is there, canonically (English) or as the user said it (any inflection)."""
    lowered = text.casefold()
    if value.value.casefold() in lowered or value.said.casefold() in lowered:
        return True
    said = set(stems(value.said))
    return bool(said) and said <= set(stems(text))


def _segments(message: Message) -> list[tuple[bool, str]]:
    """(marked outdated, text) pieces: each rendered memory apart from the rest."""
    content = message.get("content", "")
    if message.get("role") != "system":
        return [(False, content)]
    pieces = re.split(r"(?=^\[memory\b)", content, flags=re.MULTILINE)
    return [
        (piece.startswith("[memory") and "OUTDATED" in piece.split("\n", 1)[0], piece)
        for piece in pieces
    ]


def stale_presented(turn: Turn, outdated: list[str]) -> list[str]:
    """Outdated messages that reach the model without an outdated mark."""
    found = []
    for text in outdated:
        signature = normalise(text)[:SIGNATURE_CHARS]
        for message in prior_context(turn):
            if any(
                not marked and signature in normalise(piece) for marked, piece in _segments(message)
            ):
                found.append(f"outdated message presented as current: {text[:60]!r}")
                break
    return found


def check_stale(turns: list[Turn], truth: Truth, texts: list[str]) -> CheckResult:
    reasons: list[str] = []
    for index, turn in enumerate(turns):
        outdated = [texts[i] for i in sorted(truth.outdated_by_turn.get(index, set()))]
        reasons += [f"turn {index + 1}: {r}" for r in stale_presented(turn, outdated)]
    checked = sum(len(v) for v in truth.outdated_by_turn.values())
    return CheckResult("stale_memory", 0.0 if reasons else 1.0, reasons, {"outdated": checked})


def check_update(
    turns: list[Turn], truth: Truth, texts: list[str], profile: dict[str, list[str]] | None
) -> CheckResult:
    """After the last update: the new values reach the model, the old ones are not current."""
    last = turns[-1]
    context = full_text(last.messages)
    reasons = []
    for change in truth.supersessions:
        for new in change.new:
            if not mentions(context, new):
                reasons.append(f"new {new.field} {new.value!r} does not reach the model")
        held = profile.get(change.old.field, []) if profile is not None else []
        if change.old.value in held and change.old.value not in truth.final_profile.get(
            change.old.field, []
        ):
            reasons.append(
                f"profile still holds superseded {change.old.field} {change.old.value!r}"
            )
    if not truth.supersessions and len(truth.constraints_at) > 1:
        before = set(truth.constraints_at[-2])
        for value in truth.constraints_at[-1]:
            if value not in before and not mentions(context, value):
                reasons.append(f"new {value.field} {value.value!r} does not reach the model")
    outdated = [texts[i] for i in sorted(truth.outdated_by_turn.get(len(turns) - 1, set()))]
    reasons += stale_presented(last, outdated)
    return CheckResult(
        "update_handling",
        0.0 if reasons else 1.0,
        reasons,
        {"supersessions": len(truth.supersessions)},
    )


def _constraint_share(context: str, values: list[Value]) -> tuple[int, list[str]]:
    missing = [f"{v.field} {v.value!r}" for v in values if not mentions(context, v)]
    return len(values) - len(missing), missing


def check_pref(turns: list[Turn], truth: Truth) -> CheckResult:
    values = truth.constraints_at[-1] if truth.constraints_at else []
    if not values:
        return CheckResult("pref_match", None, ["no constraints known"])
    held, missing = _constraint_share(full_text(turns[-1].messages), values)
    return CheckResult(
        "pref_match",
        held / len(values),
        [f"constraint missing from the context: {m}" for m in missing],
    )


def check_consistency(turns: list[Turn], truth: Truth) -> CheckResult:
    total = held = 0
    reasons = []
    for index, (turn, values) in enumerate(zip(turns, truth.constraints_at, strict=False)):
        count, missing = _constraint_share(full_text(turn.messages), values)
        total, held = total + len(values), held + count
        reasons += [f"turn {index + 1}: constraint missing: {m}" for m in missing]
    if not total:
        return CheckResult("consistency", None, ["no constraints known"])
    return CheckResult("consistency", held / total, reasons)


def reply_shape(reply: str) -> str | None:
    if _TABLE.search(reply):
        return "table"
    if len(_LIST.findall(reply)) >= 2:
        return "list"
    return None


def check_format(turns: list[Turn], truth: Truth) -> list[CheckResult]:
    """`format`: the instruction is in the system prompt AND the reply has the shape;
    `format_prompt`: the instruction alone, which is memory's part of the job. Without
    a reply `format` is reported not run: a pass would claim a shape nobody saw."""
    if truth.format is None:
        none = ["the user never asked for a format"]
        return [CheckResult("format", None, none), CheckResult("format_prompt", None, none)]
    last = turns[-1]
    system = full_text([m for m in last.messages if m.get("role") == "system"])
    instructed = mentions(system, truth.format)
    reasons = [] if instructed else [f"system prompt lacks format {truth.format.value!r}"]
    prompt = CheckResult("format_prompt", 1.0 if instructed else 0.0, list(reasons))
    if not last.replied:
        return [not_run("format", "no reply was generated (replies off)"), prompt]
    shape = reply_shape(last.reply)
    if shape is None:
        reasons.append("no Markdown table or list in the reply")
    detail = {"instructed": instructed, "reply_shape": shape}
    return [CheckResult("format", 1.0 if instructed and shape else 0.0, reasons, detail), prompt]


def _patterns(value: str) -> list[re.Pattern[bytes]]:
    """The value as written, and for numbers its digits with any short separators
    between them ("1234 567890", "1234567890", "1234,567890", "1234-567-890")."""
    patterns = [re.compile(re.escape(value.encode("utf-8")), re.IGNORECASE)]
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 6:
        patterns.append(re.compile(rb"\D{0,2}".join(re.escape(d.encode()) for d in digits)))
    return patterns


def leaks(memory: Memory, values: list[str]) -> list[str]:
    """Where each value sits in the data dir's bytes (the value itself masked)."""
    found = []
    blobs = [
        (str(p.relative_to(memory.data_dir)), p.read_bytes())
        for p in sorted(memory.data_dir.rglob("*"))
        if p.is_file()
    ]
    blobs += [("archive (decompressed)", blob) for blob in memory.hidden]
    for value in values:
        masked = value[:2] + "…"
        for name, blob in blobs:
            if any(pattern.search(blob) for pattern in _patterns(value)):
                found.append(f"{masked!r} stored in {name}")
                break
    return found


def check_privacy(memory: Memory, truth: Truth) -> CheckResult:
    if not truth.pii:
        return CheckResult("privacy_leak", 1.0, [], {"values": 0})
    reasons = leaks(memory, truth.pii)
    return CheckResult("privacy_leak", 0.0 if reasons else 1.0, reasons, {"values": len(truth.pii)})


def _profile_values(profile: dict[str, list[str]], name: str) -> list[str]:
    if name == "constraints":
        return [v for f in CONSTRAINT_FIELDS for v in profile.get(f, [])]
    return profile.get(name, [])


def _expect_profile(expect: Expect, memory: Memory) -> list[tuple[bool, str]]:
    if memory.profile is None:
        return []
    found = []
    for name, wanted in expect.profile.items():
        values = [v.casefold() for v in _profile_values(memory.profile, name)]
        for item in wanted.contains:
            ok = any(item.casefold() in v for v in values)
            found.append((ok, f"profile {name} lacks {item!r} (has {values})"))
        for item in wanted.absent:
            ok = not any(item.casefold() in v for v in values)
            found.append((ok, f"profile {name} still holds {item!r}"))
    return found


def _expect_tiers(expect: Expect, memory: Memory) -> list[tuple[bool, str]]:
    if memory.restored is None:  # a variant without tiers
        return []
    found = []
    for phrase, tier in expect.tier_of.items():
        actual = memory.tier_of(phrase)
        found.append((actual == tier, f"tier_of {phrase!r}: {actual} instead of {tier}"))
    if expect.restored is not None:
        found.append(
            (
                memory.restored == expect.restored,
                f"restored is {memory.restored}, expected {expect.restored}",
            )
        )
    return found


def check_expect(expect: Expect, turns: list[Turn], memory: Memory) -> CheckResult:
    """The scenario's `expect` block; parts a variant lacks the machinery for are skipped."""
    leaked = leaks(memory, expect.memory_absent)
    results = [(False, f"memory_absent: {leak}") for leak in leaked]
    results += [(True, "")] * (len(expect.memory_absent) - len(leaked))
    results += _expect_profile(expect, memory) + _expect_tiers(expect, memory)
    context = normalise(full_text(prior_context(turns[-1]))) if turns else ""
    results += [(normalise(i) in context, f"recall lacks {i!r}") for i in expect.recall_contains]
    results += [
        (normalise(i) not in context, f"recall still holds {i!r}") for i in expect.recall_absent
    ]
    unrun = _expect_reply(expect, turns[-1] if turns else None, results)
    if not results:
        if unrun:
            return not_run("expect", "the reply checks need a reply (replies off)")
        return CheckResult("expect", None, ["nothing applies to this variant"])
    passed = sum(ok for ok, _ in results)
    reasons = [why for ok, why in results if not ok]
    if unrun:
        reasons.append(f"not run: {unrun} reply check(s), no reply was generated")
    return CheckResult(
        "expect",
        passed / len(results),
        reasons,
        {"passed": passed, "total": len(results), "not_run": unrun},
    )


def check_correction(expect: Expect, turns: list[Turn]) -> CheckResult:
    """Would the simulated user have to correct the reply to the return? Deterministic:
    yes when the context the model got for the last message lacks anything that moved
    on the thread while the user was away (`expect.moved`), since a reply cannot start
    from what it was never given. Scores 1 when no correction is needed, 0 when the
    user corrects; the correction rate of a run is one minus the mean."""
    context = normalise(full_text(prior_context(turns[-1]))) if turns else ""
    missing = [item for item in expect.moved if normalise(item) not in context]
    reasons = [f"the user corrects: the context lacks {item!r}" for item in missing]
    return CheckResult("correction", 0.0 if missing else 1.0, reasons, {"corrected": bool(missing)})


def _expect_reply(expect: Expect, last: Turn | None, results: list[tuple[bool, str]]) -> int:
    """Adds the reply checks to `results` when the last turn has a real reply; else
    returns how many could not run (a stand-in reply proves nothing either way)."""
    wanted = len(expect.reply_contains) + len(expect.reply_absent)
    if last is None or not last.replied:
        return wanted
    reply = normalise(last.reply)
    results += [(normalise(i) in reply, f"reply lacks {i!r}") for i in expect.reply_contains]
    results += [
        (normalise(i) not in reply, f"reply still holds {i!r}") for i in expect.reply_absent
    ]
    return 0
