"""Shared fixtures: an isolated home for every test, a simulated clock, a scripted LLM.

Every test gets its own data dir and config path, so nothing touches the real
user's memory, and any real network call fails the run (pytest-socket, configured
in pyproject.toml).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

# `python -m pytest` puts the repo root first on sys.path, where the source folder
# `profile/` (installed as `aniso.profile`) hides the standard library's `profile`, which
# cProfile and so spaCy import: presidio would quietly run without its NLP engine.
# The package is installed, so the tests need the root on the path for nothing.
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _ROOT]
if "profile" in sys.modules and not hasattr(sys.modules["profile"], "run"):
    del sys.modules["profile"]

import pytest  # noqa: E402
from fakes import ScriptedLLM, install  # noqa: E402

from aniso.core.clock import SimulatedClock  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DAY0 = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def shared_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache dir for the whole run, as a user has one: what it holds is derived from
    the install only (`core.cache`), and each test's own home would rebuild it (the
    embedder's mapped weights alone are 90 MB) in every process a test starts."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_cache_dir: Path
) -> Iterator[Path]:
    for name in list(os.environ):
        if name.startswith("ANISO_"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared_cache_dir))
    monkeypatch.setenv("ANISO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ANISO_CONFIG", str(tmp_path / "config.toml"))
    # The scripted LLM answers chat turns in queue order; LLM profile extraction would
    # consume those replies first. Tests of extraction turn it on explicitly.
    monkeypatch.setenv("ANISO_LLM_EXTRACTION", "off")
    yield tmp_path / "data"


@pytest.fixture
def data_dir(isolated_env: Path) -> Path:
    return isolated_env


@pytest.fixture
def clock() -> SimulatedClock:
    return SimulatedClock(DAY0)


@pytest.fixture
def llm() -> ScriptedLLM:
    script = ScriptedLLM()
    install(script)
    return script
