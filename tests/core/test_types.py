"""The domain type-checks: mypy over core, tiers and profile (what `make lint` runs)."""

from __future__ import annotations

import subprocess

from conftest import REPO


def test_core_tiers_and_profile_pass_mypy() -> None:
    result = subprocess.run(
        [str(REPO / "scripts" / "typecheck")], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "Success" in result.stdout
