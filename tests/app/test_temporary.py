"""A temporary chat neither reads nor writes memory: proven on the bytes of the data dir."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from fakes import ScriptedLLM
from helpers import run_cli
from memory_builder import populate

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import build

SECRET = "Qzvtempword"


def dump(data_dir: Path) -> str:
    db = sqlite3.connect(data_dir / "aniso.db")
    text = "\n".join(db.iterdump())
    db.close()
    return hashlib.sha256(text.encode()).hexdigest()


def holding(data_dir: Path, needle: bytes) -> list[Path]:
    return [p for p in data_dir.rglob("*") if p.is_file() and needle in p.read_bytes().lower()]


def test_temporary_chat_neither_reads_nor_writes_memory(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    populate(services, clock)
    services.controller.memory.dense.flush(services.controller.memory.texts_for)
    services.db.conn.close()
    before = dump(data_dir)

    temporary = build(load_settings({"model": "fake/x"}), clock=clock, temporary=True)
    for text in (
        f"Tell me more about my sourdough starter and my bicycle, {SECRET}",
        f"I love {SECRET} and my passport is 4509 123456",
    ):
        reply = temporary.assistant.send(text)
        assert reply.recalled == []
        prompt = " ".join(m["content"] for m in llm.last_messages).lower()
        for planted in ("zqx", "sourdough starter smells", "bicycle is green", "jasmine"):
            assert planted not in prompt.replace(SECRET.lower(), ""), planted
    assert len(llm.calls) > 0
    temporary.db.conn.close()

    assert dump(data_dir) == before
    assert holding(data_dir, SECRET.lower().encode()) == []
    assert holding(data_dir, b"4509 123456") == []


def test_temporary_cli_ask_leaves_no_trace(data_dir: Path) -> None:
    first = run_cli("ask", "Remember that my cat is called Murka", fake_reply="ok")
    assert first.returncode == 0, first.stderr
    before = dump(data_dir)
    ask = run_cli("ask", "--temporary", "--json", f"{SECRET} again", fake_reply="ok")
    assert ask.returncode == 0, ask.stderr
    assert b'"recalled": []' in ask.stdout
    assert dump(data_dir) == before
    assert holding(data_dir, SECRET.lower().encode()) == []
