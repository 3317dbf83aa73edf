"""Push refresh of open threads: urgency, interval, the brief, and the return after a pause."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import threads
from aniso.tiers.threads import interval_hours, urgency


def session(clock: SimulatedClock, **overrides: object) -> Services:
    return build(load_settings({"model": "fake/scripted", **overrides}), clock=clock)


VISA = (
    "My visa application is stuck: the visa centre has not answered",
    "The embassy called: the visa centre lost my application",
)
CAR = (
    "The car doesn't work: the car battery dies every morning",
    "The garage called: the car alternator is broken. Buy a used one?",
)


def open_thread(clock: SimulatedClock, opening: str, news: str, **overrides: object) -> Services:
    """A session with a problem, then news on it 8 hours later (another conversation)."""
    services = session(clock, **overrides)
    services.assistant.send(opening)
    clock.advance(timedelta(hours=8))
    services.assistant.send(news)
    return services


def test_urgency_saturates_and_the_interval_stays_within_a_day_and_a_week() -> None:
    assert urgency(0, 0, 0) == 0
    assert urgency(3, 2, 72) == pytest.approx(0.5)  # every signal at its half point
    assert urgency(10**6, 10**6, 10**9) == pytest.approx(1, abs=1e-5)
    assert urgency(2, 0, 0) < urgency(3, 0, 0) < urgency(3, 1, 0) < urgency(3, 1, 5)
    assert interval_hours(0) == 168 and interval_hours(1) == 24
    assert interval_hours(0.5) == pytest.approx(96)
    assert interval_hours(-1) == 168 and interval_hours(2) == 24


def test_a_thread_the_user_keeps_returning_to_grows_urgent(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    services.assistant.send("My printer doesn't work: the Brother printer jams on every page")
    seen = []
    for day in range(1, 4):
        clock.advance(timedelta(days=1))
        services.assistant.send(f"Day {day}: the Brother printer jams again, paper stuck")
        [thread] = [t for t in services.refresher.listing() if "Brother" in t.label]
        seen.append((thread.n, thread.r, round(thread.u, 4), thread.tau_hours))
    us = [u for _, _, u, _ in seen]
    taus = [tau for *_, tau in seen]
    assert us == sorted(us) and len(set(us)) == 3, seen
    assert taus == sorted(taus, reverse=True) and all(24 <= tau <= 168 for tau in taus), seen
    assert [(n, r) for n, r, _, _ in seen] == [(1, 1), (2, 2), (3, 3)]


def test_the_brief_says_what_moved_in_words_and_leads_the_reply_after_a_pause(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    clock.advance(timedelta(hours=8))
    services.assistant.send("Lotus Flow yoga classes start at 7 am on Tuesdays")
    clock.advance(timedelta(hours=4))  # the same day: not yet a return after a pause
    services.assistant.send("The plumber says the boiler pressure valve may be worn. Why now?")
    clock.advance(timedelta(days=14))
    assert services.refresher.run() >= 1  # the two-week pause: the brief fell due
    [thread] = services.refresher.listing()
    assert thread.label.startswith("“The boiler doesn't work")
    assert "plumber says the boiler pressure valve" in thread.brief
    assert "Why now?" in thread.brief and "yoga" not in thread.brief
    assert not threads.has_ids(thread.brief)

    reply = services.assistant.send("Back to the boiler: the pressure dropped again")
    assert [brief.label for brief in reply.briefs] == [thread.label]
    system = llm.last_messages[0]["content"]
    assert "## Where we left off" in system
    assert "> Open since" in system and "plumber says" in system
    again = services.assistant.send("And the boiler pressure gauge reads 0.5 bar now")
    assert again.briefs == (), "once seen, the brief does not repeat without a pause"


def test_no_brief_without_a_pause(llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path) -> None:
    services = session(clock)
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    clock.advance(timedelta(hours=7))
    reply = services.assistant.send("The boiler pressure is fine this evening")
    assert reply.briefs == ()


def test_a_capable_model_writes_the_brief_and_a_brief_with_ids_is_refused(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock, llm_extraction="on")
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    clock.advance(timedelta(days=8))
    llm.reply("The boiler still loses pressure at night; nothing new since you left it.")
    assert services.refresher.run() == 1
    [thread] = services.refresher.listing()
    assert (thread.source, thread.brief) == (
        "llm",
        "The boiler still loses pressure at night; nothing new since you left it.",
    )
    prompt = llm.calls[-1].messages
    assert "Never mention ids" in prompt[0]["content"]
    assert "Open since" in prompt[1]["content"]

    clock.advance(timedelta(days=8))
    llm.reply("See block 1 for the boiler.")
    assert services.refresher.run() == 1
    [thread] = services.refresher.listing()
    assert thread.source == "extractive" and "block 1" not in thread.brief


def test_the_brief_passes_the_privacy_guard(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock, llm_extraction="on")
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    clock.advance(timedelta(days=8))
    llm.reply("Boiler still broken; the engineer's card is 4111 1111 1111 1111.")
    services.refresher.run()
    brief = services.db.execute("SELECT brief FROM threads").fetchone()[0]
    assert "4111" not in brief and "[CREDIT_CARD]" in brief


def test_forget_drops_the_thread_and_rewrites_every_brief(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    from aniso.data.forget import forget, plan_search

    services = open_thread(
        clock,
        "The boiler doesn't work, the boiler pressure drops every night",
        "Zqxmark: the boiler pressure dropped to zero again",
    )
    clock.advance(timedelta(days=8))
    services.refresher.run()
    assert "Zqxmark" in services.db.execute("SELECT brief FROM threads").fetchone()[0]
    forget(services, plan_search(services.db, "Zqxmark"), remove_profile=False)
    assert services.db.execute("SELECT brief FROM threads").fetchall() == [("",)]
    services.refresher.run()
    [thread] = services.refresher.listing()
    assert thread.brief and "Zqxmark" not in thread.brief
    forget(services, plan_search(services.db, "boiler"), remove_profile=False)
    assert services.db.execute("SELECT count(*) FROM threads").fetchone()[0] == 0


def test_a_resolved_problem_is_no_longer_a_thread(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    assert len(services.refresher.listing()) == 1
    services.assistant.send("Fixed it, the boiler works now")
    assert services.refresher.listing() == []


def test_model_failure_falls_back_to_the_extractive_brief(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock, llm_extraction="on", llm_retries=0)
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    clock.advance(timedelta(days=8))
    llm.reply(RuntimeError("model down"))
    assert services.refresher.run() == 1
    [thread] = services.refresher.listing()
    assert thread.source == "extractive" and thread.brief.startswith("Open since")
    assert "Never mention ids" in llm.calls[-1].messages[0]["content"], "the model was asked"


def test_a_short_return_naming_the_problem_touches_and_a_common_word_does_not(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = open_thread(clock, *VISA)
    clock.advance(timedelta(days=3))
    unrelated = services.assistant.send("The answer to the crossword was easy today")
    assert unrelated.briefs == (), "'answer' is said once on the thread: a common word"
    [thread] = services.refresher.listing()
    assert thread.r == 1, "only the embassy's call mentions the visa elsewhere"
    clock.advance(timedelta(days=11))
    back = services.assistant.send("Still waiting on the visa")
    assert [brief.label for brief in back.briefs] == [thread.label]
    assert "lost my application" in back.briefs[0].text


def test_a_passing_mention_is_news_not_a_look(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    """Recall brings the thread into the replies to later chats about the car, and
    briefs shown on them are looks; with push refresh off none is shown, so the
    thread's Δt shows that neither the chats nor the recalls pulled it. Either way
    the brief at the return still says what the garage found."""
    for push in (False, True):
        start = clock()
        services = open_thread(clock, *CAR, push_refresh=push, data_dir=str(data_dir / str(push)))
        for chat in ("I washed the car today", "The car insurance went up", "Parking the car"):
            clock.advance(timedelta(days=1))
            services.assistant.send(chat)
        [first] = [t for t in services.refresher.listing() if "battery dies" in t.label]
        assert first.r >= 3, "the chats about the car are mentions of it"
        if not push:
            assert first.last_pulled == start and first.dt_hours >= 3 * 24
    clock.advance(timedelta(days=7))
    back = services.assistant.send("Back to the car: the battery died again this morning")
    [brief] = [b for b in back.briefs if "battery dies" in b.label]
    assert "alternator is broken" in brief.text and "Buy a used one?" in brief.text
