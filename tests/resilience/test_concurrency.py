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
from datetime import timedelta
from pathlib import Path

from conftest import DAY0
from helpers import TESTS
from resilience.load_helpers import stored_markers

MESSAGES = int(os.environ.get("ANISO_STRESS_MESSAGES", "2000"))
DRIVER = Path(__file__).with_name("load_helpers.py")


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
