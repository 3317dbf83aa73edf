"""The Python API (`aniso.open`), and the README's example run as it is written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

import aniso
from aniso.core.errors import InputError


def readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- python-api-example -->\s*```python\n(.*?)```", text, re.S)
    assert found, "the README's Python example is marked <!-- python-api-example -->"
    return found.group(1)


def test_the_readme_example_runs_as_written(data_dir: Path, tmp_path: Path) -> None:
    code = readme_example()
    assert len(code.strip().splitlines()) <= 12
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hot" in result.stdout and "vegetarian" in result.stdout


def test_open_remember_recall_profile_export_compact_and_close(
    data_dir: Path, tmp_path: Path
) -> None:
    with aniso.open(data_dir=data_dir, timezone="Europe/Berlin") as memory:
        assert memory.services.settings.timezone == "Europe/Berlin"
        stored = memory.remember("I'm vegan now, and my passport is 4509 735291")
        assert stored["withheld"] and "735291" not in stored["stored"]
        assert memory.profile()["diet"]["value"] == "vegan"
        items = memory.recall("vegan")
        assert items and items[0]["tier"] == "hot" and "[" in items[0]["text"]
        assert memory.profile_set("tone", "brief") and memory.profile()["tone"]
        assert memory.profile_unset("tone") and not memory.profile().get("tone")
        report = memory.export(tmp_path / "out.json")
        assert Path(report["path"]).is_file()
        assert "moved" in memory.compact()
        with pytest.raises(InputError):
            memory.remember("")
    with pytest.raises(InputError, match="closed"):
        memory.recall("vegan")
    assert b"735291" not in b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def test_threads_and_procedures_have_the_shapes_of_the_cli(data_dir: Path) -> None:
    from aniso.tiers import procedures

    with aniso.open(data_dir=data_dir) as memory:
        memory.remember("I'm vegetarian")
        memory.remember("The boiler doesn't work: the boiler pressure drops every night")
        [thread] = memory.threads()
        assert "The boiler" in thread["label"] and thread["brief"]
        assert set(thread) >= {"u", "tau_hours", "last_refresh", "brief", "block_id"}
        services = memory.services
        procedures.keep(
            services.db,
            kind="meal plan",
            title="a weekly meal plan",
            steps=["Monday: vegetarian lentil curry"],
            profile=services.profile.current().as_values(),
            episode_id=None,
            now=services.clock(),
        )
        [kept] = memory.procedures()
        assert (kept["kind"], kept["steps"], kept["uses"]) == (
            "meal plan",
            ["Monday: {diet} lentil curry"],
            1,
        )


def test_remember_says_what_it_learned_and_profile_undo_takes_it_back(data_dir: Path) -> None:
    with aniso.open(data_dir=data_dir) as memory:
        stored = memory.remember("I am allergic to nuts.")
        assert [(c["kind"], c["field"], c["value"]) for c in stored["profile_changes"]] == [
            ("started", "allergies", "nuts")
        ]
        done = memory.profile_undo()
        assert done["undone"] is True and done["episode_id"] == stored["episode_id"]
        assert done["message"] == "Undone: allergies nuts removed"
        assert memory.profile()["allergies"] == []
        assert memory.profile_undo()["undone"] is False
