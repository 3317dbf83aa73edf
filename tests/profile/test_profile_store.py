"""ProfileStore: latest statement wins, history keeps everything, hand edits are recorded."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DAY0

from aniso.core.clock import SimulatedClock
from aniso.core.db import open_db, transaction
from aniso.core.errors import InputError
from aniso.profile import FIELDS, Op, Profile, ProfileDelta, ProfileStore, extract_rules
from aniso.profile.store import Change

HOUR = timedelta(hours=1)


@pytest.fixture
def store(data_dir: Path, clock: SimulatedClock) -> ProfileStore:
    return ProfileStore(open_db(data_dir), clock=clock)


def say(store: ProfileStore, clock: SimulatedClock, text: str, episode: int) -> list[Change]:
    clock.advance(HOUR)
    return store.apply(extract_rules(text), episode_id=episode, source="rules")


def rows(store: ProfileStore, field: str | None = None) -> list[tuple[object, ...]]:
    return [
        (r.field, r.value, r.source, r.source_episode, r.since, r.ended, r.ended_by_episode,
         r.ended_reason)
        for r in store.history(field)
    ]  # fmt: skip


def test_profile_fields_cover_the_registry() -> None:
    assert tuple(Profile.model_fields) == FIELDS
    with pytest.raises(ValueError):
        Profile.model_validate({"mood": None})


def test_a_diet_change_supersedes_an_earlier_liking(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    say(store, clock, "I love steak", 1)
    changes = say(store, clock, "Update: a week ago I stopped eating meat.", 2)
    assert [(c.kind, c.field, c.value, c.reason) for c in changes] == [
        ("started", "diet", "vegetarian", None),
        ("ended", "likes", "steak", "conflicts with diet 'vegetarian'"),
    ]
    assert rows(store) == [
        ("likes", "steak", "rules", 1, DAY0 + HOUR, DAY0 + 2 * HOUR, 2,
         "conflicts with diet 'vegetarian'"),
        ("diet", "vegetarian", "rules", 2, DAY0 + 2 * HOUR, None, None, None),
    ]  # fmt: skip
    assert store.current().values("likes") == []


def test_scalar_replacement_ends_the_old_value(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "бюджет низкий", 1)
    say(store, clock, "Апдейт: бюджет теперь высокий", 2)
    assert rows(store, "budget") == [
        ("budget", "low", "rules", 1, DAY0 + HOUR, DAY0 + 2 * HOUR, 2, "replaced by 'high'"),
        ("budget", "high", "rules", 2, DAY0 + 2 * HOUR, None, None, None),
    ]
    assert [r.value for r in store.superseded_values()] == ["low"]


def test_restating_a_value_writes_nothing(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "Я вегетарианка", 1)
    assert say(store, clock, "I'm vegetarian", 2) == []
    say(store, clock, "люблю йогу", 3)
    assert say(store, clock, "I love yoga", 4) == []
    say(store, clock, "время: будни после 19:00", 5)
    assert say(store, clock, "после 19:00", 6) == []
    assert len(store.history()) == 3


def test_latest_statement_wins_within_lists(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "I love sushi", 1)
    say(store, clock, "I hate sushi", 2)
    current = store.current()
    assert (current.values("likes"), current.values("dislikes")) == ([], ["sushi"])
    assert store.history("likes")[0].ended_reason == "now in dislikes"


def test_remove_ops(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "Мне нравится острое и я люблю буррито.", 1)
    say(store, clock, "Апдейт: острая еда больше не подходит", 2)
    say(store, clock, "I got sick", 3)
    say(store, clock, "I'm better now", 4)
    current = store.current()
    assert (current.values("likes"), current.value("spice"), current.value("health")) == (
        ["burritos"],
        "mild",
        None,
    )
    assert [(r.field, r.value, r.ended_by_episode) for r in store.superseded_values()] == [
        ("likes", "spicy food", 2),
        ("spice", "hot", 2),
        ("health", "sick", 4),
    ]


def test_entries_carry_provenance(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "Я вегетарианка", 7)
    diet = store.current().diet
    assert diet is not None
    assert diet.model_dump() == {
        "value": "vegetarian",
        "said": "вегетарианка",
        "since": DAY0 + HOUR,
        "source_episode": 7,
        "source": "rules",
    }
    stored = store.db.execute("SELECT value FROM profile_values").fetchone()[0]
    assert json.loads(stored) == {
        "value": "vegetarian",
        "said": "вегетарианка",
        "evidence": "Я вегетарианка",
    }


def test_hand_edits_are_recorded(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "бюджет низкий", 1)
    clock.advance(HOUR)
    assert [(c.kind, c.value) for c in store.set("budget", "high")] == [
        ("ended", "low"),
        ("started", "high"),
    ]
    store.set("diet", "вегетарианка")
    store.set("interests", "кино")
    store.set("interests", "chess")
    clock.advance(HOUR)
    assert [(c.kind, c.value, c.reason) for c in store.unset("interests", "film")] == [
        ("ended", "film", "unset by hand")
    ]
    store.unset("diet")
    assert rows(store) == [
        ("budget", "low", "rules", 1, DAY0 + HOUR, DAY0 + 2 * HOUR, None, "replaced by 'high'"),
        ("budget", "high", "hand", None, DAY0 + 2 * HOUR, None, None, None),
        ("diet", "vegetarian", "hand", None, DAY0 + 2 * HOUR, DAY0 + 3 * HOUR, None,
         "unset by hand"),
        ("interests", "film", "hand", None, DAY0 + 2 * HOUR, DAY0 + 3 * HOUR, None,
         "unset by hand"),
        ("interests", "chess", "hand", None, DAY0 + 2 * HOUR, None, None, None),
    ]  # fmt: skip
    assert [r.said for r in store.history("interests")] == ["кино", "chess"]


def test_unset_a_whole_list(store: ProfileStore, clock: SimulatedClock) -> None:
    say(store, clock, "люблю кино и йогу", 1)
    assert len(store.unset("interests")) == 2
    assert store.current().values("interests") == []
    assert store.unset("interests") == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("mood", "happy", "unknown profile field 'mood'; use one of: name, language"),
        ("diet", "keto-ish", "cannot read 'keto-ish' as a diet; use one of: pescatarian, vegan"),
        ("budget", "", "cannot read '' as a budget"),
    ],
)
def test_bad_hand_edits_say_how_to_fix_them(
    store: ProfileStore, field: str, value: str, message: str
) -> None:
    with pytest.raises(InputError) as error:
        store.set(field, value)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_unknown_field_in_history_and_unset(store: ProfileStore) -> None:
    with pytest.raises(InputError, match="unknown profile field"):
        store.history("mood")
    with pytest.raises(InputError, match="unknown profile field"):
        store.unset("mood")


def test_ops_keep_their_own_source(store: ProfileStore) -> None:
    delta = ProfileDelta(
        ops=(
            Op(kind="set", field="diet", value="vegan", source="llm"),
            Op(kind="add", field="interests", value="chess"),
        )
    )
    store.apply(delta, episode_id=3, source="rules")
    assert [(r.field, r.source) for r in store.history()] == [
        ("diet", "llm"),
        ("interests", "rules"),
    ]


def test_unknown_closed_value_is_skipped_not_stored(
    store: ProfileStore, caplog: pytest.LogCaptureFixture
) -> None:
    delta = ProfileDelta(ops=(Op(kind="set", field="budget", value="astronomical"),))
    with caplog.at_level(logging.WARNING):
        assert store.apply(delta, episode_id=1, source="llm") == []
    assert "not a known value" in caplog.text
    assert store.history() == []


def test_apply_joins_the_callers_transaction(store: ProfileStore, clock: SimulatedClock) -> None:
    with pytest.raises(RuntimeError), transaction(store.db):
        say(store, clock, "Я вегетарианка", 1)
        raise RuntimeError("the episode write failed")
    assert store.history() == []
    with transaction(store.db):
        say(store, clock, "Я вегетарианка", 1)
    assert store.current().values("diet") == ["vegetarian"]


def test_unknown_fields_written_by_a_newer_version_are_ignored(store: ProfileStore) -> None:
    store.db.execute(
        "INSERT INTO profile_values (field, value, since, source) VALUES (?, ?, ?, ?)",
        ["mood", '"cheerful"', DAY0.isoformat(), "llm"],
    )
    store.db.execute(
        "INSERT INTO profile_values (field, value, since, source) VALUES (?, ?, ?, ?)",
        ["diet", '"vegan"', DAY0.isoformat(), "import"],
    )
    assert store.current().values("diet") == ["vegan"]
    assert [r.field for r in store.history()] == ["diet"]


@pytest.mark.parametrize(
    ("note", "take_back"),
    [
        ("always include calories for any recipe", "you can stop with the calorie counts now"),
        ("can you show calories in recipes", "please stop showing calories, just the recipe"),
        ("Always include cooking time in recipes", "you can skip the cooking times now"),
        ("всегда указывай калорийность блюда", "калории больше не пиши, ем интуитивно теперь"),
        ("please include calories, i'm tracking", "i stopped tracking calories, it's too much"),
    ],
)
def test_a_note_taken_back_in_other_words_ends(
    store: ProfileStore, clock: SimulatedClock, note: str, take_back: str
) -> None:
    """A note is held in the user's words and taken back in others: a verb's other
    form ("stopped tracking", "stop showing", "can skip") and a word derived from the
    note's ("калории", "калорийность") end it."""
    from aniso.profile.delta import make_op
    from aniso.profile.slots import note_removals

    clock.advance(HOUR)
    noted = make_op("add", "notes", note, note)
    store.apply(ProfileDelta(ops=(noted,)), episode_id=1, source="rules")
    assert store.current().notes
    removals = note_removals(take_back)
    assert removals, take_back
    clock.advance(HOUR)
    store.apply(ProfileDelta(ops=tuple(p.op for p in removals)), episode_id=2, source="rules")
    assert store.current().notes == []


