"""The gate: does this sentence state the user's own standing preference?

Finding a value is the easy half ("vegan", "Tokyo", "tables"); the hard half is
whether the sentence says it of the user, now, as a standing preference: "my
coworker said 'I'm vegan!'", "I was vegetarian in college", "visiting Tokyo next
week", "is a vegan diet healthy?". A regex per way of saying "not me" does not end.
So every proposed op is scored by a small logistic model over what surrounds it:
the words just before the value (lemmas for Russian and Ukrainian, stems for
English), a few cues a linguist would name (another person in the sentence, a
past-tense verb, quotation marks, a negation before the value), each also crossed
with the field, cues shared by every field (how near "I" and another person
stand to the value, what the value's own clause holds), and whether the field
already holds this value or another (an update, not news).

The model is a plain dictionary of feature weights trained by
`scripts/train_profile_gate.py` on the train part of `tests/data/profile_statements.jsonl`
(see that script for the choice of regularisation and threshold by cross-validation).
It loads in a few milliseconds and scores a proposal in microseconds, with no
numerical library at all at run time.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from aniso.profile import lexicon, morph, slots, vocab
from aniso.profile.delta import Op
from aniso.profile.model import is_list_field
from aniso.profile.slots import clause_of

MODEL = "gate.json"
_WORD = re.compile(r"[\w'’ʼ]+")
WINDOW = 4
"""Words before the value that count as its left context."""

OTHERS = frozenset(
    """he she they his her their him them wife husband partner friend friends boyfriend
    girlfriend mom mum mother dad father son daughter kid kids child children sister brother
    colleague coworker boss roommate flatmate neighbour neighbor grandma grandpa uncle aunt
    cousin team everyone people somebody someone
    он она они его её ее их него неё нее ним ней им муж жена парень девушка друг подруга
    мама мать папа отец сын дочь дочка ребёнок ребенок дети сестра брат коллега начальник
    босс сосед соседка бабушка дедушка тётя тетя дядя все кто-то
    він вона вони його її їх ним нею ними чоловік дружина хлопець дівчина подруга мати тато
    батько донька дочка дитина діти сестра брат колега начальник сусід сусідка бабуся дідусь
    тітка дядько всі хтось
    cat dog puppy kitten pet grandson granddaughter nephew niece fiance fiancee stepson
    stepdaughter landlord client clients patient patients student students teacher guest
    guests кот кошка собака пёс пес щенок котёнок внук внучка племянник племянница свёкор
    свекор свекровь тесть тёща теща напарник клиент ученик гость гости кіт кішка собака пес
    цуценя син онук онука племінник племінниця свекруха тесть теща напарник клієнт учень
    гість гості кум кума куми хрещеник хрещениця крестник крестница
    apprentice doula receptionist""".split()
)
"""Who else a sentence can be about: people the user talks of, in EN, RU and UK."""
SELF = frozenset(
    """i i'm im i've ive i'd me my mine myself я мне меня мой моя моё мое мои мною мені мене мій
    моя моє мої""".split()
)
WE = frozenset("""we we're we've weve we'd мы ми""".split())
"""The user among others as a subject: "we live in Busan", "мы в Варшаве". The user's
own place or diet as often as not, but not as surely as "I"; the gate learns how sure.
Subjects only: "our flight to Lisbon" says nothing of where we live."""
NEGATIONS = frozenset("not no never don't dont isn't не ни нет ні немає ніколи никогда".split())
QUOTES = '"“”«»„'
_HERE = (
    r"(?:live|living|based|settled|work|working)\s+(?:right\s+)?here"
    r"|(?:живу|живём|живем|живемо|мешкаю|работаю|працюю)\s+(?:(?:тепер|теперь|уже|вже)\s+)?"
    r"(?:тут|здесь)|(?:тут|здесь)\s+(?:(?:и|і|тепер|теперь|уже|вже)\s+)?"
    r"(?:живу|живём|живем|живемо|мешкаю|работаю|працюю)"
)
HERE = re.compile(rf"(?<![\w-])(?:{_HERE})(?![\w-])", re.IGNORECASE)
"""The user's home given by pointing: "good routes near Girona? i live here", "Лимассол,
Кипр. Работаю тут в финтехе" (where one works is where one's day is), "перебрався до
брата у Ванкувер, тут тепер живу". A cue of the gate's too: the place the sentence
names is where the user is now, whoever else is in it."""
_CUE_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.IGNORECASE))
    for name, pattern in (
        ("here", _HERE),
        (
            "move",
            r"moved|moving|relocat\w*|live|living|lives|based|settled|переехал\w*|переезд\w*"
            r"|перебрал\w*|живу|живём|живем|переїхал\w*|переїзд\w*|мешкаю|живемо",
        ),
        (
            "trip",
            r"trip|visit\w*|vacation|holiday|flying|fly|flights?|travel\w*|conference|hotel\w*"
            r"|book(?:ed|ing)|rebook\w*|airbnb|рейс\w*|отел\w*|готел\w*|билет\w*|квит\w*|поездк\w*|поїздк\w*"
            r"|отпуск\w*|відпустк\w*|командировк\w*|відрядженн\w*|лечу|летим|їду|еду|поеду|поїду"
            r"|тур\w*|план\w*",
        ),
        (
            "translate",
            r"translate|translation|say\s+in|how\s+do\s+you\s+say|переведи\w*|перевод\w*"
            r"|переклад\w*|перекладіть|скажи|як\s+сказати|как\s+сказать",
        ),
        (
            "once",
            r"this\s+time|just\s+this\s+once|for\s+this\s+one|for\s+now|today|tonight|разово"
            # A day named for one event: "remind me tomorrow at 7:30", "напомни завтра в 9".
            r"|tomorrow|завтра|послезавтра|післязавтра"
            r"|just\s+for\s+this|this\s+one\s+time|one-off|one\s+off"
            r"|в\s+этот\s+раз|на\s+этот\s+раз|сегодня|сёдня|седня|цього\s+разу|сьогодні|сьодні"
            r"|на\s+цей\s+раз"
            # One piece of work: "for THIS doc keep it tight", "для этого поста табличкой".
            r"|for\s+this\s+(?:doc|email|letter|post|report|message|essay|trip|list|talk)\w*"
            r"|для\s+(?:этого|этой|этих|цього|цієї|цих)\s+\w+|только\s+это|тільки\s+це|лише\s+це"
            r"|this\s+(?:(?:particular|specific)\s+)?(?:reply|answer|message|one)(?:\s+only)?|only\s+this|(?:этот|этого|цей|цю|цього)"
            r"\s+(?:конкретн\w*\s+)?(?:ответ\w*|відповід\w*|текст\w*|раз)|конкретн\w*\s+(?:ответ|відповід)\w*",
        ),
        (
            # Irony says the opposite of its words: "обожнюю укрзалізницю, ага", "yeah i'm
            # SO vegan", "(ні)". A closed class of markers, not a reading of the words.
            "irony",
            r"ага|ну\s+да|ну\s+так|конечно|звісно|аякже|ясное\s+дело|yeah\s+right|sure\s+thing"
            r"|as\s+if|lmao|lmfao|jk|/s|\(no\)|\(ні\)|\(нет\)|not!|супер,\s+просто\s+супер"
            r"|so\s+much\s+fun|living\s+the\s+dream|🙃|🙄|😒|🤡",
        ),
        (
            "story",
            r"series|show|film|movie|book|novel|character|heroine|hero|episode|сериал\w*|фильм\w*"
            r"|книг\w*|героин\w*|геро[йи]\w*|персонаж\w*|серіал\w*|фільм\w*|героїн\w*|роман\w*",
        ),
        ("forward", r"forward\w*|fwd|пересыла\w*|пересила\w*|переслал\w*|переслала"),
        (
            "explain",
            r"explain|difference|what'?s\s+the|meaning|объясни|поясни|разниц\w*|різниц\w*"
            r"|чем\s+отлича\w*|чим\s+відрізня\w*",
        ),
        ("tried", r"tried|trying\s+out|пробовал\w*|пробувал\w*|попробовал\w*|спробувал\w*"),
        (
            "ask",
            r"suggest|recommend|find\s+me|any\s+ideas|посоветуй\w*|подскажи\w*|предложи\w*"
            r"|порадь\w*|підкажи\w*|запропонуй\w*|знайди|найди",
        ),
        (
            "wh",
            r"^\s*(?:what|when|where|how|who|which|why|что|как|где|когда|що|як|де|коли|куди|куда)",
        ),
        (
            "used_to",
            # "can't get used to the winters", "I'm used to it" are no past.
            r"(?<!get\s)(?<!got\s)(?<!gets\s)(?<!getting\s)(?<!'m\s)(?<!am\s)(?<!be\s)"
            r"used\s+to|back\s+in|years\s+ago|ago|когда-то|раньше|колись|раніше|в\s+детстве"
            r"|last\s+(?:year|summer|winter|spring|month)|as\s+a\s+kid|in\s+college|в\s+юности"
            r"|в\s+прошлом\s+(?:году|месяце)|прошлым\s+(?:летом|годом)|минулого\s+(?:року|літа)"
            r"|торік|у\s+дитинстві|в\s+дитинстві|в\s+молодості|тогда|тоді"
            # A year named as when it happened: "in 2019 i lived in Osaka", "в 2019 я
            # жила в Мюнхені". "since 2019" and "с 2019" stay current.
            r"|back\s+when|(?:in|spent|during)\s+(?:19|20)\d\d|[ву]\s+(?:19|20)\d\d"
            r"|there\s+was\s+a\s+time|был\w*\s+(?:у\s+меня\s+)?период|був\s+(?:у\s+мене\s+)?період",
        ),
        (
            # Wondering is not stating: "не знаю, стать ли мне вегетарианкой", "чи варто".
            "doubt",
            r"whether|not\s+sure|thinking\s+(?:of|about)|considering|should\s+i|ли|чи|не\s+знаю"
            r"|не\s+уверен\w*|не\s+впевнен\w*|стоит\s+ли|чи\s+варто|сомнева\w*|сумнів\w*",
        ),
        ("future", r"will|gonna|going\s+to|планирую|планую|думаю|хочу\s+стать|next\s+year|someday"),
    )
)
"""Named cues a linguist would give the gate: a move (which makes a past verb current),
a trip, text to translate, a question word, a past habit, a plan."""


