"""Store faults: the vector index down or corrupt, the SQLite file damaged.

SQLite is the source of truth; the vector index is derived. While the index is
unreachable every message is still stored, recall is lexical with a visible
warning, and the missed index writes wait in the outbox until it is back.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from chroma_server import free_port, running_chroma
from fakes import ScriptedLLM
from helpers import RUNNER, one_line_error, run_cli

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers.doctor import check

FERRY = [
    "The ferry to Tróia leaves Setúbal at 9:10 on weekdays",
    "I keep my bike on the ferry deck, it costs two euros extra",
    "Last time the ferry was late because of fog over the Sado river",
    "My friend Inês meets me at the Tróia pier with her car",
    "The return ferry on Sundays is always crowded after 18:00",
]
LEXICAL_ONLY = "recall is lexical only"


def make(clock: SimulatedClock, **overrides: object) -> Services:
    return build(load_settings({"model": "fake/scripted", **overrides}), clock=clock)


def outbox(services: Services) -> list[str]:
    return [row[0] for row in services.db.execute("SELECT ref FROM outbox ORDER BY id")]


def episode_keys(services: Services) -> set[str]:
    return {f"e:{row[0]}" for row in services.db.execute("SELECT id FROM episodes")}


@pytest.mark.allow_hosts(["127.0.0.1"])
def test_vector_server_down_then_back_replays_the_outbox(
    llm: ScriptedLLM, clock: SimulatedClock, tmp_path: Path
) -> None:
    port = free_port()  # nobody listens here until the server starts below
    url = f"http://127.0.0.1:{port}"
    services = make(clock, chroma_url=url)
    for text in FERRY:
        reply = services.assistant.send(text)
        assert reply.error is None and reply.text == llm.default
        warnings = [n for n in reply.notices if LEXICAL_ONLY in n]
        assert len(warnings) == 1 and "\n" not in warnings[0] and url in warnings[0]
    assert [row[0] for row in services.db.execute("SELECT user_text FROM episodes")] == FERRY
    assert outbox(services) == [f"e:{n}" for n in range(1, len(FERRY) + 1)]

    result = services.controller.memory.recall("ferry fog Sado", now=clock())
    assert result.items and "fog over the Sado" in result.items[0].text  # lexical still finds it
    assert result.warnings and LEXICAL_ONLY in result.warnings[0]

    # The CLI says it in one line on stderr, and still answers.
    cli = run_cli(
        "--model",
        "fake/x",
        "--now",
        clock().isoformat(),
        "ask",
        "when does the ferry leave?",
        fake_reply="At 9:10.",
        env={"ANISO_CHROMA_URL": url},
    )  # fmt: skip  (--now: at the store's own time, no nights to catch up on and digest)
    assert cli.returncode == 0 and cli.stdout.decode().strip() == "At 9:10."
    assert LEXICAL_ONLY in one_line_error(cli)
    assert len(outbox(services)) == len(FERRY) + 1

    with running_chroma(tmp_path / "chroma-server", port=port):
        back = make(clock, chroma_url=url)
        result = back.controller.memory.recall("ferry fog Sado", now=clock())
        assert result.warnings == []
        assert outbox(back) == []
        assert back.controller.memory.dense.index.ids() == episode_keys(back)
        assert len(episode_keys(back)) == len(FERRY) + 1
        assert check(back.db, back.controller.memory.dense) == []
        doctor = run_cli("doctor", "--json", env={"ANISO_CHROMA_URL": url})
        assert (doctor.returncode, json.loads(doctor.stdout)) == (0, {"ok": True, "problems": []})


def test_a_corrupt_embedded_index_is_rebuilt_with_a_visible_warning(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = make(clock)
    for text in FERRY[:3]:
        services.assistant.send(text)
    services.controller.memory.dense.index.close()
    (data_dir / "chroma" / "chroma.sqlite3").write_bytes(b"\x00garbage" * 500)

    clock.advance(timedelta(hours=3))  # a new session: the old turns are memories now
    again = make(clock)
    reply = again.assistant.send("is the ferry late when there is fog?")
    assert reply.error is None
    rebuilt = [n for n in reply.notices if "unreadable" in n]
    assert len(rebuilt) == 1 and "rebuilding it from memory" in rebuilt[0]
    assert "fog over the Sado" in " ".join(item.text for item in reply.recalled)
    assert again.controller.memory.dense.index.ids() == episode_keys(again)
    assert outbox(again) == []
    assert check(again.db, again.controller.memory.dense) == []
    # Shown once: the next turn has nothing new to say about the index.
    assert not [n for n in again.assistant.send("thanks").notices if "unreadable" in n]


def fill(clock: SimulatedClock, llm: ScriptedLLM) -> Path:
    services = make(clock)
    for n in range(40):
        services.controller.observe(f"note {n} about the garden and tomatoes " + "filler " * 80)
    services.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    services.db.conn.close()
    return services.settings.db_path


def test_doctor_reports_a_damaged_page_in_one_line(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    path = fill(clock, llm)
    damaged = bytearray(path.read_bytes())
    page = 4096
    start = (len(damaged) // page - 10) * page  # a leaf page in the middle of the data
    damaged[start : start + 64] = b"\xff" * 64
    path.write_bytes(bytes(damaged))

    result = run_cli("doctor")
    assert result.returncode == 1 and result.stderr == b""
    lines = result.stdout.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("problem: SQLite")
    assert "aniso backup" in lines[0] and "Traceback" not in lines[0]
    assert path.read_bytes() == bytes(damaged)  # the checker changed nothing


def test_doctor_on_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    junk = b"this is not a database at all\n" * 200
    (elsewhere / "aniso.db").write_bytes(junk)
    result = run_cli("doctor", "--data-dir", str(elsewhere))
    assert result.returncode == 1 and result.stdout == b""
    line = one_line_error(result)
    assert line.startswith(f"aniso: error: cannot open database {elsewhere / 'aniso.db'}")
    assert "file is not a database" in line and "aniso backup" in line
    assert (elsewhere / "aniso.db").read_bytes() == junk


def test_doctor_on_a_healthy_store_is_clean(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    services.assistant.send(FERRY[0])
    services.controller.memory.dense.index.close()  # the app has exited: it owned the index
    result = run_cli("doctor")
    assert result.returncode == 0
    assert (
        result.stdout.decode().strip() == "ok: SQLite integrity, tiers, archive and indexes agree"
    )
    with sqlite3.connect(load_settings().db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def read_only(folder: Path, *command: str) -> list[str]:
    """`command` in a private mount namespace where `folder` is a read-only bind mount:
    a read-only volume, which even root cannot write (chmod cannot deny root)."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return ["unshare", "--mount", "sh", "-c", script, "sh", str(folder), *command]


