"""Docs drift: every CLI command has help text and is shown in the README."""

from __future__ import annotations

import click
from conftest import REPO

from aniso.cli import main


def walk(group: click.Group, prefix: str = "aniso") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        found.append((path, command))
        if isinstance(command, click.Group):
            found.extend(walk(command, path))
    return found


def test_every_command_has_help_and_is_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = walk(main)
    assert commands, "the CLI has no commands?"
    for path, command in commands:
        assert (command.help or "").strip(), f"{path} has no help text"
        assert path in readme, f"{path} is not mentioned in README.md"


def test_ci_runs_exactly_the_readme_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    blocks = readme.split("```sh\n")[1:3]
    install, test = (block.split("\n```")[0].strip() for block in blocks)
    assert install in ci and test in ci