@dataclass(frozen=True)
class Model:
    weights: dict[str, float]
    bias: float
    threshold: float
    rules_threshold: float | None = None
    """The threshold for the rule tables' proposals (None: the same as the others)."""
    remove_threshold: float | None = None
    """The most a removal needs (None: no exception), whatever proposed it."""
    note_threshold: float | None = None
    """The most a standing note needs (a clause with "always", "никогда", "no emojis":
    `slots.notes`, origin "notes"); None: no exception."""
    message_weights: dict[str, float] | None = None
    """The message model: how likely a whole message says nothing about the user."""
    message_bias: float = 0.0
    field_thresholds: dict[str, float] | None = None
    """A finder's threshold for one field, where cross-validation found another better
    than `threshold` (a place after "live in" is surer evidence than a liked food)."""

    def message_probability(self, text: str) -> float | None:
        if self.message_weights is None:
            return None
        return _sigmoid(
            self.message_bias + sum(self.message_weights.get(n, 0.0) for n in message_words(text))
        )

    def cut(self, origin: str, kind: str = "add", field: str = "") -> float:
        cut = self.threshold
        if origin == "rules" and self.rules_threshold is not None:
            cut = self.rules_threshold
        elif self.field_thresholds and field in self.field_thresholds:
            cut = self.field_thresholds[field]
        if kind == "remove" and self.remove_threshold is not None:
            cut = min(cut, self.remove_threshold)
        if origin == "notes" and self.note_threshold is not None:
            cut = min(cut, self.note_threshold)
        return cut

    def probability(self, features: list[str]) -> float:
        score = self.bias
        for feature in features:
            name, _, value = feature.partition("=")  # "name=value" carries a value
            score += self.weights.get(name, 0.0) * (float(value) if value else 1.0)
        return _sigmoid(score)


