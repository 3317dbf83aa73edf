"""Synthetic memory for `aniso bench scale` and `aniso bench compact`.

The benches need many episodes that look like a person's chat history: sessions of
a few messages on one topic, gaps of hours to days between them, spread over about
two years, with enough real words that FTS5 and the block assigner do real work. Every
message gets an assistant reply of two to five sentences (about 30 to 90 words), as
in a real chat: replies are stored with their episode (not indexed) and make up
most of what hot recall shows, so the compaction ratios are measured against a
realistic hot form.
Vectors are precomputed random unit vectors, clustered by topic (a random
direction per topic plus as much noise again): embedding 100k texts with MiniLM
would take longer than everything being measured, and purely random vectors would
make every message a topic shift (cosine about 0), i.e. blocks of one episode.

Population goes through the real write path, `TieredMemory.store`. The only
shortcut is for the writes that are not timed: their Chroma upserts are buffered
and pushed in batches through the same `DenseMemory.push`, because one embedded
Chroma upsert per episode costs tens of milliseconds and would make 100k episodes
take an hour. The timed writes (the last ones) run unbatched, exactly as in the app.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from aniso.tiers.index.dense import DenseMemory
from aniso.tiers.memory import TieredMemory

DIM = 384
START = datetime(2024, 1, 8, 8, 0, tzinfo=UTC)
SPAN = timedelta(days=730)
PUSH_BATCH = 2000
Progress = Callable[[str, int, int], None]

TOPICS: dict[str, list[str]] = {
    "garden": "tomatoes,watering schedule,raised beds,compost,aphids,basil seedlings,"
    "greenhouse,mulch,pruning roses,drip irrigation,zucchini harvest,soil acidity".split(","),
    "running": "marathon training,interval session,long run,knee pain,running shoes,"
    "tempo pace,half marathon,hill repeats,recovery week,heart rate zones,race bib,"
    "foam roller".split(","),
    "kitchen": "kitchen renovation,ceramic tiles,countertop quote,plumber visit,"
    "cabinet doors,backsplash,oven installation,paint samples,contractor invoice,"
    "sink leak,floor grout,lighting fixtures".split(","),
    "python": "asyncio bug,pytest fixture,type hints,memory leak,sqlite index,"
    "refactoring,pull request,dependency upgrade,race condition,profiling results,"
    "docker image,continuous integration".split(","),
    "travel": "trip to Porto,flight tickets,hotel booking,train to Lisbon,passport renewal,"
    "travel insurance,museum tickets,rental car,packing list,airport transfer,"
    "local restaurants,walking tour".split(","),
    "music": "guitar chords,barre chord,fingerpicking pattern,metronome practice,"
    "new strings,song transcription,open mic night,capo position,scales exercise,"
    "music theory,amplifier settings,recording demo".split(","),
    "taxes": "tax return,receipts folder,accountant meeting,deductible expenses,"
    "invoice archive,pension contribution,quarterly payment,bank statement,"
    "rental income,filing date,donation receipts,health insurance costs".split(","),
    "family": "daughter school concert,parent teacher meeting,birthday party,"
    "grandmother visit,swimming lessons,homework routine,summer camp,family dinner,"
    "piano recital,science fair,bedtime stories,dentist appointment".split(","),
    "cooking": "sourdough starter,pasta recipe,vegetarian curry,meal prep,spice rack,"
    "slow cooker,fermented pickles,knife sharpening,bread flour,roasted vegetables,"
    "lentil soup,baking temperature".split(","),
    "work": "quarterly review,team offsite,project milestone,hiring interview,"
    "budget proposal,client presentation,performance feedback,roadmap planning,"
    "stakeholder email,sprint retrospective,promotion discussion,conference talk".split(","),
    "health": "blood test results,physiotherapy,sleep schedule,vitamin D,back pain,"
    "yoga class,doctor appointment,allergy season,blood pressure,stretching routine,"
    "eye exam,cholesterol numbers".split(","),
    "books": "reading list,science fiction novel,book club,library loan,audiobook,"
    "history biography,poetry collection,crime thriller,reading notes,"
    "translated novel,author interview,second-hand bookshop".split(","),
    "car": "winter tyres,oil change,brake pads,insurance renewal,parking permit,"
    "service appointment,battery replacement,car wash,fuel consumption,"
    "dashboard warning light,windscreen chip,roof rack".split(","),
    "finance": "savings account,index funds,mortgage rate,monthly budget,credit card,"
    "emergency fund,stock dividends,currency exchange,loan repayment,"
    "retirement plan,utility bills,subscription costs".split(","),
    "pets": "dog walking,vet appointment,cat food,flea treatment,puppy training,"
    "leash pulling,pet insurance,grooming session,litter box,chew toys,"
    "dog park,vaccination booster".split(","),
    "language": "Portuguese lessons,vocabulary flashcards,grammar exercises,"
    "conversation partner,irregular verbs,pronunciation drills,language exchange,"
    "listening practice,subjunctive mood,spaced repetition,podcast episodes,"
    "writing diary".split(","),
}
NAMES = "Anna,Boris,Carla,Dmitri,Elena,Farid,Greta,Hugo,Irina,Jonas,Kira,Luca,Marta,Nikolai,"
NAMES += "Olga,Pedro,Quinn,Rosa,Stefan,Tanya,Umar,Vera,Wim,Yara,Zoltan"
PLACES = "Berlin,Porto,Lisbon,Kyiv,Tbilisi,Vienna,Prague,Krakow,Riga,Madrid,Lyon,Ghent"
FEELINGS = "worried,excited,annoyed,relieved,curious,tired,happy,unsure,proud,stressed".split(",")
TEMPLATES = [
    "I spent the evening on {a} and then looked into {b}.",
    "What did we decide about {a} last time?",
    "{name} thinks {a} matters more than {b}, I am not so sure.",
    "Quick update on {a}: it took {n} minutes today, longer than expected.",
    "I feel {feeling} about {a} this week.",
    "Next step for {a} is {b}, maybe on the {n}th.",
    "Met {name} in {place} and we talked about {a} for ages.",
    "Note to self: compare {a} with {b} before the weekend.",
    "Why is {a} so hard? I tried {b} but nothing changed.",
    "Booked {a} for {day} at {hour}:00, {name} will join.",
    "Spent {n} euros on {a} and a little on {b}.",
    "Reading about {a} again; {b} keeps coming up in {place}.",
]
MARKERS = [
    (0.004, "Remember this: {a} is due on the {n}th."),
    (0.006, "The {a} doesn't work again, I need to fix it."),
    (0.006, "It works now, {a} is finally sorted."),
]
REPLIES = [
    "That makes sense; {a} usually takes a few tries before it settles.",
    "Last time you mentioned {b}, so it may help to look at both together.",
    "If {a} keeps being a problem, write down what changed each time and compare.",
    "A simple plan: start with {a} this week and leave {b} for later.",
    "{name} may be right, but it depends on how much time you can give to {a}.",
    "Good progress. Keep notes on {a} so we can see the trend next month.",
    "You could set a reminder for {day} so that {b} does not slip again.",
    "Many people find {a} easier once {b} is sorted, so that order may work for you.",
    "It sounds stressful; try to break {a} into two or three smaller steps.",
    "I can help you compare the options for {b} if you tell me your budget.",
    "Do you want me to keep track of {a} and remind you about it?",
    "In short: {a} first, then {b}, and check again in a week or two.",
]
DAYS = "Monday,Tuesday,Wednesday,Thursday,Friday,Saturday,Sunday".split(",")


@dataclass(frozen=True)
class SyntheticEpisode:
    at: datetime
    text: str
    session: str
    topic: int
    reply: str = ""


def _fields(rng: np.random.Generator, topic: str) -> dict[str, object]:
    phrases = TOPICS[topic]
    a, b = (phrases[i] for i in rng.choice(len(phrases), size=2, replace=False))
    return {
        "a": a,
        "b": b,
        "name": NAMES.split(",")[int(rng.integers(25))],
        "place": PLACES.split(",")[int(rng.integers(12))],
        "feeling": FEELINGS[int(rng.integers(len(FEELINGS)))],
        "day": DAYS[int(rng.integers(7))],
        "n": int(rng.integers(2, 29)),
        "hour": int(rng.integers(8, 21)),
    }


def message(rng: np.random.Generator, topic: str) -> str:
    """One plausible chat message about `topic`, sometimes with a marker."""
    fields = _fields(rng, topic)
    roll = float(rng.random())
    for share, template in MARKERS:
        if roll < share:
            return template.format(**fields)
        roll -= share
    return TEMPLATES[int(rng.integers(len(TEMPLATES)))].format(**fields)


def reply(rng: np.random.Generator, topic: str) -> str:
    """An assistant reply of two to five sentences about `topic`."""
    fields = _fields(rng, topic)
    picks = rng.choice(len(REPLIES), size=int(rng.integers(2, 6)), replace=False)
    return " ".join(REPLIES[int(i)].format(**fields) for i in picks)


def messages(count: int, *, seed: int) -> list[str]:
    """Varied messages over every topic, e.g. the queries of the latency bench."""
    rng = np.random.default_rng(seed)
    names = list(TOPICS)
    return [message(rng, names[int(rng.integers(len(names)))]) for _ in range(count)]


def timeline(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Seconds after START of each episode, and its session number.

    Sessions hold 4 to 16 messages one to four minutes apart; the gaps between
    sessions are exponential, scaled so the whole history spans SPAN.
    """
    sizes: list[int] = []
    while sum(sizes) < count:
        sizes.append(int(rng.integers(4, 17)))
    sizes[-1] -= sum(sizes) - count
    steps = rng.uniform(60, 240, size=count)
    starts = np.cumsum(sizes) - np.array(sizes)
    steps[starts] = 0.0
    gaps = rng.exponential(1.0, size=len(sizes))
    gaps[0] = 0.0
    room = max(SPAN.total_seconds() - float(steps.sum()), 3600.0 * len(sizes))
    gaps *= room / max(float(gaps.sum()), 1e-9)
    steps[starts] += gaps
    session = np.repeat(np.arange(len(sizes)), sizes)
    return np.cumsum(steps), session


