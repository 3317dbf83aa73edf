"""The controller's write path end to end: profile learning, PII guard, audit, misses.

Everything goes through `Assistant.send`, as a chat turn does, with the scripted LLM
behind litellm. The privacy tests then read the raw bytes of the whole data dir:
SQLite and its WAL, Chroma's files, the log and the decompressed archive.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import DAY0
from fakes import ScriptedLLM
from helpers import run_cli
from test_profile_mempersonal import EXPECTED, SCENARIOS, SUPERSEDED, user_messages

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.logs import log_to_data_dir
from aniso.services import Services, build
from aniso.tiers.stats import memory_stats

# One planted value per recognizer, with the cue a user would naturally write.
PLANTED: dict[str, str] = {
    "CREDIT_CARD": "4242 4242 4242 4242",
    "RU_PASSPORT": "4510 123456",
    "RU_INN": "7707083893",
    "RU_SNILS": "112-233-445 95",
    "UA_PASSPORT": "МК 123456",
    "UA_ID_CARD": "987654321",
    "IBAN": "DE89 3704 0044 0532 0130 00",
    "PHONE": "+7 912 345-67-89",
    "EMAIL": "ivan.petrov@mail.ru",
    "SECRET": "Sup3rS3cretPass",
    "API_KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
}
MESSAGES = [
    f"Запомни мой номер карты {PLANTED['CREDIT_CARD']} и придумай тост.",
    f"Мой паспорт {PLANTED['RU_PASSPORT']}, запиши куда-нибудь.",
    f"Мой ИНН {PLANTED['RU_INN']}, нужен для налоговой.",
    f"СНИЛС {PLANTED['RU_SNILS']} на всякий случай.",
    f"Мій паспорт {PLANTED['UA_PASSPORT']}, збережи.",
    f"номер ID-картки {PLANTED['UA_ID_CARD']}",
    f"My IBAN is {PLANTED['IBAN']}, send the refund there.",
    f"Звони мне на {PLANTED['PHONE']} вечером.",
    f"Write to me at {PLANTED['EMAIL']} about the yoga class.",
    f"мой пароль от почты: {PLANTED['SECRET']}",
    f"my api key is {PLANTED['API_KEY']}",
]


def variants(value: str) -> set[bytes]:
    """Every byte form a value could take on disk: as typed, lower case (FTS stems),
    digits only (normalised numbers), and UTF-16 (some stores use it)."""
    forms = {value, value.lower()}
    digits = "".join(ch for ch in value if ch.isdigit())
    if len(digits) >= 9:
        forms.add(digits)
    encoded = {form.encode("utf-8") for form in forms}
    encoded |= {form.encode("utf-16-le") for form in forms if len(form) >= 8}
    return encoded


def data_dir_bytes(data_dir: Path) -> list[tuple[str, bytes]]:
    """Raw bytes of every file, plus the decompressed archive payloads."""
    blobs = [
        (str(p.relative_to(data_dir)), p.read_bytes()) for p in data_dir.rglob("*") if p.is_file()
    ]
    connection = sqlite3.connect(data_dir / "aniso.db")
    try:
        for (payload,) in connection.execute("SELECT payload FROM archive"):
            blobs.append(("archive payload", zlib.decompress(payload)))
    finally:
        connection.close()
    return blobs


def leaks(data_dir: Path, values: dict[str, str] | list[str]) -> list[str]:
    found = []
    planted = values.values() if isinstance(values, dict) else values
    blobs = data_dir_bytes(data_dir)
    for value in planted:
        for form in variants(value):
            for name, data in blobs:
                if form in data:
                    found.append(f"{value!r} in {name}")
    return found


_OPENED: list[Services] = []


def make(clock: SimulatedClock, **overrides: Any) -> Services:
    services = build(load_settings({"model": "fake/scripted", **overrides}), clock=clock)
    _OPENED.append(services)
    return services


@pytest.fixture(autouse=True)
def _close_what_was_opened() -> Iterator[None]:
    """Each test's stores are closed after it: an open vector index holds a dozen
    descriptors, and a suite that keeps them all runs out of select()'s range."""
    yield
    while _OPENED:
        _OPENED.pop().close()