def test_a_read_only_embedded_index_keeps_every_message_and_replays_later(
    data_dir: Path,
) -> None:
    """A vector folder that cannot be written is not mistaken for a broken one: it is
    neither set aside nor rebuilt, the message is stored, recall says it is lexical, and
    the missed index write is replayed once the folder is writable again."""
    for text in FERRY[:3]:
        assert run_cli("--model", "fake/x", "ask", text, fake_reply="Noted.").returncode == 0
    folder = data_dir / "chroma"
    before = sorted(p.name for p in folder.iterdir())

    runner = [sys.executable, str(RUNNER), "--fake-llm", "At 9:10.", "--"]
    locked = subprocess.run(
        read_only(folder, *runner, "--model", "fake/x", "ask", "is the ferry late in fog?"),
        input=b"", capture_output=True, timeout=600,
    )  # fmt: skip
    assert locked.returncode == 0, locked.stderr.decode()
    assert locked.stdout.decode().strip() == "At 9:10."
    warning = one_line_error(locked)
    assert LEXICAL_ONLY in warning and str(folder) in warning
    assert sorted(p.name for p in folder.iterdir()) == before
    assert not folder.with_name("chroma.broken").exists()
    db = sqlite3.connect(data_dir / "aniso.db")
    texts = [row[0] for row in db.execute("SELECT user_text FROM episodes ORDER BY id")]
    assert texts == [*FERRY[:3], "is the ferry late in fog?"]
    assert [row[0] for row in db.execute("SELECT ref FROM outbox")] == ["e:4"]

    again = run_cli("--model", "fake/x", "ask", "thanks", fake_reply="You're welcome.")
    assert again.returncode == 0 and again.stderr.decode().strip() == ""
    assert [row[0] for row in db.execute("SELECT ref FROM outbox")] == []
    doctor = run_cli("doctor", "--json")
    assert (doctor.returncode, json.loads(doctor.stdout)) == (0, {"ok": True, "problems": []})
    db.close()
