"""Reusable procedures: an answer the user accepted, kept as steps with named parameters.

People ask a personal assistant for the same kinds of thing again and again (a weekly
meal plan, a packing list, a workout, a trip checklist). When the user accepts such an
answer (thanks for it, says they used it, or pins it), its list lines become a
procedure: each step keeps the profile values it relied on as named parameters
(`{diet}`), so a later request of the same kind gets the steps again, filled with the
profile as it is then. A rejected or corrected answer is kept only as rejected, and is
never offered again.

Links from a procedure to the requests that used it carry a weight that grows with
each use and halves every LINK_HALF_LIFE_DAYS without one; a procedure's weight is the
sum of its links'. A new procedure whose steps mostly repeat one of the same kind
merges into it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlite_utils

from aniso.core.db import transaction
from aniso.tiers.text import stems

KINDS: dict[str, re.Pattern[str]] = {
    "meal plan": re.compile(
        r"\b(meal plan|menu for the week|weekly menu|what to cook this week|meals for the week)"
        r"\b|(меню на неделю|план питания|что готовить на неделю)",
        re.IGNORECASE,
    ),
    "packing list": re.compile(
        r"\b(packing list|what (should i|to) pack|pack for)\b|(что взять с собой|список вещей)",
        re.IGNORECASE,
    ),
    "workout": re.compile(
        r"\b(workout|training plan|exercise routine)\b|(тренировк|план упражнений)",
        re.IGNORECASE,
    ),
    "checklist": re.compile(r"\b(checklist|check-list)\b|(чек-?лист)", re.IGNORECASE),
}
ACCEPTED = re.compile(
    r"\b(thanks?|thank you|perfect|great plan|love it|works for me|i used (it|your)|"
    r"i (cooked|followed|packed) (it|that|your))\b|(спасибо|отлично|идеально|подходит|"
    r"воспользовал|дякую)",
    re.IGNORECASE,
)
REJECTED = re.compile(
    r"\b(no,|not what i|that'?s wrong|wrong|i don'?t like (it|this|that)|useless|"
    r"doesn'?t work for me|try again|redo)\b|(не то|неправильно|не подходит|переделай|"
    r"не нравится)",
    re.IGNORECASE,
)
ROUTINE_WORDS = (
    "please again another new same usual one make give write plan list need want can could "
    "would like week weekly next this today tomorrow for me my us our "
    "пожалуйста снова опять ещё еще новый новое такой такое же обычный сделай составь дай "
    "напиши нужен нужна нужно хочу можешь неделю недели неделя следующую эту сегодня "
    "завтра мне нас наш наша"
)
"""Words that ask again without asking for anything new: a request made only of these,
the kind's own words and the words of the procedure is the same request."""
STEP = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\|)\s*(.+?)\s*\|?\s*$")
RELEVANT: dict[str, tuple[str, ...]] = {
    "meal plan": ("diet", "allergies", "avoid", "dislikes"),
}
"""Profile fields a kind depends on even when no step names them: a change in one of
them since the procedure was kept means its steps cannot be reused as they are."""
MERGE_OVERLAP = 0.6
LINK_HALF_LIFE_DAYS = 30.0
MAX_STEPS = 40


def kind_of(text: str) -> str | None:
    """The kind of request, or None for one that is not a recurring kind."""
    for kind, pattern in KINDS.items():
        if pattern.search(text):
            return kind
    return None


def asks_more(
    text: str, procedure: Procedure, profile: Mapping[str, Sequence[str]] | None = None
) -> bool:
    """Whether a request asks for something the procedure does not cover: a word that is
    neither in the request it was kept from, nor in its steps, its parameters or the
    current profile (which fills them), nor a routine word or one of the kind's own ("a
    packing list for the beach" against one kept for a ski trip). Such a request needs
    the model to adapt the steps."""
    covered = set(stems(ROUTINE_WORDS)) | set(stems(procedure.title))
    covered |= {s for step in procedure.steps for s in stems(step)}
    for values in [*procedure.params.values(), *(profile or {}).values()]:
        covered |= {s for value in values for s in stems(value)}
    pattern = KINDS.get(procedure.kind)
    rest = pattern.sub(" ", text) if pattern is not None else text
    return bool(set(stems(rest)) - covered)


def changes(
    procedure: Procedure, profile: Mapping[str, Sequence[str]]
) -> list[tuple[str, str, str]]:
    """(field, then, now) for each profile value the procedure relied on (a parameter, or
    a field its kind depends on) that moved since it was kept; a relevant field it did
    not record was empty then."""
    fields = dict.fromkeys([*procedure.params, *RELEVANT.get(procedure.kind, ())])
    moved = []
    for field in fields:
        then = list(procedure.params.get(field) or [])
        now = list(profile.get(field) or [])
        if sorted(then) != sorted(now):
            moved.append((field, ", ".join(then) or "—", ", ".join(now) or "—"))
    return moved


