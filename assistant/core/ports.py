"""The seams between layers: what the domain needs from models and the guard.

Each port is the one definition of its shape. The domain (`tiers`, `profile`) takes
these callables and protocols; `aniso.llm` and `aniso.privacy` provide them, and the
composition root (`aniso.services`) plugs one into the other. Fakes in tests satisfy
the same shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

Message = dict[str, str]


@dataclass(frozen=True)
class CompletionRequest:
    """One request to a chat model: the messages, a token cap, and an optional schema."""

    messages: list[Message]
    max_tokens: int
    temperature: float = 0.3
    response_format: dict[str, Any] | None = None


Complete = Callable[[CompletionRequest], str]
"""Any completion function: `LLMGateway.complete` in production, a fake in tests."""


class ChatModel(Protocol):
    """What the chat loop and the scenario variants need of a model."""

    def stream(self, request: CompletionRequest) -> Iterator[str]: ...
    def complete(self, request: CompletionRequest) -> str: ...


class Embedder(Protocol):
    """Turns texts into unit vectors: cosine similarity = dot product; higher is more similar.

    `embed` returns float32 of shape (len(texts), dimension), one L2-normalised row per
    text in input order; an empty list gives shape (0, dimension).
    """

    @property
    def dimension(self) -> int:
        """Length of every vector; read-only, so a plain attribute or a property fits."""
        ...

    @property
    def english_only(self) -> bool:
        """Whether the model was trained on English only. Its vectors for a mostly
        Cyrillic text are weak evidence, so recall leans on words for such a query
        (`DenseMemory.reads`). A plain attribute or a property fits."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows, as every Embedder returns them; the floor keeps an all-zero
    row at zero instead of NaN."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts of an `Embedder.embed` call, as a list. A bare string is a
    Sequence[str] too: embedding its characters is never what was meant."""
    if isinstance(texts, str) or not all(isinstance(text, str) for text in texts):
        raise TypeError("embed() takes a sequence of strings (not a single string)")
    return list(texts)


@dataclass(frozen=True)
class Redaction:
    """Text with its PII replaced by typed placeholders, and what was found."""

    text: str
    kinds: tuple[str, ...] = ()


Redact = Callable[[str], str]
"""Redacts one text for a write path other than chat (summaries, imports, exports)."""

RedactMany = Callable[[list[str]], list[str]]
"""Redacts a batch of texts with `Redact`'s verdicts, faster (an import's texts)."""

Progress = Callable[[int], None]
"""Told how many more units of a long job are done; only `cli` and `bench` draw it."""
