"""The `aniso` variant: the product itself, built by `services.build` over a fresh dir.

The persona seeds the profile (as an import), each user message goes through
`Assistant.send` exactly as in chat, and every simulated night runs the compactor
wired as `aniso compact` wires it. Each user message is its own session: the
benchmark measures memory across visits, and a same-session window of recent turns
would carry old statements past memory (and its outdated marks) untouched.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from aniso.core.clock import SimulatedClock
from aniso.core.ports import Embedder
from aniso.core.settings import Settings
from aniso.profile import delta_from_persona
from aniso.scenarios.variants import RecordingGateway
from aniso.services import build
from aniso.tiers import archive


class Tiered:
    name = "aniso"

    def __init__(
        self,
        data_dir: Path,
        gateway: RecordingGateway,
        *,
        settings: Settings,
        persona: dict[str, object],
        clock: SimulatedClock,
        embedder: Embedder,
    ) -> None:
        self.data_dir = data_dir
        self.settings = settings.model_copy(update={"data_dir": data_dir})
        self.services = build(self.settings, clock=clock, gateway=gateway)
        # The run shares one encoder cache between variants (same texts, same vectors).
        self.services.controller.memory.dense.embedder = embedder
        self.services.profile.apply(delta_from_persona(persona), episode_id=None, source="import")
        self.turn = 0

    def send(self, text: str, *, now: datetime) -> tuple[str, str | None]:
        self.turn += 1
        self.services.controller.session = f"scenario-turn-{self.turn}"
        reply = self.services.assistant.send(text)
        return reply.text, reply.error

    def night(self, now: datetime) -> None:
        self.services.compactor().run(now)
        self.services.refresher.run(now)  # beside the compactor, as the app schedules it

    def forget(self, text: str, *, now: datetime) -> int:
        """The product's own erasure (`aniso forget --search TEXT --yes`)."""
        from aniso.data import forget

        plan = forget.plan_search(self.services.db, text)
        if not plan.matches:
            return 0
        receipt = forget.forget(self.services, plan, remove_profile=False)
        return int(receipt["episodes"]) + int(receipt["archived"])

    def profile(self) -> dict[str, list[str]] | None:
        return self.services.profile.current().as_values()

    def tier_of(self, phrase: str) -> str | None:
        """The tier of the newest active block holding `phrase`, live or archived."""
        needle = phrase.casefold()
        db = self.services.db
        live = db.execute(
            "SELECT b.tier, e.user_text FROM episodes e JOIN blocks b ON b.id = e.block_id "
            "WHERE b.status = 'active' ORDER BY e.id DESC"
        ).fetchall()
        for tier, text in live:
            if needle in text.casefold():
                return str(tier)
        rows = db.execute(
            "SELECT b.tier, a.payload FROM archive a JOIN blocks b ON b.id = a.block_id "
            "WHERE b.status = 'active' ORDER BY a.episode_id DESC"
        ).fetchall()
        for tier, payload in rows:
            if needle in archive.unpack(payload)["user_text"].casefold():
                return str(tier)
        return None

    def restored(self) -> bool | None:
        """Whether any turn of the scenario restored an old block (the tier events
        record every restore; the controller only knows its last turn's)."""
        found = self.services.db.execute(
            "SELECT 1 FROM tier_events WHERE kind = 'restore' LIMIT 1"
        ).fetchone()
        return found is not None

    def hidden_bytes(self) -> list[bytes]:
        """Archived episodes are zlib-compressed: a byte scan must see them decompressed."""
        rows = self.services.db.execute("SELECT payload FROM archive").fetchall()
        return [
            json.dumps(archive.unpack(payload), ensure_ascii=False).encode("utf-8")
            for (payload,) in rows
        ]

    def close(self) -> None:
        self.services.controller.memory.dense.index.close()
        self.services.db.close()
