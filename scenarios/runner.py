"""Run suites: every scenario under every variant, in a fresh data dir, on a simulated clock.

Time: a scenario starts at DAY0 (or its first `at`); user messages without `at` are
`MESSAGE_GAP` apart; `at` and `advance` move the clock forward, and each night
crossed (at `compact_at` in the user's timezone) runs the variant's nightly work,
which for tiered memory is the compactor. Data dirs live in a scratch folder that is
deleted after the checks have read it: `history` keeps PII there by design.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aniso.core.clock import SimulatedClock
from aniso.core.interrupts import interrupts_held
from aniso.core.settings import Settings
from aniso.scenarios import checks
from aniso.scenarios.aniso_variant import Tiered
from aniso.scenarios.judge import judge_reply
from aniso.scenarios.oracle import Truth, build_truth, persona_mapping
from aniso.scenarios.rag import Rag
from aniso.scenarios.report import Outcome, Report
from aniso.scenarios.suite import (
    Advance,
    Forget,
    Message,
    Scenario,
    ScenarioError,
    Suite,
    parse_duration,
)
from aniso.scenarios.variants import (
    Baseline,
    CachedEmbedder,
    ContextOnlyGateway,
    History,
    RecordingGateway,
    Variant,
)
from aniso.scheduler import nights
from aniso.services import make_embedder

DAY0 = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)
MESSAGE_GAP = timedelta(minutes=2)


VARIANTS = ("baseline", "history", "rag", "profile_rag", "aniso")
"""The memory variants a suite is played under; `make_variant` builds each one. The
registry lives here, with the runner that uses it, so the variant modules import
only their shared base (`variants`) and never each other."""


def make_variant(
    name: str,
    *,
    data_dir: Path,
    settings: Settings,
    gateway: RecordingGateway,
    persona: dict[str, object],
    clock: object,
    embedder: CachedEmbedder,
) -> Variant:
    """A fresh variant over an empty `data_dir`."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if name == "baseline":
        return Baseline(data_dir, gateway)
    if name == "history":
        return History(data_dir, gateway)
    if name in ("rag", "profile_rag"):
        return Rag(
            data_dir,
            gateway,
            settings=settings,
            persona=persona if name == "profile_rag" else None,
            clock=clock,  # type: ignore[arg-type]
            embedder=embedder,
        )
    if name == "aniso":
        return Tiered(
            data_dir,
            gateway,
            settings=settings,
            persona=persona,
            clock=clock,  # type: ignore[arg-type]
            embedder=embedder,
        )
    raise ValueError(f"unknown variant {name!r}; choose from {', '.join(VARIANTS)}")


def _aware(instant: datetime) -> datetime:
    return instant if instant.tzinfo else instant.replace(tzinfo=UTC)


def message_times(scenario: Scenario) -> list[datetime]:
    """When each user message is said, following `at` and `advance` steps."""
    now, times, started = DAY0, [], False
    for index, step in enumerate(scenario.messages):
        if isinstance(step, Message):
            if step.at is not None:
                target = _aware(step.at)
                if started and target < now:
                    raise ScenarioError(
                        f"scenario {scenario.id!r}: step {index + 1}: key at: "
                        f"{step.at.isoformat()} is earlier than the previous step"
                    )
                now = target
            elif started:
                now = now + MESSAGE_GAP
            started = True
            times.append(now)
        elif isinstance(step, Advance):
            now = now + parse_duration(step.advance)
    return times


def nights_between(start: datetime, end: datetime, settings: Settings) -> list[datetime]:
    """The nightly compaction instants in (start, end], in UTC."""
    return list(nights(start, end, at=settings.compact_at, zone=settings.timezone))