def chat(services: Services, clock: SimulatedClock, texts: list[str]) -> None:
    for text in texts:
        clock.advance(timedelta(hours=1))
        services.assistant.send(text)


# Profile state through the controller.

# The chat loop's extractor (`profile.understand`) judges each rule's reading with a
# trained gate, whose exact verdicts move when it is retrained on more labelled data;
# its quality is measured by `aniso bench profile` on thousands of held-out messages.
# Here the scenarios guard against what a user would call broken: a value the user never
# stated about themselves (every learnt value must be one the rule tables read), a
# plain self-statement lost (SELF_STATED), and most of what the messages say kept.
SELF_STATED: dict[str, dict[str, list[str]]] = {
    "s1_weekend_plan": {"diet": ["vegetarian"], "interests": ["film", "yoga"]},
    "s3_contradiction_update": {"diet": ["vegetarian"]},
    "s4_schedule_table": {"avoid": ["dairy"]},
    "s7_cross_session_budget_change": {"budget": ["high"], "avoid": ["dairy"]},
    "s9_conflict_and_resolution": {"spice": ["mild"], "likes": ["burritos"]},
    "s10_multi_constraint_planning": {"budget": ["minimal"], "avoid": ["dairy"]},
}
HELD_AT_LEAST = 0.75
"""Of all the values the rule tables read in the scenarios, the learner keeps this share."""


def _learnt(scenario: dict[str, Any], clock: SimulatedClock) -> tuple[Any, Any]:
    services = make(clock)
    chat(services, clock, user_messages(scenario))
    return services, services.controller.profile.store  # type: ignore[union-attr]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_mempersonal_profile_through_the_controller(
    scenario: dict[str, Any], llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    _, store = _learnt(scenario, clock)
    held = store.current().as_values()
    expected = EXPECTED[scenario["id"]]
    for field, values in held.items():
        for value in values:
            assert value in expected.get(field, []), f"{field} {value!r} was never stated"
    for field, values in SELF_STATED.get(scenario["id"], {}).items():
        for value in values:
            assert value in held.get(field, []), f"{field} {value!r} lost"
    ended = {(row.field, row.value) for row in store.superseded_values()}
    allowed = {(f, v) for f, v, _, _ in SUPERSEDED.get(scenario["id"], [])}
    assert ended <= allowed
    system = llm.last_messages[0]["content"]
    for values in held.values():
        for value in values:
            assert value in system, f"{value!r} missing from the system prompt"


