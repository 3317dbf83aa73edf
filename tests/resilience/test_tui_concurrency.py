"""The TUI, a second CLI process and compactions share one data dir at once.

The app chats through Textual's Pilot while a thread runs real `aniso ask`
processes and `aniso compact` two months ahead, alternately, against the same data
dir. Every message, from either side, ends up stored exactly once, no turn fails, the
app shows every reply, and `aniso doctor` is clean.
"""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DAY0
from fakes import ScriptedLLM
from helpers import run_cli
from resilience.load_helpers import stored_markers
from tui_helpers import SIZE, make_app, say, transcript

from aniso.core.clock import SimulatedClock

pytestmark = pytest.mark.anyio
CLI_ROUNDS = 3
TOPICS = ("a pottery class", "the bike repair", "tax forms", "a birthday cake", "sourdough")


Result = tuple[str, int, bytes, bytes]  # kind, exit code, stdout, stderr


def _cli_side(results: list[Result], stop: threading.Event) -> None:
    """Alternate `aniso ask` and `aniso compact --now +60d` in fresh processes."""
    ahead = (DAY0 + timedelta(days=60)).isoformat()
    try:
        for index in range(CLI_ROUNDS):
            asked = run_cli(
                "ask", f"Cli-{index}-mark: remind me about {TOPICS[index % len(TOPICS)]}",
                fake_reply="Noted.",
            )  # fmt: skip
            results.append(("ask", asked.returncode, asked.stdout, asked.stderr))
            compacted = run_cli("--now", ahead, "compact", "--json", fake_reply="Noted.")
            results.append(("compact", compacted.returncode, compacted.stdout, compacted.stderr))
    finally:
        stop.set()


async def test_tui_chat_beside_cli_writes_and_compactions(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    llm.default = "Noted."
    results: list[Result] = []
    done = threading.Event()
    app = make_app(clock)
    sent = 0
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "Tui-0-mark: hello")  # the app owns its stores before the CLI starts
        sent = 1
        other = threading.Thread(target=_cli_side, args=(results, done), daemon=True)
        other.start()
        while not done.is_set() and sent < 200:
            await say(pilot, f"Tui-{sent}-mark: a note on {TOPICS[sent % len(TOPICS)]}")
            clock.advance(timedelta(minutes=3))
            sent += 1
        other.join(timeout=600)
        replies = [text for role, text in transcript(app) if role == "assistant"]
    assert not other.is_alive()
    assert [(kind, code) for kind, code, _, _ in results] == [
        (kind, 0) for _ in range(CLI_ROUNDS) for kind in ("ask", "compact")
    ], [err.decode()[-800:] for _, code, _, err in results if code]
    assert sent > CLI_ROUNDS, "the app should have chatted all along"
    assert replies == ["Noted."] * sent, "a TUI turn failed while the CLI wrote"

    moved = [json.loads(out) for kind, _, out, _ in results if kind == "compact"]
    assert any(report["moved"] or report["compressed"] for report in moved), moved
    held = stored_markers(data_dir / "aniso.db")
    expected = {f"Tui-{i}" for i in range(sent)} | {f"Cli-{i}" for i in range(CLI_ROUNDS)}
    assert set(held) == expected, sorted(expected ^ set(held))
    assert {m: e for m, e in held.items() if e["current"] != 1 or len(e["roots"]) != 1} == {}
    doctor = run_cli("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout.decode() + doctor.stderr.decode()
    assert json.loads(doctor.stdout) == {"ok": True, "problems": []}