def _play(
    scenario: Scenario,
    variant: Variant,
    clock: SimulatedClock,
    gateway: RecordingGateway,
    times: list[datetime],
    settings: Settings,
) -> list[checks.Turn]:
    turns: list[checks.Turn] = []

    def move_to(target: datetime) -> None:
        for night in nights_between(clock(), target, settings):
            clock.set(night)
            variant.night(night)
        clock.set(target)

    for step in scenario.messages:
        if isinstance(step, Message):
            move_to(times[len(turns)])
            sent = len(gateway.requests)
            gateway.scripted = step.reply
            try:
                reply, error = variant.send(step.text, now=clock())
            finally:
                gateway.scripted = None
            asked = len(gateway.requests) > sent
            messages = gateway.requests[-1] if asked else []
            if not messages:
                messages = [{"role": "user", "content": step.text}]
            # A reply is real when the model gave it, the scenario scripted it, or the
            # variant answered without the model (a reused procedure's steps).
            replied = gateway.replies or step.reply is not None or not asked
            if not replied:
                reply = ""  # the stand-in is no reply; the report must not show it as one
            turns.append(checks.Turn(step.text, clock(), messages, reply, error, replied))
        elif isinstance(step, Advance):
            move_to(clock() + parse_duration(step.advance))
        elif isinstance(step, Forget):
            variant.forget(step.forget, now=clock())
    return turns


def evaluate(
    scenario: Scenario, turns: list[checks.Turn], truth: Truth, memory: checks.Memory
) -> dict[str, checks.CheckResult]:
    texts = [m.text for m in scenario.user_messages()]
    wanted = set(scenario.checks) if turns else {"privacy_leak"}
    results: list[checks.CheckResult] = []
    if "privacy_leak" in wanted or truth.pii:
        results.append(checks.check_privacy(memory, truth))
    if "stale_memory" in wanted:
        results.append(checks.check_stale(turns, truth, texts))
    if "update_handling" in wanted:
        results.append(checks.check_update(turns, truth, texts, memory.profile))
    if "pref_match" in wanted:
        results.append(checks.check_pref(turns, truth))
    if "consistency" in wanted:
        results.append(checks.check_consistency(turns, truth))
    if "format" in wanted:
        results += checks.check_format(turns, truth)
    if scenario.expect is not None and turns:
        results.append(checks.check_expect(scenario.expect, turns, memory))
        if scenario.expect.moved:
            results.append(checks.check_correction(scenario.expect, turns))
    return {result.name: result for result in results}


@dataclass(frozen=True)
class Unit:
    """One scenario under one variant: the piece of work a run is made of, by index so
    that it travels to a worker process as three small values."""

    suite: int
    scenario: int
    variant: str


def plan_units(suites: Sequence[Suite], variants: Sequence[str]) -> list[Unit]:
    """Every scenario × variant, in the report's order (suite, scenario, variant)."""
    return [
        Unit(s, c, name)
        for s, suite in enumerate(suites)
        for c in range(len(suite.scenarios))
        for name in variants
    ]


def unit_label(suites: Sequence[Suite], unit: Unit) -> str:
    suite = suites[unit.suite]
    return f"{suite.name}/{suite.scenarios[unit.scenario].id}/{unit.variant}"


@dataclass
class Player:
    """Plays units in this process: one gateway, one encoder cache, and each scenario's
    truth built once and kept for its other variants."""

    suites: Sequence[Suite]
    settings: Settings
    gateway: RecordingGateway
    judge: RecordingGateway | None
    embedder: CachedEmbedder
    truths: dict[tuple[int, int], tuple[Truth, list[datetime]]] = field(default_factory=dict)
    scratch_root: Path | None = None
    """Where units make their scratch folders (the system's temp dir when None); a
    parallel run owns this folder and deletes it even when a worker is killed."""

    @classmethod
    def create(
        cls,
        suites: Sequence[Suite],
        settings: Settings,
        *,
        gateway: RecordingGateway | None = None,
        judge: RecordingGateway | None = None,
        replies: bool = True,
        scratch_root: Path | None = None,
    ) -> Player:
        if gateway is None:
            gateway = RecordingGateway(settings) if replies else ContextOnlyGateway(settings)
        embedder = CachedEmbedder(make_embedder(settings.embedding))
        return cls(suites, settings, gateway, judge, embedder, scratch_root=scratch_root)

    def _truth(self, unit: Unit, scratch: Path) -> tuple[Truth, list[datetime]]:
        key = (unit.suite, unit.scenario)
        if key not in self.truths:
            suite = self.suites[unit.suite]
            scenario = suite.scenarios[unit.scenario]
            times = message_times(scenario)
            persona = suite.personas[scenario.persona_id]
            self.truths[key] = (build_truth(scenario, persona, times, scratch / "truth"), times)
        return self.truths[key]

    def play(self, unit: Unit) -> Outcome:
        """The unit's outcome; its data dirs live in a scratch folder deleted on return."""
        suite = self.suites[unit.suite]
        scratch: Path | None = None
        try:
            with interrupts_held():  # made and named at once, so the `finally` sees it
                scratch = Path(tempfile.mkdtemp(prefix="aniso-scenarios-", dir=self.scratch_root))
            truth, times = self._truth(unit, scratch)
            return _run_one(
                suite,
                suite.scenarios[unit.scenario],
                unit.variant,
                truth,
                times,
                self.settings,
                self.gateway,
                self.judge,
                scratch,
                self.embedder,
            )
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)


