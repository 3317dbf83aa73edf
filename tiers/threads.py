"""Open threads: how urgent each one is, when its brief is due, and what the brief says.

A thread is an active block with an open problem (the `open` marker). While the user
is away, memory keeps a short brief of what moved on it, so the thread does not come
back stale. Three saturating signals make its urgency

    u = W_N·n/(n+K_N) + W_R·r/(r+K_R) + W_T·Δt/(Δt+K_T)

- n: new messages touching the thread since its last refresh;
- r: mentions of it elsewhere (messages in other blocks that share its words);
- Δt: hours since the user last pulled it: wrote in the thread itself, or was shown
  its brief. A passing mention in another conversation is news (r), not a look.

and its refresh interval is τ = T_MAX − (T_MAX − T_MIN)·u, so a busy or neglected
thread is refreshed daily and a quiet one weekly. DESIGN-NOTES.md says why these
constants.

A message touches a thread when it is in the thread's block, shares at least
MIN_SHARED of the thread's salient terms, or names one of its key stems (a stem the
conversation on the thread repeats: "visa" in "my visa application … the visa
centre"). The brief is extractive and in words: the
thread is named by its first message, never by a block id.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any

import sqlite_utils

from aniso.core.db import transaction
from aniso.tiers.index import lexical
from aniso.tiers.text import sentences, stems

W_N, K_N = 0.4, 3.0
W_R, K_R = 0.3, 2.0
W_T, K_T = 0.3, 72.0
T_MIN_HOURS = 24.0
T_MAX_HOURS = 168.0
RESUME_AFTER_HOURS = 24.0
"""A message on a thread untouched this long is a return after a pause: its reply
starts from the brief."""
MIN_SHARED = 2
KEY_REPEATS = 2
"""A stem the thread's own messages (and those sharing MIN_SHARED of its terms) use
this often is a key stem: one is enough for a message to touch the thread. A short
return ("Still waiting on the visa") shares one word with the thread, but it is the
word the problem is about; a word said once in passing ("water", "work") is not."""
KEY_MIN_CHARS = 3
SCAN_LIMIT = 2000
"""At most this many recent messages are read per thread and refresh."""
MAX_RELATED = 3
MAX_QUESTIONS = 2
MAX_MOVES = 2
LABEL_CHARS = 80
IDS = re.compile(r"\b(block|memory|thread|episode)\s*#?\s*\d+\b|#\d+\b", re.IGNORECASE)


def urgency(n: int, r: int, dt_hours: float) -> float:
    """u in [0, 1): three saturating signals, weighted (the weights sum to 1)."""
    dt = max(0.0, dt_hours)
    return W_N * n / (n + K_N) + W_R * r / (r + K_R) + W_T * dt / (dt + K_T)


def interval_hours(u: float) -> float:
    """τ in [T_MIN_HOURS, T_MAX_HOURS]: the more urgent, the sooner the next brief."""
    u = min(1.0, max(0.0, u))
    return T_MAX_HOURS - (T_MAX_HOURS - T_MIN_HOURS) * u


@dataclass(frozen=True)
class Touch:
    """A message that touches a thread."""

    episode_id: int
    block_id: int
    at: datetime
    text: str
    words: set[str] = field(default_factory=set, compare=False)
    """Its indexed stems: how much of the thread it names."""


@dataclass(frozen=True)
class Thread:
    """One open thread as of `now`: its live urgency and its stored brief."""

    block_id: int
    label: str
    opened: datetime
    last_pulled: datetime
    last_refresh: datetime
    n: int
    r: int
    dt_hours: float
    brief: str
    source: str
    shown: datetime | None = None
    """When its brief last led a reply: what the user last saw of it."""

    @property
    def u(self) -> float:
        return urgency(self.n, self.r, self.dt_hours)

    @property
    def tau_hours(self) -> float:
        return interval_hours(self.u)

    @property
    def next_refresh(self) -> datetime:
        return self.last_refresh + timedelta(hours=self.tau_hours)

    def as_dict(self) -> dict[str, Any]:
        """The shape of `aniso memory threads --json`, the API and the MCP tool."""
        return {
            "label": self.label,
            "opened": self.opened.isoformat(),
            "u": round(self.u, 4),
            "tau_hours": round(self.tau_hours, 2),
            "n": self.n,
            "r": self.r,
            "hours_since_pulled": round(self.dt_hours, 2),
            "last_refresh": self.last_refresh.isoformat(),
            "next_refresh": self.next_refresh.isoformat(),
            "brief": self.brief,
            "brief_source": self.source,
            "block_id": self.block_id,
        }


@dataclass(frozen=True)
class Facts:
    """What a brief says, before it is put in words (by code or by a model)."""

    label: str
    opened: datetime
    since: datetime
    """When the user last wrote in the thread itself, or its opening."""
    seen: bool
    """True when `since` is a later message of theirs in the thread, not its opening."""
    related: list[Touch] = field(default_factory=list)
    profile: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)


def clip(text: str, limit: int = LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def label(db: sqlite_utils.Database, block_id: int) -> str:
    """The thread's name in words: its first message, else its keywords."""
    row = db.execute(
        "SELECT user_text FROM episodes WHERE block_id = ? ORDER BY at, id LIMIT 1", [block_id]
    ).fetchone()
    if row is not None:
        return f"“{clip(row[0])}”"
    found = db.execute("SELECT summary, keywords FROM blocks WHERE id = ?", [block_id]).fetchone()
    if found is None:
        return "an open problem"
    if found[0]:
        return f"“{clip(found[0])}”"
    return ", ".join(json.loads(found[1])[:3]) or "an open problem"


