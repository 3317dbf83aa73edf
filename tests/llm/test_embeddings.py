"""The local MiniLM encoder against sentence-transformers' own output, and the litellm path.

The reference vectors were made by `SentenceTransformer(...).encode(texts,
normalize_embeddings=True)`; matching them is what lets a memory store built by either
implementation be searched by the other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import TESTS

from aniso.core.errors import ConfigError, ModelError
from aniso.llm.embeddings import LiteLLMEmbedder
from aniso.services import make_embedder
from aniso.tiers.index import embeddings
from aniso.tiers.index.embeddings import LocalMiniLM

REFERENCE_COPIES = [
    TESTS / "fixtures" / "minilm_reference.json",
    TESTS.parents[1] / "shared" / "embeddings" / "minilm_reference.json",
]


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    for path in REFERENCE_COPIES:
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
    pytest.fail(f"reference vectors not found in {[str(p) for p in REFERENCE_COPIES]}")


def test_matches_sentence_transformers_on_every_reference_text(reference: dict) -> None:
    texts, expected = reference["texts"], np.array(reference["vectors"], dtype=np.float64)
    assert "" in texts and max(map(len, texts)) > 1000  # the edge cases are really there

    vectors = LocalMiniLM().embed(texts)

    assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.9999, f"cosine {cosines[worst]:.6f} for {texts[worst][:60]!r}"


def test_a_paraphrase_is_closer_than_an_unrelated_sentence() -> None:
    anchor, paraphrase, unrelated = LocalMiniLM().embed(
        [
            "I stopped eating meat last week.",
            "A week ago I became a vegetarian.",
            "The train to Berlin leaves at nine.",
        ]
    )
    assert anchor @ paraphrase > anchor @ unrelated + 0.2


def test_one_batch_equals_one_text_at_a_time() -> None:
    texts = [
        "",
        "a",
        "Привет! Как дела?",
        "A much longer sentence, so that the batch is padded well beyond the short ones. " * 5,
        "Emoji 🚀 and <tags>",
        "a",
    ]
    embedder = LocalMiniLM(batch_tokens=10_000)
    batched = embedder.embed(texts)
    single = np.concatenate([embedder.embed([text]) for text in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)
    # Small token budgets split the same input into many batches, with the same result.
    np.testing.assert_allclose(LocalMiniLM(batch_tokens=64).embed(texts), single, atol=1e-5)


def test_empty_input_and_a_bare_string() -> None:
    assert LocalMiniLM().embed([]).shape == (0, 384)
    with pytest.raises(TypeError):
        LocalMiniLM().embed("one string, not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        LocalMiniLM().embed(["fine", None])  # type: ignore[list-item]


def test_construction_is_free_and_a_missing_model_is_a_model_error(tmp_path: Path) -> None:
    embedder = LocalMiniLM(tmp_path / "no-such-model")  # nothing is read yet
    with pytest.raises(ModelError, match="cannot load the embedding model"):
        embedder.embed(["hello"])


def test_weights_load_once_per_process_even_from_many_threads() -> None:
    texts = ["memory tiers", "hot, warm and cold", "compaction at night"]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: LocalMiniLM().embed(texts), range(4)))
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], atol=1e-6)
    path = embeddings._bundled_dir()
    assert embeddings._weights(path) is embeddings._weights(path)


def test_gelu_matches_the_exact_erf_form() -> None:
    grid = np.linspace(-10, 10, 200_001)
    exact = np.array([0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in grid])
    approx = embeddings._gelu_(grid.astype(np.float32))
    assert np.abs(approx - exact).max() < 1e-6


def test_make_embedder_picks_the_backend() -> None:
    assert isinstance(make_embedder("local/all-MiniLM-L6-v2"), LocalMiniLM)
    remote = make_embedder("text-embedding-3-small")
    assert isinstance(remote, LiteLLMEmbedder) and remote.model == "text-embedding-3-small"
    with pytest.raises(ConfigError):
        make_embedder("local/no-such-model")


# --- LiteLLMEmbedder, through a real litellm custom provider ---------------------------


class FakeEmbeddingProvider:
    """Records every request and answers with unnormalised vectors, rows out of order."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.dimension = 3
        self.fail: Exception | None = None

    def vector(self, text: str) -> list[float]:
        return [float(len(text)), 2.0, 0.0][: self.dimension] + [1.0] * (self.dimension - 3)

    def handler(self) -> Any:
        from litellm import CustomLLM

        provider = self

        class Handler(CustomLLM):
            def embedding(self, *args: Any, **kwargs: Any) -> Any:
                provider.calls.append(list(kwargs["input"]))
                if provider.fail is not None:
                    raise provider.fail
                response = kwargs["model_response"]
                rows = [
                    {"object": "embedding", "index": index, "embedding": provider.vector(text)}
                    for index, text in enumerate(kwargs["input"])
                ]
                response.data = rows[::-1]
                return response

        return Handler()


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEmbeddingProvider]:
    from aniso.llm.gateway import litellm_module

    litellm = litellm_module()
    fake = FakeEmbeddingProvider()
    others = [p for p in litellm.custom_provider_map if p["provider"] != "fakeembed"]
    monkeypatch.setattr(
        litellm,
        "custom_provider_map",
        [*others, {"provider": "fakeembed", "custom_handler": fake.handler()}],
    )
    litellm.utils.custom_llm_setup()
    yield fake


def test_litellm_embedder_normalises_orders_and_batches(provider: FakeEmbeddingProvider) -> None:
    texts = ["a", "bbbb", "cc", "", "dddddd"]
    embedder = LiteLLMEmbedder("fakeembed/test-model", batch_size=2)

    vectors = embedder.embed(texts)

    assert provider.calls == [["a", "bbbb"], ["cc", ""], ["dddddd"]]
    raw = np.array([provider.vector(text) for text in texts])
    expected = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert vectors.dtype == np.float32 and embedder.dimension == 3
    assert embedder.embed([]).shape == (0, 3)
    assert len(provider.calls) == 3  # the dimension was known: no probe request


def test_litellm_embedder_discovers_its_dimension(provider: FakeEmbeddingProvider) -> None:
    provider.dimension = 5
    embedder = LiteLLMEmbedder("fakeembed/test-model")
    assert embedder.embed([]).shape == (0, 5)
    assert provider.calls == [["dimension probe"]]


def test_litellm_failures_become_one_line_model_errors(provider: FakeEmbeddingProvider) -> None:
    provider.fail = RuntimeError("provider is down\nlong traceback-like detail")
    with pytest.raises(ModelError) as caught:
        LiteLLMEmbedder("fakeembed/test-model").embed(["hello"])
    assert "fakeembed/test-model" in str(caught.value) and "\n" not in str(caught.value)

    provider.fail = None
    embedder = LiteLLMEmbedder("fakeembed/test-model")
    embedder.embed(["hello"])
    provider.dimension = 4
    with pytest.raises(ModelError, match="changed dimension"):
        embedder.embed(["hello"])
