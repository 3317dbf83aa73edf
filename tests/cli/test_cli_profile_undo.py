"""A learned profile change is shown where the reply is, and `aniso profile undo` takes
it back from another process: real subprocesses, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

FAKE = ("--model", "fake/x")


def test_ask_says_what_it_noted_and_undo_takes_it_back(data_dir: Path) -> None:
    told = run_cli(*FAKE, "ask", "I am vegetarian.", fake_reply="Good to know.")
    assert told.returncode == 0, told.stderr
    assert told.stdout.decode() == "Good to know.\n"
    assert told.stderr.decode() == ("aniso: Noted: diet → vegetarian (undo: aniso profile undo)\n")

    undo = run_cli("profile", "undo")
    assert undo.returncode == 0, undo.stderr
    assert undo.stdout.decode() == (
        "Undone: diet vegetarian removed\nended diet = vegetarian (undone)\n"
    )
    shown = run_cli("profile", "show", "--json")
    assert json.loads(shown.stdout)["diet"] is None
    history = json.loads(run_cli("profile", "history", "--json").stdout)
    assert [(r["field"], r["value"], r["ended_reason"]) for r in history] == [
        ("diet", "vegetarian", "undone")
    ]

    again = run_cli("profile", "undo")
    assert again.returncode == 0, again.stderr
    assert again.stdout.decode() == (
        "Nothing to undo: no profile change has been learned from a message yet.\n"
    )


def test_ask_json_and_undo_json(data_dir: Path) -> None:
    told = run_cli(*FAKE, "ask", "--json", "I am allergic to nuts.", fake_reply="Noted.")
    assert told.returncode == 0, told.stderr
    assert told.stderr == b""
    shown = json.loads(told.stdout)
    assert shown["profile_changes"] == [
        {"kind": "started", "field": "allergies", "value": "nuts", "row_id": 1, "reason": None}
    ]

    undo = run_cli("profile", "undo", "--json")
    assert undo.returncode == 0, undo.stderr
    assert json.loads(undo.stdout) == {
        "undone": True,
        "episode_id": 1,
        "changes": [
            {"kind": "ended", "field": "allergies", "value": "nuts", "row_id": 1,
             "reason": "undone"}
        ],
        "message": "Undone: allergies nuts removed",
    }  # fmt: skip

    empty = run_cli("profile", "undo", "--json")
    assert empty.returncode == 0, empty.stderr
    assert json.loads(empty.stdout) == {
        "undone": False,
        "episode_id": None,
        "changes": [],
        "message": "Nothing to undo: no profile change has been learned from a message yet.",
    }


def test_chat_notes_the_change_and_undo_is_one_line(data_dir: Path) -> None:
    result = run_cli(
        *FAKE, "chat", stdin=b"I am vegetarian.\n/undo\n/undo\n/exit\n", fake_reply="ack"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode() == "aniso: Noted: diet → vegetarian (/undo takes it back)\n"
    assert result.stdout.decode() == (
        "ack\n"
        "Undone: diet vegetarian removed\n"
        "Nothing to undo: no profile change has been learned from a message yet.\n"
    )
    shown = run_cli("profile", "show", "--json")
    assert json.loads(shown.stdout)["diet"] is None


def test_a_message_that_teaches_nothing_notes_nothing(data_dir: Path) -> None:
    told = run_cli(*FAKE, "ask", "What's the weather like?", fake_reply="Sunny.")
    assert told.returncode == 0, told.stderr
    assert told.stderr == b""