def _sigmoid(score: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, score))))


@functools.cache
def load() -> Model | None:
    """The shipped model, or None when it has not been trained (every proposal passes)."""
    try:
        raw = json.loads(
            resources.files("aniso.profile").joinpath("data", MODEL).read_text("utf-8")
        )
    except (FileNotFoundError, OSError, ValueError):
        return None
    return Model(
        weights={k: float(v) for k, v in raw["weights"].items()},
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
        rules_threshold=float(raw.get("rules_threshold", raw["threshold"])),
        remove_threshold=float(raw["remove_threshold"]) if "remove_threshold" in raw else None,
        note_threshold=float(raw["note_threshold"]) if "note_threshold" in raw else None,
        message_weights=dict(raw["message"]["weights"]) if "message" in raw else None,
        message_bias=float(raw["message"]["bias"]) if "message" in raw else 0.0,
        field_thresholds={k: float(v) for k, v in raw.get("field_thresholds", {}).items()},
    )


@functools.lru_cache(maxsize=65536)
def _norm(word: str) -> str:
    word = word.lower().replace("’", "'").replace("ʼ", "'")
    if morph.is_cyrillic(word):
        return morph.lemma(word)
    return lexicon.stem(word)


def lemma_of(word: str) -> str:
    """The form the gate's word lists are written in: a lemma, or an English stem."""
    return _norm(word)


