"""The profile as the memory controller uses it: learn, render, judge staleness.

This is the seam between the chat loop and the profile package. The rules always
run; a capable model, when configured, adds what the rules missed (`merge_deltas`
lets the rules win every conflict), so the profile never depends on the model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from aniso.core.ports import Complete
from aniso.profile.delta import merge_deltas
from aniso.profile.llm_extract import extract_llm
from aniso.profile.render import render_for_prompt
from aniso.profile.store import Change, ProfileStore
from aniso.profile.understand import understand

log = logging.getLogger(__name__)


@dataclass
class ProfileLearner:
    store: ProfileStore
    complete: Complete | None = None
    """A completion function for LLM extraction, or None for rules only."""

    def learn(self, text: str, *, episode_id: int) -> list[Change]:
        delta = understand(text, held=self.store.current().as_values())
        if self.complete is not None:
            delta = merge_deltas(delta, extract_llm(text, self.complete))
        changes = self.store.apply(delta, episode_id=episode_id, source="rules")
        if changes:
            log.info("profile: %d change(s) from episode %s", len(changes), episode_id)
        return changes

    def prompt_text(self) -> str:
        return render_for_prompt(self.store.current(), superseded=self.store.superseded_values())

    def is_outdated(self, text: str, at: datetime) -> bool:
        return self.store.is_outdated(text, at)

    def outdated_check(self) -> Callable[[str, datetime], bool]:
        """One profile snapshot for judging every item of a recall: reading the profile
        and its history once per item cost about as much as the MiniLM encode."""
        return self.store.staleness().is_outdated


def warm() -> None:
    """Build the rules' word and place indexes, the tables of Ukrainian and Russian words
    and that of misleading forms now. They take seconds and are built once per process,
    on first use; built early (off the chat thread), the first message does not wait."""
    from aniso.profile import lexicon, morph, places

    lexicon.mentions("")
    lexicon.misreadings()
    places.lookup("")
    morph.more_ukrainian("")
    morph.more_russian("")
