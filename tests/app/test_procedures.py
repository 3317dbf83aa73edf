"""Reusable procedures: accepted answers reused and adapted, rejected ones never."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fakes import ScriptedLLM

from aniso.core.clock import SimulatedClock
from aniso.core.settings import load_settings
from aniso.services import Services, build
from aniso.tiers import procedures

PLAN = (
    "Here is your week:\n\n- Monday: vegetarian lentil curry\n- Tuesday: vegetarian pasta "
    "with spinach\n- Wednesday: vegetarian bean tacos"
)
HEADER = "## A plan the user accepted before"


def session(clock: SimulatedClock) -> Services:
    """The model writes the reply from a reused procedure (the mode for a capable model)."""
    return build(
        load_settings({"model": "fake/scripted", "procedure_replies": "model"}), clock=clock
    )


def system_of(llm: ScriptedLLM) -> str:
    return llm.last_messages[0]["content"]


def test_an_accepted_meal_plan_is_reused_a_week_later_adapted_to_a_new_diet(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    services.assistant.send("I'm vegetarian")
    llm.reply(PLAN)
    services.assistant.send("Can you make me a weekly meal plan?")
    assert HEADER not in system_of(llm), "nothing to reuse the first time"
    services.assistant.send("Thanks, perfect!")
    [kept] = procedures.listing(services.db, now=clock())
    assert (kept.kind, kept.uses, kept.params) == ("meal plan", 1, {"diet": ["vegetarian"]})
    assert kept.steps == [
        "Monday: {diet} lentil curry",
        "Tuesday: {diet} pasta with spinach",
        "Wednesday: {diet} bean tacos",
    ]

    clock.advance(timedelta(days=7))
    services.assistant.send("I became vegan last week")
    assert services.profile.current().as_values()["diet"] == ["vegan"]
    services.assistant.send("Make me a meal plan for the week please")
    system = system_of(llm)
    assert HEADER in system
    assert "> - Monday: vegan lentil curry" in system and "vegetarian lentil" not in system
    [used] = procedures.listing(services.db, now=clock())
    assert used.uses == 2 and used.weight > 1.0


def test_a_rejected_answer_is_never_reused(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    llm.reply("- swimsuit\n- sunscreen\n- passport")
    services.assistant.send("What should I pack for a ski trip? I need a packing list")
    services.assistant.send("That's wrong, not what I asked for")
    [kept] = procedures.listing(services.db, now=clock())
    assert kept.rejected and kept.uses == 0
    reuses = 0
    for day in range(1, 4):
        clock.advance(timedelta(days=day))
        services.assistant.send("Give me a packing list for the mountains")
        reuses += HEADER in system_of(llm)
    assert reuses == 0, "a rejected answer was offered again"
    assert procedures.best(services.db, "packing list", now=clock()) is None


def test_a_reused_answer_the_user_then_rejects_is_not_offered_again(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    llm.reply("1. Squats\n2. Push-ups\n3. Plank")
    services.assistant.send("Plan a workout for me")
    services.assistant.send("Thank you!")
    services.assistant.send("Plan a workout for me again")
    assert HEADER in system_of(llm)
    services.assistant.send("No, I don't like it")
    services.assistant.send("Plan a workout for tomorrow")
    assert HEADER not in system_of(llm)


def test_duplicates_merge_and_unused_links_decay(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = session(clock)
    for _ in range(2):
        llm.reply("- passport\n- charger\n- rain jacket\n- walking shoes")
        services.assistant.send("Make a packing list for my trip")
        services.assistant.send("Thanks!")
        clock.advance(timedelta(days=1))
    [merged] = procedures.listing(services.db, now=clock())
    assert merged.uses == 2
    fresh = merged.weight
    later = procedures.listing(services.db, now=clock() + timedelta(days=30))[0].weight
    assert later == pytest.approx(fresh / 2, rel=0.05)


def test_procedure_text_passes_the_guard_and_forget_erases_it(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    from aniso.data.forget import forget, plan_search

    services = session(clock)
    llm.reply("- book the hotel with card 4111 1111 1111 1111\n- print the Zqxtickets")
    services.assistant.send("Make me a trip checklist")
    services.assistant.send("Thanks")
    [kept] = procedures.listing(services.db, now=clock())
    assert "4111" not in " ".join(kept.steps)
    forget(services, plan_search(services.db, "trip checklist"), remove_profile=False)
    assert procedures.listing(services.db, now=clock()) == []
    assert services.db.execute("SELECT count(*) FROM procedure_links").fetchone()[0] == 0


def test_procedures_and_threads_round_trip_through_export_and_import(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path, tmp_path: Path
) -> None:
    from aniso.data.export import export_json
    from aniso.data.importer import write_document
    from aniso.data.reading import read_document

    services = session(clock)
    services.assistant.send("The boiler doesn't work, the boiler pressure drops every night")
    llm.reply(PLAN)
    services.assistant.send("Can you make me a weekly meal plan?")
    services.assistant.send("Thanks!")
    clock.advance(timedelta(days=8))
    services.refresher.run()
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    report = export_json(services.db, first)
    assert (report.threads, report.procedures) == (1, 1)
    imported = write_document(
        services.db,
        read_document(first),
        mode="replace",
        redact=services.redact_text,
        path=str(first),
        at=clock().isoformat(),
    )
    assert (imported.threads, imported.procedures) == (1, 1)
    export_json(services.db, second)
    assert second.read_bytes() == first.read_bytes()
    merged = write_document(
        services.db,
        read_document(first),
        mode="merge",
        redact=services.redact_text,
        path=str(first),
        at=clock().isoformat(),
    )
    assert merged.procedures == 1
    ids = [p.id for p in procedures.listing(services.db, now=clock())]
    assert sorted(ids) == [1, 2]
    links = services.db.execute(
        "SELECT procedure_id, episode_id FROM procedure_links ORDER BY procedure_id"
    ).fetchall()
    assert links[1][1] > links[0][1], "merged links point at the merged episodes"


def from_steps(clock: SimulatedClock) -> Services:
    return build(
        load_settings({"model": "fake/scripted", "procedure_replies": "steps"}), clock=clock
    )


def accepted(services: Services, llm: ScriptedLLM, answer: str, request: str) -> Services:
    """A vegetarian asks, gets `answer` and thanks for it: a procedure is kept."""
    services.assistant.send("I'm vegetarian")
    llm.reply(answer)
    services.assistant.send(request)
    services.assistant.send("Thanks, perfect!")
    return services


def test_a_covered_repeat_is_answered_from_the_steps_without_the_model(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = accepted(from_steps(clock), llm, PLAN, "Can you make me a weekly meal plan?")
    clock.advance(timedelta(days=7))
    services.assistant.send("I became vegan last week")
    calls = len(llm.calls)
    reply = services.assistant.send("Make me a weekly meal plan, please")
    assert len(llm.calls) == calls, "the model was asked for a plan the steps cover"
    assert reply.procedure is not None and reply.procedure.direct
    assert reply.text == (
        "Here is the meal plan you accepted before, adapted to your profile now "
        "(diet vegetarian → vegan):\n\n- Monday: vegan lentil curry\n"
        "- Tuesday: vegan pasta with spinach\n- Wednesday: vegan bean tacos"
    )
    [stored] = services.db.execute(
        "SELECT reply FROM episodes WHERE id = ?", [reply.episode_id]
    ).fetchone()
    assert stored == reply.text
    services.assistant.send("No, I don't like it")
    before = len(llm.calls)
    again = services.assistant.send("Make me a weekly meal plan, please")
    assert again.procedure is None, "a rejected reuse came back"
    assert len(llm.calls) == before + 1


def test_a_repeat_asking_for_more_goes_to_the_model_with_the_steps(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = from_steps(clock)
    llm.reply("- passport\n- ski jacket\n- gloves")
    services.assistant.send("Make me a packing list for a ski weekend")
    services.assistant.send("Thanks!")
    calls = len(llm.calls)
    same = services.assistant.send("Make me a packing list for a ski weekend again")
    assert same.procedure is not None and same.procedure.direct and len(llm.calls) == calls
    beach = services.assistant.send("Make me a packing list for the beach")
    assert beach.procedure is not None and not beach.procedure.direct
    assert len(llm.calls) == calls + 1 and HEADER in system_of(llm)


def test_a_russian_repeat_gets_a_russian_lead_in(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    services = from_steps(clock)
    llm.reply("1. Приседания\n2. Отжимания\n3. Планка")
    services.assistant.send("Составь мне тренировку на завтра")
    services.assistant.send("Спасибо!")
    reply = services.assistant.send("Составь мне тренировку на завтра")
    assert reply.text == (
        "Вот то, что вам подошло в прошлый раз (тренировка):\n\n- Приседания\n- Отжимания\n- Планка"
    )


def test_a_diet_change_no_step_names_sends_the_repeat_to_the_model(
    llm: ScriptedLLM, clock: SimulatedClock, data_dir: Path
) -> None:
    plan = "- Monday: omelette\n- Tuesday: cheese pasta"
    services = accepted(from_steps(clock), llm, plan, "Can you make me a weekly meal plan?")
    [kept] = procedures.listing(services.db, now=clock())
    assert kept.params == {"diet": ["vegetarian"]}, "the diet a meal plan relied on is kept"
    calls = len(llm.calls)
    unchanged = services.assistant.send("Can you make me a weekly meal plan?")
    assert unchanged.procedure is not None and unchanged.procedure.direct
    assert len(llm.calls) == calls
    services.assistant.send("I became vegan")
    before = len(llm.calls)
    changed = services.assistant.send("Can you make me a weekly meal plan?")
    assert changed.procedure is not None and not changed.procedure.direct
    assert len(llm.calls) == before + 1
    assert "profile changed (diet: vegetarian → vegan)" in system_of(llm)
