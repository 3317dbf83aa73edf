"""Scripted answers, reply checks and the correction check of scenario suites.

A scripted answer (`reply` on a message) reaches every variant in place of the model,
with replies on or off; reply checks run on a real reply (the model's, a scripted one,
or one a variant gave without the model) and are not run on a stand-in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import ScriptedLLM, install

from aniso.core.settings import load_settings
from aniso.scenarios.runner import run_suites
from aniso.scenarios.suite import load_suite

PLAN = "- Monday: vegetarian lentil curry\n- Tuesday: vegetarian bean tacos"
SCENARIOS = [
    {
        "id": "plan",
        "persona_id": "p",
        "messages": [
            {"from": "user", "text": "I'm vegetarian.", "at": "2026-03-02T18:00:00"},
            {"from": "user", "text": "Can you make me a weekly meal plan?", "reply": PLAN},
            {"from": "user", "text": "Thanks, perfect!"},
            {"advance": "6d"},
            {"from": "user", "text": "I became vegan last week."},
            {"from": "user", "text": "Make me a weekly meal plan, please."},
        ],
        "expect": {
            "reply_contains": ["Monday: vegan lentil curry"],
            "reply_absent": ["vegetarian lentil"],
        },
    },
    {
        "id": "pause",
        "persona_id": "p",
        "messages": [
            {
                "from": "user",
                "text": "The dishwasher doesn't work: the dishwasher leaves water every cycle.",
                "at": "2026-02-02T09:00:00",
            },
            {"advance": "8h"},
            {"from": "user", "text": "The repairman said the dishwasher drain filter is clogged."},
            {"advance": "14d"},
            {"from": "user", "text": "Back to the dishwasher: the water is standing again."},
        ],
        "expect": {"moved": ["drain filter is clogged"], "recall_contains": ["Where we left off"]},
    },
]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    persona = [{"id": "p", "name": "Ann", "language": "en"}]
    (folder / "personas.json").write_text(json.dumps(persona), "utf-8")
    (folder / "scenarios.json").write_text(json.dumps(SCENARIOS), "utf-8")
    return folder


def outcome(report, scenario: str, variant: str) -> dict:  # type: ignore[no-untyped-def]
    [found] = [o for o in report.outcomes if o.scenario == scenario and o.variant == variant]
    return found.checks


def test_a_scripted_answer_is_kept_and_the_repeat_is_checked_by_its_reply(
    suite: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = ScriptedLLM(default="- a\n- b")
    install(script)
    monkeypatch.setenv("ANISO_DATA_DIR", str(tmp_path / "unused"))
    settings = load_settings({"model": "fake/x", "llm_extraction": "off"})
    report = run_suites(
        [load_suite(suite)], settings=settings, variants=["history", "aniso"], replies=False
    )
    assert script.calls == [], "a scripted answer or a stand-in never calls the model"
    aniso = outcome(report, "plan", "aniso")["expect"]
    assert (aniso["score"], aniso["status"]) == (1.0, "ran")
    history = outcome(report, "plan", "history")["expect"]
    assert (history["score"], history["status"]) == (None, "not_run")
    transcript_turns = [
        o for o in report.outcomes if o.variant == "history" and o.scenario == "plan"
    ]
    assert transcript_turns[0].turns[1]["reply"] == PLAN and transcript_turns[0].turns[1]["replied"]


def test_the_user_corrects_when_push_refresh_is_off_and_recall_lacks_what_moved(
    suite: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    install(ScriptedLLM())
    monkeypatch.setenv("ANISO_DATA_DIR", str(tmp_path / "unused"))
    figures = {}
    for push in (True, False):
        settings = load_settings({"model": "fake/x", "llm_extraction": "off", "push_refresh": push})
        report = run_suites(
            [load_suite(suite)], settings=settings, variants=["aniso"], replies=False
        )
        checks = outcome(report, "pause", "aniso")
        figures[push] = (checks["expect"]["score"], checks["correction"]["score"])
        assert report.summary()["aniso"]["correction"]["n"] == 1
    assert figures[True] == (1.0, 1.0)
    assert figures[False][0] == 0.0, "without push refresh no brief leads the reply"