def _terms(db: sqlite_utils.Database, block_id: int) -> set[str]:
    return {
        row[0] for row in db.execute("SELECT term FROM block_terms WHERE block_id = ?", [block_id])
    }


def _shares(words: set[str], terms: set[str]) -> bool:
    if not terms:
        return False
    return len(terms & words) >= min(MIN_SHARED, len(terms))


@dataclass(frozen=True)
class Salient:
    """What a message must share to touch a thread: MIN_SHARED of `terms` (the stems
    the block is linked on), or one of `keys` (the stems its conversation repeats)."""

    terms: set[str]
    keys: set[str]

    def touched(self, words: set[str]) -> bool:
        return _shares(words, self.terms) or bool(self.keys & words)

    def overlap(self, words: set[str]) -> int:
        return len((self.terms | self.keys) & words)


def salient(db: sqlite_utils.Database, block_id: int) -> Salient:
    """The thread's terms and key stems. Key stems are counted over the thread's own
    messages and those that share MIN_SHARED of its terms, from the opening on (stems
    from the lexical index, so nothing is stemmed twice); a stem counts each time it is
    said, so a problem named twice in its first message already has its key."""
    terms = _terms(db, block_id)
    counts: Counter[str] = Counter()
    for owner, indexed in db.execute(
        f"SELECT e.block_id, f.stems FROM episodes e LEFT JOIN {lexical.EPISODES} f "
        f"ON f.rowid = e.id WHERE e.at >= (SELECT min(at) FROM episodes WHERE block_id = ?) "
        f"AND (e.block_id = ? OR e.origin_id IS NULL) ORDER BY e.at, e.id LIMIT ?",
        [block_id, block_id, SCAN_LIMIT],
    ).fetchall():
        said = [w for w in (indexed or "").split() if w.isalpha() and len(w) >= KEY_MIN_CHARS]
        if owner == block_id or _shares(set(said), terms):
            counts.update(said)
    return Salient(terms, {w for w, count in counts.items() if count >= KEY_REPEATS})


