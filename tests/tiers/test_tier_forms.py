"""What compression keeps: the standard cold capsule, the guard on summaries, and a
restored block that the profile has since contradicted."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.db import transaction
from aniso.core.settings import load_settings
from aniso.core.tokens import count_tokens
from aniso.services import Services, build, make_compactor
from aniso.tiers.summarize import CAPSULE_ANCHORS, GIST_WORDS, MAX_KEYWORDS, capsule, extractive
from aniso.tiers.text import anchors, stems


@pytest.fixture
def services(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> Services:
    return build(load_settings({"model": "fake/scripted"}), clock=clock)


def nights(services: Services, clock: SimulatedClock, days: int) -> None:
    compactor = make_compactor(services)  # wired like the app: the guard on summaries
    for _ in range(days):
        clock.advance(timedelta(days=1))
        compactor.run(clock())


LONG_THREAD = [
    f"Day {n} of the kitchen renovation: {name} from Porto fixed the {part} for {n * 40} euros "
    f"and we argued about the {other} and the grout colour again on {n} March."
    for n, (name, part, other) in enumerate(
        [
            ("Anna", "sink", "tiles"),
            ("Boris", "cabinet doors", "backsplash"),
            ("Carla", "oven", "lighting"),
            ("Dmitri", "countertop", "paint samples"),
            ("Elena", "floor", "skirting boards"),
            ("Farid", "window", "extractor hood"),
        ],
        start=2,
    )
]


def test_capsule_is_standard_and_compact() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    forms = extractive(LONG_THREAD * 4, start=at, end=at).capsule()
    assert forms.gist.startswith("That was about") and "March 2026" in forms.gist
    assert len(forms.gist.split()) <= GIST_WORDS + 1  # the "…" of a cut lead
    assert len(forms.keywords) <= MAX_KEYWORDS and len(forms.anchors) <= CAPSULE_ANCHORS
    gist_stems = set(stems(forms.gist))
    assert not [k for k in forms.keywords if set(stems(k)) <= gist_stems], "no gist repeats"
    lowered = [a.lower() for a in forms.anchors]
    assert len(set(lowered)) == len(lowered) and not [a for a in lowered if a in forms.gist.lower()]
    hot_form = count_tokens(" ".join(LONG_THREAD * 4))
    searchable = count_tokens(" ".join([forms.gist, *forms.keywords, *forms.anchors]))
    assert searchable <= 0.1 * hot_form, (searchable, hot_form)


def test_a_speakers_first_word_is_no_anchor() -> None:
    """A turn replayed as "Name: text" starts its sentence after the colon, as a line
    does: "Excited", "Yep" and "Stressful" there are not names (they filled capsules'
    "Mentioned:" lines), while a name inside a sentence still is."""
    found = anchors("Tom: Excited. A bit nervous about moving with Elena.\nYep: Stressful")
    assert found == ["Elena"]
    assert anchors("The plan: Meet at Lotus Flow with Marta") == ["Lotus Flow", "Marta"]


def test_capsule_bounds_llm_output_too() -> None:
    gist, keywords, anchors = capsule(
        "That was about yoga at Lotus Flow in May. Marta taught it. It was early. And more.",
        ["yoga", "Yoga", "teacher", "Lotus", "mornings", *[f"word{i}" for i in range(20)]],
        ["Marta", "marta", "May", "7 am", "Rua Augusta", "Lisbon", "Tuesday", "Thursday", "3"],
    )
    assert gist == "That was about yoga at Lotus Flow in May. Marta taught it."
    assert keywords[:2] == ["teacher", "mornings"] and len(keywords) == MAX_KEYWORDS
    assert anchors == ["7 am", "Rua Augusta", "Lisbon", "Tuesday", "Thursday", "3"]


def test_capsule_keeps_a_name_that_is_also_a_keyword() -> None:
    gist, keywords, anchors = capsule(
        "That was about a trip, in May 2026: we walked a lot.",
        ["lisbon", "tram", "porto"],
        ["Lisbon", "Porto", "12 May"],
    )
    assert anchors == ["Lisbon", "Porto", "12 May"], "names survive as anchors"
    assert keywords == ["tram"], "the lower-case repeats of the names go instead"


def test_cold_block_is_found_by_its_capsule(services: Services, clock: SimulatedClock) -> None:
    for text in LONG_THREAD:
        services.assistant.send(text)
    nights(services, clock, 100)
    tier, summary, keywords, anchors = services.db.execute(
        "SELECT tier, summary, keywords, anchors FROM blocks ORDER BY id LIMIT 1"
    ).fetchone()
    assert tier == "cold" and len(json.loads(keywords)) <= MAX_KEYWORDS
    assert 0 < len(json.loads(anchors)) <= CAPSULE_ANCHORS
    assert len(summary.split()) <= GIST_WORDS + 1
    found = services.controller.memory.recall("kitchen renovation grout", now=clock()).items
    assert found and found[0].tier == "cold" and found[0].text == summary


STEAK = [
    "I love steak, a rare steak is my favourite dinner",
    "We had steak at the Porto grill house on Friday, the steak was perfect",
]


def test_restored_block_loses_to_the_profile(services: Services, clock: SimulatedClock) -> None:
    for text in STEAK:
        services.assistant.send(text)
    nights(services, clock, 100)
    assert services.db.execute("SELECT tier FROM blocks ORDER BY id LIMIT 1").fetchone() == (
        "cold",
    )
    services.assistant.send("I became a vegetarian, no more meat for me")
    clock.advance(timedelta(hours=1))
    services.assistant.send("Tell me more about the steak dinners at the Porto grill house")
    (restored,) = services.controller.restored
    assert restored.episodes == len(STEAK)
    context = services.controller.last_context
    steak = [item for item in context if item.block_id == restored.new_block]
    assert steak and all(item.outdated for item in steak), context
    prompt = services.controller.assemble(
        services.controller.observe("What should I cook tonight?"), steak
    )[0]["content"]
    assert "vegetarian" in prompt.split("## Memories")[0], "the profile comes first"
    assert prompt.count("OUTDATED: superseded by the profile") == len(steak)
    blocks_used = services.db.execute(
        "SELECT access_count FROM blocks WHERE id = ?", [restored.new_block]
    ).fetchone()
    assert blocks_used == (0,), "an outdated memory is never counted as used"


PII = {
    "card": "4111 1111 1111 1111",
    "email": "olga.petrova@example.com",
    "phone": "+7 916 123-45-67",
}


def test_compaction_summaries_pass_the_guard(
    services: Services, clock: SimulatedClock, data_dir: Path
) -> None:
    for text in LONG_THREAD[:3]:
        services.assistant.send(text)
    # Text written before the guard knew a pattern, or by an import, may still hold
    # a value: the extractive summariser must not carry it into the searchable forms.
    with transaction(services.db):
        services.db.execute(
            "UPDATE episodes SET user_text = replace(user_text, ' fixed the ', ?)",
            [f" (card {PII['card']}, mail {PII['email']}, phone {PII['phone']}) fixed the "],
        )
    clock.advance(timedelta(days=30))
    make_compactor(services).run(clock())
    warm = services.db.execute("SELECT summary, keywords, anchors FROM blocks").fetchall()
    assert warm and not [v for v in PII.values() if v in json.dumps(warm, ensure_ascii=False)]
    # And whatever a model writes passes the guard too.
    services.settings = services.settings.model_copy(update={"llm_extraction": "on"})
    leaky = {
        "summary": f"Kitchen works; card {PII['card']}.",
        "gist": f"That was about the kitchen, mail {PII['email']}.",
        "keywords": ["kitchen", PII["email"]],
        "anchors": [PII["phone"], "Porto"],
    }
    services.gateway.complete = lambda request: json.dumps(leaky)  # type: ignore[method-assign]
    clock.advance(timedelta(days=70))
    report = make_compactor(services).run(clock())
    assert [m["source"] for m in report.moved] == ["llm"]
    cold = services.db.execute("SELECT summary, keywords, anchors FROM blocks").fetchall()
    assert cold and not [v for v in PII.values() if v in json.dumps(cold, ensure_ascii=False)]
    searchable = services.db.execute("SELECT * FROM block_fts").fetchall()
    assert not [v for v in ("4111", "olga", "916") if v in json.dumps(searchable)]
