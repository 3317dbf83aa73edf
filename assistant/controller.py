"""The memory controller: observe, recall, assemble, remember.

Every user message flows through here (DESIGN §2):

    text ─► clean ─► privacy guard ─► profile extraction + merge ─► store (hot tier)
         ─► recall ─► assemble under the token budget ─► (LLM) ─► store the reply

The user's message is written before the model runs, so nothing is lost when the
model fails; extraction failures are logged and never block the write.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

import sqlite_utils

from aniso.attribution import attribute, fact_terms
from aniso.core import timings
from aniso.core.clock import Clock
from aniso.core.db import store_error
from aniso.core.errors import StoreError
from aniso.core.settings import Settings
from aniso.inputs import clean_message
from aniso.privacy.echo import Withheld, redact_echoes, withheld_values
from aniso.profile.correction import is_correction
from aniso.profile.store import Change
from aniso.prompt import fit_memories, system_prompt
from aniso.tiers import episodes, gist, unpack, unpack_state
from aniso.tiers.memory import TieredMemory
from aniso.tiers.model import TIER_ORDER, MemoryItem

log = logging.getLogger(__name__)
Message = dict[str, str]
RECENT_TURNS = 6
RECALL_LIMIT = 12


class ProfileSeam(Protocol):
    """The profile seam: learn from a message, render the current truth, judge staleness."""

    def learn(self, text: str, *, episode_id: int) -> Sequence[Change]: ...

    def prompt_text(self) -> str: ...

    def is_outdated(self, text: str, at: datetime) -> bool: ...

    def outdated_check(self) -> Callable[[str, datetime], bool]: ...


def _no_redaction(text: str) -> tuple[str, list[str], str | None]:
    return text, [], None


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
    pii_types: list[str] = field(default_factory=list)
    withheld: tuple[Withheld, ...] = field(default=(), repr=False)
    """Raw values the model saw this turn (raw policy only), to catch their echoes in
    the reply; held in memory for the turn, never stored."""
    profile_changes: tuple[Change, ...] = ()
    """What learning from this message changed in the profile (shown to the user,
    who can undo it)."""


class MemoryController:
    """Owns the write and read paths of memory for one chat session."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        *,
        settings: Settings,
        clock: Clock,
        session: str,
        memory: TieredMemory,
        redact: Callable[[str], tuple[str, list[str], str | None]] = _no_redaction,
        profile: ProfileSeam | None = None,
        llm_is_local: bool = True,
        temporary: bool = False,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.session = session
        self.memory = memory
        self.redact = redact
        self.profile = profile
        self.llm_is_local = llm_is_local
        self.temporary = temporary
        self.warnings: list[str] = []
        # This turn's restores only: a list kept for the whole process would grow
        # with every restore of a long chat.
        self.restored: list[unpack.Restored] = []
        # The turn before, as the data dir holds it (`unpack_state`): read at every
        # recall, so any process (`ask`, chat, TUI, MCP) continues where the last left.
        self._state = unpack_state.UnpackState()
        self._temporary_turns: list[tuple[str, str]] = []
        self.last_context: list[MemoryItem] = []
        self._correction_pending = False
        self._profile_before = ""

    def _llm_sees_raw(self) -> bool:
        policy = self.settings.llm_sees
        return policy == "raw" or (policy == "auto" and self.llm_is_local)

    def observe(self, text: str) -> Observation:
        """Validate, redact and store the user's message; InputError before storing junk."""
        cleaned = clean_message(text)
        now = self.clock()
        try:
            with timings.span("guard"):
                redacted, types, notice = self.redact(cleaned)  # writes the audit row
            llm_text = cleaned if self._llm_sees_raw() else redacted
            withheld = withheld_values(cleaned, redacted) if types and llm_text is cleaned else ()
            notices = [notice] if notice else []
            if self.temporary:
                return Observation(0, now, redacted, llm_text, notices, types, withheld)
            with timings.span("store"):
                self.memory.dense.push_held()  # a turn that never reached its reply
                stored = self.memory.store(
                    redacted, at=now, session=self.session, pii_types=types, defer_index=True
                )
        except (StoreError, sqlite3.OperationalError) as error:
            # A full disk: say plainly that this message is not kept (the rest is intact).
            cause = error if isinstance(error, StoreError) else store_error(error)
            raise StoreError(f"{cause}; this message was not stored") from None
        self._correction_pending = is_correction(redacted)
        # What the corrected reply's prompt carried of the profile: before this
        # message's own extraction restates the fact.
        self._profile_before = self.profile_text() if self._correction_pending else ""
        changes: tuple[Change, ...] = ()
        if self.profile is not None:
            try:
                with timings.span("profile"):
                    changes = tuple(
                        self.profile.learn(redacted, episode_id=stored.episode_id) or ()
                    )
            except Exception as error:  # extraction must never lose the message
                log.warning(
                    "profile extraction failed for episode %s: %s",
                    stored.episode_id,
                    type(error).__name__,
                )
        return Observation(
            stored.episode_id,
            now,
            redacted,
            llm_text,
            notices,
            types,
            withheld,
            profile_changes=changes,
        )

    def recall(self, query: str, *, current_episode: int | None = None) -> list[MemoryItem]:
        """Memories relevant to `query`, best first, excluding the turns already in the
        prompt (this message and the session's recent turns)."""
        self.restored = []
        if self.temporary:
            return []
        self._state = unpack_state.load(self.db, now=self.clock())
        recent = episodes.recent_in_session(self.db, self.session, limit=RECENT_TURNS + 1)
        excluded = [e.id for e in recent] + ([current_episode] if current_episode else [])
        outdated = self.profile.outdated_check() if self.profile is not None else None

        def run() -> list[MemoryItem]:
            result = self.memory.recall(
                query,
                now=self.clock(),
                limit=RECALL_LIMIT,
                is_outdated=outdated,
                exclude_episodes=excluded,
            )
            self.warnings = result.warnings
            return result.items

        items = run()
        if self._correction_pending:
            self._record_miss(query, items, episode_id=current_episode)
        restored_any = False
        for block in self._blocks_to_unpack(query, items):
            restored = unpack.deep(
                self.memory,
                block,
                now=self.clock(),
                context_block=self._current_block(current_episode),
            )
            if restored is not None:
                self.restored.append(restored)
                restored_any = True
        if restored_any:
            items = run()
        # Everything old that was not unpacked is shown shallow and stays where it is.
        return gist.present(self.db, query, items)

    def _record_miss(
        self, correction: str, held: list[MemoryItem], *, episode_id: int | None
    ) -> None:
        """A correction ("I already told you...") is a miss: a retrieval miss when memory
        did not supply the fact to the reply it corrects, else a reply miss
        (`attribution`). Keep what memory held for it and what the previous turn
        injected, so a miss can be diagnosed and `aniso stats` can show both rates."""
        self._correction_pending = False
        # The corrected reply's prompt: the profile, the memories injected, and the
        # session's recent turns (a fact said two messages ago is in the prompt).
        recent = episodes.recent_in_session(self.db, self.session, limit=RECENT_TURNS + 1)
        supplied = [
            self._profile_before,
            *(item["text"] for item in self._state.context),
            *(turn.user_text for turn in recent if turn.id != episode_id),
        ]
        cause, found = attribute(correction, supplied)
        detail = {
            "episode_id": episode_id,
            "cause": cause,
            "fact": fact_terms(correction),
            "fact_supplied": found,
            "held": unpack_state.brief(held),
            "injected": self._state.context,
            "profile": self._profile_before[:500],
        }
        self.db["audit"].insert(
            {"at": self.clock().isoformat(), "kind": "miss", "detail": json.dumps(detail)}
        )

    def _blocks_to_unpack(self, query: str, items: list[MemoryItem]) -> list[int]:
        """Which warm or cold blocks to restore now (the policy: `unpack.blocks_to_unpack`)."""
        blocks, window = unpack.choose(
            self.memory,
            query,
            items,
            set(self._state.window),
            score=self.settings.unpack_score,
            last_gist=self._state.last_gist,
        )
        self._state = replace(self._state, window=sorted(window))
        return blocks

    def _current_block(self, episode_id: int | None) -> int | None:
        if not episode_id:
            return None
        found = self.db.execute(
            "SELECT block_id FROM episodes WHERE id = ?", [episode_id]
        ).fetchone()
        return found[0] if found else None

    def profile_text(self) -> str:
        """The profile for the prompt; a temporary chat reads no memory, the profile
        included: it must behave as if talking to someone who never met the user."""
        if self.temporary or self.profile is None:
            return ""
        return self.profile.prompt_text()

    def assemble(
        self,
        observation: Observation,
        recalled: list[MemoryItem],
        *,
        briefs: Sequence[str] = (),
        procedure: str | None = None,
    ) -> list[Message]:
        """The prompt: system (profile, the briefs of threads the user returns to, then
        memories in tier order), recent turns, message."""
        profile = self.profile_text()
        memories = fit_memories(
            recalled,
            budget_tokens=self.settings.prompt_budget_tokens,
            # briefs and a procedure come out of the same budget
            profile_text="\n".join([profile, *briefs, procedure or ""]),
        )
        memories.sort(key=lambda item: (TIER_ORDER.get(item.tier, 9), -item.score))
        self.last_context = memories
        if not self.temporary:
            self._state = replace(
                self._state,
                last_gist=gist.shown_last(memories),
                context=unpack_state.brief(memories),
            )
            unpack_state.save(self.db, self._state, at=observation.at)
        messages: list[Message] = [
            {
                "role": "system",
                "content": system_prompt(
                    profile_text=profile,
                    memories=memories,
                    now=observation.at,
                    small_model=self.settings.is_embedded_model,
                    briefs=briefs,
                    procedure=procedure,
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
        stored_reply, _, _ = self.redact(redact_echoes(reply, observation.withheld))
        if self.temporary:
            self._temporary_turns.append((observation.stored_text, stored_reply))
            return
        self.memory.store_reply(observation.episode_id, stored_reply)
        # A gist or an incomplete warm item merely shown is no use of its block: it
        # would reset the idle clock of every loosely related memory. Deep unpacking
        # (a restored block is hot, shown in full) is the use that counts.
        used = [item for item in self.last_context if not item.outdated and item.form == "full"]
        self.memory.mark_used(used, at=self.clock())
        self.write_behind()

    def remember_failure(self, observation: Observation, error: str) -> None:
        log.warning("the reply to episode %s failed: %s", observation.episode_id, error)
        if not self.temporary:
            episodes.fail(self.db, observation.episode_id, error=error)
            self.write_behind()

    def write_behind(self) -> None:
        """Send the turn's held vector to the vector index. `observe` holds it so the
        user does not wait for the upsert; the reply is out now, so this costs no one
        a wait, and the next turn's recall would find it held anyway."""
        self.memory.dense.push_held()
