"""The profile, versioned in SQLite: the latest statement wins, nothing is deleted.

Every value is one row of `profile_values`. A single-valued field has at most one
open row (ended IS NULL); a list field has one open row per item. A change never
deletes: it ends the old row with the time, the episode and the reason, so the
profile view can show each field's history and the stale-memory check can ask
"was this still true when that memory was written?".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlite_utils

from aniso.core.clock import Clock
from aniso.core.db import transaction
from aniso.core.errors import InputError
from aniso.profile import conflicts, vocab
from aniso.profile.delta import Op, ProfileDelta, make_op
from aniso.profile.model import (
    FIELDS,
    Profile,
    ProfileValue,
    Source,
    is_list_field,
)
from aniso.profile.stale import StaleCheck

log = logging.getLogger(__name__)

UNDONE = "undone"
"""The ended_reason of a value that `undo_last` took back."""
LEARNED: tuple[Source, ...] = ("rules", "llm")
"""Sources whose values were learned from a message, so `undo_last` can take them back."""

OPPOSITES: dict[str, tuple[str, ...]] = {
    "likes": ("dislikes", "avoid"),
    "interests": ("dislikes",),
    "dislikes": ("likes", "interests"),
    "avoid": ("likes",),
}
"""Lists that cannot both hold an item: saying one ends the other."""


@dataclass(frozen=True)
class Change:
    """One row the store wrote: a value that started, or one that ended."""

    kind: Literal["started", "ended"]
    field: str
    value: str
    row_id: int
    reason: str | None = None


@dataclass(frozen=True)
class Undo:
    """What `ProfileStore.undo_last` did: the message whose learned changes it took
    back (None when there was none), and the rows it wrote to do so."""

    episode_id: int | None
    changes: list[Change]


def check_field(field: str) -> str:
    if field not in FIELDS:
        raise InputError(f"unknown profile field {field!r}; use one of: {', '.join(FIELDS)}")
    return field


def _row_value(row: dict[str, Any]) -> ProfileValue | None:
    if row["field"] not in FIELDS:
        return None  # written by a newer version of Aniso; not ours to interpret
    try:
        payload = json.loads(row["value"])
    except json.JSONDecodeError:
        payload = row["value"]
    if not isinstance(payload, dict):
        payload = {"value": str(payload), "said": str(payload)}
    return ProfileValue(
        id=row["id"],
        field=row["field"],
        value=str(payload.get("value", "")),
        said=str(payload.get("said", payload.get("value", ""))),
        evidence=str(payload.get("evidence", "")),
        since=datetime.fromisoformat(row["since"]),
        source_episode=row["source_episode"],
        source=row["source"],
        ended=datetime.fromisoformat(row["ended"]) if row["ended"] else None,
        ended_by_episode=row["ended_by_episode"],
        ended_reason=row["ended_reason"],
    )


class ProfileStore:
    """Reads and writes the profile. Every write runs in one transaction, or in
    the caller's when one is already open (so an episode and its profile changes
    can commit together)."""

    def __init__(self, db: sqlite_utils.Database, *, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    # Reading.

    def _rows(self, where: str = "", params: list[Any] | None = None) -> list[ProfileValue]:
        sql = f"SELECT * FROM profile_values {where} ORDER BY since, id"
        rows = (_row_value(row) for row in self.db.query(sql, params or []))
        return [row for row in rows if row is not None]

    def current(self) -> Profile:
        """The profile as it stands now."""
        fields: dict[str, Any] = {}
        for row in self._rows("WHERE ended IS NULL"):
            if is_list_field(row.field):
                fields.setdefault(row.field, []).append(row.entry())
            else:
                fields[row.field] = row.entry()  # the newest wins, should two be open
        return Profile(**fields)

    def history(self, field: str | None = None) -> list[ProfileValue]:
        """Every value ever held, superseded ones included, oldest first."""
        if field is None:
            return self._rows()
        return self._rows("WHERE field = ?", [check_field(field)])

    def superseded_values(self) -> list[ProfileValue]:
        """Values that are no longer current, oldest first."""
        return self._rows("WHERE ended IS NOT NULL")

    def staleness(self) -> StaleCheck:
        """A snapshot for judging many recalled memories against one profile."""
        return StaleCheck(profile=self.current(), superseded=tuple(self.superseded_values()))

    def is_outdated(self, text: str, at: datetime) -> bool:
        """True when a memory written at `at` asserts what the profile has since
        superseded, or contradicts a current constraint (see `StaleCheck`)."""
        return self.staleness().is_outdated(text, at)

    # Writing.

    def apply(self, delta: ProfileDelta, *, episode_id: int | None, source: Source) -> list[Change]:
        """Apply a delta; ops without their own source get `source`."""
        if delta.is_empty():
            return []
        changes: list[Change] = []
        with self._write():
            now = self.clock()
            for op in delta.ops:
                changes += self._apply_op(op, now, episode_id, op.source or source)
        return changes

    def set(self, field: str, value: str) -> list[Change]:
        """A hand edit: set a single-valued field, or add an item to a list field."""
        check_field(field)
        canonical = vocab.normalise(field, value)
        if canonical is None:
            choices = vocab.choices(field)
            hint = f"; use one of: {', '.join(choices)}" if choices else ""
            raise InputError(f"cannot read {value!r} as a {field}{hint}")
        kind = "add" if is_list_field(field) else "set"
        op = make_op(kind, field, canonical, value.strip())
        return self.apply(ProfileDelta(ops=(op,)), episode_id=None, source="hand")

    def unset(self, field: str, item: str | None = None) -> list[Change]:
        """A hand edit: end a field's value, one list item, or every item of a list."""
        check_field(field)
        with self._write():
            now = self.clock()
            rows = self._open(field)
            if item is not None:
                wanted = {item.strip(), vocab.normalise(field, item) or item.strip()}
                rows = [r for r in rows if r.value in wanted or r.said in wanted]
            return [self._end(r, now, None, "unset by hand") for r in rows]

    def last_learned(self) -> int | None:
        """The episode of the newest message whose learned changes are not undone yet."""
        found = self.db.execute(
            "SELECT max(episode) FROM ("
            "  SELECT source_episode AS episode FROM profile_values"
            "  WHERE source IN (?, ?) AND source_episode IS NOT NULL"
            "  UNION SELECT ended_by_episode FROM profile_values"
            "  WHERE ended_by_episode IS NOT NULL"
            ") WHERE episode NOT IN (SELECT json_extract(detail, '$.episode_id') FROM audit"
            "  WHERE kind = 'profile_undo' AND json_valid(detail))",
            list(LEARNED),
        ).fetchone()
        return None if found is None or found[0] is None else int(found[0])

    def undo_last(self) -> Undo:
        """Take back every change learned from the newest message that changed the
        profile: values it started end ("undone"), values it ended hold again (as new
        rows, so the history shows both the mistake and its undoing). A value that a
        later edit already replaced stays as it is. Calling it again goes one message
        further back; the undone messages are recorded in the audit table, so this
        works across processes."""
        with self._write():
            episode = self.last_learned()
            if episode is None:
                return Undo(None, [])
            now = self.clock()
            started = self._rows(
                "WHERE source_episode = ? AND source IN (?, ?) AND ended IS NULL",
                [episode, *LEARNED],
            )
            changes = [self._end(row, now, None, UNDONE) for row in started]
            for row in self._rows("WHERE ended_by_episode = ?", [episode]):
                learned_here = row.source_episode == episode and row.source in LEARNED
                if not learned_here and not self._taken(row):
                    changes.append(self._reopen(row, now))
            detail = {"episode_id": episode, "changes": len(changes)}
            self.db.execute(
                "INSERT INTO audit (at, kind, detail) VALUES (?, 'profile_undo', ?)",
                [now.isoformat(), json.dumps(detail)],
            )
        return Undo(episode, changes)

    # Internals.

    def _taken(self, row: ProfileValue) -> bool:
        """True when an ended value's place is held now: a single-valued field holds
        another value, or a list holds the item (or its opposite list does)."""
        if not is_list_field(row.field):
            return bool(self._open(row.field))
        fields = (row.field, *OPPOSITES.get(row.field, ()))
        return any(self._open(field, row.value) for field in fields)

    def _reopen(self, row: ProfileValue, now: datetime) -> Change:
        """The ended value holds again from `now`, with its original provenance."""
        payload = {"value": row.value, "said": row.said, "evidence": row.evidence}
        row_id = self._insert_row(row.field, payload, now, row.source_episode, row.source)
        return Change("started", row.field, row.value, row_id, "restored")

    @contextmanager
    def _write(self) -> Iterator[None]:
        if self.db.conn.in_transaction:
            yield
            return
        with transaction(self.db):
            yield

    def _open(self, field: str, value: str | None = None) -> list[ProfileValue]:
        if value is None:
            return self._rows("WHERE field = ? AND ended IS NULL", [field])
        return [r for r in self._open(field) if r.value == value]

    def _apply_op(self, op: Op, now: datetime, episode: int | None, source: Source) -> list[Change]:
        value = op.value.strip()
        if value and op.field in vocab.CLOSED:
            value = vocab.normalise(op.field, value) or ""
            if not value:
                log.warning("ignoring %s %s: %r is not a known value", op.kind, op.field, op.value)
                return []
        if is_list_field(op.field):
            if op.kind == "remove":
                reason = f"removed: {op.evidence or op.said or value}"
                rows = self._open(op.field, value)
                if not rows and op.field == "notes":  # notes are in the user's own words
                    held = self._open("notes")
                    named = vocab.named_note(value, [r.value for r in held])
                    rows = [] if named is None else [held[named]]
                if op.field in ("avoid", "allergies"):  # "wine is fine again" ends "alcohol"
                    rows += [
                        r
                        for r in self._open(op.field)
                        if r.value != value and conflicts.same_kind(value, r.value)
                    ]
                return [self._end(r, now, episode, reason) for r in rows]
            return self._add(op, value, now, episode, source)
        if op.kind == "remove":
            rows = [r for r in self._open(op.field) if not value or r.value == value]
            reason = f"removed: {op.evidence or op.said or op.field}"
            return [self._end(r, now, episode, reason) for r in rows]
        return self._replace(op, value, now, episode, source)

    def _replace(
        self, op: Op, value: str, now: datetime, episode: int | None, source: Source
    ) -> list[Change]:
        current = self._open(op.field)
        if any(vocab.restates(op.field, value, row.value) for row in current):
            return []
        changes = [self._end(r, now, episode, f"replaced by {value!r}") for r in current]
        changes.append(self._insert(op, value, now, episode, source))
        return changes + self._cascade(op.field, value, now, episode)

    def _add(
        self, op: Op, value: str, now: datetime, episode: int | None, source: Source
    ) -> list[Change]:
        if self._open(op.field, value):
            return []
        changes = [self._insert(op, value, now, episode, source)]
        for other in OPPOSITES.get(op.field, ()):
            reason = f"now in {op.field}"
            changes += [self._end(r, now, episode, reason) for r in self._open(other, value)]
        return changes + self._cascade(op.field, value, now, episode)

    def _cascade(self, field: str, value: str, now: datetime, episode: int | None) -> list[Change]:
        """End likings the new constraint rules out: "vegetarian" ends "steak"."""
        found = conflicts.ban(field, value)
        if found is None:
            return []
        changes = []
        for liking in conflicts.LIKING_FIELDS:
            for row in self._open(liking):
                if found.forbids(row.value):
                    changes.append(self._end(row, now, episode, found.reason))
        return changes

    def _insert(
        self, op: Op, value: str, now: datetime, episode: int | None, source: Source
    ) -> Change:
        payload = {"value": value, "said": op.said or value, "evidence": op.evidence}
        return Change(
            "started", op.field, value, self._insert_row(op.field, payload, now, episode, source)
        )

    def _insert_row(
        self, field: str, payload: dict[str, str], now: datetime, episode: int | None, source: str
    ) -> int:
        cursor = self.db.execute(
            "INSERT INTO profile_values (field, value, since, source_episode, source) "
            "VALUES (?, ?, ?, ?, ?)",
            [field, json.dumps(payload, ensure_ascii=False), now.isoformat(), episode, source],
        )
        return int(cursor.lastrowid or 0)

    def _end(self, row: ProfileValue, now: datetime, episode: int | None, reason: str) -> Change:
        self.db.execute(
            "UPDATE profile_values SET ended = ?, ended_by_episode = ?, ended_reason = ? "
            "WHERE id = ? AND ended IS NULL",
            [now.isoformat(), episode, reason[:300], row.id],
        )
        return Change("ended", row.field, row.value, row.id, reason)