def adaptable(procedure: Procedure, moved: Sequence[tuple[str, str, str]]) -> bool:
    """Whether filling the parameters is enough: every value that moved is one a step
    names (`{diet}`), so the steps follow it; a change no step carries (a new allergy, a
    diet the plan never named) needs the model to rework the steps."""
    return all(any(f"{{{field}}}" in step for step in procedure.steps) for field, _, _ in moved)


def verdict(text: str) -> str | None:
    """What a follow-up says of the previous answer: accepted, rejected, or nothing.
    A rejection wins over thanks in the same message ("thanks, but that's wrong")."""
    if REJECTED.search(text):
        return "rejected"
    if ACCEPTED.search(text):
        return "accepted"
    return None


def steps_of(reply: str) -> list[str]:
    """The list lines of an answer (bullets, numbers, table rows), without table rules."""
    found = []
    for line in reply.splitlines():
        match = STEP.match(line)
        if match and not set(match.group(1)) <= set("-|: "):
            found.append(" ".join(match.group(1).split()))
    return found[:MAX_STEPS]


def parametrise(steps: Sequence[str], profile: Mapping[str, Sequence[str]]) -> list[str]:
    """Steps with the profile values they mention replaced by `{field}`."""
    out = []
    for step in steps:
        for field, values in profile.items():
            for value in values:
                if len(value) >= 3:
                    step = re.sub(
                        rf"\b{re.escape(value)}\b", f"{{{field}}}", step, flags=re.IGNORECASE
                    )
        out.append(step)
    return out


def adapt(steps: Sequence[str], profile: Mapping[str, Sequence[str]]) -> list[str]:
    """Fill the named parameters with the current profile; a parameter the profile no
    longer holds is dropped from the step."""

    def fill(match: re.Match[str]) -> str:
        values = profile.get(match.group(1)) or []
        return " and ".join(values)

    return [" ".join(re.sub(r"\{(\w+)\}", fill, step).split()) for step in steps]


@dataclass(frozen=True)
class Procedure:
    id: int
    kind: str
    title: str
    steps: list[str]
    params: dict[str, list[str]]
    uses: int
    weight: float
    pinned: bool
    rejected: bool
    last_used: datetime

    def as_dict(self) -> dict[str, Any]:
        """The shape of `aniso memory procedures --json`, the API and the MCP tool."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "steps": self.steps,
            "params": self.params,
            "uses": self.uses,
            "weight": self.weight,
            "pinned": self.pinned,
            "rejected": self.rejected,
            "last_used": self.last_used.isoformat(),
        }


def _weight(db: sqlite_utils.Database, procedure_id: int, now: datetime) -> float:
    total = 0.0
    for weight, updated in db.execute(
        "SELECT weight, updated FROM procedure_links WHERE procedure_id = ?", [procedure_id]
    ):
        age = max(0.0, (now - datetime.fromisoformat(updated)).total_seconds() / 86400)
        total += weight * 0.5 ** (age / LINK_HALF_LIFE_DAYS)
    return total


def listing(db: sqlite_utils.Database, *, now: datetime) -> list[Procedure]:
    """Every procedure, the heaviest first (rejected ones last)."""
    found = [
        Procedure(
            id=row["id"],
            kind=row["kind"],
            title=row["title"],
            steps=json.loads(row["steps"]),
            params=json.loads(row["params"]),
            uses=row["uses"],
            weight=round(_weight(db, row["id"], now), 4),
            pinned=bool(row["pinned"]),
            rejected=bool(row["rejected"]),
            last_used=datetime.fromisoformat(row["last_used"]),
        )
        for row in db.query("SELECT * FROM procedures ORDER BY id")
    ]
    return sorted(found, key=lambda p: (p.rejected, not p.pinned, -p.weight, p.id))


def _overlap(first: Sequence[str], second: Sequence[str]) -> float:
    a = {s for step in first for s in stems(step)}
    b = {s for step in second for s in stems(step)}
    return len(a & b) / max(1, min(len(a), len(b)))


def keep(
    db: sqlite_utils.Database,
    *,
    kind: str,
    title: str,
    steps: Sequence[str],
    profile: Mapping[str, Sequence[str]],
    episode_id: int | None,
    now: datetime,
    rejected: bool = False,
) -> int | None:
    """Keep an accepted (or a rejected) answer; a near duplicate of an accepted one of
    the same kind merges into it. Returns the procedure's id, None without steps."""
    if not steps:
        return None
    named = parametrise(steps, profile)
    relevant = RELEVANT.get(kind, ())
    params = {
        field: list(values)
        for field, values in profile.items()
        if values and (field in relevant or any(f"{{{field}}}" in step for step in named))
    }
    with transaction(db):
        if not rejected:
            for other in listing(db, now=now):
                if (
                    other.kind == kind
                    and not other.rejected
                    and (_overlap(other.steps, named) >= MERGE_OVERLAP)
                ):
                    db.execute(
                        "UPDATE procedures SET steps = ?, params = ?, uses = uses + 1, "
                        "last_used = ?, source_episode = ? WHERE id = ?",
                        [
                            json.dumps(named, ensure_ascii=False),
                            json.dumps(params),
                            now.isoformat(),
                            episode_id,
                            other.id,
                        ],
                    )
                    _link(db, other.id, episode_id, now)
                    return other.id
        cursor = db.execute(
            "INSERT INTO procedures (kind, title, steps, params, source_episode, created, "
            "last_used, uses, rejected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                kind,
                title,
                json.dumps(named, ensure_ascii=False),
                json.dumps(params, ensure_ascii=False),
                episode_id,
                now.isoformat(),
                now.isoformat(),
                0 if rejected else 1,
                int(rejected),
            ],
        )
        procedure_id = int(cursor.lastrowid or 0)
        if not rejected:
            _link(db, procedure_id, episode_id, now)
    return procedure_id


