"""The export format: what `aniso export` writes and `aniso import` accepts.

These pydantic models are the contract. `export-schema.json` at the repository root
is generated from them (`python -m aniso.data.document > export-schema.json`) and a
test keeps the two equal, so a change to the format is a visible, reviewed change.

Every record is strict (`extra="forbid"`): an import refuses a field it does not
know rather than silently dropping part of someone's memory. Ids are kept as they
are in the database, so export → import --replace → export is byte-identical.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from aniso.tiers.model import Tier

FORMAT = "aniso-export"
SCHEMA_VERSION = 1
MAX_TEXT = 200_000
"""The longest text an import accepts in one field (a long message is ~10k chars)."""


_STRICT = ConfigDict(extra="forbid", use_attribute_docstrings=True)
LongText = Annotated[str, Field(max_length=MAX_TEXT)]


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("a time must carry its UTC offset, e.g. 2026-01-05T19:00:00+00:00")
    return value


class EpisodeRecord(BaseModel):
    """One exchange: the user's message and the reply, both already redacted."""

    model_config = _STRICT
    id: int = Field(ge=1)
    session: str = Field(max_length=200)
    at: datetime
    user_text: LongText
    reply: LongText | None
    status: Literal["pending", "answered", "failed"]
    error: str | None = Field(default=None, max_length=2000)
    tokens: int = Field(ge=0)
    pii_types: list[str]
    """Types of sensitive data found and withheld, never the values."""
    salience: float
    ref: str | None = Field(default=None, max_length=500)
    origin_id: int | None = None
    """For a restored copy: the id of the archived original."""

    _at = field_validator("at")(_aware)


class ArchivedEpisode(BaseModel):
    """An episode that compression moved out of search; kept in full."""

    model_config = _STRICT
    archived_at: datetime
    status: Literal["archived", "restored"]
    episode: EpisodeRecord

    _at = field_validator("archived_at")(_aware)


class Markers(BaseModel):
    model_config = _STRICT
    important: bool
    open: bool
    """An unresolved problem or task."""
    pinned: bool


class BlockRecord(BaseModel):
    """A topic thread in its tier form: hot blocks carry their full episodes, warm ones
    a summary and the kept episodes, cold ones a capsule (gist, keywords, anchors,
    pointers). The archive holds what compression took out of search."""

    model_config = _STRICT
    id: int = Field(ge=1)
    tier: Tier
    status: Literal["active", "restored", "archived"]
    created: datetime
    last_access: datetime
    last_episode_at: datetime
    access_count: int = Field(ge=0)
    size: int = Field(ge=0)
    markers: Markers
    summary: LongText
    """Warm: salient sentences. Cold: the gist. Hot: usually empty."""
    keywords: list[str] = Field(max_length=200)
    anchors: list[str] = Field(max_length=200)
    pointers: list[int] = Field(max_length=50)
    """Cold: up to 5 related block ids."""
    kept_share: float = Field(ge=0, le=1)
    restored_from: int | None = None
    version: int = Field(ge=0)
    centroid: str | None = Field(default=None, max_length=100_000)
    """Mean embedding of the block's episodes, base64 of little-endian float32."""
    terms: list[str] = Field(max_length=10_000)
    """Stemmed terms the block is linked on."""
    episodes: list[EpisodeRecord]
    archive: list[ArchivedEpisode]

    _times = field_validator("created", "last_access", "last_episode_at")(_aware)


class LinkRecord(BaseModel):
    """A weighted, undirected edge between two blocks (a < b)."""

    model_config = _STRICT
    a: int
    b: int
    weight: float
    uses: int = Field(ge=0)
    reason: str = Field(max_length=100)
    updated: datetime

    _at = field_validator("updated")(_aware)


class TierEventRecord(BaseModel):
    """A migration, compression, restore or unpack of a block."""

    model_config = _STRICT
    id: int = Field(ge=1)
    at: datetime
    block_id: int
    kind: str = Field(max_length=50)
    from_tier: str | None = Field(default=None, max_length=20)
    to_tier: str | None = Field(default=None, max_length=20)
    detail: dict[str, Any]

    _at = field_validator("at")(_aware)


