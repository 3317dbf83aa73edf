"""`aniso profile ...` through CliRunner, under the root context of `aniso.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from aniso.cli import AnisoGroup, Context
from aniso.cli.profile import profile
from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db
from aniso.profile import FIELDS, ProfileStore, extract_rules

NOW = "2026-01-05T19:00:00"


ROOT = AnisoGroup(name="aniso", commands={"profile": profile})


def aniso(data_dir: Path, *args: str, now: str | None = NOW) -> Result:
    """`aniso profile ARGS` with the real root context: settings and services."""
    context = Context({"data_dir": str(data_dir), "model": None, "now": now})
    return CliRunner().invoke(ROOT, ["profile", *args], obj=context)


def seed(data_dir: Path, clock: SimulatedClock) -> None:
    store = ProfileStore(open_db(data_dir), clock=clock)
    store.apply(extract_rules("Я обожаю стейки."), episode_id=1, source="rules")
    store.apply(extract_rules("Апдейт: перестал есть мясо."), episode_id=2, source="rules")


def test_show_and_its_json_shape(data_dir: Path, clock: SimulatedClock) -> None:
    seed(data_dir, clock)
    result = aniso(data_dir, "show")
    assert result.exit_code == 0, result.output
    assert result.output == (
        'diet       vegetarian  "перестал есть мясо"  (rules, episode 2, 2026-01-05 19:00)\n'
    )
    data = json.loads(aniso(data_dir, "show", "--json").output)
    assert data["diet"] == {
        "value": "vegetarian",
        "said": "перестал есть мясо",
        "since": "2026-01-05T19:00:00Z",
        "source_episode": 2,
        "source": "rules",
    }
    assert data["likes"] == [] and data["name"] is None
    assert tuple(data) == FIELDS


def test_show_an_empty_profile(data_dir: Path) -> None:
    assert aniso(data_dir, "show").output == "The profile is empty.\n"


def test_history_lists_superseded_values(data_dir: Path, clock: SimulatedClock) -> None:
    seed(data_dir, clock)
    result = aniso(data_dir, "history")
    assert result.output == (
        "#1  2026-01-05 19:00  likes = steak  [rules ep 1]  ended 2026-01-05 19:00 by ep 2: "
        "conflicts with diet 'vegetarian'\n"
        "#2  2026-01-05 19:00  diet = vegetarian  [rules ep 2]\n"
    )
    rows = json.loads(aniso(data_dir, "history", "likes", "--json").output)
    assert rows == [
        {
            "id": 1,
            "field": "likes",
            "value": "steak",
            "said": "стейки",
            "evidence": "Я обожаю стейки",
            "since": "2026-01-05T19:00:00Z",
            "source_episode": 1,
            "source": "rules",
            "ended": "2026-01-05T19:00:00Z",
            "ended_by_episode": 2,
            "ended_reason": "conflicts with diet 'vegetarian'",
        }
    ]


def test_set_and_unset_by_hand(data_dir: Path) -> None:
    assert aniso(data_dir, "set", "budget", "низкий").output == "set   budget = low\n"
    assert aniso(data_dir, "set", "budget", "high").output == (
        "ended budget = low (replaced by 'high')\nset   budget = high\n"
    )
    assert aniso(data_dir, "set", "budget", "high").output == (
        "No change: the profile already says so.\n"
    )
    assert aniso(data_dir, "set", "interests", "кино").output == "set   interests = film\n"
    assert aniso(data_dir, "unset", "interests", "film").output == (
        "ended interests = film (unset by hand)\n"
    )
    history = json.loads(aniso(data_dir, "history", "--json").output)
    assert [(r["field"], r["value"], r["source"], r["ended_reason"]) for r in history] == [
        ("budget", "low", "hand", "replaced by 'high'"),
        ("budget", "high", "hand", None),
        ("interests", "film", "hand", "unset by hand"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["set", "mood", "happy"], "aniso: error: unknown profile field 'mood'; use one of: "),
        (["set", "diet", "keto-ish"], "aniso: error: cannot read 'keto-ish' as a diet; use one"),
        (["unset", "diet"], "aniso: error: nothing to unset: diet has no current value"),
        (["history", "mood"], "aniso: error: unknown profile field 'mood'"),
    ],
)
def test_errors_are_one_line(data_dir: Path, args: list[str], message: str) -> None:
    result = aniso(data_dir, *args)
    assert result.exit_code == 1
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_without_settings_the_group_says_why(tmp_path: Path) -> None:
    result = CliRunner().invoke(ROOT, ["profile", "show"], obj=object())
    assert result.exit_code == 1
    assert "must run under the `aniso` command" in result.stderr


def test_under_the_real_root_context(data_dir: Path) -> None:
    """With `aniso.cli.Context` itself as the root object, as `aniso profile` will run."""
    context = Context({"data_dir": str(data_dir), "model": None, "now": NOW})
    result = CliRunner().invoke(ROOT, ["profile", "set", "diet", "vegan"], obj=context)
    assert result.exit_code == 0, result.output
    store = ProfileStore(open_db(data_dir), clock=SimulatedClock())
    assert store.current().values("diet") == ["vegan"]


def test_every_command_has_help() -> None:
    assert profile.help
    for name, command in profile.commands.items():
        assert command.help, name
    assert sorted(profile.commands) == ["history", "set", "show", "undo", "unset"]
    assert isinstance(profile, click.Group) and profile.name == "profile"
