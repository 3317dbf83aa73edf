"""How often "tell me more" restores the right block, over the follow-ups of
tests/data/unpack_followups.jsonl (English, Russian, Ukrainian).

Six topics are talked about on separate days and compacted to cold. Each case is a
turn that shows old memories shallow (a passing mention), then the follow-up: an
anaphoric one ("подробнее", "розкажи докладніше") must deepen the gist shown; one
that names its topic must find it even after another topic's gist; a message that
asks for nothing ("I want more coffee") must restore nothing. The decision is
measured on the real recall and embedded model, without restoring, so every case
starts from the same memory.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.prompt import fit_memories
from aniso.services import Services, build, make_compactor
from aniso.tiers import gist, unpack

CASES = Path(__file__).parents[1] / "data" / "unpack_followups.jsonl"
REQUIRED_SHARE = 0.9


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def test_tell_me_more_restores_the_right_block(services: Services, clock: SimulatedClock) -> None:
    lines = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    seeds = [line for line in lines if line["kind"] == "seed"]
    cases = [line for line in lines if line["kind"] == "follow_up"]
    assert len([case for case in cases if case["expect"]]) >= 30
    block_of: dict[str, int] = {}
    for seed in seeds:
        for text in seed["texts"]:
            services.assistant.send(text)
            clock.advance(timedelta(minutes=2))
        (block_of[seed["topic"]],) = services.db.execute(
            "SELECT block_id FROM episodes ORDER BY id DESC LIMIT 1"
        ).fetchone()
        clock.advance(timedelta(days=1))
    assert len(set(block_of.values())) == len(seeds), "one block per topic"
    compactor = make_compactor(services)
    for days in (30, 100, 200):
        clock.advance(timedelta(days=days))
        compactor.run(clock())
    memory, settings = services.memory, services.settings
    outcomes: list[tuple[dict, int | None]] = []
    for case in cases:
        shown = gist.present(
            memory.db, case["mention"], memory.recall(case["mention"], now=clock()).items
        )
        injected = fit_memories(
            shown, budget_tokens=settings.context_budget_tokens, profile_text=""
        )
        items = memory.recall(case["follow_up"], now=clock()).items
        chosen, _ = unpack.choose(
            memory, case["follow_up"], items, set(), score=settings.unpack_score,
            last_gist=gist.shown_last(injected),
        )  # fmt: skip
        outcomes.append((case, chosen[0] if chosen else None))
    expected = {None: None} | block_of
    wrong = [(c["follow_up"], got) for c, got in outcomes if got != expected[c["expect"]]]
    positives = [(c, got) for c, got in outcomes if c["expect"]]
    right = sum(got == block_of[c["expect"]] for c, got in positives)
    by_language = {
        lang: f"{sum(got == block_of[c['expect']] for c, got in positives if c['lang'] == lang)}"
        f"/{sum(c['lang'] == lang for c, _ in positives)}"
        for lang in ("en", "ru", "uk")
    }
    print(f"\nright block restored: {right}/{len(positives)} {by_language}; wrong: {wrong}")
    assert right / len(positives) >= REQUIRED_SHARE, wrong
    assert all(got is None for c, got in outcomes if not c["expect"]), "no request, no restore"