def synthetic_episodes(count: int, *, seed: int = 7) -> list[SyntheticEpisode]:
    """`count` episodes over about two years, in sessions, one topic per session."""
    rng = np.random.default_rng(seed)
    offsets, sessions = timeline(count, rng)
    names = list(TOPICS)
    topic_of = rng.integers(len(names), size=int(sessions[-1]) + 1 if count else 0)
    replies = np.random.default_rng(seed + 1)  # its own stream: messages stay as they were
    return [
        SyntheticEpisode(
            at=START + timedelta(seconds=float(offsets[i])),
            text=message(rng, names[int(topic_of[sessions[i]])]),
            session=f"bench-{int(sessions[i])}",
            topic=int(topic_of[sessions[i]]),
            reply=reply(replies, names[int(topic_of[sessions[i]])]),
        )
        for i in range(count)
    ]


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    matrix = rng.normal(size=(count, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def topic_vectors(rng: np.random.Generator, topics: list[int]) -> np.ndarray:
    """Unit vectors near their topic's random direction (cosine about 0.7 to it),
    near-orthogonal across topics, like sentence embeddings of different subjects."""
    directions = unit_vectors(rng, len(TOPICS))
    noise = unit_vectors(rng, len(topics))
    matrix = directions[np.asarray(topics, dtype=int)] + noise
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@contextmanager
def batched_push(dense: DenseMemory, size: int = PUSH_BATCH) -> Iterator[None]:
    """Buffer `dense.push` calls and send them in batches through the real `push`.

    The outbox rows stay until each batch is pushed, as they would while the index
    lags; nothing is lost if the run stops half-way.
    """
    original = dense.push
    keys: list[str] = []
    rows: list[np.ndarray] = []
    spent: dict[str, int] = {}

    def send() -> None:
        if keys:
            original(list(keys), np.vstack(rows), upto=dict(spent))
            keys.clear()
            rows.clear()
            spent.clear()

    def buffer(batch_keys: list[str], vectors: np.ndarray, *, upto: Mapping[str, int]) -> None:
        keys.extend(batch_keys)
        rows.append(vectors)
        spent.update(upto)
        if len(keys) >= size:
            send()

    dense.push = buffer  # type: ignore[method-assign]
    try:
        yield
    finally:
        send()
        dense.push = original  # type: ignore[method-assign]


def populate(
    memory: TieredMemory,
    episodes: list[SyntheticEpisode],
    *,
    timed: int = 0,
    seed: int = 11,
    progress: Progress | None = None,
) -> list[float]:
    """Store every episode through `memory.store`; return the milliseconds of the last
    `timed` calls (unbatched, as in the app)."""
    rng = np.random.default_rng(seed)
    vectors = topic_vectors(rng, [episode.topic for episode in episodes])
    split = max(0, len(episodes) - timed)
    step = max(1, len(episodes) // 100)
    with batched_push(memory.dense):
        for index in range(split):
            episode = episodes[index]
            stored = memory.store(
                episode.text, at=episode.at, session=episode.session, vector=vectors[index]
            )
            if episode.reply:
                memory.store_reply(stored.episode_id, episode.reply)
            if progress is not None and index % step == 0:
                progress("populating", index, len(episodes))
    timings: list[float] = []
    for index in range(split, len(episodes)):
        episode = episodes[index]
        began = time.perf_counter()
        stored = memory.store(
            episode.text, at=episode.at, session=episode.session, vector=vectors[index]
        )
        timings.append((time.perf_counter() - began) * 1000)
        if episode.reply:
            memory.store_reply(stored.episode_id, episode.reply)
        if progress is not None and index % step == 0:
            progress("populating (timed)", index, len(episodes))
    return timings
