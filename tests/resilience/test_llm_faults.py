"""LLM faults: retried with backoff inside a bounded total time, then degraded.

Every fault comes from the `faulty/...` litellm provider (`faults.py`), through the
same seam as production. Whatever the model does, the user's message is in SQLite.
A stream cut off mid-reply: the user saw the partial text as it streamed, but it is
not kept as the reply (half a sentence would be recalled as if it were the answer);
the episode is stored with status `failed` and the one-line cause.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from resilience.faults import CUT_TEXT, MODEL, FaultyLLM

from aniso.core.clock import SimulatedClock
from aniso.core.errors import ModelError
from aniso.core.ports import CompletionRequest
from aniso.core.settings import load_settings
from aniso.llm.gateway import LLMGateway
from aniso.profile.store import ProfileStore
from aniso.services import Services, build, make_compactor

RUNNER = Path(__file__).with_name("fault_runner.py")
TRANSIENT = ["timeout", "429", "500", "refused"]
HELLO = [{"role": "user", "content": "hello"}]


class FakeTime:
    """A monotonic clock that only moves when the gateway sleeps: the backoff is
    checked by what it asked for, never by how long the machine took."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def monotonic(self) -> float:
        return self.now


def gateway(time: FakeTime, **overrides: object) -> LLMGateway:
    settings = load_settings({"model": MODEL, **overrides})
    return LLMGateway(settings, sleep=time.sleep, monotonic=time.monotonic)


def make(clock: SimulatedClock, time: FakeTime, **overrides: object) -> Services:
    settings = load_settings({"model": MODEL, "llm_retries": 2, **overrides})
    return build(settings, clock=clock, gateway=gateway(time, **overrides))


def episodes(services: Services) -> list[dict[str, object]]:
    return [
        {k: row[k] for k in ("user_text", "reply", "status")}
        for row in services.db.query("SELECT * FROM episodes ORDER BY id")
    ]


@pytest.mark.parametrize("fault", TRANSIENT)
def test_each_transient_fault_is_retried_then_answered(faulty: FaultyLLM, fault: str) -> None:
    time = FakeTime()
    faulty.then(fault, fault, "Recovered answer.")
    llm = gateway(time, llm_retries=3)
    assert "".join(llm.stream(CompletionRequest(HELLO, 50))) == "Recovered answer."
    assert llm.attempts == 3 and len(faulty.calls) == 3
    assert time.sleeps == [0.5, 1.0]


@pytest.mark.parametrize("fault", TRANSIENT)
def test_a_persistent_fault_gives_up_after_the_retries(faulty: FaultyLLM, fault: str) -> None:
    time = FakeTime()
    faulty.then(*[fault] * 10)
    llm = gateway(time, llm_retries=2)
    with pytest.raises(ModelError) as raised:
        llm.complete(CompletionRequest(HELLO, 50))
    assert llm.attempts == 3 and len(faulty.calls) == 3
    assert time.sleeps == [0.5, 1.0]
    message = str(raised.value)
    assert "\n" not in message and "after 3 attempts" in message
    assert "Traceback" not in message and "Original exception" not in message


def test_the_total_budget_bounds_retries_and_attempt_timeouts(faulty: FaultyLLM) -> None:
    time = FakeTime()
    faulty.then(*["429"] * 20)
    llm = gateway(time, llm_retries=10, llm_budget_s=3.0, llm_timeout_s=60)
    with pytest.raises(ModelError):
        llm.complete(CompletionRequest(HELLO, 50))
    # 0.5 + 1.0 leave 1.5 s; the next 2.0 s backoff is cut to it, then the budget is spent.
    assert time.sleeps == [0.5, 1.0, 1.5]
    assert sum(time.sleeps) <= 3.0
    assert llm.attempts == 4 < 11
    timeouts = [call["timeout"] for call in faulty.calls]
    assert timeouts == [3.0, 2.5, 1.5, 1.0]  # what was left, with a 1 s floor


def test_a_budget_larger_than_the_timeout_keeps_the_timeout(faulty: FaultyLLM) -> None:
    time = FakeTime()
    faulty.then("500", "fine")
    llm = gateway(time, llm_retries=1, llm_budget_s=600, llm_timeout_s=20)
    assert llm.complete(CompletionRequest(HELLO, 50)) == "fine"
    assert [call["timeout"] for call in faulty.calls] == [20, 20]


@pytest.mark.parametrize("fault", TRANSIENT)
def test_the_message_is_stored_when_the_model_stays_down(
    faulty: FaultyLLM, clock: SimulatedClock, fault: str
) -> None:
    time = FakeTime()
    faulty.then(*[fault] * 10)
    services = make(clock, time)
    reply = services.assistant.send("my sister Olga moves to Porto in May")
    assert reply.error is not None and "\n" not in reply.error
    assert "after 3 attempts" in reply.error and reply.text == ""
    assert episodes(services) == [
        {"user_text": "my sister Olga moves to Porto in May", "reply": None, "status": "failed"}
    ]
    # The model is back: the next message is answered and nothing before it is lost.
    faulty.script.clear()
    services.assistant.send("and she starts a new job there")
    assert [row["status"] for row in episodes(services)] == ["failed", "answered"]