def touching(
    db: sqlite_utils.Database,
    block_id: int,
    *,
    after: datetime,
    until: datetime | None = None,
    exclude: Sequence[int] = (),
) -> list[Touch]:
    """Messages after `after` (and at or before `until`) that touch the thread, oldest
    first. Restored copies are not new messages. Stems come from the lexical index."""
    found = salient(db, block_id)
    rows = db.execute(
        f"SELECT e.id, e.block_id, e.at, e.user_text, f.stems FROM episodes e "
        f"LEFT JOIN {lexical.EPISODES} f ON f.rowid = e.id WHERE e.at > ? AND e.at <= ? "
        f"AND e.origin_id IS NULL ORDER BY e.at DESC, e.id DESC LIMIT ?",
        [after.isoformat(), (until or datetime.max).isoformat(), SCAN_LIMIT],
    ).fetchall()
    touches = [
        Touch(episode_id, owner, datetime.fromisoformat(at), text, set((indexed or "").split()))
        for episode_id, owner, at, text, indexed in rows
        if episode_id not in exclude
        and (owner == block_id or found.touched(set((indexed or "").split())))
    ]
    return touches[::-1]


def sync(db: sqlite_utils.Database, *, now: datetime) -> None:
    """One row per open problem: a newly open block gets one unless it continues an
    existing thread (shares its words: the user came back to it after a gap, which
    starts a new block); closed threads lose theirs."""
    with transaction(db):
        db.execute(
            "DELETE FROM threads WHERE block_id NOT IN "
            "(SELECT id FROM blocks WHERE open = 1 AND status = 'active')"
        )
        known = {
            block_id: _terms(db, block_id)
            for (block_id,) in db.execute("SELECT block_id FROM threads").fetchall()
        }
        for block_id, created in db.execute(
            "SELECT id, created FROM blocks WHERE open = 1 AND status = 'active' "
            "AND id NOT IN (SELECT block_id FROM threads) ORDER BY id"
        ).fetchall():
            terms = _terms(db, block_id)
            if any(_shares(terms, other) for other in known.values()):
                continue
            known[block_id] = terms
            opened = min(datetime.fromisoformat(created), now)
            db.execute(
                "INSERT INTO threads (block_id, opened, last_pulled, last_refresh, "
                "next_refresh, tau_hours) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    block_id,
                    opened.isoformat(),
                    opened.isoformat(),
                    opened.isoformat(),
                    (opened + timedelta(hours=T_MAX_HOURS)).isoformat(),
                    T_MAX_HOURS,
                ],
            )


def wrote(db: sqlite_utils.Database, block_id: int) -> datetime | None:
    """When the user last wrote in the thread itself (its block)."""
    row = db.execute("SELECT max(at) FROM episodes WHERE block_id = ?", [block_id]).fetchone()
    return datetime.fromisoformat(row[0]) if row and row[0] else None


def _pulled(db: sqlite_utils.Database, block_id: int, stored: str, now: datetime) -> datetime:
    """When the user last pulled the thread: the stored time (when the thread opened,
    or its brief led a reply), or their last message in the thread itself. Neither a
    recall that brought the block into a reply nor a passing mention in another
    conversation is a look: the user did not see where the thread stood."""
    pulled = datetime.fromisoformat(stored)
    last = wrote(db, block_id)
    if last is not None:
        pulled = max(pulled, last)
    return min(pulled, now)


def threads(
    db: sqlite_utils.Database,
    *,
    now: datetime,
    exclude: Sequence[int] = (),
    only: Sequence[int] | None = None,
) -> list[Thread]:
    """Every open thread (or those in `only`) with its live signals, most urgent
    first (call `sync` first)."""
    found: list[Thread] = []
    for row in db.query("SELECT * FROM threads ORDER BY block_id"):
        if only is not None and row["block_id"] not in only:
            continue
        block_id = row["block_id"]
        opened = datetime.fromisoformat(row["opened"])
        refreshed = datetime.fromisoformat(row["last_refresh"])
        since_opened = touching(db, block_id, after=opened, until=now, exclude=exclude)
        pulled = _pulled(db, block_id, row["last_pulled"], now)
        new = [t for t in since_opened if t.at > refreshed]
        elsewhere = [t for t in since_opened if t.block_id != block_id]
        found.append(
            Thread(
                block_id=block_id,
                label=label(db, block_id),
                opened=opened,
                last_pulled=pulled,
                last_refresh=refreshed,
                n=len(new),
                r=len(elsewhere),
                dt_hours=(now - pulled).total_seconds() / 3600,
                brief=row["brief"],
                source=row["source"],
                shown=datetime.fromisoformat(row["shown"]) if row["shown"] else None,
            )
        )
    return sorted(found, key=lambda t: (-t.u, t.block_id))