def test_the_learner_keeps_most_of_what_the_scenarios_state(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    stated = kept = 0
    for scenario in SCENARIOS:
        _, store = _learnt(scenario, clock)
        held = store.current().as_values()
        for field, values in EXPECTED[scenario["id"]].items():
            stated += len(values)
            kept += sum(value in held.get(field, []) for value in values)
    assert kept >= HELD_AT_LEAST * stated, f"kept {kept} of {stated}"


def test_the_profile_wins_over_a_stale_memory(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    chat(services, clock, ["Я очень люблю стейки, запомни."])
    clock.advance(timedelta(days=3))
    chat(services, clock, ["Апдейт: неделю назад я перестал есть мясо."])
    clock.advance(timedelta(days=1))
    later = make(clock)  # a new session: the old turns come from memory, not the chat log
    reply = later.assistant.send("Подкинь идеи на ужин со стейками")
    loved = [item for item in reply.recalled if "люблю стейки" in item.text]
    assert loved, "the old statement should still be recalled, marked outdated"
    assert all(item.outdated for item in loved)
    system = llm.last_messages[0]["content"]
    assert "vegetarian" in system


def test_extraction_failure_keeps_the_message(
    llm: ScriptedLLM, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = make(clock)

    def explode(text: str, *, episode_id: int) -> list[Any]:
        raise RuntimeError("extractor bug")

    monkeypatch.setattr(services.controller.profile, "learn", explode)
    reply = services.assistant.send("I'm vegetarian")
    assert reply.error is None
    rows = list(services.db.query("SELECT user_text, status FROM episodes"))
    assert rows == [{"user_text": "I'm vegetarian", "status": "answered"}]


def test_llm_extraction_adds_what_the_rules_missed(clock: SimulatedClock, llm: ScriptedLLM) -> None:
    text = "Honestly, anything with mushrooms makes my evening."
    delta = {
        "ops": [
            {
                "kind": "add",
                "field": "likes",
                "value": "mushrooms",
                "said": "mushrooms",
                "evidence": "anything with mushrooms",
            }
        ]
    }
    llm.reply(json.dumps(delta), "Noted!")
    services = make(clock, llm_extraction="on")
    services.assistant.send(text)
    likes = services.controller.profile.store.current().values("likes")  # type: ignore[union-attr]
    assert likes == ["mushrooms"]
    assert llm.calls[0].params.get("response_format", {}).get("type") == "json_schema"


# Privacy: every path, then the raw bytes.


@pytest.mark.parametrize("scenario_id", ["s5_privacy_guardrail", "s8_sensitive_memory_block"])
def test_mempersonal_pii_never_reaches_the_disk(
    scenario_id: str, llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    scenario = next(s for s in SCENARIOS if s["id"] == scenario_id)
    services = make(clock)
    log_to_data_dir(data_dir)
    replies = []
    for text in user_messages(scenario):
        clock.advance(timedelta(hours=1))
        replies.append(services.assistant.send(text))
    services.db.conn.close()
    values = ["1234 567890", "4242 4242 4242 4242"]
    assert leaks(data_dir, values) == []
    assert any("did not store" in notice for reply in replies for notice in reply.notices)
    # The rest of the message is kept: the request itself is not lost.
    db = sqlite3.connect(data_dir / "aniso.db")
    stored = [row[0] for row in db.execute("SELECT user_text FROM episodes")]
    assert any("[" in text and ("йога" in text or "тост" in text) for text in stored)


def test_every_recognizer_through_every_path(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    """Chat messages, echoed replies, LLM summaries and anchors, the log, a hand edit of
    the profile: nothing planted survives anywhere in the data dir."""
    # The model echoes PII back in chat and in the summaries it writes.
    llm.default = json.dumps(
        {
            "summary": f"The user shared card {PLANTED['CREDIT_CARD']} and {PLANTED['EMAIL']}.",
            "gist": f"Paperwork; passport {PLANTED['RU_PASSPORT']}.",
            "keywords": ["paperwork"],
            "anchors": [PLANTED["IBAN"], PLANTED["PHONE"]],
        },
        ensure_ascii=False,
    )
    services = make(clock, llm_extraction="on")
    log_to_data_dir(data_dir)
    chat(services, clock, MESSAGES)
    logging.getLogger("aniso.test").warning("a warning quoting the user: %s", MESSAGES[0])

    # Summaries: age everything into warm and cold, where the LLM writes the forms.
    from aniso.services import make_compactor

    for days in (20, 120):
        clock.advance(DAY0 + timedelta(days=days) - clock())
        make_compactor(services).run(clock())
    forms = list(services.db.query("SELECT summary, anchors FROM blocks WHERE tier != 'hot'"))
    assert forms, "compaction produced no warm or cold block"
    services.db.conn.close()

    # The profile, edited by hand through the CLI.
    result = run_cli("profile", "set", "notes", f"card {PLANTED['CREDIT_CARD']}")
    assert result.returncode == 0, result.stderr
    assert b"did not store" in result.stderr

    found = leaks(data_dir, PLANTED)
    assert found == []
    audit = sqlite3.connect(data_dir / "aniso.db").execute(
        "SELECT detail FROM audit WHERE kind = 'redaction'"
    )
    types = {json.loads(detail)["type"] for (detail,) in audit}
    assert {"CREDIT_CARD", "RU_PASSPORT", "IBAN", "EMAIL", "PHONE", "SECRET"} <= types


def test_audit_keeps_type_time_and_salted_hash_only(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    services = make(clock)
    services.assistant.send(f"card {PLANTED['CREDIT_CARD']}")
    services.assistant.send(f"again: {PLANTED['CREDIT_CARD'].replace(' ', '-')}")
    rows = [
        json.loads(row["detail"])
        for row in services.db.query("SELECT detail FROM audit WHERE kind = 'redaction'")
    ]
    assert [row["type"] for row in rows] == ["CREDIT_CARD", "CREDIT_CARD"]
    assert set(rows[0]) == {"type", "at", "hash"}
    assert rows[0]["hash"] == rows[1]["hash"]  # the same card, however it was typed
    assert "4242" not in json.dumps(rows)


def test_temporary_chat_leaves_no_audit(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    temporary = build(services.settings, clock=clock, temporary=True)
    reply = temporary.assistant.send(f"card {PLANTED['CREDIT_CARD']}")
    assert reply.notices
    assert services.db.execute("SELECT COUNT(*) FROM audit").fetchone()[0] == 0


def test_the_model_sees_redacted_text_when_remote(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock, llm_sees="auto")
    services.assistant.send(f"my card is {PLANTED['CREDIT_CARD']}")
    assert PLANTED["CREDIT_CARD"] not in json.dumps(llm.last_messages, ensure_ascii=False)
    raw = make(clock, llm_sees="raw")
    raw.assistant.send(f"my card is {PLANTED['CREDIT_CARD']}")
    assert PLANTED["CREDIT_CARD"] in llm.last_messages[-1]["content"]


@pytest.mark.parametrize(
    ("message", "echo"),
    [
        ("my passport is 4509 123456, keep it handy", "Your passport: 4509,123456."),
        ("card 4111 1111 1111 1111 for the booking", "Card 4111111111111111 noted"),
        ("write to olga.k@example.org please", "I will write to OLGA.K@EXAMPLE.ORG"),
    ],
)
def test_a_raw_value_echoed_by_the_model_in_another_form_is_not_stored(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path, message: str, echo: str
) -> None:
    """With the raw policy the model sees the value and may repeat it in a form no
    recognizer knows; the echo is caught by the value itself."""
    services = make(clock, llm_sees="raw")
    llm.reply(echo)
    reply = services.assistant.send(message)
    assert reply.text == echo  # the user sees the reply as written
    stored = services.db.execute("SELECT reply FROM episodes").fetchone()[0]
    assert stored.startswith(echo.split(":")[0].split(" ")[0]) and "[" in stored
    services.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    value = echo.split()[-1].rstrip(".") if "@" in echo else echo
    digits = "".join(ch for ch in value if ch.isdigit())
    for name, data in data_dir_bytes(data_dir):
        assert (digits.encode() not in data) if digits else (b"olga.k" not in data.lower()), name


# The correction signal.


def test_a_correction_is_a_recorded_miss(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    chat(services, clock, ["Я вегетарианка, запомни.", "Посоветуй ресторан на вечер."])
    chat(services, clock, ["Я же говорила, что я вегетарианка!"])
    misses = [
        json.loads(row["detail"])
        for row in services.db.query("SELECT detail FROM audit WHERE kind = 'miss'")
    ]
    assert len(misses) == 1
    assert set(misses[0]) == {
        "episode_id", "cause", "fact", "fact_supplied", "held", "injected", "profile"
    }  # fmt: skip
    assert "vegetarian" in misses[0]["profile"], "the profile the corrected reply saw"
    # The fact was two messages back, in the prompt: the reply ignored it, not memory.
    assert (misses[0]["cause"], misses[0]["fact_supplied"]) == ("reply", ["вегетарианк"])
    stats = memory_stats(services.db)
    assert stats["misses"] == 1 and stats["messages"] == 3
    assert stats["miss_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert stats["miss_causes"] == {"retrieval": 0, "reply": 1}


def test_stats_command(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    services = make(clock)
    chat(services, clock, ["I'm vegetarian.", "I already told you I'm vegetarian!"])
    services.db.conn.close()
    result = run_cli("stats", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["messages"] == 2 and figures["misses"] == 1
    assert figures["miss_rate"] == 0.5
    text = run_cli("stats")
    assert b"miss rate 50.0%" in text.stdout
