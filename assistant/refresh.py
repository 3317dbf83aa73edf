"""Push refresh: each open thread keeps a brief of what moved while the user was away.

`Refresher.run` writes the briefs that are due (the thread's interval τ has passed);
the scheduler calls it beside the nightly compactor, and every command catches it up
first, as the TUI catches up a missed night. `Refresher.resume` is called for each
message: when it returns to a thread after a pause, the reply starts from the brief.

A capable model may put the brief in its own words; the extractive brief is the
fallback and is correct without one. Either passes the privacy guard before it is
stored, and a model's brief that names memory by number is refused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import sqlite_utils

from aniso.core.clock import Clock
from aniso.core.ports import Complete, CompletionRequest, Redact
from aniso.profile.model import ProfileValue
from aniso.tiers import threads

log = logging.getLogger(__name__)
BRIEF_MAX_TOKENS = 200
BRIEF_MAX_CHARS = 1200
BRIEF_PROMPT = (
    "You write a short brief for a person returning to an open problem they left. "
    "Rewrite the notes below in at most four plain sentences, in the language of the "
    "notes: what the problem is, what moved since they last looked, and what is still "
    "open. Use only the notes. Never mention ids or numbers of memories or blocks."
)

ProfileChanges = Callable[[datetime | None], list[str]]


def changes_since(history: Sequence[ProfileValue], since: datetime | None) -> list[str]:
    """Profile values that started or ended after `since` (None: a new user), in words."""
    if since is None:
        return []
    changes = []
    for value in history:
        if value.ended is not None and value.ended > since:
            reason = f" ({value.ended_reason})" if value.ended_reason else ""
            changes.append(f"{value.field}: no longer {value.value}{reason}")
        elif value.ended is None and value.since > since:
            changes.append(f"{value.field}: {value.value}")
    return changes


@dataclass(frozen=True)
class Brief:
    """A brief that leads a reply: which thread (in words) and what it says."""

    label: str
    text: str


class Refresher:
    def __init__(
        self,
        db: sqlite_utils.Database,
        *,
        clock: Clock,
        timezone: str,
        redact: Redact,
        profile_changes: ProfileChanges,
        complete: Complete | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.zone = ZoneInfo(timezone)
        self.redact = redact
        self.profile_changes = profile_changes
        self.complete = complete

    def run(self, now: datetime | None = None) -> int:
        """Write every brief that is due; return how many were written."""
        now = now or self.clock()
        threads.sync(self.db, now=now)
        written = 0
        for thread in threads.due(self.db, now=now):
            text, source = self._write(thread, now=now)
            threads.save(self.db, thread, brief=text, source=source, now=now)
            written += 1
        return written

    def listing(self, now: datetime | None = None) -> list[threads.Thread]:
        """Open threads with live urgency, most urgent first (due briefs written first)."""
        now = now or self.clock()
        self.run(now)
        return threads.threads(self.db, now=now)

    def resume(self, episode_id: int, now: datetime | None = None) -> list[Brief]:
        """The briefs of the threads this message returns to after a pause.

        A thread counts when the message touches it and the user had not pulled it
        for RESUME_AFTER_HOURS. The brief is brought up to date first (without the
        message itself), and the thread is marked as seen."""
        now = now or self.clock()
        threads.sync(self.db, now=now)
        touched = set(threads.touched_by(self.db, episode_id))
        if not touched:
            return []
        briefs: list[Brief] = []
        shown: list[int] = []
        for thread in threads.threads(self.db, now=now, exclude=[episode_id]):
            if thread.block_id not in touched:
                continue
            if thread.dt_hours < threads.RESUME_AFTER_HOURS:
                continue
            text = thread.brief
            if not text or thread.last_refresh < self._last_activity(thread, episode_id):
                text, source = self._write(thread, now=now, exclude=[episode_id], model=False)
                threads.save(self.db, thread, brief=text, source=source, now=now, refreshed=False)
            briefs.append(Brief(label=thread.label, text=text))
            shown.append(thread.block_id)
        threads.mark_shown(self.db, shown, now=now)
        return briefs

    def _last_activity(self, thread: threads.Thread, episode_id: int) -> datetime:
        recent = threads.touching(
            self.db, thread.block_id, after=thread.last_refresh, exclude=[episode_id]
        )
        return recent[-1].at if recent else thread.last_refresh

    def _write(
        self,
        thread: threads.Thread,
        *,
        now: datetime,
        exclude: Sequence[int] = (),
        model: bool = True,
    ) -> tuple[str, str]:
        """The brief (redacted) and who wrote it: the model when capable, else code."""
        found = threads.facts(
            self.db,
            thread,
            now=now,
            profile_changes=self.profile_changes(threads.since_wrote(self.db, thread)),
            exclude=exclude,
        )
        notes = threads.extractive(found, self.zone)
        if model and self.complete is not None:
            written = self._model_brief(notes)
            if written is not None:
                return self.redact(written), "llm"
        return self.redact(notes), "extractive"

    def _model_brief(self, notes: str) -> str | None:
        assert self.complete is not None
        request = CompletionRequest(
            messages=[
                {"role": "system", "content": BRIEF_PROMPT},
                {"role": "user", "content": notes},
            ],
            max_tokens=BRIEF_MAX_TOKENS,
            temperature=0.2,
        )
        try:
            text = " ".join(self.complete(request).split())
        except Exception as error:  # a model failure leaves the extractive brief
            log.warning("the model could not write a brief: %s", type(error).__name__)
            return None
        if not text or len(text) > BRIEF_MAX_CHARS or threads.has_ids(text):
            return None
        return text