def _link(db: sqlite_utils.Database, procedure_id: int, episode_id: int | None, now: datetime):
    if episode_id is None:
        return
    db.execute(
        "INSERT INTO procedure_links (procedure_id, episode_id, weight, updated) "
        "VALUES (?, ?, 1.0, ?) ON CONFLICT (procedure_id, episode_id) DO UPDATE SET "
        "weight = weight + 1.0, updated = excluded.updated",
        [procedure_id, episode_id, now.isoformat()],
    )


def best(db: sqlite_utils.Database, kind: str, *, now: datetime) -> Procedure | None:
    """The procedure to reuse for a request of `kind`: pinned first, then the heaviest;
    never a rejected one."""
    usable = [p for p in listing(db, now=now) if p.kind == kind and not p.rejected]
    return usable[0] if usable else None


def use(db: sqlite_utils.Database, procedure_id: int, episode_id: int, *, now: datetime) -> None:
    """A request used the procedure: one more use, its link to the request grows."""
    with transaction(db):
        db.execute(
            "UPDATE procedures SET uses = uses + 1, last_used = ? WHERE id = ?",
            [now.isoformat(), procedure_id],
        )
        _link(db, procedure_id, episode_id, now)


def reject(db: sqlite_utils.Database, procedure_id: int) -> None:
    """The user rejected what the procedure produced: it is never offered again."""
    with transaction(db):
        db.execute("UPDATE procedures SET rejected = 1 WHERE id = ?", [procedure_id])


def set_pinned(db: sqlite_utils.Database, procedure_id: int, value: bool) -> bool:
    with transaction(db):
        return bool(
            db.execute(
                "UPDATE procedures SET pinned = ? WHERE id = ?", [int(value), procedure_id]
            ).rowcount
        )


def forget_sources(db: sqlite_utils.Database, episode_ids: set[int]) -> int:
    """Inside an erasure: procedures drawn from forgotten answers go, and links to
    forgotten requests (a procedure is the user's words and the assistant's reply)."""
    if not episode_ids:
        return 0
    ids = list(episode_ids)
    gone = 0
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        doomed = [
            row[0]
            for row in db.execute(
                f"SELECT id FROM procedures WHERE source_episode IN ({marks})", chunk
            )
        ]
        for procedure_id in doomed:
            db.execute("DELETE FROM procedure_links WHERE procedure_id = ?", [procedure_id])
            gone += db.execute("DELETE FROM procedures WHERE id = ?", [procedure_id]).rowcount
        db.execute(f"DELETE FROM procedure_links WHERE episode_id IN ({marks})", chunk)
    return gone


def forget(db: sqlite_utils.Database, procedure_ids: Sequence[int] | None = None) -> int:
    """Erase procedures (all of them with None) and their links; returns how many."""
    with transaction(db):
        if procedure_ids is None:
            db.execute("DELETE FROM procedure_links")
            return int(db.execute("DELETE FROM procedures").rowcount)
        count = 0
        for procedure_id in procedure_ids:
            db.execute("DELETE FROM procedure_links WHERE procedure_id = ?", [procedure_id])
            count += db.execute("DELETE FROM procedures WHERE id = ?", [procedure_id]).rowcount
        return count
