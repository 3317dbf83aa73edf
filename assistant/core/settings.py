"""Settings: one pydantic-settings model, built once and passed down.

Values come, strongest first, from the command line, `ANISO_*` environment
variables, the TOML file in the config dir, then the defaults below. `describe`
reports which of these set each value, for `aniso config`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from aniso.core.errors import ConfigError

EMBEDDED_MODEL = "aniso-local/smollm2-135m-instruct"
EMBEDDED_PROMPT_BUDGET = 500
"""Profile-plus-memory tokens for the embedded model: about 1/8 of its 4096-token
window. Each is evaluated before the first token, 3-4 ms apiece on two cores, so a full
budget adds up to about 1.7 s to it (DESIGN-NOTES "Start-up and first token")."""
LOCAL_EMBEDDING = "local/all-MiniLM-L6-v2"
ENV_PREFIX = "ANISO_"


def _xdg_dir(variable: str, fallback: str) -> Path:
    base = os.environ.get(variable) or str(Path.home() / fallback)
    return Path(base) / "aniso"


def config_file() -> Path:
    """Where the optional TOML settings file lives: `ANISO_CONFIG`, else the XDG config dir."""
    explicit = os.environ.get("ANISO_CONFIG")
    return Path(explicit) if explicit else _xdg_dir("XDG_CONFIG_HOME", ".config") / "config.toml"


class Settings(BaseSettings):
    """Everything a user can tune. Thresholds are settings, never constants in code."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="forbid", validate_default=True, frozen=True
    )

    data_dir: Path = Field(default_factory=lambda: _xdg_dir("XDG_DATA_HOME", ".local/share"))
    """Where memory lives. Created 0700, its files 0600."""

    model: str = EMBEDDED_MODEL
    """Any litellm model string (`gpt-4o-mini`, `ollama/llama3.2`, `anthropic/...`);
    the default is the embedded SmolLM2-135M-Instruct, run locally."""

    embedding: str = LOCAL_EMBEDDING
    """`local/all-MiniLM-L6-v2` (numpy, bundled weights) or any litellm embedding model."""

    timezone: str = "UTC"
    """The user's IANA timezone: the nightly compactor runs at night there."""

    now: str | None = None
    """Simulated current time (ISO 8601), for scenarios and tests. Unset means the real clock."""

    hot_days: float = Field(14.0, gt=0)
    """Days without access after which a hot block moves to warm."""

    cold_days: float = Field(90.0, gt=0)
    """Days without access after which a warm block moves to cold."""

    unpack_score: float = Field(0.5, ge=0)
    """Relevance (the fused recall score, about 0 to 1.5) at which a warm or cold memory
    in the top 10 is restored by itself; raise it to keep old memories packed until asked."""

    recall_fusion: Literal["scores", "rrf"] = "scores"
    """How lexical (BM25) and dense (MiniLM) hits are combined. `scores` sums their
    normalised scores; `rrf` is reciprocal rank fusion with k = 60, which discards how
    far ahead the best match is (LoCoMo recall@10: see DESIGN-NOTES.md)."""

    context_budget_tokens: int = Field(2000, ge=200)
    """Tokens of profile plus memories injected into each prompt."""

    reply_max_tokens: int = Field(512, ge=16)
    """Upper bound on the length of one reply."""

    llm_timeout_s: float = Field(120.0, gt=0)
    """Timeout of one LLM call."""

    llm_retries: int = Field(2, ge=0, le=10)
    """Retries, with exponential backoff, after a transient LLM failure."""

    llm_budget_s: float = Field(180.0, gt=0)
    """Total time one request may spend on attempts and backoff sleeps before the
    error is shown: retries never keep a user waiting longer than this (plus the
    attempt under way, whose own timeout is cut to what is left of the budget)."""

    llm_sees: Literal["auto", "raw", "redacted"] = "auto"
    """Whether the LLM gets the raw or the redacted current message. `auto` sends raw
    text only to the embedded local model and redacted text to remote providers."""

    llm_extraction: Literal["auto", "on", "off"] = "auto"
    """Use the LLM to upgrade profile extraction and summaries. `auto` means on for any
    model but the embedded one, which is too small to produce reliable JSON."""

    chroma_url: str | None = None
    """A Chroma server (`http://127.0.0.1:8000`); unset means an embedded store in the data dir."""

    compact_at: str = "03:30"
    """Local time of the nightly compaction, HH:MM in `timezone`."""

    procedure_replies: Literal["auto", "steps", "model"] = "auto"
    """How a request answered by an accepted procedure is replied to. `steps`: the
    procedure's steps filled from the current profile, under a fixed lead-in, with no
    model call; `model`: the model writes the reply from those steps; `auto`: steps for
    the embedded model, the model for a capable one (`llm_extraction` on)."""

    push_refresh: bool = True
    """Start the first reply after a pause on an open problem from its brief (what moved
    since). Off, the reply gets recall alone; briefs are still kept for `memory threads`."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_file())
        return (init_settings, env_settings, toml)

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            hint = "use an IANA name like Europe/Berlin"
            raise ValueError(f"unknown timezone {value!r}; {hint}") from error
        return value

    @field_validator("compact_at")
    @classmethod
    def _clock_time(cls, value: str) -> str:
        hours, _, minutes = value.partition(":")
        if not (hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60):
            raise ValueError(f"{value!r} is not a time of day; use HH:MM")
        return value

    @property
    def is_embedded_model(self) -> bool:
        return self.model == EMBEDDED_MODEL

    @property
    def prompt_budget_tokens(self) -> int:
        """Tokens of profile plus memories for this model's prompt.

        The embedded model evaluates its prompt on the CPU before its first token, so
        every memory injected is waited for; and a 135M model is confused, not helped,
        by a long context. Unless `context_budget_tokens` was set, it gets
        `EMBEDDED_PROMPT_BUDGET`; a remote model gets `context_budget_tokens`.
        """
        if self.is_embedded_model and "context_budget_tokens" not in self.model_fields_set:
            return min(self.context_budget_tokens, EMBEDDED_PROMPT_BUDGET)
        return self.context_budget_tokens

    @property
    def use_llm_extraction(self) -> bool:
        if self.llm_extraction == "auto":
            return not self.is_embedded_model
        return self.llm_extraction == "on"

    @property
    def procedure_from_steps(self) -> bool:
        """Whether a reused procedure is answered from its steps, without the model."""
        if self.procedure_replies == "auto":
            return not self.use_llm_extraction
        return self.procedure_replies == "steps"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "aniso.db"


def load_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """Build the settings once; any problem becomes a ConfigError naming the source."""
    cli = {key: value for key, value in (overrides or {}).items() if value is not None}
    try:
        return Settings(**cli)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"settings file {config_file()} is not valid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read settings file {config_file()}: {error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "settings"
        origin = _origin(field, cli)
        raise ConfigError(f"bad setting {field} (from {origin}): {first['msg']}") from None


def _origin(field: str, cli: Mapping[str, Any]) -> str:
    if field in cli:
        return "command line"
    if f"{ENV_PREFIX}{field.upper()}" in os.environ:
        return f"env {ENV_PREFIX}{field.upper()}"
    if field in _toml_values():
        return f"file {config_file()}"
    return "default"


def _toml_values() -> dict[str, Any]:
    path = config_file()
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def describe(
    settings: Settings, overrides: Mapping[str, Any] | None = None
) -> list[dict[str, str]]:
    """Each effective value with where it came from: command line, env, file or default."""
    cli = {key: value for key, value in (overrides or {}).items() if value is not None}
    rows = []
    for name in Settings.model_fields:
        value = getattr(settings, name)
        rows.append(
            {
                "name": name,
                "value": "" if value is None else str(value),
                "source": _origin(name, cli),
            }
        )
    return rows