def test_a_take_back_leaves_an_unrelated_note(store: ProfileStore, clock: SimulatedClock) -> None:
    from aniso.profile.delta import make_op
    from aniso.profile.slots import note_removals

    note = "always add a packing list for trips"
    clock.advance(HOUR)
    noted = make_op("add", "notes", note, note)
    store.apply(ProfileDelta(ops=(noted,)), episode_id=1, source="rules")
    (removal,) = note_removals("you can stop showing calories now")
    store.apply(ProfileDelta(ops=(removal.op,)), episode_id=2, source="rules")
    assert len(store.current().notes) == 1


@pytest.mark.parametrize(
    ("take_back", "held"),
    [
        ("please stop showing calories", "please always reply in tables"),
        ("always skip the translations", "always add the transport options"),
        ("stop writing so formally", "always use the same format for recipes"),
        ("примеры больше не пиши", "всегда добавляй примечания к рецептам"),
    ],
)
def test_notes_that_share_only_filler_or_first_letters_are_apart(take_back: str, held: str) -> None:
    """Filler ("please", "always") is filler as written and as its English stem
    ("pleas", "alway"), and words that only begin alike ("translat"/"transport",
    "formal"/"format", "пример"/"примечан") name different things."""
    from aniso.profile.vocab import same_note

    assert not same_note(take_back, held)


