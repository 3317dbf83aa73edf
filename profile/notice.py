"""What a profile change looks like to the user, in one short line.

Learning from a message is a guess, so every guess is shown where the user reads the
reply ("Noted: diet → vegetarian, no longer likes steak") and can be taken back in one
step (`ProfileStore.undo_last`), which says what it did ("Undone: diet vegetarian
removed, diet omnivore restored").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypedDict

from aniso.profile.model import is_list_field
from aniso.profile.store import Change, Undo

NO_LONGER: dict[str, str] = {
    "allergies": "allergic to",
    "avoid": "avoiding",
    "interests": "interested in",
    "likes": "likes",
    "dislikes": "dislikes",
}
"""How an ended list item reads after "no longer"; other fields say "field: no longer value"."""


class ChangeDict(TypedDict):
    kind: Literal["started", "ended"]
    field: str
    value: str
    row_id: int
    reason: str | None


class UndoDict(TypedDict):
    undone: bool
    """True when a message's learned changes were taken back."""
    episode_id: int | None
    """The message whose changes were undone; None when no message ever changed the profile."""
    changes: list[ChangeDict]
    message: str


def phrases(changes: Sequence[Change]) -> list[str]:
    """Each change as a phrase, in order: "diet → vegetarian", "likes + steak",
    "no longer allergic to nuts". A single-valued field's old value, replaced in the
    same change set, is implied by the arrow and not repeated."""
    replaced = {c.field for c in changes if c.kind == "started" and not is_list_field(c.field)}
    found = []
    for change in changes:
        if change.kind == "started":
            mark = "+" if is_list_field(change.field) else "→"
            found.append(f"{change.field} {mark} {change.value}")
        elif change.field in NO_LONGER:
            found.append(f"no longer {NO_LONGER[change.field]} {change.value}")
        elif change.field not in replaced:
            found.append(f"{change.field}: no longer {change.value}")
    return list(dict.fromkeys(found))


def noted(changes: Sequence[Change]) -> str | None:
    """The line shown after a message changed the profile, or None when it did not."""
    found = phrases(changes)
    return f"Noted: {', '.join(found)}" if found else None


def undone(undo: Undo) -> str:
    """The line shown after an undo, including when there was nothing to undo."""
    if undo.episode_id is None:
        return "Nothing to undo: no profile change has been learned from a message yet."
    if not undo.changes:
        return (
            f"Nothing to undo for message {undo.episode_id}: "
            "later edits have already replaced what it changed."
        )
    found = [
        f"{c.field} {c.value} {'restored' if c.kind == 'started' else 'removed'}"
        for c in undo.changes
    ]
    return f"Undone: {', '.join(found)}"


def change_dict(change: Change) -> ChangeDict:
    """One written row, as `--json` and the Python API show it."""
    return {
        "kind": change.kind,
        "field": change.field,
        "value": change.value,
        "row_id": change.row_id,
        "reason": change.reason,
    }


def undo_dict(undo: Undo) -> UndoDict:
    """An undo as `aniso profile undo --json` and `Memory.profile_undo` show it."""
    return {
        "undone": bool(undo.changes),
        "episode_id": undo.episode_id,
        "changes": [change_dict(change) for change in undo.changes],
        "message": undone(undo),
    }
