"""The CLI as a user runs it: a real subprocess, one-line errors, no tracebacks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import one_line_error, run_cli


def test_ask_prints_the_reply(data_dir: Path) -> None:
    result = run_cli("--model", "fake/x", "ask", "hello", fake_reply="Hi! Nice to meet you.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "Hi! Nice to meet you.\n"
    with sqlite3.connect(data_dir / "aniso.db") as db:
        assert db.execute("SELECT user_text, reply FROM episodes").fetchall() == [
            ("hello", "Hi! Nice to meet you.")
        ]


def test_ask_json_shape(data_dir: Path) -> None:
    result = run_cli("--model", "fake/x", "ask", "--json", "hello", fake_reply="Hi.")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "reply": "Hi.",
        "episode_id": 1,
        "error": None,
        "notices": [],
        "profile_changes": [],
        "briefs": [],
        "procedure": None,
        "recalled": [],
    }


def test_ask_reads_stdin(data_dir: Path) -> None:
    result = run_cli(
        "--model", "fake/x", "ask", fake_reply="From stdin.", stdin="привет из stdin".encode()
    )
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(data_dir / "aniso.db") as db:
        assert db.execute("SELECT user_text FROM episodes").fetchone() == ("привет из stdin",)


@pytest.mark.parametrize(
    ("args", "stdin", "expected"),
    [
        (["ask", ""], None, "the message is empty"),
        (["ask", "-"], b"\xff\xfe not text", "stdin is not valid UTF-8 (byte 0xff at offset 0)"),
        (["ask", "-"], b"a" * 1_048_576, "the message is 1,048,576 characters"),
        (["ask", "-"], b"bin\x00ary", "NUL bytes"),
    ],
)
def test_bad_input_gets_one_line(
    args: list[str], stdin: bytes | None, expected: str, data_dir: Path
) -> None:
    result = run_cli("--model", "fake/x", *args, stdin=stdin, fake_reply="never")
    assert result.returncode == 1
    assert expected in one_line_error(result)
    assert not (data_dir / "aniso.db").exists() or _episodes(data_dir) == 0


def _episodes(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "aniso.db") as db:
        return db.execute("SELECT count(*) FROM episodes").fetchone()[0]


def test_unwritable_data_dir(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = run_cli("--data-dir", str(tmp_path / "file" / "mem"), "ask", "hi", fake_reply="-")
    assert result.returncode == 1
    assert "cannot use data dir" in one_line_error(result)


def test_corrupt_settings_file(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b'model = "x\n\xff[[[')
    result = run_cli("ask", "hi")
    assert result.returncode == 1
    assert "settings file" in one_line_error(result)


def test_unknown_model_keeps_the_message(data_dir: Path) -> None:
    result = run_cli("--model", "no-such-provider-model-xyz", "ask", "hi there")
    assert result.returncode == 1
    assert "unknown model 'no-such-provider-model-xyz'" in one_line_error(result)
    assert _episodes(data_dir) == 1


def test_bad_now_is_a_clear_error() -> None:
    result = run_cli("--now", "yesterday-ish", "--model", "fake/x", "ask", "hi", fake_reply="-")
    assert result.returncode == 1
    assert "cannot read the time 'yesterday-ish'" in one_line_error(result)


def test_now_sets_the_episode_time(data_dir: Path) -> None:
    result = run_cli(
        "--now", "2026-03-01T10:00:00", "--model", "fake/x", "ask", "hi", fake_reply="ok"
    )
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(data_dir / "aniso.db") as db:
        assert db.execute("SELECT at FROM episodes").fetchone() == ("2026-03-01T10:00:00+00:00",)


def test_chat_repl_over_stdin(data_dir: Path) -> None:
    result = run_cli(
        "--model", "fake/x", "chat", stdin=b"first\n\nsecond\n/exit\nnever\n", fake_reply="ack"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "ack\nack\n"
    assert _episodes(data_dir) == 2


def test_config_json_reports_sources(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('timezone = "Asia/Shanghai"\n')
    result = run_cli("--model", "cli-model", "config", "--json", env={"ANISO_HOT_DAYS": "7"})
    assert result.returncode == 0, result.stderr
    rows = {r["name"]: (r["value"], r["source"]) for r in json.loads(result.stdout)["settings"]}
    assert rows["model"] == ("cli-model", "command line")
    assert rows["hot_days"] == ("7.0", "env ANISO_HOT_DAYS")
    assert rows["timezone"] == ("Asia/Shanghai", f"file {tmp_path / 'config.toml'}")
    assert rows["cold_days"] == ("90.0", "default")


def test_version() -> None:
    result = run_cli("--version")
    assert result.stdout.decode().startswith("aniso, version ")


def test_an_unexpected_bug_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    import click
    from click.testing import CliRunner

    from aniso.cli import AnisoGroup

    @click.group(cls=AnisoGroup)
    def root() -> None:
        """A root like `aniso`."""

    @root.command()
    def broken() -> None:
        """A command with a bug."""
        {}["missing"]

    result = CliRunner().invoke(root, ["broken"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0].startswith("aniso: internal error: KeyError at test_cli.py:")
    monkeypatch.setenv("ANISO_DEBUG", "1")
    assert "Traceback" in CliRunner().invoke(root, ["broken"]).output


def test_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """`aniso config | head -1`: the reader leaves early; no internal error follows."""
    import os
    import subprocess
    import sys

    from helpers import RUNNER

    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: the first write fails with EPIPE
    try:
        result = subprocess.run(
            [sys.executable, str(RUNNER), "--", "config"],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert b"internal error" not in result.stderr, result.stderr
    assert b"Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip() == b""