def run_suites(
    suites: Sequence[Suite],
    *,
    settings: Settings,
    variants: Sequence[str] = VARIANTS,
    judge: RecordingGateway | None = None,
    gateway: RecordingGateway | None = None,
    on_step: Callable[[str], None] | None = None,
    replies: bool = True,
    jobs: int = 1,
) -> Report:
    """Every scenario × variant; returns the report (not yet written).

    `replies=False` plays every turn without generating a reply (see
    `ContextOnlyGateway`); checks that need one are reported not run. `jobs` > 1 plays
    the units in that many worker processes (see `parallel`), which build their own
    gateway and judge from the settings; the outcomes keep the serial order either
    way. `on_step` is called with each unit's label once it is done.
    """
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ScenarioError(f"unknown variant {unknown[0]!r}; choose from {', '.join(VARIANTS)}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if judge is not None and not replies:
        raise ValueError("a judge grades replies; it cannot run without them")
    if gateway is not None and gateway.replies != replies:
        raise ValueError("the gateway given does not match `replies`")
    units = plan_units(suites, variants)
    if jobs > 1 and len(units) > 1:
        from aniso.scenarios.parallel import play_in_processes

        outcomes = play_in_processes(
            units,
            suites,
            settings,
            jobs=jobs,
            replies=replies,
            judge_model=judge.model if judge else None,
            on_done=on_step,
        )
        model = gateway.model if gateway else settings.model
    else:
        player = Player.create(suites, settings, gateway=gateway, judge=judge, replies=replies)
        outcomes = []
        for unit in units:
            outcomes.append(player.play(unit))
            if on_step is not None:
                on_step(unit_label(suites, unit))
        model = player.gateway.model
    return Report(
        model=model,
        judge_model=judge.model if judge else None,
        variants=list(variants),
        suites=[suite.name for suite in suites],
        outcomes=outcomes,
        replies=replies,
    )


def _run_one(
    suite: Suite,
    scenario: Scenario,
    name: str,
    truth: Truth,
    times: list[datetime],
    settings: Settings,
    gateway: RecordingGateway,
    judge: RecordingGateway | None,
    scratch: Path,
    embedder: CachedEmbedder,
) -> Outcome:
    persona = persona_mapping(suite.personas[scenario.persona_id])
    data_dir = scratch / suite.name / scenario.id / name
    clock = SimulatedClock(times[0] if times else DAY0)
    variant = make_variant(
        name,
        data_dir=data_dir,
        settings=settings,
        gateway=gateway,
        persona=persona,
        clock=clock,
        embedder=embedder,
    )
    try:
        turns = _play(scenario, variant, clock, gateway, times, settings)
        hidden = variant.hidden_bytes() if hasattr(variant, "hidden_bytes") else []
        memory = checks.Memory(
            data_dir, variant.profile(), variant.tier_of, variant.restored(), hidden
        )
        results = evaluate(scenario, turns, truth, memory)
    finally:
        variant.close()
    shutil.rmtree(data_dir, ignore_errors=True)
    outcome = Outcome(
        suite=suite.name,
        scenario=scenario.id,
        variant=name,
        checks={key: asdict(result) for key, result in results.items()},
        turns=[
            {
                "text": t.text,
                "at": t.at.isoformat(),
                "reply": t.reply,
                "error": t.error,
                "replied": t.replied,
            }
            for t in turns
        ],
    )
    if judge is not None and turns:
        verdict = judge_reply(
            judge,
            goal=scenario.goal,
            persona=persona,
            conversation=[t.text for t in turns],
            reply=turns[-1].reply,
        )
        outcome.judge = asdict(verdict)
    return outcome