def due(db: sqlite_utils.Database, *, now: datetime) -> list[Thread]:
    """Threads whose brief is due: τ has passed since the last refresh, or none yet.
    τ is at least T_MIN_HOURS, so only threads refreshed that long ago (or never) are
    read in full: every command runs this first, and most find nothing due."""
    candidates = {
        row[0]
        for row in db.execute(
            "SELECT block_id FROM threads WHERE brief = '' OR last_refresh <= ?",
            [(now - timedelta(hours=T_MIN_HOURS)).isoformat()],
        )
    }
    if not candidates:
        return []
    return [
        t
        for t in threads(db, now=now, only=list(candidates))
        if t.next_refresh <= now or not t.brief
    ]


def facts(
    db: sqlite_utils.Database,
    thread: Thread,
    *,
    now: datetime,
    profile_changes: Sequence[str] = (),
    exclude: Sequence[int] = (),
) -> Facts:
    """What moved on the thread since the user last wrote in it (else since it opened).

    Not since its brief was last shown: a brief shown on a passing mention in another
    conversation must not bury the news for the real return. Of the messages elsewhere,
    the brief keeps the MAX_RELATED that say most about the thread: those asking a
    question first (what is still open), then those sharing most of its terms, then the
    latest; they are listed oldest first."""
    since = since_wrote(db, thread)
    found = salient(db, thread.block_id)
    moved = touching(db, thread.block_id, after=since, until=now, exclude=exclude)
    elsewhere = [t for t in moved if t.block_id != thread.block_id]
    ranked = sorted(
        elsewhere,
        key=lambda t: ("?" in t.text, found.overlap(t.words), t.at, t.episode_id),
        reverse=True,
    )
    related = sorted(ranked[:MAX_RELATED], key=lambda t: (t.at, t.episode_id))
    terms = found.terms
    profile = [change for change in profile_changes if terms & set(stems(change))]
    neighbours = {t.block_id for t in moved} | {thread.block_id} | _linked(db, thread.block_id)
    moves: list[str] = []
    for block_id, kind, from_tier, to_tier, at in db.execute(
        "SELECT block_id, kind, from_tier, to_tier, at FROM tier_events "
        "WHERE kind IN ('migrate', 'restore') AND at > ? AND at <= ? ORDER BY id DESC",
        [since.isoformat(), now.isoformat()],
    ).fetchall():
        if block_id in neighbours and len(moves) < MAX_MOVES:
            what = "this thread" if block_id == thread.block_id else label(db, block_id)
            verb = "was restored" if kind == "restore" else "moved"
            moves.append(f"{what} {verb} from {from_tier} to {to_tier} memory ({at[:10]})")
    return Facts(
        label=thread.label,
        opened=thread.opened,
        since=since,
        seen=since > thread.opened,
        related=related,
        profile=profile,
        moves=moves,
        questions=_questions(db, thread.block_id, related),
    )


def since_wrote(db: sqlite_utils.Database, thread: Thread) -> datetime:
    """Where a brief's news starts: the user's last message in the thread, or its
    opening."""
    last = wrote(db, thread.block_id)
    return max(thread.opened, last) if last is not None else thread.opened


def _linked(db: sqlite_utils.Database, block_id: int) -> set[int]:
    return {
        row[0]
        for row in db.execute(
            "SELECT b FROM links WHERE a = ? AND reason != 'time' "
            "UNION SELECT a FROM links WHERE b = ? AND reason != 'time'",
            [block_id, block_id],
        )
    }