@pytest.mark.parametrize(
    ("take_back", "held"),
    [
        ("калории больше не пиши", "всегда указывай калорийность блюда"),
        ("you can drop the calorie counts", "always include calories per serving"),
        ("you can skip the cooking times now", "Always include cooking time in recipes"),
    ],
)
def test_a_note_and_a_word_derived_from_it_are_one(take_back: str, held: str) -> None:
    from aniso.profile.vocab import same_note

    assert same_note(take_back, held)


@pytest.mark.parametrize(
    "take_back",
    [
        "early flights are totally fine, you can drop that rule",
        "ночные поезда теперь норм, можно снова предлагать",
        "так що про громадський забудь, пропонуй маршрути для авто",
        "нічні потяги вже норм, можна знову пропонувати",
        "the page count thing isn't needed anymore",
        "no need for page numbers anymore, the course is over",
        "you can use miles again, I moved to Ohio",
        "парковку можно больше не проверять, машину продали",
        "разделитель тысяч больше не нужен, отменяю",
        "подяку в кінці листів можна прибрати",
        "тривалість фільмів можна не писати, у мене відпустка",
    ],
)
def test_a_note_is_taken_back_in_more_words(take_back: str) -> None:
    from aniso.profile.slots import note_removals

    assert [p.op.kind for p in note_removals(take_back)] == ["remove"]
    for one_off in (  # the same words, said of one thing once
        "you can suggest that restaurant again, I liked it",
        "no need for a long answer, just tell me the time in Tokyo",
        "отменяю встречу в пятницу, перенеси на понедельник",
    ):
        assert note_removals(one_off) == [], one_off