def _is_past(word: str) -> bool:
    lowered = word.lower()
    if morph.is_cyrillic(lowered):
        readings = morph.parses(lowered)[:2]
        return any("past" in r[morph.TAG] and "VERB" in r[morph.TAG] for r in readings)
    return lowered in ("was", "were", "used", "ago", "had", "did")


def features(
    sentence: str,
    start: int,
    end: int,
    op: Op,
    origin: str,
    *,
    first: bool = True,
    held: dict[str, list[str]] | None = None,
) -> list[str]:
    """What the gate sees of one proposal: `op`, found at sentence[start:end], in the
    message's first sentence or a later one, with the profile as it stands (`held`).

    The words just before the value are there as lemmas; the rest of the sentence only
    through cues shared by every field and language (`_around`). Each lemma of the
    whole sentence was a weight of its own, and with a few thousand proposals most of
    those weights were noise: dropping them and adding the shared cues raised the
    cross-validated recall at a lower false-update rate (DESIGN-NOTES.md, the profile
    extractor)."""
    field = op.field
    # Read before the rewrite below, on the text `slots.notes` read (one cached answer).
    habit = field == "notes" and slots.standing_task(sentence)
    sentence = still_as_adverb(sentence)
    out = ["bias", f"f:{field}", f"k:{op.kind}", f"o:{origin}", f"fk:{field}:{op.kind}"]
    out.append(f"of:{origin}:{field}")  # a finder is surer of some fields than others
    words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(sentence)]
    left = [word for word, s, _ in words if s < start][-WINDOW:]
    out += [f"l:{_norm(word)}" for word in left]
    clause, _ = clause_of(sentence, start, cut=_NEGATION_REACH)
    flags = _flags(
        sentence,
        [w for w, s, _ in words if not _in_value(w, s, start, end)],
        [word for word, s, _ in words if clause <= s < start][-WINDOW:],
    )
    if not any(w.isalnum() for w in sentence[:start]):
        flags.add("at_start")  # a capital there is the sentence's, not the name's
    if habit:
        # "когда даёшь рецепт, пиши …": an order for every such task. A note's cue only:
        # on every proposal of the sentence it cost "рецепты давай без глютена, когда
        # предлагаешь ужин" its avoided gluten.
        flags.add("habit")
    for flag in sorted(flags):
        out += [f"c:{flag}", f"cf:{flag}:{field}", f"ck:{flag}:{op.kind}"]
    out.append("x:first_sent" if first else "x:later_sent")  # an aside comes later
    around = _around(sentence, start, end, words)
    held_found = held_features(op, held)
    if held_found:
        # Another value held reads as an update only when the user is the one who
        # changed: in "my brother … is only free mornings now" the brother changed.
        state = held_found[0].split(":")[2]
        held_found += [f"x:held:{state}:{cue}" for cue in around if cue in _WHO]
        # A trip, a plan or a doubt beside a place is no move, however different the
        # place is from the one held; a move or "live here" is one.
        held_found += [f"x:held:{state}:c:{flag}" for flag in sorted(flags & _WHEN)]
    out += held_found
    if field == "timezone":
        out += home_features(sentence, start, words, op.value, end=end)
    if "p:other_obj" in around:
        # Whether someone named beside the value, not as its subject, is the user's
        # company or the value's owner depends on the field: beside a place ("переехала
        # к сестре в Питер") the user's, beside a note or a liking more often not.
        out.append(f"x:p:other_obj:{field}")
    return out + [f"x:{cue}" for cue in around]


_STILL = re.compile(r"(?<![\w-])[Вв]се(?=\s+(?:ещё|еще|ще|равно)(?![\w-]))")


def still_as_adverb(text: str) -> str:
    """ "все ещё", "все ще" (still) and "все равно" (anyway) with "все" written "всё":
    there it is no one else, though alone it is "everyone" (`OTHERS`). Same length, so
    spans found in `text` stay where they were."""
    return _STILL.sub("всё", text)


_WHEN = frozenset({"trip", "future", "doubt", "move", "here", "used_to"})
"""The named cues of whether a place or a state is the user's now, crossed with what the
field holds."""
_WHO = frozenset(
    {
        "other_closer", "self:none", "self_clause", "other_clause", "v1_clause",
        "p:self", "p:we", "p:other", "p:other_obj", "p:v1", "p:v3", "p:past_sg",
        "p:past_pl", "p:nobody", "p:other_subj", "reported",
    }
)  # fmt: skip
"""The cues of who the value belongs to, crossed with what the field holds."""


