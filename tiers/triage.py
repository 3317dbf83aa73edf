"""Busy-day triage: when much arrives at once, recall weighs what is critical.

The load λ is new messages and open items per hour over the last WINDOW_HOURS (an
open item is a message that raises one: an open problem, a deadline, a health
worry); the triage weight is α = 1 / (1 + e^(−γ(λ − λ₀))), and recall scores

    α·criticality + (1 − α)·similarity

where criticality comes from the markers: important, open, deadline, health, pinned.
Below ALPHA_FLOOR the weight is taken as zero (rescaled above it, so the switch stays
continuous): on a normal day recall is exactly what it was without triage.
DESIGN-NOTES.md says why these constants.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import sqlite_utils

from aniso.tiers import markers

WINDOW_HOURS = 6.0
LAMBDA_0 = 8.0
"""Messages and open items per hour at which triage is half on."""
GAMMA = 1.0
ALPHA_FLOOR = 0.05
CANDIDATES = 200
"""At most this many of the window's messages are offered to recall as critical."""

DEADLINE = re.compile(
    r"\b(deadline|due (by|on|today|tomorrow)|(by|before) (tonight|tomorrow|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|noon|midnight|\d{1,2}(:\d{2})?\s*(am|pm)?)|"
    r"urgent|asap|emergency|last chance|expires?|before (the )?(flight|meeting|exam)|"
    r"cancell?ed|delayed|missed (the|my|our) (flight|train|bus|connection))\b|"
    r"(дедлайн|срочно|до завтра|до вечера|до понедельника|до пятницы|крайний срок|"
    r"сгорает|истекает|отменил[иа]?|отмен[её]н|задерж|опоздал|терміново|скасован)",
    re.IGNORECASE,
)
HEALTH = re.compile(
    r"\b(fever|temperature|sick|ill|vomit\w*|doctor|hospital|ambulance|er|pain|hurts?|"
    r"injur\w*|allerg\w*|rash|medicine|meds|pharmacy|symptoms?|asthma|infection|"
    r"paediatrician|pediatrician)\b|"
    r"(температур|заболел|болеет|болит|врач|больниц|скорая|аллерги|лекарств|аптек|"
    r"симптом|рвот|сып|педиатр|хвор|лікар)",
    re.IGNORECASE,
)
DECIDED = re.compile(
    r"\b(decided|we'?ll go with|going with|booked|rebooked|chose|settled on|confirmed|"
    r"cancelled it|agreed)\b|"
    r"(решили|решил[аи]?|выбрал[аи]?|забронировал[аи]?|договорились|подтвердил[аи]?)",
    re.IGNORECASE,
)
# Each marker alone gives this much criticality; together they combine as
# 1 − Π(1 − c): pinned and health matter most on a bad day, importance least.
WEIGHTS = {"pinned": 0.6, "health": 0.6, "deadline": 0.6, "open": 0.5, "important": 0.4}
_CALM = tuple(1 - WEIGHTS[name] for name in ("pinned", "health", "deadline", "open", "important"))


@dataclass(frozen=True)
class Load:
    """The recent load and the triage weight it gives."""

    messages: int
    open_items: int
    lam: float
    alpha: float
    """The raw sigmoid, as reported."""

    @property
    def weight(self) -> float:
        """The weight recall uses: zero below ALPHA_FLOOR, rescaled to [0, 1] above."""
        return max(0.0, (self.alpha - ALPHA_FLOOR) / (1 - ALPHA_FLOOR))


def sigmoid_alpha(lam: float) -> float:
    return 1.0 / (1.0 + math.exp(-GAMMA * (lam - LAMBDA_0)))


def load(db: sqlite_utils.Database, *, now: datetime, window: list[dict] | None = None) -> Load:
    """Messages and open items of the last WINDOW_HOURS, per hour, and α; `window` is
    `recent(db, now=now)` when the caller has read it already."""
    since = (now - timedelta(hours=WINDOW_HOURS)).isoformat()
    until = now.isoformat()
    messages = int(
        db.execute(
            "SELECT count(*) FROM episodes WHERE at > ? AND at <= ? AND origin_id IS NULL",
            [since, until],
        ).fetchone()[0]
    )
    rows = recent(db, now=now) if window is None else window
    open_items = sum(1 for row in rows if raises_item(row["user_text"]))
    lam = (messages + open_items) / WINDOW_HOURS
    return Load(messages, open_items, lam, sigmoid_alpha(lam))


@lru_cache(maxsize=16384)
def _worded(text: str) -> tuple[bool, bool, bool, bool]:
    """What a text's words say: health, deadline, an open problem, importance.

    On a busy day every recall scores a few hundred hits and the window's messages,
    mostly the same texts turn after turn; the regular expressions were half of a
    recall's time at 10k episodes, so each text is read once."""
    return (
        markers.finds(HEALTH, text),
        markers.finds(DEADLINE, text),
        markers.opens_problem(text),
        markers.is_important(text),
    )


def raises_item(text: str) -> bool:
    """An open item: the message opens a problem, sets a deadline or reports a worry
    about health."""
    health, deadline, opens, _ = _worded(text)
    return opens or deadline or health


def criticality(text: str, *, important: bool, open_: bool, pinned: bool) -> float:
    """How critical an item is, in [0, 1], from its block's markers and its words."""
    health, deadline, opens, worded_important = _worded(text)
    # In WEIGHTS' order, with no dict built: recall scores a few hundred hits a turn.
    found = (pinned, health, deadline, open_ or opens, important or worded_important)
    calm = 1.0
    for on, keep in zip(found, _CALM, strict=True):
        if on:
            calm *= keep
    return 1 - calm


def kind(text: str) -> str | None:
    """What a message did on a busy day, for the timeline: escalated or decided."""
    if markers.resolves_problem(text) or markers.finds(DECIDED, text):
        return "decided"
    if raises_item(text):
        return "escalated"
    return None


def recent(db: sqlite_utils.Database, *, now: datetime) -> list[dict]:
    """The window's messages with their block's markers, oldest first."""
    since = (now - timedelta(hours=WINDOW_HOURS)).isoformat()
    return list(
        db.query(
            "SELECT e.id, e.block_id, e.at, e.user_text, e.reply, e.ref, b.tier, b.status, "
            "b.important, b.open, b.pinned FROM episodes e JOIN blocks b ON b.id = e.block_id "
            "WHERE e.at > ? AND e.at <= ? AND e.origin_id IS NULL ORDER BY e.at DESC, e.id DESC "
            "LIMIT ?",
            [since, now.isoformat(), CANDIDATES],
        )
    )[::-1]
