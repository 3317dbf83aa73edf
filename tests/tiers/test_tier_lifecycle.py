"""The tier lifecycle with a simulated clock: hot → warm → cold → unpacked → hot."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from helpers import nights

from aniso.core.clock import SimulatedClock
from aniso.core.ports import CompletionRequest
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import archive
from aniso.tiers.compaction import Compactor, kept_share, last_report


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def recall(services: Services, query: str):  # type: ignore[no-untyped-def]
    return services.controller.memory.recall(query, now=services.clock()).items


YOGA = [
    "My yoga studio is called Lotus Flow, it is on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays and Thursdays",
    "The yoga teacher at Lotus Flow is named Marta and she is great",
]


def test_time_travel(services: Services, clock: SimulatedClock) -> None:
    for text in YOGA:
        services.assistant.send(text)
    services.assistant.send("Unrelated: my car needs new winter tyres soon")
    (yoga_block,) = {i.block_id for i in recall(services, "yoga studio Lotus Flow")[:2]}

    nights(services, clock, 10)
    day10 = [i for i in recall(services, "yoga studio Lotus Flow") if i.block_id == yoga_block]
    assert {i.tier for i in day10} == {"hot"} and {i.form for i in day10} == {"full"}
    assert {i.text.split("\n")[0] for i in day10} == set(YOGA)

    nights(services, clock, 20)
    day30 = [i for i in recall(services, "yoga studio Lotus Flow") if i.block_id == yoga_block]
    assert day30 and {i.tier for i in day30} == {"warm"}
    assert {i.form for i in day30} == {"incomplete"}
    summary = services.db.execute(
        "SELECT summary FROM blocks WHERE id = ?", [yoga_block]
    ).fetchone()[0]
    assert "Lotus Flow" in summary
    live = services.db.execute(
        "SELECT count(*) FROM episodes WHERE block_id = ?", [yoga_block]
    ).fetchone()[0]
    assert 1 <= live < len(YOGA), "warm keeps only the most salient episodes"

    nights(services, clock, 90)
    day120 = recall(services, "yoga studio Lotus Flow")
    assert [(i.block_id, i.tier, i.form) for i in day120][:1] == [(yoga_block, "cold", "gist")]
    assert day120[0].text.startswith("That was about")
    assert (
        services.db.execute(
            "SELECT count(*) FROM episodes WHERE block_id = ?", [yoga_block]
        ).fetchone()[0]
        == 0
    )
    assert len(archive.archived_of(services.db, yoga_block)) == len(YOGA)

    services.assistant.send("Tell me more about my yoga studio Lotus Flow")
    restored = services.controller.restored
    assert [r.old_block for r in restored] == [yoga_block]
    new_block = restored[0].new_block
    texts = {
        row[0]
        for row in services.db.execute(
            "SELECT user_text FROM episodes WHERE block_id = ?", [new_block]
        )
    }
    assert texts == set(YOGA)
    assert services.db.execute(
        "SELECT status FROM archive WHERE block_id = ?", [yoga_block]
    ).fetchall() == [("restored",)] * len(YOGA)

    nights(services, clock, 1)
    day121 = [i for i in recall(services, "yoga studio Lotus Flow") if i.block_id == new_block]
    assert {i.tier for i in day121} == {"hot"} and {i.form for i in day121} == {"full"}
    assert {i.text.split("\n")[0] for i in day121} == set(YOGA)


def test_important_and_open_blocks_stay_hot(services: Services, clock: SimulatedClock) -> None:
    services.assistant.send("Remember this: the spare key is under the blue flower pot")
    clock.advance(timedelta(hours=8))
    services.assistant.send("My laptop doesn't work after the update, the screen stays black")
    clock.advance(timedelta(hours=8))
    services.assistant.send("I might watch a documentary about whales tonight")
    nights(services, clock, 40)
    tiers = dict(
        services.db.execute("SELECT b.important + 2 * b.open, b.tier FROM blocks b").fetchall()
    )
    assert tiers == {1: "hot", 2: "hot", 0: "warm"}
    clock.advance(timedelta(hours=1))
    services.assistant.send("Good news: the laptop works now, I fixed it by resetting the BIOS")
    open_flags = services.db.execute("SELECT sum(open) FROM blocks").fetchone()[0]
    assert open_flags == 0


def test_warm_share_shrinks_gradually() -> None:
    settings = load_settings()
    shares = [kept_share(day, settings) for day in range(14, 91, 4)]
    assert shares == sorted(shares, reverse=True)
    steps = [a - b for a, b in zip(shares, shares[1:], strict=False)]
    assert max(steps) < 0.05, "no step: the share falls a little every day"
    assert shares[0] == pytest.approx(0.6) and shares[-1] == pytest.approx(0.1)


def test_access_during_migration_rolls_back(services: Services, clock: SimulatedClock) -> None:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=20))
    memory = services.controller.memory

    def accessed(block_id: int) -> None:
        items = memory.recall("Lotus Flow yoga", now=clock())
        memory.mark_used(items.items, at=clock())

    report = services.compactor(before_commit=accessed).run(clock())
    assert report.rolled_back and not report.moved
    assert {row[0] for row in services.db.execute("SELECT tier FROM blocks")} == {"hot"}
    assert services.db.execute("SELECT count(*) FROM archive").fetchone()[0] == 0


def test_second_run_is_a_no_op_and_reported(services: Services, clock: SimulatedClock) -> None:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=100))
    compactor = services.compactor()
    first = compactor.run(clock())
    assert [m["to"] for m in first.moved] == ["cold"]
    snapshot = services.db.execute("SELECT * FROM blocks").fetchall()
    second = compactor.run(clock())
    assert second.moved == second.compressed == [] and second.archived_episodes == 0
    assert services.db.execute("SELECT * FROM blocks").fetchall() == snapshot
    assert last_report(services.db)["moved"] == []


def test_summaries_pass_the_guard_and_llm_upgrades(
    services: Services, clock: SimulatedClock
) -> None:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=100))
    calls: list[str] = []

    def complete(request: CompletionRequest) -> str:
        assert request.response_format and request.temperature == 0.0
        calls.append(request.messages[0]["content"])
        return (
            '{"summary": "Yoga at Lotus Flow with Marta.", "gist": "That was about yoga '
            'at Lotus Flow in January.", "keywords": ["yoga", "Marta"], "anchors": ["Marta"]}'
        )

    Compactor(
        services.db,
        services.controller.memory,
        services.settings,
        redact=lambda text: text.replace("Marta", "[PERSON]"),
        complete=complete,
    ).run(clock())
    summary, keywords, anchors = services.db.execute(
        "SELECT summary, keywords, anchors FROM blocks"
    ).fetchone()
    assert calls and summary == "That was about yoga at Lotus Flow in January."
    # The name is kept once, as an anchor (not again as a keyword), and redacted.
    assert "Marta" not in keywords + anchors and "[PERSON]" in anchors


def test_malformed_llm_summary_falls_back(services: Services, clock: SimulatedClock) -> None:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=100))
    report = Compactor(
        services.db,
        services.controller.memory,
        services.settings,
        redact=services.redact_text,
        complete=lambda request: "{not json",
    ).run(clock())
    assert [m["source"] for m in report.moved] == ["extractive"]
    assert (
        services.db.execute("SELECT summary FROM blocks").fetchone()[0].startswith("That was about")
    )