_DWELLING = frozenset(
    """жить проживать пожить мешкать переехать переезжать перебраться перебираться
    поселиться переселиться осесть обосноваться жити проживати мешкати переїхати
    переїжджати перебратися перебиратися поселитися оселитися переселитися осісти""".split()
)
"""The Russian and Ukrainian verbs of living somewhere or moving there, as lemmas, so
every form counts ("переїхав", "мешкали", "перебрались"), where a suffix pattern
misses some."""


def dwells(word: str) -> bool:
    """Whether `word` is a form of a verb of living or moving (`_DWELLING`), in any of
    pymorphy3's readings: "перебрався", "мешкали", "переїжджаємо"."""
    lowered = word.lower()
    return morph.is_cyrillic(lowered) and any(
        r[morph.LEMMA] in _DWELLING for r in morph.parses(lowered)
    )


_HOME_CUES = tuple(p for name, p in _CUE_CLASSES if name in ("move", "here"))
ONCE = next(p for name, p in _CUE_CLASSES if name == "once")
"""A word of one occasion ("just this once", "на этот раз"): what it heads is no
standing preference."""


def _home_words(sentence: str, words: list[tuple[str, int, int]]) -> list[int]:
    """Where the sentence says someone lives or moved (by word index): a verb of living or
    moving, or "here"/"тут" pointing at a place."""
    marks = [m.start() for pattern in _HOME_CUES for m in pattern.finditer(sentence)]
    return [
        i
        for i, (word, s, e) in enumerate(words)
        if dwells(word) or any(s <= at < e for at in marks)
    ]


def home_features(
    sentence: str, start: int, words: list[tuple[str, int, int]], zone: str, *, end: int
) -> list[str]:
    """How near the words of living stand to a place. A sentence may name several
    ("живу в мск, но родители в Иркутске", "from Bergen, but I live in Graz now"), and
    the user's home is the one by "live", "moved", "мешкаю", "тут": the same cue in every
    language and for every city, where the words just before the place are a lemma each.
    A place that another proposed place (`zone` is this one's) stands nearer those words
    than ("x:home:rival": the parents' Rivne beside "живемо в Празі") is less likely the
    home, whatever its own distance. Only what the place finder proposes is a rival
    (`slots.timezone`): a former home, a move's source or a person's name is none."""
    homes = _home_words(sentence, words)
    if not homes:
        return ["x:home:none"]

    def gap(at: int) -> int:
        index = sum(1 for _, s, _ in words if s < at)
        return min(abs(index - h) for h in homes)

    mine = gap(start)
    found = [f"x:home:{_distance(mine)}"] + _part_when(sentence, start, end)
    if any(gap(at) < mine for at, other in _proposed_places(sentence) if other != zone):
        found.append("x:home:rival")
    return found


_PLACE_WHEN = frozenset({"trip", "move", "future"})


def _part_when(sentence: str, start: int, end: int) -> list[str]:
    """Which of a trip, a move and a plan the place's own part of the sentence names
    ("x:part:trip"), beside the sentence-wide cues (`_flags`): in "переїхали до Варшави,
    так і лишились після тієї поїздки" the trip is another part's, and the move the
    place's. Read only where the sentence has words of living, as the distance is. The
    lemma test is for Russian and Ukrainian (`dwells`); English forms are the pattern's."""
    low, high = clause_of(sentence, start, _PART, end=end)
    part = sentence[low:high]
    found = {name for name, pattern in _CUE_CLASSES if name in _PLACE_WHEN and pattern.search(part)}
    if any(dwells(word) for word in _WORD.findall(part)):
        found.add("move")  # every form of a verb of living or moving ("перебрався")
    return [f"x:part:{name}" for name in sorted(found)]


@functools.lru_cache(maxsize=1024)
def _proposed_places(sentence: str) -> tuple[tuple[int, str], ...]:
    """(start, zone) of each place the place finder proposes in `sentence`, read once per
    sentence however many of its places the gate weighs."""
    return tuple((p.start, p.op.value) for p in slots.timezone(sentence))


