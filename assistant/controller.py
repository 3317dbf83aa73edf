"""The memory controller: observe, recall, assemble, remember.

Every user message flows through here (DESIGN §2). The controller writes the
user's message before the model runs, so nothing is lost when the model fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import sqlite_utils

from aniso.clock import Clock
from aniso.inputs import clean_message
from aniso.prompt import MemoryItem, fit_memories, system_prompt
from aniso.settings import Settings
from aniso.tiers import episodes
from aniso.tokens import count_tokens

Message = dict[str, str]
RECENT_TURNS = 6


@dataclass(frozen=True)
class Observation:
    """A message the controller has accepted and stored."""

    episode_id: int
    at: datetime
    stored_text: str
    """What memory keeps: the redacted text."""
    llm_text: str
    """What the model sees for this turn (raw or redacted, by the privacy policy)."""
    notices: list[str] = field(default_factory=list)


class MemoryController:
    """Owns the write and read paths of memory for one chat session."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        *,
        settings: Settings,
        clock: Clock,
        session: str,
        temporary: bool = False,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.session = session
        self.temporary = temporary
        self._temporary_turns: list[tuple[str, str]] = []

    def observe(self, text: str) -> Observation:
        """Validate and store the user's message; raises InputError before storing junk."""
        cleaned = clean_message(text)
        now = self.clock()
        if self.temporary:
            return Observation(episode_id=0, at=now, stored_text=cleaned, llm_text=cleaned)
        episode_id = episodes.insert_pending(
            self.db,
            session=self.session,
            at=now,
            user_text=cleaned,
            tokens=count_tokens(cleaned),
            pii_types=[],
        )
        return Observation(episode_id=episode_id, at=now, stored_text=cleaned, llm_text=cleaned)

    def recall(self, query: str) -> list[MemoryItem]:
        """Memories relevant to `query`, in tier order. Filled in by the tiers."""
        return []

    def profile_text(self) -> str:
        return ""

    def assemble(self, observation: Observation, recalled: list[MemoryItem]) -> list[Message]:
        """The prompt: system (profile, memories), the recent turns, the new message."""
        profile = self.profile_text()
        memories = fit_memories(
            recalled, budget_tokens=self.settings.context_budget_tokens, profile_text=profile
        )
        messages: list[Message] = [
            {
                "role": "system",
                "content": system_prompt(
                    profile_text=profile, memories=memories, now=observation.at
                ),
            }
        ]
        for user_text, reply in self._recent_turns(observation.episode_id):
            messages.append({"role": "user", "content": user_text})
            messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": observation.llm_text})
        return messages

    def _recent_turns(self, current_episode: int) -> list[tuple[str, str]]:
        if self.temporary:
            return self._temporary_turns[-RECENT_TURNS:]
        turns = episodes.recent_in_session(self.db, self.session, limit=RECENT_TURNS + 1)
        return [(e.user_text, e.reply or "") for e in turns if e.id != current_episode][
            -RECENT_TURNS:
        ]

    def remember_reply(self, observation: Observation, reply: str) -> None:
        if self.temporary:
            self._temporary_turns.append((observation.stored_text, reply))
            return
        episodes.finish(self.db, observation.episode_id, reply=reply, tokens=count_tokens(reply))

    def remember_failure(self, observation: Observation, error: str) -> None:
        if not self.temporary:
            episodes.fail(self.db, observation.episode_id, error=error)
