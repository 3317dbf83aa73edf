"""Actuality: how present a block should be in the assistant's mind right now.

It feeds both ranking and migration. Semantic proximity to the conversation is the
retrieval score itself, computed at query time; this module adds the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

RECENCY_HALF_LIFE_DAYS = 14.0


@dataclass(frozen=True)
class ActualityInputs:
    last_access: datetime
    access_count: int
    important: bool
    open: bool
    pinned: bool
    linked_to_open: bool = False


def actuality(inputs: ActualityInputs, now: datetime) -> float:
    """A score in [0, 1]: recency decay, use, importance, open problems, pins.

    Recency decays exponentially with a two-week half-life; repeated access and the
    markers lift a block up, because a person keeps what they use and care about.
    """
    age_days = max(0.0, (now - inputs.last_access).total_seconds() / 86400)
    recency = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
    use = 1 - math.exp(-inputs.access_count / 4)
    markers = max(
        0.6 if inputs.important else 0.0,
        0.7 if inputs.open else 0.0,
        0.8 if inputs.pinned else 0.0,
        0.3 if inputs.linked_to_open else 0.0,
    )
    score = 0.55 * recency + 0.2 * use + 0.25 * markers / 0.8
    return min(1.0, score)