class ProfileValueRecord(BaseModel):
    """One value a profile field held, current (ended is null) or superseded."""

    model_config = _STRICT
    id: int = Field(ge=1)
    field: str = Field(max_length=50)
    value: dict[str, Any] | str
    """{"value", "said", "evidence"} as stored."""
    since: datetime
    source_episode: int | None = None
    source: Literal["rules", "llm", "hand", "import"]
    ended: datetime | None = None
    ended_by_episode: int | None = None
    ended_reason: str | None = Field(default=None, max_length=2000)

    _times = field_validator("since")(_aware)

    @field_validator("ended")
    @classmethod
    def _ended(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _aware(value)


class ThreadRecord(BaseModel):
    """An open thread's push-refresh state and its brief (redacted, in words)."""

    model_config = _STRICT
    block_id: int = Field(ge=1)
    """The block holding the open problem."""
    opened: datetime
    last_pulled: datetime
    """When the user last touched the thread."""
    last_refresh: datetime
    next_refresh: datetime
    n: int = Field(ge=0)
    """New messages touching the thread at its last refresh."""
    r: int = Field(ge=0)
    """Mentions of it elsewhere at its last refresh."""
    u: float = Field(ge=0, le=1)
    """Urgency at its last refresh."""
    tau_hours: float = Field(ge=0)
    """Refresh interval at its last refresh, in hours."""
    brief: LongText
    source: Literal["extractive", "llm"]
    """Who wrote the brief: the extractive fallback or a capable model."""
    shown: datetime | None = None
    """When the brief last led a reply."""

    _times = field_validator("opened", "last_pulled", "last_refresh", "next_refresh")(_aware)

    @field_validator("shown")
    @classmethod
    def _shown(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _aware(value)


class ProcedureLinkRecord(BaseModel):
    """A request that used a procedure, weighted by use."""

    model_config = _STRICT
    episode_id: int
    weight: float = Field(ge=0)
    updated: datetime

    _at = field_validator("updated")(_aware)


class ProcedureRecord(BaseModel):
    """An accepted answer kept as steps with named parameters (`{diet}`), or a rejected
    one kept only so that it is never offered again."""

    model_config = _STRICT
    id: int = Field(ge=1)
    kind: str = Field(max_length=50)
    title: LongText
    """The request that produced it, redacted."""
    steps: list[LongText] = Field(max_length=200)
    params: dict[str, list[str]]
    """The profile values the steps named when the answer was accepted."""
    source_episode: int | None = None
    created: datetime
    last_used: datetime
    uses: int = Field(ge=0)
    pinned: bool
    rejected: bool
    links: list[ProcedureLinkRecord]

    _times = field_validator("created", "last_used")(_aware)


class Tiers(BaseModel):
    model_config = _STRICT
    hot: list[BlockRecord]
    warm: list[BlockRecord]
    cold: list[BlockRecord]


class ExportDocument(BaseModel):
    """A whole memory: the profile with its history, blocks per tier, links, events."""

    model_config = ConfigDict(
        extra="forbid",
        use_attribute_docstrings=True,
        title="Aniso memory export",
        json_schema_extra={"$id": "https://aniso.invalid/export-schema.json"},
    )
    format: Literal["aniso-export"]
    schema_version: int
    """Bumped on every incompatible change; an import refuses a newer one."""
    profile: list[ProfileValueRecord]
    tiers: Tiers
    loose_episodes: list[EpisodeRecord]
    """Episodes not (yet) assigned to a block."""
    links: list[LinkRecord]
    tier_events: list[TierEventRecord]
    threads: list[ThreadRecord] = Field(default_factory=list)
    """Open threads and their briefs (push refresh); absent in files from before them."""
    procedures: list[ProcedureRecord] = Field(default_factory=list)
    """Reusable procedures with their links; absent in files from before them."""


def json_schema() -> dict[str, Any]:
    return ExportDocument.model_json_schema()


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