def test_a_stream_cut_mid_reply_keeps_the_message_not_the_half_reply(
    faulty: FaultyLLM, clock: SimulatedClock
) -> None:
    time = FakeTime()
    faulty.then("cut")
    services = make(clock, time)
    shown: list[str] = []
    reply = services.assistant.send("what should I pack for Porto?", on_token=shown.append)
    assert "".join(shown) == CUT_TEXT == reply.text  # the user saw what arrived
    assert reply.error is not None and "broke off" in reply.error and "\n" not in reply.error
    assert "partial reply" in reply.error
    assert len(faulty.calls) == 1  # text had reached the user: a retry would repeat it
    assert episodes(services) == [
        {"user_text": "what should I pack for Porto?", "reply": None, "status": "failed"}
    ]
    row = services.db.execute("SELECT error FROM episodes").fetchone()
    assert "broke off" in row[0]


@pytest.mark.parametrize("fault", ["malformed", "wrong-schema", "500"])
def test_profile_extraction_degrades_to_the_rules(
    faulty: FaultyLLM, clock: SimulatedClock, fault: str
) -> None:
    time = FakeTime()
    # The extractor's call comes first (all its retries), then the chat reply.
    steps = [fault] * 3 if fault == "500" else [fault]
    faulty.then(*steps, "Noted, no meat then.")
    services = make(clock, time, llm_extraction="on")
    reply = services.assistant.send("I am vegetarian now")
    assert reply.error is None and reply.text == "Noted, no meat then."
    extraction = faulty.calls[0]
    assert "profile" in extraction["messages"][0]["content"] and not extraction["stream"]
    diet = [v.value for v in ProfileStore(services.db, clock=clock).history("diet")]
    assert diet == ["vegetarian"]  # found by the deterministic rules
    assert episodes(services)[0]["user_text"] == "I am vegetarian now"


YOGA = [
    "My yoga studio is called Lotus Flow, it is on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays and Thursdays",
]


@pytest.mark.parametrize("fault", ["malformed", "wrong-schema", "refused"])
def test_compaction_summaries_degrade_to_extractive(
    faulty: FaultyLLM, clock: SimulatedClock, fault: str
) -> None:
    time = FakeTime()
    services = make(clock, time, llm_retries=1, llm_extraction="on")
    for text in YOGA:
        services.assistant.send(text)
    faulty.calls.clear()
    faulty.then(*[fault] * 4)
    clock.advance(timedelta(days=100))
    report = make_compactor(services).run(clock())
    assert [m["source"] for m in report.moved] == ["extractive"]
    assert len(faulty.calls) == (2 if fault == "refused" else 1)  # one retry when transient
    assert "Summarise this memory" in faulty.calls[0]["messages"][0]["content"]
    summary = services.db.execute("SELECT summary FROM blocks").fetchone()[0]
    assert summary.startswith("That was about")
    archived = services.db.execute("SELECT count(*) FROM archive").fetchone()[0]
    assert archived == len(YOGA)


def run_ask(text: str, script: list[str], *extra: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "FAULT_SCRIPT": json.dumps(script),
        "ANISO_LLM_RETRIES": "1",
        "ANISO_LLM_BUDGET_S": "30",  # one 0.5 s backoff sleep
    }
    command = [sys.executable, str(RUNNER), "--model", MODEL, "ask", *extra, text]
    return subprocess.run(
        command, capture_output=True, env=env, timeout=300, stdin=subprocess.DEVNULL
    )


def stored(data_dir: Path) -> list[tuple[str, str | None, str]]:
    with sqlite3.connect(data_dir / "aniso.db") as db:
        return db.execute("SELECT user_text, reply, status FROM episodes ORDER BY id").fetchall()


def one_line(result: subprocess.CompletedProcess[bytes]) -> str:
    text = result.stderr.decode("utf-8", "replace").strip()
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, text
    return text


def test_cli_ask_shows_one_line_and_stores_the_message(data_dir: Path) -> None:
    result = run_ask("book a table for Friday", ["429", "429", "429"])
    assert result.returncode == 1
    line = one_line(result)
    assert line.startswith("aniso: error: model faulty/model failed after 2 attempts")
    assert line.endswith("(your message was stored)") and "RateLimitError" in line
    assert stored(data_dir) == [("book a table for Friday", None, "failed")]
    again = run_ask("and one for Saturday", [])
    assert again.returncode == 0 and again.stdout.decode().strip() == "A calm answer."
    assert [row[2] for row in stored(data_dir)] == ["failed", "answered"]


def test_cli_ask_with_a_cut_stream(data_dir: Path) -> None:
    result = run_ask("tell me a story", ["cut"])
    assert result.returncode == 1
    assert result.stdout.decode().strip() == CUT_TEXT
    line = one_line(result)
    assert "broke off" in line and "partial reply" in line
    assert stored(data_dir) == [("tell me a story", None, "failed")]


def test_cli_ask_json_reports_the_error(data_dir: Path) -> None:
    result = run_ask("hello there", ["refused", "refused"], "--json")
    assert result.returncode == 1
    shown = json.loads(result.stdout)
    assert "Connection refused" in shown["error"] and shown["reply"] == ""
    assert result.stderr.decode().strip() == ""
    assert stored(data_dir) == [("hello there", None, "failed")]
