"""Reusing accepted answers: the chat loop's side of `aniso.tiers.procedures`.

Before each reply, `Reuse.judge` reads what the new message says of the previous
answer (given within a day): thanks or "I used it" keep that answer as a procedure (or
count one more use of the procedure it came from); a rejection or a correction marks
it rejected, never to be offered again. `Reuse.offer` then finds a procedure for a
request of a known kind and fills its parameters with the profile as it is now. When the
request asks nothing the procedure does not cover and the settings answer from steps,
the offer is `direct`: the chat loop replies with the filled steps and asks no model,
which is where a repeated request saves its tokens and its time. Every text kept passes
the privacy guard.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlite_utils

from aniso.core.clock import Clock
from aniso.core.ports import Redact
from aniso.profile.correction import is_correction
from aniso.tiers import episodes, procedures

TITLE_CHARS = 200
FOLLOW_UP_HOURS = 24
"""A verdict speaks of an answer given at most this long before."""

ProfileValues = Callable[[], Mapping[str, Sequence[str]]]


KIND_RU = {
    "meal plan": "план питания",
    "packing list": "список вещей",
    "workout": "тренировка",
    "checklist": "чек-лист",
}
CYRILLIC = re.compile(r"[а-яёіїєґ]", re.IGNORECASE)


@dataclass(frozen=True)
class Offer:
    """A procedure offered for this request, its steps filled from the current profile.

    `direct`: the reply is the steps themselves under a fixed lead-in, and the model is
    not asked (the request asks nothing the procedure does not cover, and the settings
    answer from steps). `changes` are the parameters whose profile value moved since the
    procedure was kept: (field, then, now)."""

    procedure_id: int
    kind: str
    steps: list[str]
    direct: bool = False
    changes: tuple[tuple[str, str, str], ...] = ()
    russian: bool = False

    def steps_text(self) -> str:
        return "\n".join(f"- {step}" for step in self.steps)

    def prompt_text(self) -> str:
        """The steps for the model, with what moved in the profile since they were kept,
        which the model must rework them for."""
        moved = "; ".join(f"{field}: {old} → {new}" for field, old, new in self.changes)
        note = (
            f"\nSince then the profile changed ({moved}): adapt the steps to it." if moved else ""
        )
        return self.steps_text() + note

    def reply_text(self) -> str:
        """The whole reply when `direct`: a lead-in in the request's script, then the
        steps; the lead-in says what the profile changed, so the user sees why."""
        if self.russian:
            moved = "; ".join(f"{field}: {old} → {new}" for field, old, new in self.changes)
            lead = f"Вот то, что вам подошло в прошлый раз ({KIND_RU.get(self.kind, self.kind)})"
            lead += f", с учётом изменений в профиле ({moved}):" if moved else ":"
        else:
            moved = "; ".join(f"{field} {old} → {new}" for field, old, new in self.changes)
            lead = f"Here is the {self.kind} you accepted before"
            lead += f", adapted to your profile now ({moved}):" if moved else ":"
        return f"{lead}\n\n{self.steps_text()}"


class Reuse:
    def __init__(
        self,
        db: sqlite_utils.Database,
        *,
        clock: Clock,
        redact: Redact,
        profile_values: ProfileValues,
        from_steps: bool = False,
    ) -> None:
        self.db = db
        self.clock = clock
        self.redact = redact
        self.profile_values = profile_values
        self.from_steps = from_steps
        """Answer a request the procedure fully covers from its steps, without the model
        (`Settings.procedure_from_steps`)."""

    def judge(self, text: str, *, current_episode: int) -> str | None:
        """Read the message as a verdict on the previous answer (the last one given
        within FOLLOW_UP_HOURS, in this process or another); returns "accepted",
        "rejected" or None."""
        said = "rejected" if is_correction(text) else procedures.verdict(text)
        if said is None:
            return None
        last = self._previous(current_episode)
        if last is None:
            return None
        kind = procedures.kind_of(last.user_text)
        if kind is None:
            return None
        used = self._procedure_of(last.id)
        now = self.clock()
        if used is not None and said == "rejected":
            procedures.reject(self.db, used)
        elif used is None:
            steps = [self.redact(step) for step in procedures.steps_of(last.reply or "")]
            procedures.keep(
                self.db,
                kind=kind,
                title=self.redact(last.user_text)[:TITLE_CHARS],
                steps=steps,
                profile=self.profile_values(),
                episode_id=last.id,
                now=now,
                rejected=said == "rejected",
            )
        return said

    def offer(self, text: str, *, episode_id: int, now: datetime | None = None) -> Offer | None:
        """A procedure for this request, adapted to the profile now, and its use counted."""
        kind = procedures.kind_of(text)
        if kind is None:
            return None
        now = now or self.clock()
        found = procedures.best(self.db, kind, now=now)
        if found is None:
            return None
        procedures.use(self.db, found.id, episode_id, now=now)
        profile = self.profile_values()
        moved = procedures.changes(found, profile)
        return Offer(
            found.id,
            kind,
            procedures.adapt(found.steps, profile),
            direct=self.from_steps
            and procedures.adaptable(found, moved)
            and not procedures.asks_more(text, found, profile),
            changes=tuple(moved),
            russian=bool(CYRILLIC.search(text)),
        )

    def _previous(self, current_episode: int) -> episodes.Episode | None:
        since = (self.clock() - timedelta(hours=FOLLOW_UP_HOURS)).isoformat()
        row = self.db.execute(
            "SELECT id, session, at, user_text, reply, status, block_id FROM episodes "
            "WHERE id < ? AND status = 'answered' AND origin_id IS NULL AND at >= ? "
            "ORDER BY id DESC LIMIT 1",
            [current_episode, since],
        ).fetchone()
        if row is None:
            return None
        number, session, at, user_text, reply, status, block_id = row
        return episodes.Episode(
            number, session, datetime.fromisoformat(at), user_text, reply, status, block_id
        )

    def _procedure_of(self, episode_id: int) -> int | None:
        row = self.db.execute(
            "SELECT procedure_id FROM procedure_links WHERE episode_id = ? "
            "ORDER BY weight DESC LIMIT 1",
            [episode_id],
        ).fetchone()
        return None if row is None else int(row[0])
