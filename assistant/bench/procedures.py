"""`aniso bench procedures`: what a reused procedure saves, and that it is reused rightly.

A repeated request (a weekly meal plan) is played three times on a simulated clock in
a fresh data dir, through `Assistant.send` exactly as in chat: the first answer is
the model's and the user thanks for it; a week later the request comes again, then the
diet changes, and a week after that the third request. The first answer is played once
and its memory copied for each mode of `procedure_replies`, so `model` (the model
writes the reply from the steps) and `steps` (the steps alone when they cover the
request, no model call) reuse the same accepted answer under the same load. For every
request the figures are the model calls it made, their prompt and completion tokens
(by the model's own tokenizer for the embedded model, else the shared counter) and the
wall time of `send`.

Two first answers are played: the embedded model's own plan, and `NAMED_PLAN`, a plan
naming the diet in its steps. The deterministic checks: the third reply reused the
procedure, no step still says the old diet, and a step says the new one when the kept
plan named the diet at all.
A second script rejects a packing list and asks again three times: every offer of
the rejected answer is a wrong reuse (the rate must be 0).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aniso.core.clock import SimulatedClock
from aniso.core.ports import CompletionRequest
from aniso.core.settings import Settings
from aniso.llm.gateway import LLMGateway

Progress = Callable[[str, int, int], None]
START = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
MEAL_PLAN = "Can you make me a weekly vegetarian meal plan? A list, one line a day."
MEAL_AGAIN = "Make me a weekly meal plan, please."
PACKING = "What should I pack for a ski weekend? Make me a packing list."
MODES = ("model", "steps")
NAMED_PLAN = (
    "Here is your week:\n\n- Monday: vegetarian lentil curry\n- Tuesday: vegetarian pasta "
    "with spinach\n- Wednesday: vegetarian bean tacos\n- Thursday: vegetarian chickpea "
    "stew\n- Friday: vegetarian vegetable stir-fry with rice"
)
"""The first answer of the second run: a plan that names the diet in its steps, as a
capable model (or a user who edits the answer) writes one. The embedded model's own
plan rarely names it, and then a diet change is one filling cannot follow."""
PLANS: dict[str, str | None] = {"own_plan": None, "named_plan": NAMED_PLAN}


class CountingGateway(LLMGateway):
    """The production gateway, counting the calls and tokens of every request."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.script: str | None = None
        """An answer given once in place of the model's (no call, no tokens)."""
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def _count(self, text: str) -> int:
        if self.is_embedded:
            from aniso.llm.embedded import load_model

            return len(load_model().tokenize(text.encode("utf-8", "ignore"), add_bos=False))
        from aniso.core.tokens import count_tokens

        return count_tokens(text)

    def stream(self, request: CompletionRequest) -> Iterator[str]:
        if self.script is not None:
            answer, self.script = self.script, None
            yield answer
            return
        self.calls += 1
        self.prompt_tokens += sum(
            self._count(str(m.get("content") or "")) for m in request.messages
        )
        pieces: list[str] = []
        for piece in super().stream(request):
            pieces.append(piece)
            yield piece
        self.completion_tokens += self._count("".join(pieces))


class Script:
    """A memory on a simulated clock, each message its own session (a visit)."""

    def __init__(self, settings: Settings, data_dir: Path, clock: SimulatedClock) -> None:
        from aniso.services import build

        self.clock = clock
        self.gateway = CountingGateway(settings)
        self.services = build(
            settings.model_copy(update={"data_dir": data_dir}),
            clock=self.clock,
            gateway=self.gateway,
        )
        self.turn = 0

    def send(self, text: str, *, after: timedelta = timedelta(minutes=5)) -> dict[str, Any]:
        self.clock.advance(after)
        self.turn += 1
        self.services.controller.session = f"bench-procedures-{self.clock():%Y%m%d%H%M}"
        calls, prompt, completion = (
            self.gateway.calls,
            self.gateway.prompt_tokens,
            self.gateway.completion_tokens,
        )
        started = time.perf_counter()
        reply = self.services.assistant.send(text)
        seconds = time.perf_counter() - started
        prompt_tokens = self.gateway.prompt_tokens - prompt
        completion_tokens = self.gateway.completion_tokens - completion
        return {
            "model_calls": self.gateway.calls - calls,
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "tokens": prompt_tokens + completion_tokens,
            "seconds": round(seconds, 3),
            "reused": reply.procedure is not None,
            "from_steps": bool(reply.procedure and reply.procedure.direct),
            "error": reply.error,
            "reply": reply.text,
        }

    def close(self) -> None:
        self.services.controller.memory.dense.index.close()
        self.services.db.close()


