"""Load drivers for the concurrency stress test: many messages through one Assistant.

Run as a script, this module is one writer process:

    python load_helpers.py TESTS_DIR --prefix A --count 2000 --start ISO [--embedding cheap]

It sends `--count` messages, each carrying a unique marker `<prefix>-<n>-mark`, through
one `Assistant` with the scripted LLM, one simulated minute apart, and prints a JSON
summary. Looping inside one process is what a long chat does, and is far cheaper than
thousands of CLI subprocesses.

`--embedding cheap` swaps the local MiniLM encoder for a deterministic hashed
bag-of-words served by a litellm custom embedding provider (`hashemb/...`), through
the same `LiteLLMEmbedder` seam a remote embedding model would use. The stress test
exercises locking and storage, not vector quality, and MiniLM costs most of the
per-message time on a 2-core CI box.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

CHEAP_PROVIDER = "hashemb"
CHEAP_MODEL = f"{CHEAP_PROVIDER}/bag-64"
DIMENSION = 64
MARK = re.compile(r"\b([A-Z][A-Za-z]*-\d+)-mark\b")
TOPICS = (
    "my tomato garden needs watering every evening",
    "the quarterly tax report is due soon",
    "planning a hiking trip to the mountains",
    "learning to play the cello slowly",
    "the car makes a rattling noise at speed",
)


def hashed_vector(text: str) -> list[float]:
    """A unit vector from hashed lowercase words: same text, same vector."""
    vector = np.zeros(DIMENSION, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        slot = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
        vector[slot % DIMENSION] += 1.0
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm else vector).tolist()


def install_cheap_embeddings() -> None:
    """Register the hashed embedding provider, keeping every other custom provider."""
    from litellm import CustomLLM
    from litellm.types.utils import Embedding, EmbeddingResponse

    from aniso.llm.gateway import litellm_module

    class Handler(CustomLLM):
        def embedding(self, *args: Any, **kwargs: Any) -> EmbeddingResponse:
            response: EmbeddingResponse = kwargs["model_response"]
            response.model = kwargs.get("model", CHEAP_MODEL)
            response.data = [
                Embedding(embedding=hashed_vector(text), index=index, object="embedding")
                for index, text in enumerate(kwargs["input"])
            ]
            return response

    litellm = litellm_module()
    others = [p for p in litellm.custom_provider_map if p["provider"] != CHEAP_PROVIDER]
    litellm.custom_provider_map = [
        *others,
        {"provider": CHEAP_PROVIDER, "custom_handler": Handler()},
    ]
    litellm.utils.custom_llm_setup()


def message(prefix: str, index: int) -> str:
    topic = TOPICS[(index // 25) % len(TOPICS)]
    return f"Note {prefix}-{index}-mark: {topic}, entry {index}."


def stored_markers(db_path: Path) -> dict[str, dict[str, object]]:
    """Where each marker is held: `current` counts its live episodes plus its archived
    rows (must be exactly 1); `restored` counts archive rows superseded by a deep
    unpack's copy (kept by design); `roots` are the original episode ids behind every
    copy (must be exactly one: a copy names its original in `origin_id`)."""
    from aniso.tiers import archive

    db = sqlite3.connect(db_path)
    try:
        rows = [
            (text, "current", origin or episode_id)
            for episode_id, text, origin in db.execute(
                "SELECT id, user_text, origin_id FROM episodes"
            )
        ]
        for episode_id, payload, status in db.execute(
            "SELECT episode_id, payload, status FROM archive"
        ):
            row = archive.unpack(payload)
            kind = "current" if status == "archived" else "restored"
            rows.append((row["user_text"], kind, row.get("origin_id") or episode_id))
    finally:
        db.close()
    found: dict[str, dict[str, object]] = {}
    for text, kind, root in rows:
        for marker in MARK.findall(text or ""):
            entry = found.setdefault(marker, {"current": 0, "restored": 0, "roots": set()})
            entry[kind] = int(entry[kind]) + 1  # type: ignore[call-overload]
            entry["roots"].add(root)  # type: ignore[union-attr]
    return found


def drive(prefix: str, count: int, start: str, embedding: str) -> dict[str, Any]:
    from datetime import timedelta

    from fakes import ScriptedLLM, install

    install(ScriptedLLM(default="Noted."))
    overrides: dict[str, Any] = {"model": "fake/x"}
    if embedding == "cheap":
        install_cheap_embeddings()
        overrides["embedding"] = CHEAP_MODEL
    from aniso.core.clock import SimulatedClock, parse_instant
    from aniso.core.settings import load_settings
    from aniso.services import build

    clock = SimulatedClock(parse_instant(start))
    services = build(load_settings(overrides), clock=clock)
    errors: list[str] = []
    began = time.perf_counter()
    cpu = time.process_time()
    for index in range(count):
        reply = services.assistant.send(message(prefix, index))
        if reply.error:
            errors.append(reply.error)
        clock.advance(timedelta(minutes=1))
    return {
        "prefix": prefix,
        "sent": count,
        "errors": errors[:5],
        "error_count": len(errors),
        "wall_s": round(time.perf_counter() - began, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
    }


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("tests_dir")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--start", required=True)
    parser.add_argument("--embedding", choices=("cheap", "local"), default="cheap")
    options = parser.parse_args()
    sys.path.insert(0, options.tests_dir)
    summary = drive(options.prefix, options.count, options.start, options.embedding)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
