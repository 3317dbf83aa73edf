"""Blocks linked to an open problem: the strongest links of each open block, both ways."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from aniso.core.db import open_db
from aniso.tiers import blocks, links

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_each_open_block_holds_its_strongest_links_in_either_direction(data_dir: Path) -> None:
    db = open_db(data_dir)
    ids = [blocks.create(db, at=AT) for _ in range(12)]
    first, second = ids[4], ids[9]
    db.execute("UPDATE blocks SET open = 1 WHERE id IN (?, ?)", [first, second])
    # The first open block: seven links, one too weak; a tie at 1.0 is broken by id,
    # so of the four at 1.0 the one with the highest id is left out.
    for other, weight in zip(ids[:4] + ids[5:8], [1.0, 3.0, 2.0, 1.0, 1.0, 0.5, 1.0], strict=True):
        links.add(db, first, other, weight=weight, reason="terms", at=AT)
    # The second: one link, to a block that is also in the candidates.
    links.add(db, second, ids[10], weight=1.5, reason="terms", at=AT)
    found = links.linked_to_open(db, ids)
    assert found == {ids[1], ids[2], ids[0], ids[3], ids[5], ids[10]}
    assert ids[7] not in found and ids[6] not in found
    # The open blocks themselves are never in the answer, and only the asked ones are.
    assert links.linked_to_open(db, [first, ids[10]]) == {ids[10]}
    db.execute("UPDATE blocks SET status = 'archived' WHERE id = ?", [second])
    assert links.linked_to_open(db, [ids[10]]) == set()
