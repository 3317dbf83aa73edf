"""Export, import and forget run safely while another process chats and compacts."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import TESTS, run_cli
from memory_builder import populate

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build
from aniso.tiers import archive

BACKGROUND = textwrap.dedent(
    """
    import sys
    from datetime import timedelta
    sys.path.insert(0, sys.argv[1])
    from fakes import ScriptedLLM, install
    install(ScriptedLLM(default="ok"))
    from aniso.core.clock import SimulatedClock, parse_instant
    from aniso.services import build
    from aniso.core.settings import load_settings
    from aniso.tiers.compaction import Compactor
    clock = SimulatedClock(parse_instant(sys.argv[2]))
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    compactor = services.compactor()
    for i in range(6):
        services.assistant.send(f"Background note {i}: the tomatoes in my garden need water")
        clock.advance(timedelta(days=3))
        compactor.run(clock())
    print("done")
    """
)


def test_forget_export_import_beside_a_chatting_compacting_process(
    llm, clock: SimulatedClock, data_dir: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    populate(services, clock)
    services.controller.memory.dense.close()
    services.db.conn.close()
    background = subprocess.Popen(
        [sys.executable, "-c", BACKGROUND, str(TESTS), clock().isoformat()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out = tmp_path / "export.json"
    results = [
        run_cli("forget", "--search", "bicycle", "--yes", "--json"),
        run_cli("export", "--out", str(out), "--json"),
        run_cli("import", str(out), "--merge", "--json"),
    ]
    stdout, stderr = background.communicate(timeout=900)
    assert background.returncode == 0 and stdout.strip() == b"done", stderr.decode()[-2000:]
    for result in results[1:]:
        assert result.returncode == 0, result.stderr
    # The chatting process owns the vector index, so the erasure cannot rebuild it: the
    # rows are gone, and the receipt says it is not verified, with how to finish.
    erased = results[0]
    receipt = json.loads(erased.stdout)
    assert receipt["episodes"] + receipt["archived"] == 3
    if erased.returncode != 0:
        assert receipt["verified"] is False and erased.stderr.count(b"\n") == 1
        assert b"aniso reindex" in erased.stderr
        assert run_cli("reindex").returncode == 0
    else:  # the chatting process had not opened the index yet
        assert receipt["verified"] is True

    db = sqlite3.connect(data_dir / "aniso.db")
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    live = [r[0] for r in db.execute("SELECT user_text FROM episodes")]
    held = live + [
        archive.unpack(r[0])["user_text"] for r in db.execute("SELECT payload FROM archive")
    ]
    notes = {text for text in held if text.startswith("Background note")}
    assert len(notes) == 6, "a message written during the erasure was lost"
    assert not any("bicycle" in text.lower() for text in held)
    assert all(
        "bicycle" not in (r[0] or "").lower() for r in db.execute("SELECT summary FROM blocks")
    )
