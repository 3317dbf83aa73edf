"""Hostile input, fuzzed with hypothesis: the controller in-process, the CLI as a subprocess.

Inputs: any Unicode (lone surrogates, controls, NULs, bidi marks), deeply nested
Markdown, FTS5 query syntax, and 10 MB texts. The property: never an unexpected
exception or a traceback; a message is either stored (exactly what the cleaner
kept, redacted) or refused with a one-line InputError before anything is written;
the store stays consistent (`aniso doctor`).
"""

from __future__ import annotations

import json
from pathlib import Path

from fakes import ScriptedLLM
from helpers import one_line_error, run_cli
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from aniso.core.clock import SimulatedClock
from aniso.core.errors import InputError
from aniso.core.settings import load_settings
from aniso.inputs import MAX_MESSAGE_CHARS, clean_message
from aniso.services import Services, build
from aniso.tiers.doctor import check

TEN_MB = 10 * 1024 * 1024
FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    # No shrinking: one failing example of a slow pipeline is enough to read, and
    # shrinking it would take the CI budget.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CLI_FUZZ = settings(FUZZ, max_examples=3)


def nested_markdown(depth: int) -> str:
    """Quotes in lists in emphasis in links, `depth` levels deep, then fences."""
    openers = ["> ", "- ", "**", "[", "1. ", "`", "<div>", "*"]
    body = "".join(openers[i % len(openers)] for i in range(depth))
    return body + "deep text" + "](x)" * (depth // 8) + "\n```\n" * 3


markdown = st.integers(min_value=1, max_value=5000).map(nested_markdown)
fts_syntax = st.lists(
    st.sampled_from(['"', "*", "NEAR(", ")", "AND", "OR", "NOT", "^", ":", "-", "col:", "{", "}"]),
    min_size=1,
    max_size=12,
).map(" ".join)
any_text = st.text(
    alphabet=st.characters(codec=None, exclude_categories=()), min_size=0, max_size=300
)
messages = st.one_of(any_text, markdown, fts_syntax, st.text(alphabet="\x00\x01\x1b\u202e\r\n\t "))


def live_count(services: Services) -> int:
    return services.db.execute("SELECT count(*) FROM episodes").fetchone()[0]


def test_controller_stores_or_refuses_in_one_line(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    outcomes = {"stored": 0, "refused": 0}

    @FUZZ
    @given(text=messages)
    @example(text="a" * TEN_MB)
    @example(text=nested_markdown(200_000))
    @example(text="x" * (MAX_MESSAGE_CHARS - 10))
    @example(text="\x00" + "b" * 100)
    @example(text="\ud800 lone surrogate")
    def send(text: str) -> None:
        before = live_count(services)
        try:
            reply = services.assistant.send(text)
        except InputError as error:
            assert "\n" not in str(error) and str(error)
            assert live_count(services) == before, "a refused message wrote something"
            outcomes["refused"] += 1
            return
        assert reply.error is None
        assert live_count(services) == before + 1
        stored = services.db.execute(
            "SELECT user_text FROM episodes WHERE id = ?", [reply.episode_id]
        ).fetchone()[0]
        assert stored == services.controller.redact(clean_message(text))[0]
        outcomes["stored"] += 1

    send()
    assert outcomes["stored"] > 0 and outcomes["refused"] > 0, outcomes
    assert check(services.db, services.controller.memory.dense) == []


def test_recall_takes_any_query(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> None:
    services = build(load_settings({"model": "fake/x"}), clock=clock)
    services.assistant.send('My "garden" NEAR the shed: tomatoes* AND beans OR NOT peas')

    @FUZZ
    @given(query=st.one_of(any_text, fts_syntax, markdown))
    def recall(query: str) -> None:
        items = services.controller.recall(query)
        assert all(item.tier in {"hot", "warm", "cold"} for item in items)

    recall()
    assert check(services.db, services.controller.memory.dense) == []


def ask(stdin: bytes) -> tuple[str, str]:
    """`aniso ask -` with `stdin`: ("ok", reply) or ("error", the one-line message)."""
    result = run_cli("ask", "-", "--json", fake_reply="Noted.", stdin=stdin)
    if result.returncode == 0:
        assert result.stderr.decode("utf-8", "replace").count("Traceback") == 0
        return "ok", json.loads(result.stdout)["reply"]
    assert result.returncode != 0
    return "error", one_line_error(result)


def test_cli_ask_stores_or_refuses_in_one_line(data_dir: Path) -> None:
    seen: list[tuple[str, str]] = []

    @CLI_FUZZ
    @given(
        raw=st.one_of(st.binary(max_size=200), any_text.map(lambda t: t.encode("utf-8", "replace")))
    )
    @example(raw=b"a" * TEN_MB)
    @example(raw=b"\x00\x01binary\xff\xfe")
    @example(raw=nested_markdown(3000).encode())
    @example(raw=b"")
    def run(raw: bytes) -> None:
        seen.append(ask(raw))

    run()
    kinds = {kind for kind, _ in seen}
    assert kinds == {"ok", "error"}, seen
    errors = [text for kind, text in seen if kind == "error"]
    assert all(text.startswith("aniso: error: ") for text in errors), errors
    doctor = run_cli("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout.decode() + doctor.stderr.decode()
    assert json.loads(doctor.stdout) == {"ok": True, "problems": []}