@pytest.mark.parametrize(
    "text",
    [
        "не забудь всегда указывать цены в рублях",
        "не  забудь всегда указывать цены в рублях",
        "не забудь про калорийность, всегда пиши её",
        "ні, не забудь про калорійність, завжди пиши її",
        "stop with the emojis please",
        "from now on drop the intros",
        "every time you plan a trip, list the stops i could skip",
        "можно не здороваться каждый раз",
        "отменяю встречу, всегда напоминай мне за день",
        "no need for small talk, always get to the point",
    ],
)
def test_a_note_asked_for_is_not_taken_back(text: str) -> None:
    """ "Don't forget", leaving an element out and a standing word make a note asked for,
    though the sentence holds a take-back's words ("забудь про", "stop with", "skip")."""
    from aniso.profile.slots import note_removals, notes

    assert note_removals(text) == []
    assert [p.op.kind for p in notes(text)] == ["add"]


@pytest.mark.parametrize(
    ("take_back", "named", "other"),
    [
        (
            "night trains are totally fine now, you can suggest them again",
            "never suggest night trains",
            "never suggest recipes with mushrooms",
        ),
        (
            "ночные поезда теперь норм, можно снова предлагать",
            "никогда не предлагай ночные поезда",
            "никогда не предлагай блюда с грибами",
        ),
        (
            "нічні потяги вже норм, можна знову",
            "ніколи не пропонуй нічні потяги",
            "завжди пиши, чим можна замінити інгредієнт",
        ),
        (
            "про поезда забудь, летаю теперь",
            "никогда не предлагай ночные поезда",
            "для каждой поездки добавляй список вещей",
        ),
        (
            "you can skip the cooking times now",
            "Always include cooking time in recipes",
            "every time you suggest a dinner, add the calories",
        ),
    ],
)
def test_a_take_back_ends_only_the_note_it_names(
    store: ProfileStore, clock: SimulatedClock, take_back: str, named: str, other: str
) -> None:
    from aniso.profile.delta import make_op
    from aniso.profile.slots import note_removals

    clock.advance(HOUR)
    ops = tuple(make_op("add", "notes", note, note) for note in (named, other))
    store.apply(ProfileDelta(ops=ops), episode_id=1, source="rules")
    removals = note_removals(take_back)
    assert removals, take_back
    clock.advance(HOUR)
    store.apply(ProfileDelta(ops=tuple(p.op for p in removals)), episode_id=2, source="rules")
    assert [e.value for e in store.current().notes] == [other]


def test_a_take_back_that_names_two_notes_alike_ends_neither(
    store: ProfileStore, clock: SimulatedClock
) -> None:
    """A tie is no choice: the user is asked nothing and loses nothing."""
    from aniso.profile.delta import make_op
    from aniso.profile.slots import note_removals

    notes = ["always add calories to recipes", "always add calories to menus"]
    clock.advance(HOUR)
    store.apply(
        ProfileDelta(ops=tuple(make_op("add", "notes", n, n) for n in notes)),
        episode_id=1,
        source="rules",
    )
    (removal,) = note_removals("you can stop with the calories now")
    store.apply(ProfileDelta(ops=(removal.op,)), episode_id=2, source="rules")
    assert sorted(e.value for e in store.current().notes) == sorted(notes)


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("always include the price range", "notes"),
        ("never use emojis", "notes"),
        ("ужастики мне не предлагай никогда, я потом не сплю", "notes"),
        ("завжди пиши, скільки часу займе рецепт", "notes"),
        ("oh and always include the price range", "notes"),
        ("if I ask about flights, never book anything without asking", "notes"),
        ("в рецептах всегда граммы", "notes"),
        ("I want the calories listed every time", "notes"),
        ("я же говорил, всегда пиши калории", "notes"),
        ("I always fly U.S. carriers", "standing"),
        ("I always run on Sundays, you know", "standing"),
        ("I always run on Sundays, it's kind of my thing", "standing"),
        ("never again am I flying with that airline!!", "standing"),
        ("always the same with this bus, 20 minutes late again", "standing"),
        ("я завжди лягаю спати до одинадцятої", "standing"),
        ("мій тренер завжди каже: ніколи не пропускай день ніг", "standing"),
    ],
)
def test_a_standing_note_is_one_told_to_the_assistant(text: str, origin: str) -> None:
    """A standing word alone is not an instruction: with no order, "you" or "please"
    (and an order inside someone's words is theirs), the note keeps the field's own cut
    rather than the standing notes' lower one (origin "standing")."""
    from aniso.profile.slots import notes

    assert [p.origin for p in notes(text)] == [origin]


def test_never_mind_is_no_standing_word() -> None:
    from aniso.profile.slots import notes

    assert all(p.origin != "notes" for p in notes("ok never mind, forget what I asked"))
