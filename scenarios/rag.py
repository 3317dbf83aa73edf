"""The `rag` and `profile_rag` variants: top-4 user messages from Chroma, and a profile.

Messages are embedded with the project's encoder (local MiniLM by default) and kept
in the project's vector adapter; their redacted text sits beside it in
`rag_messages.jsonl`. `profile_rag` also keeps the project's profile (seeded from
the persona, updated by the rules) in SQLite and puts it first in the prompt. No
memory is marked outdated: that is what the tiered variant adds.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from aniso.core.clock import Clock
from aniso.core.db import open_db
from aniso.core.ports import Embedder
from aniso.core.settings import Settings
from aniso.llm.gateway import LLMGateway
from aniso.privacy.guard import Guard
from aniso.profile import ProfileStore, delta_from_persona
from aniso.profile.learner import ProfileLearner
from aniso.scenarios.variants import RAG_TOP_K, Baseline, _user, ask, rag_system
from aniso.tiers.index.vectors import ChromaIndex


class Rag(Baseline):
    def __init__(
        self,
        data_dir: Path,
        gateway: LLMGateway,
        *,
        settings: Settings,
        persona: dict[str, object] | None,
        clock: Clock,
        embedder: Embedder,
    ) -> None:
        super().__init__(data_dir, gateway)
        self.name = "rag" if persona is None else "profile_rag"
        self.guard = Guard()
        self.embedder = embedder
        self.index = ChromaIndex.open(path=data_dir / "chroma", url=settings.chroma_url)
        self.path = data_dir / "rag_messages.jsonl"
        self.learner: ProfileLearner | None = None
        self._next = 1
        if persona is not None:
            store = ProfileStore(open_db(data_dir), clock=clock)
            store.apply(delta_from_persona(persona), episode_id=None, source="import")
            complete = gateway.complete if settings.use_llm_extraction else None
            self.learner = ProfileLearner(store, complete=complete)  # type: ignore[arg-type]

    def _stored(self) -> dict[str, dict[str, str]]:
        if not self.path.exists():
            return {}
        rows = [json.loads(line) for line in self.path.read_text("utf-8").splitlines() if line]
        return {row["id"]: row for row in rows}

    def send(self, text: str, *, now: datetime) -> tuple[str, str | None]:
        redacted = self.guard.redact(text)
        vector = self.embedder.embed([redacted])
        stored = self._stored()
        hits = self.index.query(vector[0], RAG_TOP_K) if stored else []
        snippets = [
            (datetime.fromisoformat(stored[key]["at"]), stored[key]["text"])
            for key, _ in hits
            if key in stored
        ]
        key, self._next = f"m:{self._next}", self._next + 1
        with self.path.open("a", encoding="utf-8") as out:
            row = {"id": key, "at": now.isoformat(), "text": redacted}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.index.upsert([key], vector, [{"kind": "m"}])
        profile_text = ""
        if self.learner is not None:
            self.learner.learn(redacted, episode_id=self._next - 1)
            profile_text = self.learner.prompt_text()
        system = {"role": "system", "content": rag_system(profile_text, snippets, now)}
        return ask(self.gateway, [system, _user(text)])

    def forget(self, text: str, *, now: datetime) -> int:
        stored = self._stored()
        gone = [k for k, row in stored.items() if text.casefold() in row["text"].casefold()]
        if gone:
            self.index.delete(gone)
            kept = [row for k, row in stored.items() if k not in gone]
            self.path.write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8"
            )
        return len(gone)

    def profile(self) -> dict[str, list[str]] | None:
        if self.learner is None:
            return None
        return self.learner.store.current().as_values()

    def close(self) -> None:
        self.index.close()
        if self.learner is not None:
            self.learner.store.db.close()
