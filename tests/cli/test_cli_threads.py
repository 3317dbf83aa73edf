"""`aniso memory threads`, and a return after a pause, run as a user would on simulated time."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import one_line_error, run_cli


def ask(text: str, now: str, *extra: str) -> dict:
    result = run_cli("--now", now, "--model", "fake/x", "ask", "--json", text, fake_reply="noted")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def threads(now: str) -> list[dict]:
    result = run_cli("--now", now, "memory", "threads", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["threads"]


def test_a_problem_the_user_keeps_returning_to_rises_in_urgency(data_dir: Path) -> None:
    assert threads("2026-03-02T09:00:00") == []
    ask("My printer doesn't work: the Brother printer jams on every page", "2026-03-02T09:00:00")
    seen = []
    for day in (3, 4, 5):
        now = f"2026-03-0{day}T09:00:00"
        ask("The Brother printer jams again, the paper is stuck", now)
        [thread] = [t for t in threads(now) if "Brother printer" in t["label"]]
        seen.append(thread)
    us = [t["u"] for t in seen]
    taus = [t["tau_hours"] for t in seen]
    assert us[0] < us[1] < us[2], us
    assert taus[0] > taus[1] > taus[2], taus
    assert all(24 <= tau <= 168 for tau in taus)
    assert set(seen[0]) >= {"u", "tau_hours", "last_refresh", "brief"}
    assert seen[-1]["brief"].startswith("Open since 2 Mar: “My printer doesn't work")
    assert "block" not in seen[-1]["brief"]


def test_the_first_reply_after_a_two_week_pause_starts_from_the_brief(data_dir: Path) -> None:
    ask("The boiler doesn't work, the boiler pressure drops every night", "2026-03-02T09:00:00")
    ask("The plumber thinks the boiler pressure valve is worn. Why now?", "2026-03-02T17:00:00")
    listed = run_cli("--now", "2026-03-18T09:00:00", "memory", "threads")
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout.decode()
    assert "u 0." in text and "“The boiler doesn't work" in text
    assert "plumber thinks the boiler pressure valve" in text

    result = run_cli(
        "--now", "2026-03-18T10:00:00", "--model", "fake/x", "ask",
        "Back to the boiler: the pressure dropped again", fake_reply="Let us check the valve.",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    assert "Where we left off on “The boiler doesn't work" in err
    assert result.stdout.decode().strip() == "Let us check the valve."
    again = ask("The boiler pressure is 0.5 bar now", "2026-03-18T10:05:00")
    assert again["briefs"] == []


def test_threads_travel_with_export_and_import(data_dir: Path, tmp_path: Path) -> None:
    ask("The boiler doesn't work, the boiler pressure drops every night", "2026-03-02T09:00:00")
    assert threads("2026-03-12T09:00:00")[0]["brief"]
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert run_cli("--now", "2026-03-12T09:00:00", "export", "--out", str(first)).returncode == 0
    document = json.loads(first.read_text(encoding="utf-8"))
    [record] = document["threads"]
    assert record["brief"].startswith("Open since")
    imported = run_cli("--now", "2026-03-12T09:00:00", "import", str(first), "--replace", "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["threads"] == 1
    assert run_cli("--now", "2026-03-12T09:00:00", "export", "--out", str(second)).returncode == 0
    assert second.read_bytes() == first.read_bytes()


def test_bad_input_gets_one_line(data_dir: Path) -> None:
    result = run_cli("--now", "not a time", "memory", "threads")
    assert result.returncode == 1
    assert "cannot read the time" in one_line_error(result)
