"""`aniso bench locomo --tiers`: the nightly compactor runs on the simulated clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from aniso.scheduler import nights


def conversation(path: Path) -> Path:
    first = [
        {"speaker": "Ana", "dia_id": f"D1:{i}", "text": text}
        for i, text in enumerate(
            [
                "I ran a charity race for the animal shelter last Sunday.",
                "It was a 10 km race along the river in Porto.",
                "My time was 52 minutes, a personal best!",
            ],
            start=1,
        )
    ]
    second = [
        {"speaker": "Ben", "dia_id": f"D2:{i}", "text": text}
        for i, text in enumerate(
            ["I started learning the cello this month.", "My teacher is very patient."], start=1
        )
    ]
    path.write_text(
        json.dumps(
            {
                "conversation": {
                    "speaker_a": "Ana",
                    "speaker_b": "Ben",
                    "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": first,
                    "session_2_date_time": "10:00 am on 20 October, 2023",
                    "session_2": second,
                },
                "qa": [
                    {
                        "question": "Where was the charity race?",
                        "evidence": ["D1:2"],
                        "category": 1,
                    },
                    {"question": "What does Ben learn?", "evidence": ["D2:1"], "category": 1},
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_nights_are_the_local_slots_between_two_instants() -> None:
    start = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    slots = list(nights(start, datetime(2023, 5, 11, 12, 0, tzinfo=UTC), at="03:00", zone="UTC"))
    assert [s.day for s in slots] == [9, 10, 11] and {s.hour for s in slots} == {3}
    kyiv = list(
        nights(start, datetime(2023, 5, 9, 12, 0, tzinfo=UTC), at="03:00", zone="Europe/Kyiv")
    )
    assert [(s.day, s.hour) for s in kyiv] == [(9, 0)]  # 03:00 in Kyiv is midnight UTC


def test_tier_mode_compacts_between_sessions(tmp_path: Path) -> None:
    path = conversation(tmp_path / "tiny.json")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    hot = run_cli("bench", "locomo", "--json", str(path), env={"TMPDIR": str(scratch)})
    assert hot.returncode == 0, hot.stderr
    assert list(scratch.iterdir()) == [], "the replayed memory is removed without --work-dir"
    hot_only = json.loads(hot.stdout)
    assert hot_only["mode"] == "hot-only" and "tiers" not in hot_only["conversations"]["tiny"]
    tiered = run_cli("bench", "locomo", "--tiers", "--json", str(path))
    assert tiered.returncode == 0, tiered.stderr
    result = json.loads(tiered.stdout)
    assert result["mode"] == "tiers"
    assert set(result["overall"]) == set(hot_only["overall"]), "the same keys in both modes"
    figures = result["conversations"]["tiny"]["tiers"]
    assert figures["compactor_runs"] == 166  # every night from 9 May to 21 October
    assert figures["blocks_before_questions"]["cold"] >= 1, "May is cold by late October"


def test_why_compares_with_hot_only_in_the_same_run(tmp_path: Path) -> None:
    path = conversation(tmp_path / "tiny.json")
    kept = tmp_path / "kept"
    result = run_cli(
        "bench", "locomo", "--tiers", "--why", "--json", "--work-dir", str(kept), str(path)
    )
    assert result.returncode == 0, result.stderr
    assert (kept / "tiny" / "aniso.db").exists(), "--work-dir keeps the replayed memory"
    figures = json.loads(result.stdout)
    why = figures["why"]
    assert why["hot_only"]["overall"]["categories"]["all"]["questions"] == 2
    assert set(why) == {"hot_only", "p95_ratio", "lost_by_form", "lost_by_outcome", "lost"}
    assert figures["category_names"]["2"] == "temporal"
    for row in why["lost"]:
        assert row["form"] in {
            "hot",
            "hot (restored copy)",
            "warm (kept share)",
            "warm (archived, summary)",
            "cold (archived, capsule)",
            "missing",
        }
    text = run_cli("bench", "locomo", "--tiers", "--why", str(path))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.decode().splitlines()
    assert any(line.split()[:2] == ["tiny", "1.000/1.000"] for line in lines), lines
    assert any(line.startswith("hot-only in the same run: R@10 1.000") for line in lines), lines


def test_each_question_is_followed_by_the_write_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat pushes the turn's held vectors (a restore's among them) once the reply is
    out; the replay does the same after each question, untimed, so held vectors do not
    pile up over a conversation's questions as no chat lets them."""
    from aniso.bench import locomo
    from aniso.core.settings import load_settings
    from aniso.tiers.index.dense import DenseMemory

    path = conversation(tmp_path / "tiny.json")
    calls: list[str] = []

    def recall(question: str) -> locomo.Ranked:
        calls.append(question)
        return []

    locomo.score_conversation(
        locomo.load(path), recall, locomo.Scores(), after_reply=lambda: calls.append("after")
    )
    assert calls == ["Where was the charity race?", "after", "What does Ben learn?", "after"]

    wired: list[object] = []
    real = locomo.score_conversation

    def spy(*args: Any, **kwargs: Any) -> None:
        wired.append(kwargs.get("after_reply"))
        real(*args, **kwargs)

    monkeypatch.setattr(locomo, "score_conversation", spy)
    settings = load_settings({"data_dir": str(tmp_path / "data")})
    locomo.run([path], work_dir=tmp_path / "work", settings=settings, tiers=True)
    assert [getattr(after, "__func__", None) for after in wired] == [DenseMemory.push_held]