def held_features(op: Op, held: dict[str, list[str]] | None) -> list[str]:
    """Whether the field holds nothing, this value, or another value already. "перебрався
    до брата у Ванкувер, тут тепер живу" names a brother, which alone reads as someone
    else's news; that it would replace the zone the user gave earlier is what says it
    is an update. None (no profile at hand) adds nothing."""
    if held is None:
        return []
    values = [v.lower() for v in held.get(op.field, [])]
    value = op.value.lower()
    if not values:
        state = "none"
    elif any(_same(v, value) for v in values) or (
        op.field == "notes"
        and op.kind == "remove"
        and any(vocab.same_note(value, v) for v in values)
    ):
        # A take-back names a held note in other words (`vocab.same_note`); a second
        # standing note that shares a word with the first is a note of its own.
        state = "same"
    else:
        state = "more" if is_list_field(op.field) else "other"
    return [f"x:held:{state}", f"x:held:{state}:{op.kind}"]


def _same(a: str, b: str) -> bool:
    """One value holds the other as whole words ("jazz" and "live jazz")."""
    if not a or not b:
        return a == b
    return holds(a, b) or holds(b, a)


def holds(whole: str, part: str) -> bool:
    """`whole` holds `part` as whole words: "green tea" holds "tea", "steak" not "tea"."""
    return bool(part) and bool(re.search(rf"(?<!\w){re.escape(part)}(?!\w)", whole))


_CONDITIONAL = re.compile(
    r"(?<![\w-])(?:if|unless|suppose|supposing|imagine|would|если|бы|б|якщо|якби|уяви\w*"
    r"|представь)(?![\w-])",
    re.IGNORECASE,
)


def _distance(words: int) -> str:
    """A distance in words, coarsely: next to, near, in the clause, far."""
    return "a" if words <= 1 else "b" if words <= 3 else "c" if words <= 6 else "d"


def _is_self(word: str) -> bool:
    return word.lower().replace("’", "'") in SELF


_CLITIC = re.compile(r"'(?:s|re|ll|d|ve)$")
"""English contractions: "she's", "they're" are "she", "they"."""


def _is_other(word: str) -> bool:
    lowered = _CLITIC.sub("", word.lower().replace("’", "'"))
    return lowered in OTHERS or _norm(word) in OTHERS


_SAYS = re.compile(
    r"(?<![\w-])(?:says?|said|tells?|told|thinks?|reckons?|claims?|insists?|keeps\s+saying"
    r"|говорит|говорят|сказал\w*|считает|утверждает|жалуется|пишет|каже|кажуть|сказав"
    r"|сказала|вважає|скаржиться|пише|думає)(?![\w-])",
    re.IGNORECASE,
)
"""Verbs that report what someone says or thinks."""


def _reported(sentence: str, start: int, words: list[tuple[str, int, int]]) -> bool:
    """Whether the value stands in what someone else is reported to say ("Внучка говорит,
    что мне нужно с вами на ты", "колега скаржиться що в нього бюджет мінімальний",
    "Kasia says she's coming"): their words, as a quotation is, with no marks."""
    for m in _SAYS.finditer(sentence, 0, start):
        before = [w for w, s, _ in words if s < m.start()][-3:]
        if any(_is_other(w) or (w[:1].isupper() and not _is_self(w)) for w in before) and not any(
            w.lower() in _SELF_SUBJECT for w in before
        ):
            return True
    return False


def _in_value(word: str, at: int, start: int, end: int) -> bool:
    """Whether a word is part of the value rather than of what surrounds it. A rule's
    span is its whole clause ("чоловік вільний з 18:00"), and the person in it is who
    the clause is about, not part of the value: people and "I" always count as
    surroundings."""
    if not start <= at < end:
        return False
    lowered = word.lower().replace("’", "'")
    return not (lowered in SELF or lowered in WE or _is_other(word))


