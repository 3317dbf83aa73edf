"""Two chatting processes and repeated compactions share one data dir at once.

Each writer sends 2,000 messages with a unique marker through its own `Assistant`
(scripted LLM); meanwhile a third process runs `aniso compact` again and again with
`--now` two months ahead, so blocks really move and episodes are archived while the
writers append to them. At the end every marker is stored exactly once (live or
archived), no turn failed, and `aniso doctor` is clean.

`ANISO_STRESS_MESSAGES` lowers the count for a quick local run; CI runs the default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from conftest import DAY0
from helpers import TESTS
from resilience.load_helpers import stored_markers

from aniso.tiers.doctor import check

MESSAGES = int(os.environ.get("ANISO_STRESS_MESSAGES", "2000"))
DRIVER = Path(__file__).with_name("load_helpers.py")
COMPACTION_PAUSE_S = 8.0


def _wait_for_any(processes: list[subprocess.Popen[bytes]], seconds: float) -> None:
    """Sleep up to `seconds`, waking early once every process has ended."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(p.poll() is None for p in processes):
        time.sleep(0.2)


def _writer(prefix: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            str(DRIVER),
            str(TESTS),
            "--prefix",
            prefix,
            "--count",
            str(MESSAGES),
            "--start",
            DAY0.isoformat(),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, str(DRIVER.with_name("cheap_cli.py")), str(TESTS), *args]
    return subprocess.run(command, capture_output=True, timeout=900)


def test_two_writers_and_compactions_store_every_message_once(data_dir: Path) -> None:
    writers = [_writer("Alpha"), _writer("Beta")]
    ahead = (DAY0 + timedelta(days=60)).isoformat()
    compactions = []
    while any(w.poll() is None for w in writers):
        result = _cli("--now", ahead, "compact", "--json")
        assert result.returncode == 0, result.stderr.decode()[-2000:]
        compactions.append(json.loads(result.stdout))
        # A pause between runs: back-to-back CLI starts took a core from the writers,
        # and the test ran 390 s instead of 195 s (same load) with no more to check.
        _wait_for_any(writers, COMPACTION_PAUSE_S)
    summaries = []
    for writer in writers:
        stdout, stderr = writer.communicate(timeout=900)
        assert writer.returncode == 0, stderr.decode()[-3000:]
        summaries.append(json.loads(stdout.decode().strip().splitlines()[-1]))
    final = _cli("--now", ahead, "compact", "--json")
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    compactions.append(json.loads(final.stdout))

    assert [s["error_count"] for s in summaries] == [0, 0], summaries
    held = stored_markers(data_dir / "aniso.db")
    expected = {f"{p}-{i}" for p in ("Alpha", "Beta") for i in range(MESSAGES)}
    assert set(held) == expected, sorted(expected ^ set(held))[:10]
    twice = {m: e for m, e in held.items() if e["current"] != 1 or len(e["roots"]) != 1}
    assert twice == {}
    moved = sum(len(c["moved"]) + len(c["compressed"]) for c in compactions)
    archived = sum(c["archived_episodes"] for c in compactions)
    assert moved > 0 and archived > 0, "the compactions never moved a block"

    doctor = _cli("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout.decode() + doctor.stderr.decode()
    assert json.loads(doctor.stdout) == {"ok": True, "problems": []}


def test_a_block_restored_by_another_process_meanwhile_is_not_restored_twice(
    llm, clock, data_dir: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Two chats recall the same cold block; the other one restores it between our
    recall and our restore. Ours must see that and do nothing: no second copy of each
    episode, no empty hot block for the compactor to trip on."""
    from aniso.core.db import transaction
    from aniso.core.settings import load_settings
    from aniso.services import build
    from aniso.tiers import unpack

    ours = build(load_settings({"model": "fake/x"}), clock=clock)
    for text in ("My allotment has tomatoes by the fence", "The allotment shed needs paint"):
        ours.assistant.send(text)
    compactor = ours.compactor()
    clock.advance(timedelta(days=120))
    compactor.run(clock())
    (cold,) = [row[0] for row in ours.db.execute("SELECT id FROM blocks WHERE tier = 'cold'")]
    theirs = build(load_settings({"model": "fake/x"}), clock=clock)

    def other_process_first(db):  # type: ignore[no-untyped-def]
        monkeypatch.setattr(unpack, "transaction", transaction)
        assert unpack.deep(theirs.controller.memory, cold, now=clock()) is not None
        return transaction(db)

    monkeypatch.setattr(unpack, "transaction", other_process_first)
    assert unpack.deep(ours.controller.memory, cold, now=clock()) is None
    texts = [row[0] for row in ours.db.execute("SELECT user_text FROM episodes")]
    assert sorted(texts) == sorted(
        ["My allotment has tomatoes by the fence", "The allotment shed needs paint"]
    )
    empty = ours.db.execute(
        "SELECT count(*) FROM blocks b WHERE status = 'active' AND NOT EXISTS "
        "(SELECT 1 FROM episodes e WHERE e.block_id = b.id)"
    ).fetchone()[0]
    assert empty == 0
    clock.advance(timedelta(days=60))
    compactor.run(clock())


def test_a_late_summary_upsert_does_not_bring_back_a_restored_block(llm, clock, data_dir: Path):  # type: ignore[no-untyped-def]
    """Another process queued the warm summary's vector and could not push it (it did
    not own the index); then this one restored the block. Replaying both must leave
    no vector for the restored block."""
    from aniso.core.settings import load_settings
    from aniso.services import build
    from aniso.tiers import unpack
    from aniso.tiers.index.dense import block_key

    services = build(load_settings({"model": "fake/x"}), clock=clock)
    for text in ("My allotment has tomatoes by the fence", "The allotment shed needs paint"):
        services.assistant.send(text)
    memory = services.controller.memory
    clock.advance(timedelta(days=30))
    services.compactor().run(clock())
    (warm,) = [row[0] for row in services.db.execute("SELECT id FROM blocks WHERE tier = 'warm'")]
    assert block_key(warm) in memory.dense.index.ids()
    memory.dense.enqueue("upsert", block_key(warm), at=clock())  # the other process's write
    assert unpack.deep(memory, warm, now=clock()) is not None
    assert block_key(warm) not in memory.dense.index.ids()
    assert check(services.db, memory.dense) == []
