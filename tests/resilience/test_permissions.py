"""Permissions and secrets: the data dir is 0700 and its files 0600, checked at every
start with a one-line warning when looser; API keys never reach logs, exports or memory.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from helpers import run_cli
from resilience.faults import MODEL

from aniso.core.settings import load_settings
from aniso.data.markdown import export_markdown
from aniso.services import build

RUNNER = Path(__file__).with_name("fault_runner.py")
OPENAI_KEY = "sk-proj-Q8wErTy7uIoP1aSdF3gHjK9lZxCvBn4M5qW2eR"
ANTHROPIC_KEY = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
ANISO_KEY = "aniso-k3y-5ecret-Vv81Qz0Pp"
TYPED_KEY = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SECRETS = (OPENAI_KEY, ANTHROPIC_KEY, ANISO_KEY, TYPED_KEY)


def modes(data_dir: Path) -> dict[str, int]:
    return {
        (p.relative_to(data_dir).as_posix() if p != data_dir else "."): stat.S_IMODE(
            p.lstat().st_mode
        )
        for p in [data_dir, *data_dir.rglob("*")]
        if not p.is_symlink()
    }


def assert_private(data_dir: Path) -> None:
    loose = {name: f"{mode:04o}" for name, mode in modes(data_dir).items() if mode & 0o077}
    assert loose == {}


def test_loose_permissions_warn_once_in_one_line_and_are_fixed(data_dir: Path) -> None:
    first = run_cli("--model", "fake/x", "ask", "hello", fake_reply="Hi.")
    assert first.returncode == 0 and first.stderr == b""
    names = modes(data_dir)
    assert {".", "aniso.db", "aniso.log", "chroma", "chroma/chroma.sqlite3"} <= names.keys()
    assert names["."] == 0o700 and names["aniso.db"] == 0o600
    assert_private(data_dir)  # Chroma's files too, which it creates on its own

    os.chmod(data_dir, 0o755)
    os.chmod(data_dir / "aniso.db", 0o644)
    os.chmod(data_dir / "aniso.log", 0o666)
    result = run_cli("--model", "fake/x", "ask", "again", fake_reply="Hi again.")
    assert result.returncode == 0 and result.stdout.decode().strip() == "Hi again."
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    warning = lines[0]
    assert warning.startswith("aniso: warning: the data dir holds your memory but 3 entries")
    assert f"({data_dir} 0755, aniso.db 0644, aniso.log 0666)" in warning
    assert f"chmod -R go-rwx {data_dir}" in warning
    assert_private(data_dir)

    os.chmod(data_dir / "aniso.db", 0o640)
    doctor = run_cli("doctor", "--json")  # --json keeps stdout clean: the warning is on stderr
    assert json.loads(doctor.stdout) == {"ok": True, "problems": []}
    assert doctor.stderr.decode().count("\n") == 1 and "aniso.db 0640" in doctor.stderr.decode()
    quiet = run_cli("doctor")
    assert quiet.returncode == 0 and quiet.stderr == b""


def test_api_keys_never_reach_logs_exports_or_memory(data_dir: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "OPENAI_API_KEY": OPENAI_KEY,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "ANISO_API_KEY": ANISO_KEY,
    }

    def ask(text: str, script: list[str]) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, str(RUNNER), "--model", MODEL, "ask", text]
        run_env = {**env, "FAULT_SCRIPT": json.dumps(script)}
        return subprocess.run(command, capture_output=True, env=run_env, timeout=300)

    typed = ask(f"keep my github token {TYPED_KEY} and my key {OPENAI_KEY}", ["Kept safe."])
    assert typed.returncode == 0, typed.stderr
    # The provider rejects the key and quotes it back: the error is shown, logged, stored.
    rejected = ask("what is the weather like?", ["auth"])
    assert rejected.returncode == 1
    shown = rejected.stderr.decode()
    assert "AuthenticationError" in shown and "[secret]" in shown
    assert "Traceback" not in shown and len(shown.strip().splitlines()) == 1

    export = tmp_path / "export.json"
    exported = run_cli("export", "--out", str(export), env=env)
    assert exported.returncode == 0, exported.stderr
    markdown = tmp_path / "export.md"
    services = build(load_settings())
    export_markdown(services.db, markdown, redact=services.redact_text)

    outputs = typed.stdout + typed.stderr + rejected.stdout + rejected.stderr
    files = [p for p in data_dir.rglob("*") if p.is_file()] + [export, markdown]
    assert any(p.name == "aniso.log" and p.stat().st_size for p in files)
    for secret in SECRETS:
        assert secret.encode() not in outputs
        for path in files:
            assert secret.encode() not in path.read_bytes(), (secret, path)
    stored = json.loads(export.read_text())
    assert "github token" in json.dumps(stored)  # the message itself was kept, redacted
