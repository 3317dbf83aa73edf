"""Busy-day triage: λ and α from the recent load, criticality in recall, the timeline digest."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import run_cli

from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import digest, triage

MORNING = datetime(2026, 4, 7, 7, 0, tzinfo=UTC)
# A travel disruption, a sick child and a deadline, amid ordinary chat.
CRITICAL = [
    "Our flight to Lisbon was cancelled, I need to rebook before noon",
    "My son has a fever of 39, should I call the paediatrician?",
    "The tax report deadline is tomorrow at 9 am and it is not finished",
    "The airline says the next flight is full, the problem with the rebooking is not solved",
    "The fever is not going down, I need to find a pharmacy open now",
    "Remember this: the hotel in Lisbon must be told we arrive a day late",
]
CALM = [
    "What a lovely sunrise over the river this morning",
    "I think I will try a new pasta recipe with mushrooms at some point",
    "The neighbour's cat sat on our balcony again",
    "Do you know any good podcasts about history?",
    "My favourite colour for the living room walls would be sage green",
    "The garden roses are blooming early this year",
]
CRITICAL_MARK = ("flight", "fever", "deadline", "airline", "pharmacy", "hotel")


def services_at(data_dir: Path) -> Services:
    del data_dir  # the isolated env points the settings at it
    return build(load_settings({"model": "fake/x"}))


def fill(services: Services, *, start: datetime, step: timedelta, rounds: int) -> datetime:
    """Store the critical and calm messages, interleaved, `rounds` times over."""
    at = start
    for turn in range(rounds):
        for critical, calm in zip(CRITICAL, CALM, strict=True):
            for text in (critical, calm):
                services.memory.store(f"{text} ({turn})", at=at, session="s")
                at += step
    return at


def critical_share(services: Services, query: str, now: datetime, *, on: bool) -> float:
    services.memory.triage = on
    items = services.memory.recall(query, now=now, limit=8).items
    assert items
    return sum(any(m in item.text.lower() for m in CRITICAL_MARK) for item in items) / len(items)


def test_alpha_is_a_smooth_sigmoid_of_the_load() -> None:
    alphas = [triage.sigmoid_alpha(lam) for lam in (0, 2, 4, 8, 12, 20)]
    assert alphas == sorted(alphas) and alphas[3] == pytest.approx(0.5)
    assert alphas[0] < 0.001 and alphas[-1] > 0.999
    assert triage.Load(0, 0, 0.0, 0.04).weight == 0.0
    assert triage.Load(0, 0, 0.0, 1.0).weight == 1.0
    assert 0 < triage.Load(0, 0, 0.0, 0.06).weight < 0.02, "continuous above the floor"


def test_criticality_comes_from_markers_and_words() -> None:
    calm = triage.criticality("sage green walls", important=False, open_=False, pinned=False)
    fever = triage.criticality("he has a fever", important=False, open_=False, pinned=False)
    both = triage.criticality("fever, deadline tomorrow", important=False, open_=False, pinned=True)
    # pinned, health, deadline (0.6 each) and open ("deadline" is an open marker too, 0.5)
    assert calm == 0 and fever == pytest.approx(0.6) and both == pytest.approx(1 - 0.4**3 * 0.5)
    assert triage.criticality("У сына температура", important=False, open_=False, pinned=False)
    assert triage.kind("We decided to take the train instead") == "decided"
    assert triage.kind("Our flight was cancelled, deadline at noon") == "escalated"
    assert triage.kind("nice weather") is None


def test_a_busy_day_turns_triage_on_and_brings_critical_items_forward(data_dir: Path) -> None:
    services = services_at(data_dir)
    now = fill(services, start=MORNING, step=timedelta(minutes=2), rounds=4)
    load = triage.load(services.db, now=now)
    assert load.messages == 48 and load.open_items >= 16
    assert load.lam == pytest.approx((load.messages + load.open_items) / triage.WINDOW_HOURS)
    assert load.alpha > 0.9
    query = "any ideas for the living room and the garden?"
    off = critical_share(services, query, now, on=False)
    on = critical_share(services, query, now, on=True)
    assert on > off, (on, off)
    assert on >= 0.75


def test_a_normal_day_leaves_recall_exactly_as_it_was(data_dir: Path) -> None:
    services = services_at(data_dir)
    now = fill(services, start=MORNING, step=timedelta(hours=3), rounds=2)
    load = triage.load(services.db, now=now)
    assert load.alpha < triage.ALPHA_FLOOR and load.weight == 0
    for query in ("any ideas for the living room and the garden?", "flight rebooking"):
        services.memory.triage = False
        off = services.memory.recall(query, now=now, limit=8).items
        services.memory.triage = True
        assert services.memory.recall(query, now=now, limit=8).items == off


def test_under_triage_the_digest_is_a_timeline(data_dir: Path) -> None:
    services = services_at(data_dir)
    now = fill(services, start=MORNING, step=timedelta(minutes=2), rounds=4)
    decided = "We decided to take the night train to Lisbon instead"
    services.memory.store(decided, at=now, session="s")
    found = digest.build(services.db, session="other", now=now, zone=UTC)
    assert found.timeline and not any("sunrise" in entry for entry in found.timeline)
    assert found.timeline[-1].endswith(f"decided: “{decided}”")
    assert any(" escalated: “Our flight to Lisbon" in e for e in found.timeline)
    assert any("(follows from " in e for e in found.timeline)
    text = found.markdown(UTC)
    assert "A busy day, in order:" in text and "Still open:" not in text
    calm = digest.build(services.db, session="other", now=now + timedelta(days=1), zone=UTC)
    assert calm.timeline == [] and calm.open_items


def test_stats_reports_alpha_and_lambda(data_dir: Path) -> None:
    services = services_at(data_dir)
    now = fill(services, start=MORNING, step=timedelta(minutes=2), rounds=4)
    services.close()
    busy = json.loads(run_cli("--now", now.isoformat(), "stats", "--json").stdout)
    calm = json.loads(
        run_cli("--now", (now + timedelta(days=2)).isoformat(), "stats", "--json").stdout
    )
    assert busy["messages"] == 48 and busy["alpha"] > 0.9 and busy["lambda"] > 8
    assert calm["lambda"] == 0 and calm["alpha"] < 0.001
    text = run_cli("--now", now.isoformat(), "stats").stdout.decode()
    assert "triage         α 0.9" in text
