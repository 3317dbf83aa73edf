"""Embeddings from any litellm embedding model (a remote provider, Ollama, ...).

The local MiniLM lives with the tiers (`aniso.tiers.index.embeddings`); this adapter
is the only place where embeddings reach litellm.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aniso.core.errors import ModelError
from aniso.core.ports import check_texts, normalise_rows
from aniso.llm.gateway import describe_failure, litellm_module


class LiteLLMEmbedder:
    """Any embedding model litellm can route (`text-embedding-3-small`, `ollama/nomic-...`).

    The dimension depends on the model and is not in litellm's metadata for every provider,
    so it is discovered from the first call: reading `dimension` before any `embed` makes
    one probe request. Remote vectors are re-normalised, since not every provider does.
    """

    english_only: bool = False
    """Providers' embedding models are multilingual as a rule; one that is not reads
    Russian as poorly as it would anyway, with no worse fallback than the default."""

    def __init__(self, model: str, *, batch_size: int = 128, timeout: float = 60.0) -> None:
        self.model = model
        self._batch_size = batch_size
        self._timeout = timeout
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed(["dimension probe"])
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self._call(texts[start : start + self._batch_size])
            for start in range(0, len(texts), self._batch_size)
        ]
        return normalise_rows(np.concatenate(parts))

    def _call(self, texts: list[str]) -> np.ndarray:
        litellm = litellm_module()
        try:
            response = litellm.embedding(model=self.model, input=texts, timeout=self._timeout)
            # Rows are dicts or litellm `Embedding` objects; both support row["..."].
            rows = sorted(response.data, key=lambda row: row["index"])
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except Exception as error:
            raise ModelError(
                f"embedding model {self.model} failed: {describe_failure(error)}"
            ) from None
        if vectors.ndim != 2 or len(vectors) != len(texts) or not np.isfinite(vectors).all():
            raise ModelError(
                f"embedding model {self.model} returned values of shape {vectors.shape} "
                f"for {len(texts)} texts, not one finite vector per text"
            )
        if self._dimension not in (None, vectors.shape[1]):
            raise ModelError(
                f"embedding model {self.model} changed dimension "
                f"from {self._dimension} to {vectors.shape[1]}"
            )
        self._dimension = vectors.shape[1]
        return vectors
