"""The memory variants a scenario runs under, each real, each in its own data dir.

From the Profile+RAG paper: `baseline` (no memory), `history` (the full transcript in
context), `rag` (chromadb top-4 over user messages), `profile_rag` (a profile plus
rag); ours: `aniso` (the full tiered memory, see `aniso_variant`). All of them reach
the model through the same `LLMGateway`; a recording subclass keeps the exact
messages each turn sent, which is what the deterministic checks read.

`history` writes its transcript to the data dir as it was said: the transcript is
its memory, and keeping it verbatim is exactly the privacy failure it stands for.
`rag` and `profile_rag` redact what they store with the project's guard.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

import numpy as np

from aniso.core.errors import AnisoError
from aniso.core.ports import CompletionRequest, Embedder
from aniso.core.settings import Settings
from aniso.llm.gateway import LLMGateway
from aniso.prompt import SYSTEM_PREAMBLE, memory_section, quote_block, system_prompt

Message = dict[str, str]
RAG_TOP_K = 4


class RecordingGateway(LLMGateway):
    """The production gateway, keeping the messages of every streamed request."""

    replies = True
    """Whether `stream` returns the model's own reply (see `ContextOnlyGateway`)."""

    def __init__(self, settings: Settings, **options: object) -> None:
        super().__init__(settings, **options)  # type: ignore[arg-type]
        self.requests: list[list[Message]] = []
        self.scripted: str | None = None
        """A scenario's scripted answer for the turn under way (`Message.reply`)."""

    def stream(self, request: CompletionRequest) -> Iterator[str]:
        self.requests.append([dict(m) for m in request.messages])
        if self.scripted is not None:
            yield self.scripted
            return
        yield from super().stream(request)


STAND_IN_REPLY = "(no reply: this scenario run generates none)"


class ContextOnlyGateway(RecordingGateway):
    """`--replies off`: records what would reach the model and answers with a fixed
    stand-in, never loading or calling a model for replies.

    Why a stand-in and not an empty reply: the chat path treats an empty reply as a
    failed turn and stores it as one, which would change the very memory the
    deterministic checks read. The stand-in keeps every turn on the ordinary path.
    Completions other than replies (LLM profile extraction, when the settings turn
    it on) still go to the model: they are part of the memory under test.
    """

    replies = False

    def stream(self, request: CompletionRequest) -> Iterator[str]:
        self.requests.append([dict(m) for m in request.messages])
        yield STAND_IN_REPLY if self.scripted is None else self.scripted


@dataclass
class CachedEmbedder:
    """An embedder that remembers its vectors for the run: every variant embeds the
    same user messages, and the encoder is deterministic, so once per text is enough."""

    inner: Embedder
    cache: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def english_only(self) -> bool:
        """The inner model's: a scenario's recall must weigh words as the product's does."""
        return self.inner.english_only

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing), strict=True):
                self.cache[text] = vector
        if not texts:
            return self.inner.embed([])
        return np.stack([self.cache[text] for text in texts])


def ask(gateway: LLMGateway, messages: list[Message]) -> tuple[str, str | None]:
    """One streamed reply, as the chat loop gets it; a failure is a result, not a crash."""
    request = CompletionRequest(messages=messages, max_tokens=gateway.reply_max_tokens)
    try:
        reply = "".join(gateway.stream(request)).strip()
    except AnisoError as error:
        return "", str(error)
    return reply, None if reply else f"model {gateway.model} returned an empty reply"


class Variant(Protocol):
    """One memory strategy over one data dir, for one scenario."""

    name: str
    data_dir: Path

    def send(self, text: str, *, now: datetime) -> tuple[str, str | None]:
        """Answer one user message; returns (reply, error)."""
        ...

    def night(self, now: datetime) -> None:
        """The nightly maintenance at `now` (compaction, for tiered memory)."""
        ...

    def forget(self, text: str, *, now: datetime) -> int:
        """Erase memories matching `text`; returns how many were erased."""
        ...

    def profile(self) -> dict[str, list[str]] | None:
        """The current profile's canonical values, or None without a profile."""
        ...

    def tier_of(self, phrase: str) -> str | None: ...

    def restored(self) -> bool | None: ...

    def close(self) -> None: ...


class Baseline:
    """No memory: each message alone, under the preamble."""

    name = "baseline"

    def __init__(self, data_dir: Path, gateway: LLMGateway) -> None:
        self.data_dir = data_dir
        self.gateway = gateway

    def send(self, text: str, *, now: datetime) -> tuple[str, str | None]:
        system = system_prompt(profile_text="", memories=[], now=now)
        return ask(self.gateway, [{"role": "system", "content": system}, _user(text)])

    def night(self, now: datetime) -> None:
        return None

    def forget(self, text: str, *, now: datetime) -> int:
        return 0

    def profile(self) -> dict[str, list[str]] | None:
        return None

    def tier_of(self, phrase: str) -> str | None:
        return None

    def restored(self) -> bool | None:
        return None

    def close(self) -> None:
        return None


class History(Baseline):
    """The whole transcript, verbatim, before each message; persisted as its memory."""

    name = "history"

    def __init__(self, data_dir: Path, gateway: LLMGateway) -> None:
        super().__init__(data_dir, gateway)
        self.path = data_dir / "transcript.jsonl"

    def _turns(self) -> list[Message]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def _append(self, *messages: Message) -> None:
        with self.path.open("a", encoding="utf-8") as out:
            for message in messages:
                out.write(json.dumps(message, ensure_ascii=False) + "\n")

    def send(self, text: str, *, now: datetime) -> tuple[str, str | None]:
        system = {"role": "system", "content": system_prompt(profile_text="", memories=[], now=now)}
        reply, error = ask(self.gateway, [system, *self._turns(), _user(text)])
        self._append(_user(text), {"role": "assistant", "content": reply})
        return reply, error

    def forget(self, text: str, *, now: datetime) -> int:
        turns = self._turns()
        kept = [m for m in turns if text.casefold() not in m["content"].casefold()]
        self.path.write_text(
            "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in kept), encoding="utf-8"
        )
        return len(turns) - len(kept)


def _user(text: str) -> Message:
    return {"role": "user", "content": text}


def rag_system(profile_text: str, snippets: list[tuple[datetime, str]], now: datetime) -> str:
    """The preamble, the profile when there is one, then the retrieved messages as data."""
    parts = [system_prompt(profile_text=profile_text, memories=[], now=now)]
    if snippets:
        rendered = [f"[memory | {at.date().isoformat()}]\n{quote_block(t)}" for at, t in snippets]
        parts.append(memory_section(rendered))
    return "\n\n".join(parts)


__all__ = [
    "SYSTEM_PREAMBLE",
    "CachedEmbedder",
    "ContextOnlyGateway",
    "RecordingGateway",
    "Variant",
]
