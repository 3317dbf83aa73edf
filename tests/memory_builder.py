"""A memory with every tier populated, built the way a user builds one: by chatting
over simulated months, with the nightly compactor moving blocks down.

Each tier gets a distinctive marker word, so erasure and export tests can find (or
prove the absence of) exactly what was planted.
"""

from __future__ import annotations

from datetime import timedelta

from aniso.core.clock import SimulatedClock
from aniso.services import Services

COLD = [
    "My old bicycle Zqxcoldmark is green and has a leather saddle",
    "The bicycle was bought on Baker Street in 2019 for my birthday",
    "I rode the bicycle Zqxarchmark to the lake every summer",
]
WARM = [
    "Planning a trip to Porto Zqxwarmmark in spring with my sister Anna",
    "For Porto we want a hotel near the river, around 90 euros a night",
    "Anna wants to see the Porto bookshop Lello on the trip",
]
HOT = [
    "My new sourdough starter Zqxhotmark smells sour and bubbles nicely",
    "Feeding the sourdough starter twice a day with rye flour",
]
PROFILE = "I love Zqxprofmark"
KEEP = "My favourite tea is jasmine green tea from Fujian"
MARKERS = {
    "cold": b"zqxcold",
    "archived": b"zqxarch",
    "warm": b"zqxwarm",
    "hot": b"zqxhot",
    "profile": b"zqxprof",
}


def compact(services: Services, clock: SimulatedClock) -> None:
    services.compactor().run(clock())


def populate(services: Services, clock: SimulatedClock) -> dict[str, int]:
    """Chat over 130 simulated days; returns the block id of each tier's topic."""
    send = services.assistant.send
    for text in COLD:
        send(text)
    clock.advance(timedelta(days=100))
    for text in WARM:
        send(text)
    clock.advance(timedelta(days=30))
    compact(services, clock)
    send(PROFILE)
    clock.advance(timedelta(hours=8))
    send(KEEP)
    clock.advance(timedelta(hours=8))
    for text in HOT:
        send(text)
    db = services.db

    def block_of(text: str) -> int:
        return db.execute("SELECT block_id FROM episodes WHERE user_text = ?", [text]).fetchone()[0]

    (cold,) = db.execute("SELECT id FROM blocks WHERE tier = 'cold'").fetchone()
    (warm,) = db.execute("SELECT id FROM blocks WHERE tier = 'warm'").fetchone()
    return {
        "cold": cold,
        "warm": warm,
        "hot": block_of(HOT[1]),
        "profile": block_of(PROFILE),
        "keep": block_of(KEEP),
    }