def _around(sentence: str, start: int, end: int, words: list[tuple[str, int, int]]) -> list[str]:
    """Cues about who and when, the same for every field and language: how far the
    nearest "I" and the nearest other person stand from the value and on which side,
    which of them is nearer, whether the value's own clause has the user, someone else,
    a first-person verb ("вяжу") or a past verb, a conditional anywhere, and the
    sentence's length. "my coworker is vegan" and "я переехала во Львов" differ in
    these whatever the field."""
    begin = sum(1 for _, s, _ in words if s < start)
    after = next((i for i, (_, s, _) in enumerate(words) if s >= end), len(words))
    out = []

    def nearest(test: Callable[[str], bool], name: str) -> int | None:
        found = [
            (begin - i, "L") if i < begin else (i - after + 1, "R")
            for i, (word, s, _) in enumerate(words)
            if not _in_value(word, s, start, end) and test(word)
        ]
        if not found:
            out.append(f"{name}:none")
            return None
        distance, side = min(found)
        out.extend((f"{name}:{_distance(distance)}", f"{name}:{side}"))
        return distance

    to_self = nearest(_is_self, "self")
    to_other = nearest(_is_other, "other")
    if to_other is not None and (to_self is None or to_other < to_self):
        out.append("other_closer")
    c_start, c_end = clause_of(sentence, start)
    clause = [w for w, s, _ in words if c_start <= s < c_end and not _in_value(w, s, start, end)]
    if any(_is_self(w) for w in clause):
        out.append("self_clause")
    if any(_is_other(w) for w in clause):
        out.append("other_clause")
    if any(morph.is_first_person_verb(w.lower()) for w in clause):
        out.append("v1_clause")
    if any(_is_past(w) for w in clause):
        out.append("past_clause")
    out += _part_cues(sentence, start, end, words)
    if _reported(sentence, start, words):
        out.append("reported")
    if _CONDITIONAL.search(sentence):
        out.append("cond")
    size = len(words)
    out.append("len:" + ("s" if size <= 6 else "m" if size <= 15 else "l"))
    return out


_PART = re.compile(
    r"[,;:.!?()—–]|\s(?:and|but|while|whereas|though|а|и|й|і|та|но|але|зате|однак)(?![\w-])",
    re.IGNORECASE,
)
"""Where a clause's smaller part ends: "подруга живёт на Бали, а я в Бишкеке" holds two
people's places, one on each side of "а"."""


def _part_cues(sentence: str, start: int, end: int, words: list[tuple[str, int, int]]) -> list[str]:
    """Who the value's own part of the clause is about: the user ("I", "we"), someone
    else, and the person and tense of its verbs. Russian and Ukrainian drop the subject,
    so "живёт в Торонто" (someone else), "живу" (the user), "переехали" (we, or they) and
    "напиши" (a request) say it through the verb (`morph.verb_form`)."""
    low, high = clause_of(sentence, start, _PART, end=end)
    part = [w for w, s, _ in words if low <= s < high and not _in_value(w, s, start, end)]
    ukrainian = morph.has_ukrainian_letters(sentence)
    found = set()
    if _other_subject(part, ukrainian=ukrainian):
        found.add("p:other_subj")
    elif low and not part_has_person(part) and _continues(sentence, low, part):
        # "my dad retired and moved down to Phoenix": the part after "and" shares the
        # subject of the part before it.
        earlier = [m.end() for m in _PART.finditer(sentence, 0, low - 1)]
        previous = [w for w, s, _ in words if (earlier[-1] if earlier else 0) <= s < low]
        if _other_subject(previous, ukrainian=ukrainian):
            found.add("p:other_subj")
    for word in part:
        lowered = word.lower().replace("’", "'")
        if lowered in SELF:
            found.add("p:self")
        elif lowered in WE:
            found.add("p:we")
        elif _is_other(word):
            # "переехала к сестре в Сочи", "moved in with my daughter": someone else is
            # named, but as whom the user moved to, not who moved.
            found.add("p:other" if "p:other_subj" in found else "p:other_obj")
        form = morph.verb_form(lowered, ukrainian=ukrainian)
        if form:
            found.add(f"p:{form}")
    if not found & {"p:self", "p:we", "p:other", "p:other_obj"}:
        found.add("p:nobody")
    return sorted(found)


_PREPOSITIONS = frozenset(
    """with to for from at of by near like than about into onto without visiting""".split()
)
_DETERMINERS = frozenset("my our his her their the a an your".split())
_JOINS = frozenset("and but та і й и а но але зате".split())
_HAS = frozenset("у в".split())
"""Russian and Ukrainian say "X has" as "у X" ("у брата", "в сестри"): X is then whom the
clause is about, though not in the nominative."""
_SELF_SUBJECT = frozenset("i i'm im i've ive i'd я".split())
"""The user as a subject; "my" in "my sister moved" is not."""


def part_has_person(part: list[str]) -> bool:
    lowered = (w.lower().replace("’", "'") for w in part)
    return any(w in SELF or w in WE or _is_other(w) for w in lowered)


def _continues(sentence: str, boundary: int, part: list[str]) -> bool:
    """Whether a part with no person in it goes on about the subject of the part before:
    after a conjunction ("my dad retired and moved to Phoenix"), or after a comma when
    no verb of its own says "I" ("жена у меня наоборот, мясоед страшный"; not "живу в
    Киеве, люблю борщ")."""
    if _joined(sentence, boundary):
        return True
    return sentence[boundary - 1] == "," and not any(
        morph.is_first_person_verb(w.lower()) for w in part
    )