def _questions(db: sqlite_utils.Database, block_id: int, related: Sequence[Touch]) -> list[str]:
    """Questions the user asked on the thread, latest last."""
    texts = [
        row[0]
        for row in db.execute(
            "SELECT user_text FROM episodes WHERE block_id = ? ORDER BY at, id", [block_id]
        )
    ] + [t.text for t in related]
    asked = [clip(s, 120) for text in texts for s in sentences(text) if s.rstrip().endswith("?")]
    return list(dict.fromkeys(asked))[-MAX_QUESTIONS:]


def extractive(found: Facts, zone: tzinfo) -> str:
    """The brief in words, from the facts alone (correct without any model)."""

    def day(at: datetime) -> str:
        return f"{at.astimezone(zone):%d %b}".lstrip("0")

    lines = [f"Open since {day(found.opened)}: {found.label}."]
    news = [f"- {day(t.at)}, in another conversation: “{clip(t.text)}”" for t in found.related]
    news += [f"- profile: {change}" for change in found.profile]
    news += [f"- memory: {move}" for move in found.moves]
    since = f"you last wrote on it ({day(found.since)})" if found.seen else "it opened"
    if news:
        lines.append(f"Since {since}:")
        lines += news
    else:
        lines.append(f"Nothing new since {since}.")
    if found.questions:
        lines.append("Still open: " + " ".join(f"“{q}”" for q in found.questions))
    return "\n".join(lines)


def has_ids(text: str) -> bool:
    """True when text names memory by number: a brief must speak in words."""
    return bool(IDS.search(text))


def save(
    db: sqlite_utils.Database,
    thread: Thread,
    *,
    brief: str,
    source: str,
    now: datetime,
    refreshed: bool = True,
) -> None:
    """Store a thread's brief; a refresh restarts its interval (n counts from now)."""
    with transaction(db):
        if refreshed:
            after = urgency(0, thread.r, thread.dt_hours)
            db.execute(
                "UPDATE threads SET last_refresh = ?, next_refresh = ?, n = ?, r = ?, u = ?, "
                "tau_hours = ?, brief = ?, source = ? WHERE block_id = ?",
                [
                    now.isoformat(),
                    (now + timedelta(hours=interval_hours(after))).isoformat(),
                    thread.n,
                    thread.r,
                    round(thread.u, 6),
                    round(thread.tau_hours, 3),
                    brief,
                    source,
                    thread.block_id,
                ],
            )
        else:
            db.execute(
                "UPDATE threads SET brief = ?, source = ? WHERE block_id = ?",
                [brief, source, thread.block_id],
            )


def touched_by(db: sqlite_utils.Database, episode_id: int) -> list[int]:
    """The threads a message touches (its own block's, or by shared words)."""
    row = db.execute(
        f"SELECT e.block_id, f.stems FROM episodes e LEFT JOIN {lexical.EPISODES} f "
        f"ON f.rowid = e.id WHERE e.id = ?",
        [episode_id],
    ).fetchone()
    if row is None:
        return []
    owner, indexed = row
    words = set((indexed or "").split())
    return [
        block_id
        for (block_id,) in db.execute("SELECT block_id FROM threads ORDER BY block_id").fetchall()
        if block_id == owner or salient(db, block_id).touched(words)
    ]


def mark_shown(db: sqlite_utils.Database, block_ids: Sequence[int], *, now: datetime) -> None:
    """The user is back on these threads and has seen their briefs."""
    with transaction(db):
        for block_id in block_ids:
            db.execute(
                "UPDATE threads SET last_pulled = ?, shown = ? WHERE block_id = ?",
                [now.isoformat(), now.isoformat(), block_id],
            )


def forget(db: sqlite_utils.Database) -> None:
    """After an erasure: threads of removed blocks go, and every brief is written anew
    (a brief quotes messages, which may be the forgotten ones)."""
    db.execute(
        "DELETE FROM threads WHERE block_id NOT IN (SELECT id FROM blocks WHERE status = 'active')"
    )
    db.execute("UPDATE threads SET brief = '', source = 'extractive'")
