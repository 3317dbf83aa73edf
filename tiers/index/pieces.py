"""A long turn's sentences, each with a vector of its own: derived, optional, rebuilt.

MiniLM pools a turn into one vector, and in a turn of three or four sentences ("Hey
Caroline, hope all's good! I had a quiet weekend after we went camping with my fam two
weeks ago…") the greeting dilutes the fact. Searched by meaning alone, giving each
turn the best cosine of its own vector and its sentences' raised recall@10 on LoCoMo
26 from 0.464 to 0.589 and on 30 from 0.467 to 0.605 (DESIGN-NOTES.md).

A piece is a sentence merged with the next until it has `MIN_WORDS` words; a turn of
one piece has none (its own vector is that piece). Pieces are keyed `p:{episode}:{n}`
in the turns' vector index, so an archived turn (`a:{episode}`, the same id) keeps
its pieces, and an erasure that drops `e:` or `a:` of an episode drops its pieces too
(`owned_by`).

They are derived data and optional. Embedding a turn's pieces is one more forward
pass per piece, and the turn's path has no room for it (observe + recall p95 at 10k
episodes is held to 35 ms), so `refresh` embeds them off that path, in the nightly
compaction (`aniso reindex` embeds them with everything else). Until then a turn is
found by its own vector, as before. A piece is never expected by the doctor; one
whose turn is gone is stale.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterable

import sqlite_utils

from aniso.core.errors import StoreError
from aniso.tiers import archive
from aniso.tiers.index.dense import DenseMemory

log = logging.getLogger(__name__)

MIN_WORDS = 6
"""Words a piece needs: a shorter sentence ("Wow!", "Thanks, Mel!") joins the next.
Search by meaning alone, R@10 on 26 / 30 / synthetic_en: three words 0.563 / 0.589 /
0.566, six 0.589 / 0.605 / 0.599, ten 0.589 / 0.621 / 0.611 (fewer vectors at six)."""
MAX_PIECES = 8
"""A turn longer than this many pieces has its tail merged into the last."""
BATCH = 64
PER_RUN = 2_000
"""The most pieces one refresh embeds, newest turns first. MiniLM embedded LoCoMo 30's
663 pieces (of 369 turns) at 71 a second on two busy cores, so a night costs half a
minute at most: a missed night is caught up when the CLI or the TUI starts, and a
day's chat makes a few hundred pieces. A store older than its pieces catches up over
some nights, or at once with `aniso reindex`."""
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_LABEL = re.compile(r"^[^\s:]+(?: [^\s:]+){0,2}: ")
"""A speaker's label opening an imported turn ("Caroline: …"): kept on every piece, as
the turn's own vector has it, so a piece still says who spoke."""


def split(text: str) -> list[str]:
    """The pieces of a turn; empty when it is one piece."""
    label = _LABEL.match(text)
    head = label.group(0) if label else ""
    body = text[len(head) :]
    merged: list[str] = []
    buffer = ""
    for sentence in _SENTENCE_END.split(body):
        if not sentence.strip():
            continue
        buffer = f"{buffer} {sentence.strip()}".strip()
        if len(buffer.split()) >= MIN_WORDS:
            merged.append(buffer)
            buffer = ""
    if buffer and merged:
        merged[-1] = f"{merged[-1]} {buffer}"
    if len(merged) > MAX_PIECES:
        merged = [*merged[: MAX_PIECES - 1], " ".join(merged[MAX_PIECES - 1 :])]
    return [head + piece for piece in merged] if len(merged) > 1 else []


def of_turn(text: str, reads: Callable[[str], bool]) -> list[str]:
    """The pieces a turn gets: `split`, if the embedder reads the text (`reads`,
    `DenseMemory.reads`: an English-only model's vectors of a Cyrillic sentence are weak
    evidence, and recall leans on stems there anyway)."""
    return split(text) if reads(text) else []


def key(episode_id: int, number: int) -> str:
    return f"p:{episode_id}:{number}"


def is_piece(index_key: str) -> bool:
    return index_key.startswith("p:")


def episode_of(index_key: str) -> int:
    """The episode id a piece key belongs to."""
    return int(index_key.split(":")[1])


def owned_by(keys: Iterable[str], episode_ids: Collection[int]) -> list[str]:
    """The piece keys among `keys` of these episodes."""
    wanted = set(episode_ids)
    return sorted(k for k in keys if is_piece(k) and episode_of(k) in wanted)


def episodes_of(keys: Iterable[str]) -> set[int]:
    """The episode ids that `e:` and `a:` keys name: an erasure's pieces go with them."""
    return {int(k[2:]) for k in keys if k.startswith(("e:", "a:"))}


def wanted(db: sqlite_utils.Database, reads: Callable[[str], bool]) -> dict[str, str]:
    """Every piece SQLite's turns call for, live or archived, by key (`of_turn`)."""
    found: dict[str, str] = {}
    turns = [(r[0], r[1]) for r in db.execute("SELECT id, user_text FROM episodes")]
    turns += [(i, text) for i, text, _ in archive.packed_turns(db)]
    for episode_id, text in turns:
        for number, piece in enumerate(of_turn(text, reads)):
            found[key(episode_id, number)] = piece
    return found


def refresh(
    db: sqlite_utils.Database, dense: DenseMemory, *, most: int = PER_RUN
) -> tuple[int, int]:
    """Bring the index's pieces in line with SQLite: embed the missing (`most` at a
    time, the newest turns first) and delete the stale. Returns (embedded, deleted);
    (0, 0) when the index is unavailable. The
    caller holds the writer lock (an erasure must not run between our reads and our
    writes), as the nightly compaction does.

    A piece is known by its key alone: ids are never reused, and a turn's text never
    changes, so a present key holds its piece. A change to `split` must rebuild them
    all (`aniso reindex`)."""
    try:
        have = {k for k in dense.index.ids() if is_piece(k)}
    except StoreError as error:
        log.warning("pieces not refreshed, the vector index is unavailable: %s", error)
        return 0, 0
    expected = wanted(db, dense.reads)
    stale = sorted(have - set(expected))
    missing = sorted(set(expected) - have, key=lambda k: (-episode_of(k), k))[:most]
    try:
        if stale:
            dense.index.delete(stale)
        for start in range(0, len(missing), BATCH):
            batch = missing[start : start + BATCH]
            vectors = dense.embed([expected[k] for k in batch])
            dense.index.upsert(batch, vectors, [{"kind": "p"} for _ in batch])
    except StoreError as error:
        log.warning("pieces left for the next refresh: %s", error)
    return len(missing), len(stale)