def _joined(sentence: str, boundary: int) -> bool:
    """Whether the part boundary ending at `boundary` is a conjunction ("and", "і")."""
    words = sentence[:boundary].split()
    return bool(words) and words[-1] in _JOINS


_ROLES = frozenset(
    """student students teacher teachers client clients patient patients guest guests
    apprentice doula receptionist""".split()
)
"""Person words that name what the user is as often as someone they deal with."""
_OWNERS = frozenset("my our his her their your the".split())


def _other_subject(part: list[str], *, ukrainian: bool) -> bool:
    """Whether someone else is the subject of a part with no "I" or "we" in it: "сестра
    переехала в Новосибирск", "my sister just moved to Melbourne", not "перебрався до
    брата", "moved in with my daughter" or "мужа перевели, мы там живём". Russian and
    Ukrainian mark the subject by case (`morph.is_nominative`); English by place: a
    person word not after a preposition."""
    lowered = [w.lower().replace("’", "'") for w in part]
    if any(w in _SELF_SUBJECT or w in WE for w in lowered):
        return False
    for i, word in enumerate(lowered):
        if not _is_other(word.removesuffix("'s")):
            continue
        if morph.is_cyrillic(word):
            if morph.is_nominative(word, ukrainian=ukrainian):
                return True
            # "у мужа только понедельник свободен" is the husband's; "живу у брата" the user's.
            if i and lowered[i - 1] in _HAS and not any(map(morph.is_first_person_verb, lowered)):
                return True
            continue
        if word in _ROLES and not any(
            w in _OWNERS or w.endswith("'s") for w in lowered[max(0, i - 3) : i]
        ):
            continue  # "grad student in Kyiv here", "a retired teacher": the user's role
        j = i - 1
        while j >= 0 and lowered[j] in _DETERMINERS:
            j -= 1
        if j < 0 or lowered[j] not in _PREPOSITIONS:
            return True
    return False


_NEGATION_REACH = re.compile(r"[,;:!?()—–]|\.\s")
"""What ends a negation's reach back from a value: a "not" before a comma is another
clause's ("you don't know, i'm in Ghent", "не знаю, я в Одесі")."""


def _flags(sentence: str, around: list[str], left: list[str]) -> set[str]:
    """The named cues of a sentence, from the words around the value."""
    flags = set()
    for word in around:
        lowered = word.lower().replace("’", "'")
        if _norm(word) in OTHERS or lowered in OTHERS:
            flags.add("other")
        if lowered in SELF:
            flags.add("self")
        if _is_past(word):
            flags.add("past")
    if any(word.lower() in NEGATIONS for word in left):
        flags.add("neg_left")
    if any(char in sentence for char in QUOTES):
        flags.add("quote")
    flags |= {name for name, pattern in _CUE_CLASSES if pattern.search(sentence)}
    if sentence.rstrip().endswith("?"):
        flags.add("question")
    ukrainian = morph.has_ukrainian_letters(sentence)
    if any(morph.verb_form(w.lower(), ukrainian=ukrainian) == "impr" for w in around):
        flags.add("impr")  # "сделай табличкой": a request, which is seldom standing
    if "self" not in flags:
        flags.add("no_self")
    return flags


MESSAGE_WORDS = 400
"""Words of a message the message model reads: a pasted page says nothing more."""


def message_words(text: str) -> list[str]:
    """What the message model sees: the message's lemmas and its named cues."""
    words = [m.group() for m in _WORD.finditer(text)][:MESSAGE_WORDS]
    found = ["bias", *(f"mw:{_norm(word)}" for word in words)]
    return found + [f"mc:{flag}" for flag in sorted(_flags(text, words, []))]


def message_features(probability: float | None, field: str) -> list[str]:
    """The message model's verdict as features of a proposal: a fifth of the scale, and
    its log-odds as a value ("ml=…"), which ranks within a fifth too: with it, nested
    cross-validated recall rose 0.617 → 0.632 for one more distractor changed of 1,002."""
    if probability is None:
        return []
    bucket = min(4, int(probability * 5))
    p = min(max(probability, 1e-4), 1 - 1e-4)
    return [f"md:{bucket}", f"mdf:{bucket}:{field}", f"ml={math.log(p / (1 - p)):.4f}"]
