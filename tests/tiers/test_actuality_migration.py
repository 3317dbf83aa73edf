"""Actuality drives migration: what an open problem needs stays near while it is open,
use counts only lately, and a marker the user takes back lets the block age."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from helpers import nights

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import blocks
from aniso.tiers.actuality import ActualityInputs, actuality, recent_uses


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Iterator[Services]:
    built = build(load_settings({"model": "fake/scripted"}), clock=clock)
    yield built
    built.close()


def say(services: Services, clock: SimulatedClock, text: str, *, after: timedelta) -> int:
    clock.advance(after)
    services.assistant.send(text)
    (block,) = services.db.execute(
        "SELECT block_id FROM episodes ORDER BY id DESC LIMIT 1"
    ).fetchone()
    return int(block)


def state(services: Services, block: int) -> tuple[str, int, int]:
    row = services.db.execute(
        "SELECT tier, important, open FROM blocks WHERE id = ?", [block]
    ).fetchone()
    return row[0], row[1], row[2]


def test_a_block_linked_to_an_open_problem_stays_warm_until_it_is_solved(
    services: Services, clock: SimulatedClock
) -> None:
    hours = timedelta(hours=8)  # past the gap: each message starts a block
    problem = say(
        services, clock, "My Brother printer doesn't work, it jams every page", after=hours
    )
    supplies = say(
        services, clock, "I bought Brother printer paper and a toner cartridge", after=hours
    )
    other = say(services, clock, "My sister Ana is visiting us in February", after=hours)
    assert len({problem, supplies, other}) == 3
    nights(services, clock, 120)
    assert [state(services, b)[0] for b in (problem, supplies, other)] == ["hot", "warm", "cold"]

    say(services, clock, "It works now, the Brother printer is fixed", after=hours)
    assert state(services, problem)[2] == 0, "the resolution closed the problem"
    nights(services, clock, 1)
    assert state(services, supplies)[0] == "cold", "nothing open holds it any more"


@pytest.mark.parametrize(
    ("next_message", "after_100_nights"),
    [
        ("That's done", ("cold", 0, 0)),
        ("Это уже не важно", ("cold", 0, 0)),
        ("Це вже не важливо", ("cold", 0, 0)),
        ("Thanks, and what about lunch?", ("hot", 1, 0)),  # nothing taken back: held
    ],
)
def test_a_marker_taken_back_in_words_lets_the_block_age(
    services: Services,
    clock: SimulatedClock,
    next_message: str,
    after_100_nights: tuple[str, int, int],
) -> None:
    visa = "Remember this: the visa appointment is on 12 May"
    marked = say(services, clock, visa, after=timedelta(hours=1))
    assert state(services, marked)[1:] == (1, 0)
    say(services, clock, next_message, after=timedelta(minutes=2))
    nights(services, clock, 100)
    assert state(services, marked) == after_100_nights


def test_use_is_counted_over_a_recent_window(services: Services, clock: SimulatedClock) -> None:
    block = say(services, clock, "I practise piano scales every morning", after=timedelta(hours=1))
    for _ in range(8):  # a busy spring
        clock.advance(timedelta(days=1))
        blocks.touch(services.db, [block], at=clock())
    count, at = services.db.execute(
        "SELECT recent_uses, uses_at FROM blocks WHERE id = ?", [block]
    ).fetchone()
    spring = datetime.fromisoformat(at)
    assert count == pytest.approx(sum(0.5 ** (day / 30) for day in range(8)))
    autumn = spring + timedelta(days=180)
    assert recent_uses(count, spring, autumn) == pytest.approx(count / 64)

    def score(uses: float) -> float:
        inputs = ActualityInputs(autumn, uses, False, False, False)
        return actuality(inputs, autumn)

    assert score(recent_uses(count, spring, autumn)) < score(count) - 0.05
