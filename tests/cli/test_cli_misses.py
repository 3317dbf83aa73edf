"""Corrections attributed, as a user would see them: `aniso stats` splits retrieval
from reply misses, and `aniso export --misses` writes them as a redacted dataset."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import one_line_error, run_cli


def ask(text: str, now: str) -> None:
    result = run_cli("--now", now, "--model", "fake/x", "ask", text, fake_reply="noted")
    assert result.returncode == 0, result.stderr.decode()


def test_corrections_split_by_cause_and_export_as_a_dataset(data_dir: Path, tmp_path: Path) -> None:
    ask("I'm vegetarian", "2026-03-02T09:00:00")
    # Days later, one process per message: the profile carried "vegetarian" into the
    # corrected reply, so memory supplied the fact and the reply missed it.
    ask("Any dinner ideas for tonight?", "2026-03-05T09:00:00")
    ask("I already told you I'm vegetarian!", "2026-03-05T09:01:00")
    # Never said before: memory could not have supplied it.
    ask("I already told you my cat is called Miso", "2026-03-06T09:00:00")
    ask("I already told you, write to olga.k@example.com", "2026-03-07T09:00:00")

    stats = json.loads(run_cli("--now", "2026-03-07T10:00:00", "stats", "--json").stdout)
    assert (stats["misses"], stats["miss_causes"]) == (3, {"retrieval": 2, "reply": 1})
    text = run_cli("--now", "2026-03-07T10:00:00", "stats").stdout.decode()
    assert "3 corrections, miss rate 60.0% (2 retrieval, 1 reply)" in text

    out = tmp_path / "misses.jsonl"
    result = run_cli("--now", "2026-03-07T10:00:00", "export", "--misses", "--out", str(out),
                     "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout) == {
        "path": str(out), "misses": 3, "retrieval": 2, "reply": 1, "bytes": out.stat().st_size
    }  # fmt: skip
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["cause"], r["fact"], r["fact_supplied"]) for r in records] == [
        ("reply", ["vegetarian"], ["vegetarian"]),
        ("retrieval", ["cat", "call", "miso"], []),
        ("retrieval", ["write", "email"], []),
    ]
    assert records[0]["correction"] == "I already told you I'm vegetarian!"
    assert "vegetarian" in records[0]["profile"]
    assert set(records[0]) == {
        "at", "cause", "correction", "fact", "fact_supplied", "held", "injected", "profile"
    }  # fmt: skip
    assert b"olga" not in out.read_bytes(), "the dataset is redacted"
    assert out.stat().st_mode & 0o077 == 0


def test_misses_are_json_lines_only(data_dir: Path, tmp_path: Path) -> None:
    result = run_cli("export", "--misses", "--format", "md", "--out", str(tmp_path / "m.md"))
    assert result.returncode == 1
    assert one_line_error(result) == "aniso: error: --misses writes JSON Lines: drop --format md"
