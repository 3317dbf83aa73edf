"""`aniso memory procedures`: an accepted meal plan reused a week later, adapted to a new diet."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import one_line_error, run_cli

PLAN = "- Monday: vegetarian lentil curry\n- Tuesday: vegetarian pasta\n- Friday: vegetarian pizza"


def ask(text: str, now: str) -> dict:
    result = run_cli("--now", now, "--model", "fake/x", "ask", "--json", text, fake_reply=PLAN)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def listed(now: str) -> list[dict]:
    result = run_cli("--now", now, "memory", "procedures", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["procedures"]


def test_an_accepted_meal_plan_is_reused_adapted_after_a_change_of_diet(
    data_dir: Path, tmp_path: Path
) -> None:
    assert listed("2026-03-02T09:00:00") == []
    ask("I'm vegetarian", "2026-03-02T09:00:00")
    first = ask("Make me a weekly meal plan", "2026-03-02T09:05:00")
    assert first["procedure"] is None
    ask("Thanks, perfect!", "2026-03-02T09:10:00")
    [kept] = listed("2026-03-02T09:10:00")
    assert (kept["kind"], kept["uses"], kept["rejected"]) == ("meal plan", 1, False)
    assert kept["steps"][0] == "Monday: {diet} lentil curry"

    ask("I became vegan", "2026-03-09T09:00:00")
    again = ask("Make me a meal plan for the week", "2026-03-09T09:05:00")
    assert again["procedure"]["steps"] == [
        "Monday: vegan lentil curry",
        "Tuesday: vegan pasta",
        "Friday: vegan pizza",
    ]
    [used] = listed("2026-03-09T09:05:00")
    assert used["uses"] == 2 and used["weight"] > 1

    out = tmp_path / "memory.json"
    assert run_cli("export", "--out", str(out)).returncode == 0
    [record] = json.loads(out.read_text(encoding="utf-8"))["procedures"]
    assert record["uses"] == 2 and len(record["links"]) == 2

    pinned = run_cli("memory", "procedures", "--pin", str(used["id"]))
    assert pinned.returncode == 0 and " pinned" in pinned.stdout.decode()
    assert run_cli("memory", "procedures", "--forget", str(used["id"])).returncode == 0
    assert listed("2026-03-09T10:00:00") == []
    missing = run_cli("memory", "procedures", "--forget", "99")
    assert missing.returncode == 1
    assert one_line_error(missing) == (
        "aniso: error: no procedure 99: see `aniso memory procedures`"
    )
