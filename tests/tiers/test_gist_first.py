"""Gist first (DESIGN §3): an old hit is shown shallow and stays where it is; only a
signal ("tell me more about that" after the gist) unpacks it deeply."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build, make_compactor
from aniso.tiers import gist, unpack, unpack_state
from aniso.tiers.blocks import GAP
from aniso.tiers.model import MemoryItem, Quote, quoted

YOGA = [
    "My yoga studio is Lotus Flow on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays with Marta",
    "Marta says the Lotus Flow yoga studio will open a second room in Lisbon",
]
OTHER = [
    "I need to repaint the kitchen cabinets this weekend",
    "Which paint works best on old oak cabinets?",
]


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def cold_yoga(services: Services, clock: SimulatedClock) -> int:
    for text in YOGA:
        services.assistant.send(text)
    clock.advance(timedelta(days=2))
    for text in OTHER:
        services.assistant.send(text)
    compactor = make_compactor(services)
    for _ in range(120):
        clock.advance(timedelta(days=1))
        compactor.run(clock())
    block, tier = services.db.execute("SELECT id, tier FROM blocks ORDER BY id LIMIT 1").fetchone()
    assert tier == "cold"
    return int(block)


def state(services: Services, block: int) -> tuple[str, str, int]:
    tier, status, uses = services.db.execute(
        "SELECT tier, status, access_count FROM blocks WHERE id = ?", [block]
    ).fetchone()
    return tier, status, uses


def test_a_passing_mention_shows_the_capsule_and_changes_nothing(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    before = state(services, block)
    services.assistant.send("I walked past Lotus Flow yoga in Lisbon today")
    assert services.controller.restored == []
    shown = [item for item in services.controller.last_context if item.block_id == block]
    assert [item.form for item in shown] == ["gist"]
    # The turns it quotes name the place; anchors the message did not name stay out.
    assert shown[0].quotes and "Lotus Flow" in shown[0].text
    anchors = services.db.execute("SELECT anchors FROM blocks WHERE id = ?", [block]).fetchone()
    unasked = [a for a in json.loads(anchors[0]) if a not in ("Lotus Flow", "Lisbon")]
    mentioned = [line for line in shown[0].text.splitlines() if line.startswith("Mentioned:")]
    assert unasked and not any(a in line for line in mentioned for a in unasked)
    assert state(services, block) == before, "no restore, and a gist shown is no use"


def test_tell_me_more_about_that_unpacks_the_gist_shown_last(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    services.assistant.send("I walked past Lotus Flow yoga in Lisbon today")
    clock.advance(timedelta(minutes=2))
    services.assistant.send("tell me more about that")
    (restored,) = services.controller.restored
    assert restored.old_block == block and restored.episodes == len(YOGA)
    assert state(services, block)[1] == "restored"
    assert state(services, restored.new_block)[0] == "hot"
    restores = services.db.execute("SELECT detail FROM tier_events WHERE kind = 'restore'")
    assert [json.loads(row[0])["new_block"] for row in restores] == [restored.new_block]


def test_a_capsule_names_its_anchors_and_what_matched() -> None:
    text = gist.render(
        "That was about a trip, in May 2026.", ["tram", "museum"], ["Lisbon", "Porto"], "Porto tram"
    )
    assert text.splitlines() == [
        "That was about a trip, in May 2026.",
        "Mentioned: Porto, Lisbon.",
        "Matched: tram, Porto.",
    ]


def test_a_capsule_with_quotes_names_only_the_anchors_asked_about() -> None:
    """The quoted turns say what matched; an anchor beside them costs tokens of the
    budget the other memories need, unless the question named it."""
    quote = Quote(episode_id=3, at=datetime(2026, 5, 2, tzinfo=UTC), text="The tram to Porto")
    text = gist.render(
        "That was about a trip, in May 2026.", ["tram"], ["Lisbon", "Porto"], "Porto tram", [quote]
    )
    assert text.splitlines() == [
        "That was about a trip, in May 2026.",
        "Mentioned: Porto.",
        'Said on 2026-05-02: "The tram to Porto"',
    ]
    bare = gist.render("That was about a trip.", [], ["Lisbon"], "what tram", [quote])
    assert "Mentioned" not in bare


def test_a_gists_lead_a_quote_says_in_full_is_not_said_twice() -> None:
    """The extractive gist leads with its block's most telling sentence, often the turn
    a question matched; quoted below it, that turn would cost its tokens twice."""
    at = datetime(2024, 1, 9, tzinfo=UTC)
    frame = "That was about 10k, in January 2024:"
    lead = 'Tom: You said "never again" after that 10K in October.'
    quote = Quote(episode_id=3, at=at, text=f"Ha. {lead}  Still sore.")
    assert gist.render(f"{frame} {lead}", [], [], "10k race", [quote]).splitlines() == [
        "That was about 10k, in January 2024.",
        'Said on 2024-01-09: "Ha. Tom: You said "never again" after that 10K in October.  '
        'Still sore."',
    ]
    # Clipped to the gist's length, the lead is the start of the quoted sentence; the
    # gist's spaces are squeezed, the turn's are as typed.
    clipped = gist.render(f'{frame} Tom: You said  "never…', [], [], "", [quote])
    assert clipped.splitlines()[0] == "That was about 10k, in January 2024."


@pytest.mark.parametrize(
    ("lead", "quoted_text"),
    [
        # Another turn quoted, or words inside another sentence: the lead stays.
        ("I am moving to Berlin in May.", "My sister thinks I am moving to Berlin in May."),
        ("10 people came to the party.", "Sorry, 110 people came to the party."),
        ("Signed up for the race.", "Signed up for the race in spring."),
        # Too short to be told apart from any turn's words.
        ("Yes.", "Yes."),
    ],
)
def test_a_gists_lead_stays_unless_a_quote_says_that_sentence(lead: str, quoted_text: str) -> None:
    quote = Quote(episode_id=4, at=datetime(2024, 1, 9, tzinfo=UTC), text=quoted_text)
    kept = f"That was about party, in January 2024: {lead}"
    assert gist.render(kept, [], [], "party", [quote]).splitlines()[0] == kept


def test_an_llm_gist_is_kept_whole_beside_its_quotes() -> None:
    """Only the extractive gist is a frame and a lead; an LLM's colon is its own."""
    quote = Quote(episode_id=4, at=datetime(2024, 1, 9, tzinfo=UTC), text="Has a dog named Max.")
    assert gist.render("Pets: Has a dog named Max.", [], [], "dog", [quote]).startswith(
        "Pets: Has a dog named Max.\n"
    )
    assert gist.render(": Has a dog named Max.", [], [], "dog", [quote]).startswith(": Has")


