"""Actuality: how present a block should be in the assistant's mind right now.

It feeds both ranking and migration. Semantic proximity to the conversation is the
retrieval score itself, computed at query time; this module adds the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

RECENCY_HALF_LIFE_DAYS = 14.0
USE_HALF_LIFE_DAYS = 30.0
"""Frequency of use is counted over a recent window: each use adds one to a count
that halves every month. A block used daily in spring no longer ranks as "in use"
in autumn, as a lifetime count would have it."""


def recent_uses(count: float, since: datetime | None, now: datetime) -> float:
    """The decayed use count at `now`, from `count` as it stood at `since`."""
    if since is None or count <= 0:
        return 0.0
    days = max(0.0, (now - since).total_seconds() / 86400)
    return count * 0.5 ** (days / USE_HALF_LIFE_DAYS)


@dataclass(frozen=True)
class ActualityInputs:
    last_access: datetime
    uses: float
    """Uses in the recent window: `recent_uses` at the time of ranking."""
    important: bool
    open: bool
    pinned: bool
    linked_to_open: bool = False


def actuality(inputs: ActualityInputs, now: datetime) -> float:
    """A score in [0, 1]: recency decay, recent use, importance, open problems, pins.

    Recency decays exponentially with a two-week half-life; repeated recent use and
    the markers lift a block up, because a person keeps what they use and care about.
    """
    age_days = max(0.0, (now - inputs.last_access).total_seconds() / 86400)
    recency = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    use = 1 - math.exp(-inputs.uses / 4)
    markers = max(
        0.6 if inputs.important else 0.0,
        0.7 if inputs.open else 0.0,
        0.8 if inputs.pinned else 0.0,
        0.3 if inputs.linked_to_open else 0.0,
    )
    score = 0.55 * recency + 0.2 * use + 0.25 * markers / 0.8
    return min(1.0, score)