def _diet_checks(third: dict[str, Any], steps: list[str]) -> dict[str, Any]:
    """The plan follows the diet change: no step keeps the old diet, and the new one
    is in a step whenever the kept plan named the diet (`diet_param`)."""
    named = any("{diet}" in step for step in steps)
    body = third["reply"].split("\n\n", 1)[-1] if third["from_steps"] else third["reply"]
    lowered = body.casefold()
    old_gone = "vegetarian" not in lowered
    new_there = "vegan" in lowered
    return {
        "reused": third["reused"],
        "diet_param": named,
        "old_diet_gone": old_gone,
        "new_diet_there": new_there,
        "passed": bool(third["reused"] and old_gone and (new_there or not named)),
    }


def _first_time(
    settings: Settings, folder: Path, plan: str | None
) -> tuple[dict[str, Any], list[str], datetime]:
    """The first request, answered by the model (or with `plan`), and the user's thanks:
    the memory every mode then continues from (copied), so all reuse the same answer."""
    from aniso.tiers import procedures

    clock = SimulatedClock(START)
    script = Script(settings, folder, clock)
    try:
        script.send("I'm vegetarian.")
        script.gateway.script = plan
        first = script.send(MEAL_PLAN)
        script.send("Thanks, perfect!")
        kept = procedures.listing(script.services.db, now=clock())
    finally:
        script.close()
    return first, kept[0].steps if kept else [], clock()


def _repeats(settings: Settings, first: Path, mode: str, at: datetime) -> dict[str, Any]:
    """The second request a week later, the diet change, the third a week after."""
    data_dir = first.with_name(f"{first.name}-{mode}")
    shutil.copytree(first, data_dir)
    script = Script(
        settings.model_copy(update={"procedure_replies": mode}), data_dir, SimulatedClock(at)
    )
    try:
        second = script.send(MEAL_AGAIN, after=timedelta(days=7))
        script.send("Thanks!")
        script.send("I became vegan last week.", after=timedelta(days=1))
        third = script.send(MEAL_AGAIN, after=timedelta(days=6))
    finally:
        script.close()
    return {"request_2": second, "request_3": third}


def _rejected(settings: Settings, root: Path) -> dict[str, Any]:
    from aniso.tiers import procedures

    settings = settings.model_copy(update={"procedure_replies": "steps"})
    script = Script(settings, root / "rejected", SimulatedClock(START))
    try:
        script.send(PACKING)
        script.send("That's wrong, not what I asked for.")
        later = [script.send(PACKING, after=timedelta(days=day)) for day in (2, 5, 9)]
        kept = procedures.listing(script.services.db, now=script.clock())
    finally:
        script.close()
    wrong = sum(turn["reused"] for turn in later)
    return {
        "kept_rejected": sum(p.rejected for p in kept),
        "requests": len(later),
        "wrong_reuses": wrong,
        "wrong_reuse_rate": wrong / len(later),
    }


def run(settings: Settings, *, progress: Progress | None = None) -> dict[str, Any]:
    """Each first answer once, each mode's repeats from a copy of it, then the
    rejection script, all in a temp dir."""
    total = len(PLANS) * (len(MODES) + 1) + 1
    done = 0

    def step(label: str) -> None:
        nonlocal done
        if progress is not None:
            progress(label, done, total)
        done += 1

    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="aniso-bench-procedures-") as folder:
        for name, plan in PLANS.items():
            step(f"{name}: first request")
            first_dir = Path(folder) / name
            first, steps, at = _first_time(settings, first_dir, plan)
            modes = {}
            for mode in MODES:
                step(f"{name}: repeats, {mode}")
                repeats = _repeats(settings, first_dir, mode, at)
                checks = _diet_checks(repeats["request_3"], steps)
                modes[mode] = {"request_1": first, **repeats, "checks": checks}
            runs[name] = {"kept_steps": steps, "modes": modes}
        step("rejected answer")
        rejected = _rejected(settings, Path(folder))
    return {"model": settings.model, "runs": runs, "rejected": rejected}


def render(result: dict[str, Any]) -> str:
    """The figures as a few lines of text."""
    lines = [f"model {result['model']}"]
    for name, run_ in result["runs"].items():
        lines.append(f"{name}: the accepted answer kept {len(run_['kept_steps'])} steps")
        lines.append("  mode    request  calls  prompt tok  completion tok  seconds  from steps")
        for mode, figures in run_["modes"].items():
            for key in ("request_1", "request_2", "request_3"):
                row = figures[key]
                lines.append(
                    f"  {mode:<7} {key[-1]:>7}  {row['model_calls']:>5}  "
                    f"{row['prompt_tokens']:>10}  {row['completion_tokens']:>14}  "
                    f"{row['seconds']:>7.2f}  {row['from_steps']!s:>10}"
                )
            checks = figures["checks"]
            lines.append(
                f"  {mode:<7} diet change followed: {checks['passed']} (reused "
                f"{checks['reused']}, diet named in the plan {checks['diet_param']}, old diet "
                f"gone {checks['old_diet_gone']}, new diet there {checks['new_diet_there']})"
            )
    rejected = result["rejected"]
    lines.append(
        f"rejected answer reused {rejected['wrong_reuses']} of {rejected['requests']} "
        f"requests (rate {rejected['wrong_reuse_rate']:.2f})"
    )
    return "\n".join(lines)