def test_a_turn_shown_alone_keeps_its_own_form_and_words(
    services: Services, clock: SimulatedClock
) -> None:
    """A further archived turn at its own rank is shown as its quote, once, beside
    its block's capsule; the capsule still appears once."""
    block = cold_yoga(services, clock)
    quote = Quote(episode_id=2, at=clock(), text=YOGA[1], ref="D1:2")
    capsule = MemoryItem(block_id=block, tier="cold", at=clock(), text="g", tokens=1, score=2.0)
    alone = MemoryItem(
        block_id=block, tier="cold", at=clock(), text=quoted([quote]), tokens=20, score=1.0,
        quotes=(quote,), alone=True,
    )  # fmt: skip
    shown = gist.present(services.db, "classes", [capsule, capsule, alone])
    assert [item.alone for item in shown] == [False, True]
    assert shown[1].text == f'Said on {clock().date().isoformat()}: "{YOGA[1]}"'
    assert shown[1].form == "gist" and shown[1].refs == ("D1:2",)


def test_a_turn_shown_alone_does_not_hide_what_its_gist_quotes(
    services: Services, clock: SimulatedClock
) -> None:
    """Whether a gist can answer reads every quote of its block in the top items, the
    gist's and those shown alone: the gist's quote answers, so nothing is restored."""
    block = cold_yoga(services, clock)

    def said(number: int, text: str) -> Quote:
        return Quote(episode_id=number, at=clock(), text=text)

    capsule = MemoryItem(
        block_id=block, tier="cold", at=clock(), text="g", tokens=1, score=2.0,
        quotes=(said(2, YOGA[1]),),
    )  # fmt: skip
    alone = replace(capsule, score=1.0, quotes=(said(3, "the mat is blue"),), alone=True)
    question = "when do the Lotus Flow yoga classes start?"
    chosen, _ = unpack.choose(services.memory, question, [capsule, alone], set())
    assert chosen == []
    # Without the gist's quote the block cannot answer, and it is restored.
    chosen, _ = unpack.choose(services.memory, question, [replace(capsule, quotes=())], set())
    assert chosen == [block]


def test_the_state_of_the_last_turn_expires_after_a_gap(
    services: Services, clock: SimulatedClock
) -> None:
    shown = unpack_state.UnpackState(last_gist=[4], window=[4], context=[{"block_id": 4}])
    unpack_state.save(services.db, shown, at=clock())
    assert unpack_state.load(services.db, now=clock() + timedelta(hours=1)) == shown
    assert unpack_state.load(services.db, now=clock() + GAP + timedelta(minutes=1)) == (
        unpack_state.UnpackState()
    )


def test_a_miss_record_holds_what_another_process_injected(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    def turn(text: str) -> list[dict]:
        """One message in a fresh process (a session of its own), as `aniso ask`."""
        clock.advance(timedelta(minutes=1))
        services = build(load_settings({"model": "fake/scripted"}), clock=clock)
        services.assistant.send(text)
        injected = unpack_state.brief(services.controller.last_context)
        services.close()
        return injected

    turn("I am vegetarian and I cook a lot of lentil soup")
    injected = turn("What soup should I cook tonight?")
    assert injected, "the previous turn injected the lentil soup"
    turn("I already told you I'm vegetarian")
    check = build(load_settings({"model": "fake/scripted"}), clock=clock)
    (detail,) = check.db.execute("SELECT detail FROM audit WHERE kind = 'miss'").fetchone()
    assert json.loads(detail)["injected"] == injected
    check.close()


def test_a_gist_quotes_the_archived_turn_that_answers_and_stays_cold(
    services: Services, clock: SimulatedClock
) -> None:
    """The turn that matched is shown word for word inside the gist: the question is
    answered while the block stays packed, and nothing is restored."""
    block = cold_yoga(services, clock)
    result = services.memory.recall("when do the Lotus Flow classes start?", now=clock())
    shown = [
        item for item in gist.present(services.db, "when do the classes start?", result.items)
        if item.block_id == block
    ]  # fmt: skip
    assert shown and shown[0].form == "gist"
    quoted = [quote.text for quote in shown[0].quotes]
    assert YOGA[1] in quoted, quoted
    assert f'"{YOGA[1]}"' in shown[0].text and shown[0].tokens > len(YOGA[1]) // 8
    assert state(services, block)[:2] == ("cold", "active")


def test_a_gist_quotes_nothing_the_question_does_not_touch(
    services: Services, clock: SimulatedClock
) -> None:
    block = cold_yoga(services, clock)
    items = services.memory.recall("kitchen cabinets paint", now=clock()).items
    assert all(not item.quotes for item in items if item.block_id == block)
