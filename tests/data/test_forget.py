"""`aniso forget`: erasure proven at the byte level, in every store under the data dir."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from helpers import run_cli
from memory_builder import COLD, HOT, KEEP, MARKERS, PROFILE, WARM, populate

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.logs import log_to_data_dir
from aniso.services import Services, build


@pytest.fixture
def services(llm, clock: SimulatedClock, data_dir: Path) -> Services:  # type: ignore[no-untyped-def]
    return build(load_settings({"model": "fake/x"}), clock=clock)


def files_with(data_dir: Path, needle: bytes) -> list[str]:
    """Every file under the data dir whose raw bytes hold `needle` (case-insensitive)."""
    return [
        str(path.relative_to(data_dir))
        for path in sorted(data_dir.rglob("*"))
        if path.is_file() and needle.lower() in path.read_bytes().lower()
    ]


def signatures(services: Services, texts: list[str]) -> list[bytes]:
    """The first bytes of each text's vector, embedded alone as the chat embedded it:
    in a batch, a text is padded to the longest one, and on some CPUs the padded sum
    rounds differently in its last bits."""
    memory = services.controller.memory
    vectors = [np.asarray(memory.dense.embed([text])[0], dtype="<f4") for text in texts]
    return [row.tobytes()[:64] for row in vectors]


def files_with_any(data_dir: Path, needles: list[bytes]) -> list[str]:
    return [
        str(p.relative_to(data_dir))
        for p in sorted(data_dir.rglob("*"))
        if p.is_file() and any(n in p.read_bytes() for n in needles)
    ]


def recall(query: str, now: SimulatedClock | None = None) -> list[dict]:
    """`memory recall` in a child; with `now`, at the store's simulated time, so no
    nights are caught up on first and the kept memory is still hot."""
    at = ["--now", now().isoformat()] if now is not None else []
    result = run_cli(*at, "memory", "recall", query, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["items"]


@pytest.mark.erasure
def test_forgotten_strings_leave_no_byte_in_the_data_dir(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    blocks = populate(services, clock)
    tiers = dict(services.db.execute("SELECT id, tier FROM blocks").fetchall())
    assert [tiers[blocks[t]] for t in ("hot", "warm", "cold")] == ["hot", "warm", "cold"]
    archived = services.db.execute("SELECT count(*) FROM archive").fetchone()[0]
    assert archived >= len(COLD)
    log_to_data_dir(data_dir)
    logging.getLogger("aniso.test").warning("could not parse %r", COLD[2])
    planted = [COLD[0], COLD[2], WARM[0], HOT[0], PROFILE]
    vectors = signatures(services, planted)
    services.controller.memory.dense.flush(services.controller.memory.texts_for)
    for name, marker in MARKERS.items():
        assert files_with(data_dir, marker), f"{name} marker was not planted"
    assert files_with(data_dir, b"zqxarch") and files_with(data_dir, b"zqxprof")
    assert files_with_any(data_dir, vectors), "the vectors were not planted"
    services.controller.memory.dense.index.close()  # the app has exited: it owned the index
    services.db.conn.close()

    preview = run_cli("forget", "--search", "zqx", "--json")
    assert preview.returncode == 0, preview.stderr
    kinds = {(m["kind"], m["tier"]) for m in json.loads(preview.stdout)["matches"]}
    assert {("episode", "hot"), ("archived", "cold"), ("profile", None)} <= kinds
    assert files_with(data_dir, b"zqx"), "a preview must not erase anything"

    result = run_cli("forget", "--search", "zqx", "--yes", "--profile", "--json")
    assert result.returncode == 0, result.stderr
    receipt = json.loads(result.stdout)
    assert receipt["profile_removed"] == 1
    assert blocks["profile"] in receipt["blocks_removed"]
    assert {blocks["hot"], blocks["warm"], blocks["cold"]} <= set(receipt["blocks_recomputed"])
    assert receipt["vectors"]["verified"] and receipt["sqlite"]["wal_truncated"]
    assert receipt["logs"]["lines_removed"] == 1

    assert files_with(data_dir, b"zqx") == []
    assert files_with_any(data_dir, vectors) == []
    for marker in ("Zqxhotmark", "Zqxwarmmark", "Zqxcoldmark", "Zqxarchmark", "Zqxprofmark"):
        assert recall(marker, clock) == []
    kept = recall("jasmine green tea", clock)
    assert kept and kept[0]["text"].startswith(KEEP)

    db = sqlite3.connect(data_dir / "aniso.db")
    tiers_after = dict(db.execute("SELECT id, tier FROM blocks").fetchall())
    assert [tiers_after[blocks[t]] for t in ("hot", "warm", "cold")] == ["hot", "warm", "cold"]
    gist = db.execute("SELECT summary FROM blocks WHERE id = ?", [blocks["cold"]]).fetchone()[0]
    assert gist.startswith("That was about") and "Baker Street" in gist
    (audit,) = db.execute("SELECT detail FROM audit WHERE kind = 'forget'").fetchone()
    assert json.loads(audit)["mode"] == "search"
    # The planted value is gone, and no value outlives the episode it was learned from;
    # what the kept message taught (a favourite tea) stays: nobody asked to forget it.
    left = db.execute("SELECT value, source_episode FROM profile_values").fetchall()
    assert not any("zqx" in value.lower() for value, _ in left)
    episodes = {row[0] for row in db.execute("SELECT id FROM episodes")}
    assert {source for _, source in left} <= episodes


def digest(data_dir: Path) -> str:
    db = sqlite3.connect(data_dir / "aniso.db")
    text = "\n".join(db.iterdump())
    db.close()
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.erasure
def test_block_and_date_modes_and_kept_profile(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    blocks = populate(services, clock)
    busy = run_cli("forget", "--block", str(blocks["profile"]), "--json")
    assert busy.returncode == 1, "the app still owns the vector index: nothing is verified"
    assert busy.stderr.count(b"\n") == 1 and b"another Aniso process" in busy.stderr
    assert b"aniso reindex" in busy.stderr and json.loads(busy.stdout)["verified"] is False
    services.controller.memory.dense.close()  # the app has exited
    services.db.conn.close()
    again = run_cli("forget", "--block", str(blocks["profile"]), "--json")
    assert again.returncode == 1 and b"no block" in again.stderr, "the first run erased it"
    reindexed = run_cli("reindex")
    assert reindexed.returncode == 0, reindexed.stderr
    assert run_cli("doctor").returncode == 0, "the index holds what SQLite expects"
    before = digest(data_dir)
    missing = run_cli("forget", "--block", "9999")
    assert missing.returncode == 1 and b"no block 9999" in missing.stderr
    assert digest(data_dir) == before

    receipt = json.loads(busy.stdout)
    assert receipt["blocks_removed"] == [blocks["profile"]]
    assert [row["field"] for row in receipt["profile_kept"]] == ["likes"]
    assert files_with(data_dir, b"zqxprof") == ["aniso.db"]  # only the kept profile value

    dated = run_cli("forget", "--after", "2026-01-01", "--before", "2026-03-01", "--json")
    assert dated.returncode == 0, dated.stderr
    assert json.loads(dated.stdout)["blocks_removed"] == [blocks["cold"]]
    assert files_with(data_dir, b"bicycle") == []
    assert files_with(data_dir, b"zqxwarm") and files_with(data_dir, b"zqxhot")

    wrong = run_cli("forget", "--before", "yesterday")
    assert wrong.returncode == 1 and b"--before 'yesterday' is not a date" in wrong.stderr


@pytest.mark.erasure
def test_forget_all_needs_yes_and_empties_every_store(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    populate(services, clock)
    services.controller.memory.dense.close()  # the app has exited: it owned the index
    services.db.conn.close()
    before = digest(data_dir)
    preview = run_cli("forget", "--all")
    assert preview.returncode == 0 and b"run again with --yes" in preview.stdout
    assert digest(data_dir) == before

    result = run_cli("forget", "--all", "--yes", "--profile", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["verified"] is True
    for word in (b"zqx", b"bicycle", b"porto", b"sourdough", b"jasmine"):
        assert files_with(data_dir, word) == [], word
    db = sqlite3.connect(data_dir / "aniso.db")
    for table in ("episodes", "blocks", "archive", "links", "block_terms", "profile_values"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
    assert recall("bicycle") == []


@pytest.mark.erasure
def test_a_receipt_never_says_verified_while_a_file_still_holds_the_text(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    populate(services, clock)
    services.controller.memory.dense.close()
    services.db.conn.close()
    (data_dir / "notes.txt").write_text(f"copied by hand: {HOT[0]}\n", encoding="utf-8")
    result = run_cli("forget", "--search", "sourdough", "--yes", "--json")
    assert result.returncode == 1
    assert result.stderr.count(b"\n") == 1 and b"notes.txt" in result.stderr
    receipt = json.loads(result.stdout)
    assert receipt["verified"] is False
    assert receipt["residue"]["files_holding_text"] == ["notes.txt"]
    assert receipt["vectors"]["verified"] is True, "the vectors themselves are gone"
    (data_dir / "notes.txt").unlink()
    assert files_with(data_dir, b"sourdough") == []


@pytest.mark.erasure
def test_text_told_through_ask_is_gone_byte_for_byte_after_forget(data_dir: Path) -> None:
    """The user's path: chat with `aniso ask`, then `aniso forget --search … --yes`."""
    planted = [
        "My neighbour Qzvmarker Ostrova keeps bees behind the old mill",
        "Remind me that Qzvmarker honey goes to my sister on Friday",
        "I like quiet mornings with strong coffee",
    ]
    for text in planted:
        asked = run_cli("--model", "fake/x", "ask", text, fake_reply="Noted.")
        assert asked.returncode == 0, asked.stderr
    assert files_with(data_dir, b"qzvmarker")
    result = run_cli("forget", "--search", "qzvmarker", "--yes", "--json")
    assert result.returncode == 0, result.stderr
    receipt = json.loads(result.stdout)
    assert receipt["verified"] is True and receipt["vectors"]["verified"] is True
    assert receipt["residue"]["texts_looked_for"] >= 2
    assert files_with(data_dir, b"qzvmarker") == []
    assert files_with(data_dir, b"keeps bees behind") == []
    assert files_with(data_dir, b"strong coffee"), "what was not forgotten stays"
