"""Settings come from the command line, env, the TOML file or defaults, in that order."""

from __future__ import annotations

from pathlib import Path

import pytest

from aniso.core.errors import ConfigError
from aniso.core.settings import EMBEDDED_MODEL, describe, load_settings


def sources(settings, overrides=None) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {row["name"]: row["source"] for row in describe(settings, overrides)}


def test_defaults(data_dir: Path) -> None:
    settings = load_settings()
    assert settings.model == EMBEDDED_MODEL
    assert (settings.hot_days, settings.cold_days) == (14.0, 90.0)
    assert settings.data_dir == data_dir
    assert sources(settings)["hot_days"] == "default"
    assert sources(settings)["data_dir"] == "env ANISO_DATA_DIR"


def test_precedence_cli_over_env_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").write_text('model = "from-file"\ntimezone = "Europe/Moscow"\n')
    monkeypatch.setenv("ANISO_MODEL", "from-env")
    settings = load_settings({"model": "from-cli"})
    assert settings.model == "from-cli"
    assert settings.timezone == "Europe/Moscow"
    rows = sources(settings, {"model": "from-cli"})
    assert rows["model"] == "command line"
    assert rows["timezone"] == f"file {tmp_path / 'config.toml'}"
    assert load_settings().model == "from-env"


def test_corrupt_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("model = [unclosed\n")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_settings()


def test_unknown_key_in_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("hot_dayz = 3\n")
    with pytest.raises(ConfigError, match="hot_dayz"):
        load_settings()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("timezone", "Mars/Olympus", "unknown timezone"),
        ("compact_at", "25:00", "HH:MM"),
        ("hot_days", "-1", "hot_days"),
    ],
)
def test_bad_values_name_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(f"ANISO_{name.upper()}", value)
    with pytest.raises(ConfigError, match=message) as raised:
        load_settings()
    assert f"env ANISO_{name.upper()}" in str(raised.value)
