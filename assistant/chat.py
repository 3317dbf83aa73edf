"""`aniso.Assistant`: one user message in, one streamed reply out, memory kept.

The TUI and the CLI are thin layers over this class.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from aniso.controller import MemoryController, Observation
from aniso.core import timings
from aniso.core.errors import AnisoError, StoreError
from aniso.core.ports import CompletionRequest
from aniso.llm.gateway import LLMGateway
from aniso.profile.notice import noted
from aniso.profile.store import Change
from aniso.refresh import Brief, Refresher, changes_since
from aniso.reuse import Offer, Reuse
from aniso.tiers.model import MemoryItem


@dataclass(frozen=True)
class Reply:
    """What one turn produced. `error` is a one-line cause when the model failed;
    the user's message is stored either way (`episode_id`)."""

    text: str
    episode_id: int
    recalled: list[MemoryItem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    error: str | None = None
    profile_changes: tuple[Change, ...] = ()
    """What learning from the message changed in the profile; `aniso profile undo`
    takes it back."""
    briefs: tuple[Brief, ...] = ()
    """Open threads this message returned to after a pause: the reply starts from
    their briefs, which the interfaces show before it."""
    procedure: Offer | None = None
    """The accepted procedure this request reused, adapted to the current profile."""

    @property
    def noted(self) -> str | None:
        """ "Noted: diet → vegetarian", or None when the profile did not change."""
        return noted(self.profile_changes)


class Assistant:
    """The chat loop: observe → recall → assemble → reply (streamed) → remember."""

    def __init__(
        self,
        controller: MemoryController,
        gateway: LLMGateway,
        *,
        refresher: Refresher | None = None,
        reuse: Reuse | None = None,
    ) -> None:
        self.controller = controller
        self.gateway = gateway
        self.refresher = refresher
        self.reuse = reuse

    def pending_digest(self) -> str | None:
        """The start-of-session digest in Markdown, once per local day, else None.

        Call it before sending the first message of a session: the first call of
        the user's day (in `settings.timezone`, from any process) returns what is
        still open, what changed in the profile since the last session and what
        moved between tiers; later calls that day return None, as do temporary
        chats and days with nothing to report.
        """
        return self.digest(claim=True)

    def digest(self, *, claim: bool) -> str | None:
        """The digest in Markdown, or None when there is nothing to report. With
        `claim` it is the day's one digest (None if another call took it today);
        without, it is only read (an MCP client or the Python API asking)."""
        from aniso.tiers import digest

        controller = self.controller
        if controller.temporary:
            return None
        zone = ZoneInfo(controller.settings.timezone)
        if claim and not digest.claim_day(controller.db, now=controller.clock(), zone=zone):
            return None
        since = digest.last_session_end(controller.db, controller.session)
        found = digest.build(
            controller.db,
            session=controller.session,
            profile_changes=self._profile_changes(since),
            now=controller.clock(),
            zone=zone,
        )
        return None if found.is_empty() else found.markdown(zone)

    def _profile_changes(self, since: datetime | None) -> list[str]:
        """Profile values that started or ended after `since` (None: a new user)."""
        profile = self.controller.profile
        store = getattr(profile, "store", None)
        return changes_since(store.history(), since) if store is not None else []

    def _briefs(self, episode_id: int) -> tuple[Brief, ...]:
        """Briefs of the open threads this message returns to after a pause; a
        failure here never costs the reply."""
        if self.refresher is None or self.controller.temporary or not episode_id:
            return ()
        if not self.controller.settings.push_refresh:
            return ()
        try:
            return tuple(self.refresher.resume(episode_id))
        except Exception as error:  # noqa: BLE001 - the brief is a courtesy, the reply is not
            logging.getLogger(__name__).warning("thread briefs failed: %s", type(error).__name__)
            return ()

    def _offer(self, text: str, episode_id: int) -> Offer | None:
        """Judge the previous answer by this message (accepted answers become
        procedures), then offer a procedure for this request; never costs the reply."""
        if self.reuse is None or self.controller.temporary or not episode_id:
            return None
        try:
            self.reuse.judge(text, current_episode=episode_id)
            return self.reuse.offer(text, episode_id=episode_id)
        except Exception as error:  # noqa: BLE001 - reuse is a saving, the reply is not
            logging.getLogger(__name__).warning("procedures failed: %s", type(error).__name__)
            return None

    def _from_steps(
        self,
        observation: Observation,
        offer: Offer,
        *,
        notices: list[str],
        on_token: Callable[[str], None] | None,
    ) -> Reply:
        """The reply to a request an accepted procedure covers: its steps, filled from
        the profile now, under a fixed lead-in. No recall and no model call: the user
        accepted this answer, and the small model would only rewrite it worse."""
        text = offer.reply_text()
        timings.mark("first_token")
        if on_token is not None:
            on_token(text)
        timings.mark("reply_end")
        error = None
        self.controller.last_context = []  # nothing was recalled, so nothing was used
        try:
            self.controller.remember_reply(observation, text)
        except StoreError as failure:
            error = f"{failure}; the reply was not kept"
        return Reply(
            text=text,
            episode_id=observation.episode_id,
            notices=notices + self.controller.warnings,
            error=error,
            profile_changes=observation.profile_changes,
            procedure=offer,
        )

    def send(
        self,
        text: str,
        *,
        on_token: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_briefs: Callable[[tuple[Brief, ...]], None] | None = None,
    ) -> Reply:
        """Answer one message. InputError is raised before anything is stored;
        model failures come back as `Reply.error` after the message is stored.
        `on_briefs` receives the briefs of open threads the message returns to after a
        pause, before the first token."""
        observation = self.controller.observe(text)
        briefs = self._briefs(observation.episode_id)
        offer = self._offer(observation.stored_text, observation.episode_id)
        if briefs and on_briefs is not None:
            on_briefs(briefs)  # shown before the reply streams: the reply starts from them
        if offer is not None and offer.direct and not briefs:
            return self._from_steps(
                observation, offer, notices=observation.notices, on_token=on_token
            )
        with timings.span("recall"):
            recalled = self.controller.recall(
                observation.stored_text, current_episode=observation.episode_id
            )
        messages = self.controller.assemble(
            observation,
            recalled,
            briefs=[brief.text for brief in briefs],
            procedure=offer.prompt_text() if offer else None,
        )
        notices = observation.notices + self.controller.warnings
        request = CompletionRequest(messages=messages, max_tokens=self.gateway.reply_max_tokens)
        pieces: list[str] = []
        try:
            for piece in self.gateway.stream(request):
                if cancelled is not None and cancelled():
                    break
                timings.mark("first_token")
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
        except AnisoError as error:
            message = str(error)
            if pieces:
                # Decided: a reply cut off mid-stream is shown (it already was) but not
                # kept; memory would otherwise recall half an answer as the answer.
                message += " (the partial reply was not kept)"
            self.controller.remember_failure(observation, message)
            return Reply(
                text="".join(pieces),
                episode_id=observation.episode_id,
                recalled=recalled,
                notices=notices,
                error=message,
                profile_changes=observation.profile_changes,
                briefs=briefs,
                procedure=offer,
            )
        timings.mark("reply_end")
        reply = "".join(pieces).strip()
        if not reply:
            message = f"model {self.gateway.model} returned an empty reply"
            self.controller.remember_failure(observation, message)
            return Reply(
                text="",
                episode_id=observation.episode_id,
                recalled=recalled,
                notices=notices,
                error=message,
                profile_changes=observation.profile_changes,
                briefs=briefs,
                procedure=offer,
            )
        try:
            self.controller.remember_reply(observation, reply)
        except StoreError as error:  # e.g. a full disk: the message itself is stored
            return Reply(
                text=reply,
                episode_id=observation.episode_id,
                recalled=recalled,
                notices=notices,
                error=f"{error}; the reply was not kept",
                profile_changes=observation.profile_changes,
                briefs=briefs,
                procedure=offer,
            )
        return Reply(
            text=reply,
            episode_id=observation.episode_id,
            recalled=recalled,
            notices=notices,
            profile_changes=observation.profile_changes,
            briefs=briefs,
            procedure=offer,
        )
