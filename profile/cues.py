"""Finders that pair a known value with the cue before it in the same clause.

The rule tables match whole phrasings ("I'm a vegetarian"); people say the same
thing a hundred other ways ("vegetarian for like 6 years now", "going vegetarian",
"tables pls whenever you compare stuff", "into photography and cycling"). What
stays constant is a value the vocabulary or the lexicon knows, and a cue in the same
clause that says what the user does with it: loves it, avoids it, is allergic to
it, wants replies in it, stopped it. So these finders look for exactly that pair
and propose an op; the trained gate (`profile.gate`) decides whether the sentence
is about the user, now.

The cue tables are small, closed classes of words (verbs of liking, of avoiding,
of stopping) in EN, RU and UK; the values come from the lexicon and the vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aniso.profile import allowance, lexicon, morph, vocab
from aniso.profile.delta import make_op
from aniso.profile.slots import Proposal, about, clause_of, vocab_mentions


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.IGNORECASE)


NEGATED = _cue(
    r"not|no\s+longer|don'?t|doesn'?t|never|isn'?t|aren'?t|wasn'?t|no\s+more|stopp?(?:ed|ing)?"
    r"|quit|gave\s+up|не|больше\s+не|уже\s+не|нет|ни|бросил\w*|перестал\w*|ні|більше\s+не"
    r"|вже\s+не|кинул?\w*|перестав\w*|немає"
)
_DOING = r"увлекаюсь|захоплююсь|захоплююся|занимаюсь|займаюсь|займаюся|играю|граю|практикую"
"""Russian and Ukrainian verbs of doing an activity as a pastime, a cue before the thing
("играю в шахматы", `LIKE`) and after it ("в шахматы играю", `INTEREST_AFTER`)."""
LIKE = _cue(
    r"love\w*|like|likes|enjoy\w*|into|fan\s+of|fav|favs|big\s+\w+\s+fan|obsessed(?:\s+with)?|passionate"
    r"|hobby|hobbies|adore|i\s+(?:do|play|practi[cs]e|go)|crazy\s+about|favou?rite|weakness"
    rf"|люблю|нравится|нравятся|обожаю|{_DOING}|фанат\w*|кайфую|хобби|хобі|любим\w*"
    r"|подобається|подобаються|обожнюю|улюблен\w*"
    r"|хожу\s+на|ходжу\s+на|тренируюсь|тренуюсь|учу|вивчаю|learning|studying|taking\s+up"
    rf"|took\s+up|{lexicon.I_AM_A}"
    r"|теперь|тепер|now|перешёл\s+на|перешла\s+на|перейшов\s+на"
    r"|перейшла\s+на|switched\s+to|fave|faves|heaven|mad\s+about|hooked\s+on|addicted\s+to"
    r"|can'?t\s+get\s+enough\s+of|huge\s+fan\s+of|all\s+about|i'?d\s+marry|уважаю|угораю\s+по"
    r"|подсел\w*\s+на|підсів\s+на|підсіла\s+на|без\s+ума\s+от|фанатею\s+от|фанатію\s+від"
    r"|могу\s+есть|можу\s+їсти|могу\s+пить|можу\s+пити"
)
LIKE_AFTER = _cue(
    r"(?:is|are)\s+(?:life|my\s+\w+)|(?:моя|моё|мое|мои|моє|мої|my)\s+(?:слабость|любовь|хобби"
    r"|увлечени\w*|страсть|вс[её]|слабкість|любов|хобі|захоплення|пристрасть|все|weakness|love"
    r"|hobby|passion|thing|jam)|лучшее\s+\w+|найкращ\w*|best\s+\w+\s+ever|вечные\s+увлечения"
    # "a cats person", "huge F1 nerd", "plov enthusiast": the thing, then what the user is
    # ("guy" and "girl" are left out: "the pizza guy was late" is a delivery, not a taste).
    r"|addict|junkie|lover|fiend|person|enthusiast|nerd|geek|buff|fanatic"
    r"|(?:is|are)\s+my\s+whole\s+personality|x\d+|every\s+single\s+day"
    r"|(?:могу|можу)\s+есть\s+тоннами|тоннами|наркоман\w*|маньяк\w*|фанат\w*"
)
HEALTH = _cue(
    r"diagnos\w*|pregnan\w*|injur\w*|sprain\w*|fractur\w*|surgery|recovering|flu|sick|ill"
    r"|covid|migraine\w*|back\s+pain|hernia\w*|herniated|disc|eczema|diabet\w*|prediabet\w*"
    r"|asthma|insomnia|depress\w*|anxiety|gastritis|ulcer|blood\s+pressure|flare[-\s]up|burnout"
    r"|беремен\w*|травм\w*|перелом\w*|операци\w*|диагноз\w*|диабет\w*|бессонниц\w*|депресси\w*"
    r"|гастрит\w*|грыж\w*|мигрен\w*|болею(?!\s+за)|заболел\w*|простыл\w*|давлени\w*|астм\w*|ибс"
    r"|выгорани\w*|вагітн\w*|операці\w*|діагноз\w*|діабет\w*|безсонн\w*|депресі\w*|грижу"
    r"|грижа|мігрен\w*|хворію|захворі\w*|застуд\w*|тиск\w*|вигоранн\w*|зламав\w*|зламала"
    r"|сломал\w*|растянул\w*|потянул\w*|розтягнув\w*|palpitation\w*|chemo\w*|cancer|arthritis"
    r"|apnea|apnoea|hypertension|hypothyroid\w*|thyroid|cholesterol|ibs|crohn'?s|pcos|endometriosis"
    r"|adhd|gout|tendinitis|tendonitis|concussion|sciatica|scoliosis|meniscus|acl|long\s+covid"
    r"|преддиабет\w*|переддіабет\w*|гипертони\w*|гіпертоні\w*|гипотиреоз\w*|гіпотиреоз\w*"
    r"|артрит\w*|мениск\w*|меніск\w*|химиотерап\w*|хіміотерап\w*|химии|хімії|онколог\w*|апноэ|апное"
    r"|холестерин\w*|аритми\w*|тахикарди\w*|стент\w*|панкреатит\w*|колит\w*|подагр\w*"
    r"|остеохондроз\w*|сколиоз\w*|грыжа|протрузи\w*|гайморит\w*|ковид\w*|ковід\w*|сотрясени\w*"
    r"|струс\w*|тендинит\w*|радикулит\w*|радикуліт\w*|цукровий\s+діабет|сахарный\s+диабет"
)
HEALED = _cue(
    r"recovered|healed|better\s+now|fine\s+now|healthy\s+again|all\s+good\s+now|no\s+longer"
    r"|cleared|выздоров\w*|поправил\w*|прошл[оа]|зажил\w*|уже\s+здоров\w*|одужа\w*|минул[оа]"
    r"|загоїл\w*|вже\s+здоров\w*|больше\s+нет|більше\s+немає"
)
DISLIKE = _cue(
    r"hate\w*|can'?t\s+stand|don'?t\s+like|dislike\w*|not\s+a\s+fan\s+of|no\s+more|annoy\w*"
    r"|ненавижу|не\s+люблю|терпеть\s+не\s+могу|не\s+переношу|бесит|бесят|раздражает|не\s+нравится"
    r"|ненавиджу|терпіти\s+не\s+можу|не\s+подобається|дратує|бісить|despise\w*|detest\w*"
    r"|loathe\w*|nemesis|not\s+into|can'?t\s+bear|не\s+выношу|не\s+перевариваю|устаю\s+от"
    r"|втомлю\w*\s+від|не\s+переварюю|не\s+сприймаю|разлюбил\w*|розлюбил\w*|бесят|бісять"
    r"|дратують|не\s+нравятся|не\s+подобаються"
)
DISLIKE_ASK = _cue(
    r"no|never\s+suggest|don'?t\s+(?:ever\s+)?(?:suggest|recommend)|не\s+предлагай\w*"
    r"|не\s+советуй|не\s+пропонуй\w*|не\s+радь|без"
)
"""An ask to leave a thing out ("please no jazz recommendations"): for what is not food a
dislike; for food, `AVOID` reads it."""
AVOID = _cue(
    r"avoid\w*|don'?t\s+eat|do\s+not\s+eat|can'?t\s+eat|cannot\s+eat|no|cut\s+out|cutting\s+out"
    r"|off|free|staying\s+away\s+from|gave\s+up|without|не\s+ем|не\s+могу\s+есть|нельзя|избегаю"
    r"|не\s+употребляю|исключил\w*|отказал\w*|без|не\s+їм|не\s+можу\s+їсти|не\s+можна|уникаю"
    r"|виключил\w*|відмовил\w*|не\s+пью|не\s+п['ʼ]ю|don'?t\s+drink|sober|don'?t\s+do|dont\s+do"
    r"|cut|cutting(?:\s+(?:back\s+on|down\s+on))?|stay(?:ing)?\s+(?:off|away\s+from)|limit\w*"
    r"|less|low|reduc\w*|ни|никакого|никакой|никаких|ніякого|ніякої|ніяких|жодного|жодних"
    r"|ограничива\w*|обмежу\w*|стараюсь\s+не\s+(?:есть|пить)|намагаюс[ья]\s+не\s+(?:їсти|пити)"
    r"|не\s+есть|не\s+їсти|не\s+пити|не\s+пить|запретил\w*|заборонил\w*|заборонив|не\s+предлагай\w*"
    r"|не\s+пропонуй\w*|don'?t\s+(?:ever\s+)?suggest|never\s+suggest|no\s+more"
)
ALLERGY = _cue(r"allerg\w*|intoleran\w*|аллерг\w*|алерг\w*|непереносим\w*|coeliac|celiac|целиак\w*")
REPLY = _cue(
    r"reply|replies|respond\w*|answer\w*|write|writing|talk|speak|switch\w*|use|in|is\s+fine"
    r"|is\s+(?:still\s+)?good|still|please|pls|back|отвечай\w*|ответ\w*|пиши\w*|говори\w*"
    r"|общаться|переключ\w*|перейд\w*|по|на|відповід\w*|пиши|пишіть|говори|перемкн\w*|перейди"
    r"|верни\w*|давай|можно|можна|можеш\w*|знову|снова|назад|обратно"
)
MONEY = _cue(
    rf"budget|cheap\w*|expensive|price\w*|spend\w*|afford\w*|money|{vocab.BROKE}|splurge|pricey|cost\w*"
    r"|бюджет\w*|дешев\w*|дорог\w*|деньг\w*|трат\w*|грош\w*|витрат\w*|дешевш\w*|коштов\w*"
    r"|(?:най|наи)дешев\w*|эконом\w*|економ\w*|mid[\s-]?range|premium|премиум\w*|преміум\w*"
)
SPICY = _cue(
    r"spic\w*|chil[ei]\w*|heat|hot|mild|sauce|food|остр\w*|перц\w*|чили|мягк\w*|гостр\w*"
    r"|перец\w*|перчик\w*|м['ʼ]?як\w*|їж\w*|ед\w*|пекуч\w*|жгуч\w*|hottest"
)
REPLY_SHAPE = _cue(
    r"use|using|give|format|write|reply|replies|answer\w*|prefer|please|pls|plz|keep|be|make"
    r"|sound|tone|style|better|want|like|need|in|as|only|пиши\w*|используй\w*|давай|делай"
    r"|отвечай\w*|ответ\w*|форм\w*|тон\w*|стил\w*|лучше|предпочитаю|хочу|нужн\w*|будь|пиши"
    r"|використовуй\w*|роби|відповід\w*|краще|хочу|потрібн\w*|будь\s+ласка|пожалуйста|тільки"
    r"|только|можно|можна|fine|удобн\w*|зручн\w*|easier|convenient|можеш\w*|можете|просто"
    r"|отвеча\w*|відповіда\w*|манер\w*|спілкуй\w*|общайся|общаться|разговаривай|розмовляй"
    r"|звертатися|обращаться|обращайся|звертайся|drop|less|more|tone|talk|speak|говори\w*"
    r"|плз|пжлст|пліз|треба|надо|rather|always|завжди|всегда|from\s+now\s+on|відтепер|тепер|теперь"
    r"|tell|explain|поясню\w*|объясня\w*|розповіда\w*|рассказыва\w*"
)


def _before(sentence: str, start: int) -> str:
    """The clause up to `start`: the words that can cue what follows."""
    begin, _ = clause_of(sentence, start)
    return sentence[begin:start]


def _clause(sentence: str, start: int) -> str:
    begin, end = clause_of(sentence, start)
    return sentence[begin:end]


AVOID_AFTER = _cue(
    r"не\s+(?:ем|ешь|употребляю|пью|вживаю|їм|п['ʼ]ю|можна|можно)|нельзя|не\s+можна|ні|нет"
    r"|no|not\s+allowed|is\s+off|are\s+off|is\s+out|are\s+out|never|забороне\w*|запрет\w*"
    r"|запретил\w*|заборонил\w*|(?:is|are)\s+a\s+no|is\s+the\s+thing\s+i\s+cut|ограничива\w*"
    r"|обмежу\w*|исключил\w*|виключил\w*|(?:больше\s+|більше\s+)?не\s+предлагай\w*"
    r"|(?:більше\s+)?не\s+пропонуй\w*|не\s+советуй|не\s+радь|по\s+минимуму|по\s+мінімуму"
)
INTEREST = _cue(
    r"joined|picked\s+up|started|doing|back\s+to|took\s+up|into|hooked|записал\w*\s+на"
    r"|взял\w*\s+за|занял\w*|почав|почала|гоняю\s+в|болею\s+за|вболіваю\s+за|подсел\w*"
    r"|підсів|підсіла|ходжу\s+на|хожу\s+в|ходжу\s+в|i\s+(?:also\s+|still\s+|mostly\s+)?"
    r"(?:do|play|go|knit|garden|paint|draw|cook|bake|surf|swim|climb|run|ski|sew|fish|hunt|dance"
    r"|sing|skate|hike|write|read|watch|collect)"
)
"""A cue that the user does an activity ("joined crossfit", "i knit", "записалась на
гончарку"); only for interests."""
INTEREST_AFTER = _cue(
    r"(?:is|are)\s+(?:my\s+(?:thing|things|jam|life|passion)|back\s+on)|continues|still\s+yes"
    r"|every\s+(?:day|morning|evening|weekend)|каждый\s+день|каждое\s+утро|щодня|щоранку"
    r"|по\s+выходным|по\s+вихідних|— це моє|это\s+вс[её]\s+про\s+меня|мо[ёи]\s+\w+\s+увлечени\w*"
    rf"|(?:big\s+|huge\s+|massive\s+)?fan|{_DOING}|продолжаю|продовжую|болею|вболіваю"
    r"|classes|class|lessons|practice|sessions|training|league|team|club"
)
DISLIKE_AFTER = _cue(
    r"ненавижу|ненавиджу|не\s+перевариваю|не\s+переношу|не\s+люблю|терпеть\s+не\s+могу"
    r"|терпіти\s+не\s+можу|не\s+подобається|не\s+нравится|бесит|бісить|дратує|is\s+the\s+worst"
    r"|gross|disgusting|огидн\w*|противн\w*|мерзк\w*"
)
LIKE_VERB_AFTER = _cue(
    r"(?<!(?<![\w-])не\s)(?<!(?<![\w-])ні\s)(?:люблю|обожаю|обожнюю|нравится|подобається|are\s+basically|is\s+basically|могу\s+есть"
    r"|можу\s+їсти|уважаю|святое|святе|(?:is|are)\s+(?:my\s+)?(?:heaven|life|everything|fave)"
    r"|зашёл|зашла|зашли|зайшов|зайшла|зайшли)"
)
"""A verb of liking after the thing; not after "не" ("кофе пью редко, не люблю"), but
after "мне" ("кофе мне нравится")."""
DRINK = _cue(r"drink|drinking|пью|п['ʼ]ю|пʼю|пила|пил|пьёт|п['ʼ]є")
STOPPED_AVOIDING = _cue(
    r"(?:not|no\s+longer|stopped|quit)\s+(?:avoid\w*|cutting\s+out)|больше\s+не\s+избега\w*"
    r"|уже\s+не\s+избега\w*|вже\s+не\s+уника\w*|більше\s+не\s+уника\w*"
)
"""A negation of avoiding itself ("not avoiding beef anymore"); "I don't eat pork" is
an avoidance whose cue happens to hold a negation."""
ONLY = _cue(allowance.KEPT)
"""A word that turns from things refused to the one kept: no refusal before it reaches
past it ("i don't eat meat, only fish", "гітару закинула, а от йогу продовжую")."""
CONTRAST = _cue(rf"{ONLY.pattern}|now|тепер|теперь")
"""`ONLY` and "now": a negation before it does not reach past it either ("бокс кинув,
тепер плавання"). "Now" does not stop an allergy or a dislike ("allergic to cats and now
dogs too"), so it stops negations only."""


def _past_contrast(before: str) -> str:
    """The words of `before` after its last contrast word."""
    ends = [m.end() for m in CONTRAST.finditer(before)]
    return before[ends[-1] :] if ends else before


AFTER_WEIGHT = 1.5
"""An after-cue counts this much farther than a before-cue at the same distance: in
English the cue comes first; in Russian and Ukrainian either order is common."""


def _nearest(
    sentence: str,
    start: int,
    end: int,
    before: re.Pattern[str],
    after: re.Pattern[str] | None,
    *,
    refusal: bool = False,
    owned: bool = False,
) -> float | None:
    """Distance in characters from the span to the nearest cue in its clause, or None.
    A `refusal` cue does not reach past a word of `ONLY`. With `owned`, a refusal does
    not reach into the thing's part of the sentence from another part when that part
    says the user has the thing ("без молока, рыбу ем", "ем курицу, свинину нет"). A cue
    after the thing with a negation just before it ("не очень люблю") is no cue of
    liking."""
    c_start, c_end = clause_of(sentence, start)
    best: float | None = None
    low, high = clause_of(sentence, start, allowance.SEGMENT_END, end=end) if owned else (0, 0)
    owned = owned and _has_own_verb(sentence, start, end, low, high)
    for m in before.finditer(sentence, c_start, start):
        if refusal and ONLY.search(sentence, m.end(), start):
            continue
        if owned and m.end() <= low:
            continue
        distance = float(start - m.end())
        best = distance if best is None else min(best, distance)
    if after is not None:
        for m in after.finditer(sentence, end, c_end):
            if refusal and (
                _refused_next(sentence, end, m.start())
                or (owned and m.start() >= high and _thing_between(sentence, high, m.start()))
            ):
                break
            if not refusal and allowance.NEGATED_NEAR.search(sentence, end, m.start()):
                continue
            distance = (m.start() - end) * AFTER_WEIGHT
            best = distance if best is None else min(best, distance)
    return best


def _has_own_verb(sentence: str, start: int, end: int, low: int, high: int) -> bool:
    """Whether the part sentence[low:high] a thing at [start:end] stands in says the user
    has it, by a verb of having or liking before or after the thing: "рыбу *ем*", "*ем*
    курицу и индейку", "рыба *мені подобається*"."""
    return any(
        allowance.eaten_in(sentence, a, b, liking=LIKE_VERB_AFTER) is not None
        for a, b in ((low, start), (end, high))
    )


def _thing_between(sentence: str, start: int, stop: int) -> bool:
    """Whether another known thing stands in sentence[start:stop]."""
    return any(start <= other.start < stop for other in lexicon.mentions(sentence))


def _refused_next(sentence: str, end: int, cue: int) -> bool:
    """Whether a refusal at `cue` is the next thing's: the thing ending at `end` has a
    verb of having of its own, and another thing stands after that verb ("рыбу ем, мясо
    нет"). With no other thing the refusal is this one's ("кофе пью редко, не люблю")."""
    eaten = allowance.eaten_in(sentence, end, cue, answered=True)
    return eaten is not None and _thing_between(sentence, eaten.end(), cue)


def _stance(sentence: str, mention: lexicon.Mention) -> str | None:
    """What the user does with a mentioned thing, by the nearest cue in its clause:
    allergy, avoid, dislike or like; None without a cue."""
    start, end = mention.start, mention.end
    food = mention.term.kind == "food"
    refused = not allowance.allowed_after(sentence, end)  # "no onions, garlic is fine"
    distances = {
        "allergies": _nearest(sentence, start, end, ALLERGY, ALLERGY, refusal=True)
        if refused
        else None,
        "avoid": _nearest(sentence, start, end, AVOID, AVOID_AFTER, refusal=True, owned=True)
        if food and refused
        else None,
        "dislikes": _nearest(sentence, start, end, DISLIKE, DISLIKE_AFTER, refusal=True, owned=True)
        if refused
        else None,
        "likes": _nearest(sentence, start, end, LIKE, LIKE_VERB_AFTER),
    }
    if food and distances["likes"] is None:
        distances["likes"] = _nearest(sentence, start, end, DRINK, None)
    if not food and distances["dislikes"] is None:
        distances["dislikes"] = _nearest(sentence, start, end, DISLIKE_ASK, None, refusal=True)
    if mention.term.kind == "interest" and distances["likes"] is None:
        distances["likes"] = _nearest(sentence, start, end, INTEREST, INTEREST_AFTER)
    found = [(d, stance) for stance, d in distances.items() if d is not None]
    return min(found)[1] if found else None


_I_DO = re.compile(r"\b(?:i|we)\s+(?:also\s+|still\s+|mostly\s+|really\s+|usually\s+)?$", re.I)
"""An English activity said as the user's verb: "i knit", "we also surf"."""


def items(sentence: str) -> list[Proposal]:
    """Lexicon terms with a cue of liking, disliking, avoiding or allergy near them."""
    found: list[Proposal] = []
    ukrainian = morph.has_ukrainian_letters(sentence)
    for mention in lexicon.mentions(sentence):
        propose = about(mention, sentence, "cue")
        before = _before(sentence, mention.start)
        negated = bool(NEGATED.search(_past_contrast(before[-30:])))
        stance = _stance(sentence, mention)
        if stance == "allergies":
            kind = "remove" if negated and not AVOID.search(before) else "add"
            found.append(propose(kind, "allergies"))
        elif stance == "avoid":
            stopped = STOPPED_AVOIDING.search(before)
            found.append(propose("remove" if stopped else "add", "avoid"))
        elif stance == "dislikes":
            found.append(propose("add", "dislikes"))
        elif (stance == "likes" and not negated) or _liked_after(sentence, mention.end):
            found.append(
                propose("add", "interests" if mention.term.kind == "interest" else "likes")
            )
        elif (
            mention.term.kind == "interest"
            and (
                (
                    said_as_own_verb(said_of(sentence, mention), ukrainian=ukrainian)
                    and not _DENIED.search(before)
                )
                or (
                    _I_DO.search(sentence, 0, mention.start)
                    # "it's not like i knit", not "i don't smoke, i knit"
                    and not NEGATED.search(_CLAUSE_START.split(before)[-1][-30:])
                )
                or _labelled(sentence, mention.start)
            )
        ):
            found.append(propose("add", "interests"))  # "вяжу", "бегаю": the user does it
    return found


def said_of(sentence: str, mention: lexicon.Mention) -> str:
    return sentence[mention.start : mention.end]


def said_as_own_verb(said: str, *, ukrainian: bool) -> bool:
    """Whether a thing is named by the user's own verb: "вяжу", "вяжу крючком" (the
    verb opens the phrase the lexicon lists), "рыбачу", "малюю". Read by the known words
    of the sentence's dictionary (`morph.verb_form`; `ukrainian` says the sentence is),
    not the Russian guesser, which makes verbs of Ukrainian words ("лазню" as "лазнить",
    "класичну" as "класичнуть"); and not a word either dictionary reads first as an
    adjective. The Ukrainian dictionary does not rank its readings, so there a word that
    is also a noun is none ("шию" is "I sew" and "the neck")."""
    first = said.split()[0].lower() if said.strip() else ""
    if not first or any(
        reading[morph.POS] in _ADJECTIVE
        for language in ("ru", "uk")
        for reading in morph.readings(language, first)[:1]
    ):
        return False
    if morph.verb_form(first, ukrainian=ukrainian) != "v1":
        return False
    return not ukrainian or all(r[morph.POS] != "NOUN" for r in morph.readings("uk", first))


_ADJECTIVE = frozenset({"ADJF", "ADJS", "PRTF", "PRTS"})
_CLAUSE_START = re.compile(r"[,;:]|\bbut\b", re.IGNORECASE)
_DENIED = re.compile(
    r"(?<![\w-])(?:не|ні|ни|not|never|don'?t|dont)\s+"
    r"(?:(?:особо|очень|часто|сильно|слишком|то\s+чтобы|дуже|зовсім|надто|really|very"
    r"|often|much|и|й|і)\s+){0,2}$",
    re.IGNORECASE,
)
"""A negation right before the user's own verb ("не вяжу", "ни бегаю", "не особо
рисую"): a "не" further back is another phrase's ("ни дня не пропускаю, бегаю")."""
LABEL = re.compile(
    r"(?<![\w-])(?:my|мои|мої|у\s+меня|у\s+мене)\s+"
    r"(?:interests|hobbies|интересы|інтереси|увлечения|захоплення|хобби|хобі)\s*(?::|\s[—–-])",
    re.IGNORECASE,
)
"""A list the user labels as their own interests: "мои интересы: горы, походы", "мої
інтереси — шахи", "my hobbies: chess". "My" is required: a bare "интересы:" as often
heads a friend's or a character's profile ("ищу подарок другу. интересы: рыбалка")."""
_LIST_SEPARATOR = re.compile(
    r",|/|&|\+|\s[—–-]\s|\s(?:and|и|й|і|та)\s|(?<![\w-])(?:а\s+ще|а\s+также|а\s+еще|а\s+ещё)\s",
    re.IGNORECASE,
)
_ITEM_LEAD = re.compile(
    r"\s*(?:\d+[).]\s*|(?:в\s+основном|переважно|головним\s+чином|mostly|mainly|ну\s+и)\s+)*",
    re.IGNORECASE,
)
"""What may open an item of a labelled list before its thing: a number ("1) бег") or
a word of degree ("в основном походы", "переважно шахи")."""


def _labelled(sentence: str, start: int) -> bool:
    """Whether a thing at `start` is an item of a list the user labels as their interests
    (`LABEL`): in the same sentence, and opening its item of the list, so "мои интересы:
    мечтаю научиться серфингу" and "my hobbies: none, my son plays chess" name none."""
    for m in LABEL.finditer(sentence, 0, start):
        between = sentence[m.end() : start]
        item = _LIST_SEPARATOR.split(between)[-1]
        lead = _ITEM_LEAD.match(item)  # matches every text, at least empty
        if not re.search(r"[!?;]|\.\s", between) and lead and not item[lead.end() :]:
            return True
    return False


def _liked_after(sentence: str, end: int) -> bool:
    """ "шашлык моя любовь", "spicy food is life": the cue after the thing."""
    _, stop = clause_of(sentence, end)
    return bool(LIKE_AFTER.match(sentence[end:stop].lstrip(" —–-:,")))


def health(sentence: str) -> list[Proposal]:
    """A current health state, kept in the user's words ("herniated disc right now"), or
    its end ("ankle is fine now"); whether it is current and the user's is the gate's
    call."""
    found = []
    for m in HEALTH.finditer(sentence):
        start, end = clause_of(sentence, m.start())
        said = sentence[start:end].strip(" ,—–-:")
        kind = "remove" if HEALED.search(said) else "set"
        value = "" if kind == "remove" else said[:120]
        found.append(
            Proposal(make_op(kind, "health", value, said[:120]), m.start(), m.end(), "cue")
        )
        break
    if not found:
        healed = HEALED.search(sentence)
        if healed:
            op = make_op("remove", "health", "", healed.group())
            found.append(Proposal(op, healed.start(), healed.end(), "cue"))
    return found


def schedule(sentence: str) -> list[Proposal]:
    """When to reach the user and their days off ("remind me at 21:00", "days off are
    monday and tuesday", "пиши мені зранку"), beside the rule tables' "free after 19:00":
    said as often of one appointment as of a standing schedule, so the gate, which reads
    the whole message, decides."""
    from aniso.profile.schedule import schedule_in

    found = []
    for value, clause in schedule_in(sentence, reach=True):
        start = max(sentence.find(clause), 0)
        op = make_op("set", "schedule", value, clause)
        found.append(Proposal(op, start, start + len(clause), "cue"))
    return found


LEVEL_NEGATED = _cue(
    NEGATED.pattern[len("(?<![\\w-])(?:") : -len(")(?![\\w-])")]
    + r"|drop(?:\s+the)?|ditch(?:\s+the)?|lose\s+the|less|менее|менш\w*|поменьше|без"
)
"""A negation of a level or a form: "drop the formal tone", "без таблиць"."""


_POLITE = re.compile(r"(?<![\w-])не\s+(?:мог\w*|змог\w*|міг|могли|могла)\s+б[иы]?(?![\w-])", re.I)


def _negation_scope(before: str) -> str:
    """The words a negation before a value can reach: back to the last comma or dash,
    at most 25 characters, and not a polite "не могли бы" ("could you not")."""
    return _POLITE.sub(" ", re.split(r"[,—–]", before)[-1][-25:])


REPLY_AFTER = _cue(
    r"again|please|pls|plz|only|(?:is|'s)\s+(?:fine|ok|okay|better|good|perfect)"
    r"|would\s+be\s+(?:better|easier|great|nice|good)|from\s+now\s+on|for\s+now"
    r"|знову|снова|опять|обратно|назад|пожалуйста|будь\s+ласка|давай|плиз|пліз"
)
"""A request that names the language first: "english again please", "ukrainian
please", "russian would be better", "англійською знову". English puts the cue first
("reply in English") or, as often in chat, after; Russian and Ukrainian either way."""
AFTER_REACH = 25
"""How far after the value an after-cue may start, and no further than the next comma:
"english is fine" is a request, "english, and my job is fine" is not about it."""


_POSSESSED = re.compile(
    r"(?<![\w-])(?:my|his|her|their|our|your|мой|моя|мо[её]|мій|моє|его|її|ее|её)\s+$",
    re.IGNORECASE,
)
"""A language that someone has ("my English is fine", "моя англійська") is a skill,
not the language to reply in."""


def _cued_after(sentence: str, start: int, end: int, cue: re.Pattern[str]) -> bool:
    if _POSSESSED.search(sentence, 0, start):
        return False
    _, stop = clause_of(sentence, end)
    after = re.split(r"[,—–:]", sentence[end : min(stop, end + AFTER_REACH)])[0]
    return bool(cue.search(after))


def _levels(
    field: str,
    table: vocab.Table,
    cue: re.Pattern[str],
    *,
    anywhere: bool = False,
    after: re.Pattern[str] | None = None,
    of_replies: bool = False,
) -> Callable[[str], list[Proposal]]:
    """A finder for one closed or open field: each word of `table` in a clause with
    `cue` (or followed closely by `after`) proposes a set, or, after a negation, a
    removal of that value. A field `of_replies` takes no adjective that describes
    another noun (`_of_another_noun`)."""

    def find(sentence: str) -> list[Proposal]:
        found = []
        for canonical, start, end in vocab_mentions(table, sentence):
            if of_replies and _of_another_noun(sentence, end):
                continue  # "хочу короткие блоки по 10 минут": blocks, not replies
            context = _clause(sentence, start) if anywhere else _before(sentence, start)
            if not cue.search(context) and not (after and _cued_after(sentence, start, end, after)):
                continue
            negated = bool(LEVEL_NEGATED.search(_negation_scope(_before(sentence, start))))
            op = make_op("remove" if negated else "set", field, canonical, sentence[start:end])
            found.append(Proposal(op, start, end, "cue"))
        return found

    return find


_REPLY_NOUNS = frozenset(
    """ответ текст сообщение абзац предложение фраза письмо объяснение пояснение формулировка
    відповідь повідомлення речення абзац фраза лист пояснення формулювання тон стиль""".split()
)
"""What a reply is made of: "короткие ответы" is a tone, "короткие блоки" is not."""


def _of_another_noun(sentence: str, end: int) -> bool:
    """Whether a Russian or Ukrainian adjective of tone at sentence[:end] describes the
    noun right after it, and that noun is no part of a reply (pymorphy3's likeliest
    reading and lemma)."""
    following = re.match(r"\s+([а-яёіїєґ'ʼ-]+)", sentence[end:], re.IGNORECASE)
    if following is None or not morph.is_cyrillic(sentence[end - 1 : end]):
        return False
    readings = morph.parses(following.group(1))
    return (
        bool(readings)
        and readings[0][morph.POS] == "NOUN"
        and (readings[0][morph.LEMMA] not in _REPLY_NOUNS)
    )


diet = _levels("diet", vocab.DIET, re.compile(r"."), anywhere=True)
language = _levels("language", vocab.LANGUAGE_WORDS, REPLY, after=REPLY_AFTER)
budget = _levels("budget", vocab.BUDGET, MONEY, anywhere=True)
spice = _levels("spice", vocab.SPICE, SPICY, anywhere=True)
format_ = _levels("format", vocab.FORMAT, REPLY_SHAPE, anywhere=True)
tone = _levels("tone", vocab.TONE, REPLY_SHAPE, anywhere=True, of_replies=True)

_OPEN_LIKE = (
    r"love|loving|adore|obsessed\s+with|(?:big|huge)\s+fan\s+of|crazy\s+about|mad\s+about"
    r"|(?P<heading>(?:my\s+)?(?:fav|fave|favs|faves|favou?rites?)\s+\w+\s*:"
    r"|my\s+(?:\w+\s+)?taste\s*:)"
)
"""A verb of liking, or a list's heading ("fav foods: pho, khachapuri", "my music taste:")."""
_OPEN_DISLIKE = r"hate|despise|detest|loathe|can'?t\s+stand|dislike"
_OPEN = re.compile(
    rf"(?<![\w-])(?:(?P<like>{_OPEN_LIKE})|(?P<dislike>{_OPEN_DISLIKE}))\s+(?=[^.;!?()])",
    re.IGNORECASE,
)
_REST = re.compile(r"[^.;!?()]+")
_PRONOUN = re.compile(
    rf"(?<![\w-])(?:(?P<like>{_OPEN_LIKE}|enjoy)|(?P<dislike>{_OPEN_DISLIKE}))\s+(?:it|them)(?![\w-])",
    re.IGNORECASE,
)


def open_items(sentence: str) -> list[Proposal]:
    """Things the lexicon does not know, after a verb of liking or disliking ("love nasi
    goreng and sambal", "hate tourist traps"), in the user's words; and a thing named
    earlier in the sentence that "it" stands for ("reality tv 24/7 and i despise it").
    English only: a Russian or Ukrainian thing would need its English name."""
    if morph.is_cyrillic(sentence):
        return []
    found: list[Proposal] = []
    known = lexicon.mentions(sentence)
    for m in _OPEN.finditer(sentence):
        field = "likes" if m.group("like") else "dislikes"
        for phrase, start, end in _open_phrases(sentence, m.end(), listed=bool(m.group("heading"))):
            if any(start <= k.start < end for k in known):
                continue  # the cue finder has it
            if unknown := _unknown_item(field, phrase, start, end):
                found.append(unknown)
    for m in _PRONOUN.finditer(sentence):
        before = [k for k in known if k.end <= m.start()]
        if before:
            field = "dislikes" if m.group("dislike") else "likes"
            if field == "likes" and before[-1].term.kind == "interest":
                field = "interests"
            propose = about(before[-1], sentence, "pronoun")
            found.append(propose("add", field))
    return found


_PLAY = re.compile(
    r"(?<![\w-])(?:(?:i|we)(?:'m|\s+am|\s+are)?\s+|(?:mostly|also|still|usually)\s+)"
    r"(?:(?:mostly|also|still|usually|really|just|often)\s+)?play(?:ing)?\s+(?=[^.;!?()])",
    re.IGNORECASE,
)
"""What the user plays ("i play go online a ton", "mostly play valorant and minecraft"):
a game, a sport or an instrument, whether the lexicon knows it or not."""


def played(sentence: str) -> list[Proposal]:
    """Interests after "i play": a known thing as the lexicon names it (if it can be an
    interest), another kept in the user's words. English only, as `open_items`."""
    from aniso.profile.rules import route

    if morph.is_cyrillic(sentence):
        return []
    found: list[Proposal] = []
    known = lexicon.mentions(sentence)
    for m in _PLAY.finditer(sentence):
        for phrase, start, end in _open_phrases(sentence, m.end()):
            term = next((k for k in known if start <= k.start < end), None)
            if term is not None:
                if route("interests", term.term) == "interests":
                    found.append(about(term, sentence, "open")("add", "interests"))
            elif unknown := _unknown_item("interests", phrase, start, end):
                found.append(unknown)
    return found


def _open_phrases(
    sentence: str, position: int, *, listed: bool = False
) -> list[tuple[str, int, int]]:
    """The item phrases from `position` to the sentence's end (`rules.split_items`),
    with their spans in `sentence`."""
    from aniso.profile.rules import split_items

    rest = _REST.match(sentence, position)
    if rest is None:
        return []
    base = rest.start()
    return [(p, base + s, base + e) for p, s, e in split_items(rest.group(), listed=listed)]


def _unknown_item(field: str, phrase: str, start: int, end: int) -> Proposal | None:
    """A thing the lexicon does not know, added to `field` in the user's words, when the
    phrase looks like an item (`rules.clean_unknown`, and no function word first)."""
    from aniso.profile.rules import clean_unknown

    value = clean_unknown(phrase)
    if value is None or value.split()[0] in _OPEN_STOP:
        return None
    return Proposal(make_op("add", field, value, phrase), start, end, "open")


_OPEN_CYRILLIC = re.compile(
    r"(?<![\w-])(?:(?P<like>(?:очень\s+|дуже\s+|просто\s+)?(?:люблю|обожаю|обожнюю|кайфую\s+от"
    r"|кайфую\s+від|фанатею\s+от|фанатію\s+від|без\s+ума\s+от|обожаем|любим|любимо))"
    r"|(?P<dislike>ненавижу|ненавиджу|терпеть\s+не\s+могу|терпіти\s+не\s+можу|не\s+переношу"
    r"|не\s+перевариваю|не\s+люблю)|(?P<interest>увлекаюсь|захоплююсь|занимаюсь|займаюсь"
    r"|увлекаемся|захоплюємось))\s+",
    re.IGNORECASE,
)
_ITEM_POS = frozenset(("NOUN", "ADJF", "PRTF"))
_ITEM_JOINS = frozenset("и й і та".split())


def open_items_cyrillic(sentence: str) -> list[Proposal]:
    """Things after a Russian or Ukrainian verb of liking, disliking or doing ("обожнюю
    вареники з вишнями і борщ", "захоплююсь вишивкою"): each noun with its adjectives,
    as the dictionaries parse them, through a list joined by commas and "і"/"и". A
    known thing is named as the lexicon names it; another is kept in the user's words,
    and a thing done in its dictionary form ("вишивкою" is "вишивка"). A verb, pronoun
    or adverb after the cue ("люблю гулять", "люблю тебя", "люблю когда") is no thing."""
    from aniso.profile.rules import route

    if not morph.is_cyrillic(sentence):
        return []
    found: list[Proposal] = []
    known = lexicon.mentions(sentence)
    for m in _OPEN_CYRILLIC.finditer(sentence):
        field = "likes" if m.group("like") else "dislikes" if m.group("dislike") else "interests"
        if field == "likes" and allowance.NEGATED_NEAR.search(sentence, 0, m.start()):
            continue  # "не очень люблю рыбу": a dislike, which the rules read
        for start, end in _noun_phrases(sentence, m.end()):
            term = next((k for k in known if start <= k.start < end), None)
            if term is not None:
                routed = route(field, term.term)
                if routed:
                    found.append(about(term, sentence, "open")("add", routed))
                continue
            said = sentence[start:end]
            value = said.lower() if field != "interests" else morph.lemmas(said)[0]
            found.append(Proposal(make_op("add", field, value, said), start, end, "open"))
    return found


def _noun_phrases(sentence: str, position: int) -> list[tuple[int, int]]:
    """The spans of a list of noun phrases from `position`: adjectives and a noun, a
    prepositional phrase after it skipped ("вареники з вишнями"), items joined by a
    comma, "и" or "і"; at most three words each, the list ends at anything else."""
    spans: list[tuple[int, int]] = []
    while True:
        words = _words_of(sentence, position, _ITEM_POS, most=3)
        if not words or morph.part_of_speech(words[-1].group()) != "NOUN":
            return spans
        spans.append((words[0].start(), words[-1].end()))
        position = words[-1].end()
        after = morph.WORD.match(sentence, position + 1)
        if after and not sentence[position : after.start()].strip():
            if any(r[morph.POS] == "PREP" for r in morph.parses(after.group())):
                modifier = _words_of(sentence, after.end(), _ITEM_POS, most=3)
                position = modifier[-1].end() if modifier else after.end()
        joined = _LIST_JOIN.match(sentence, position)
        if joined is None:
            return spans
        position = joined.end()


def _words_of(
    sentence: str, position: int, kinds: frozenset[str], *, most: int
) -> list[re.Match[str]]:
    """The run of words from `position`, separated by spaces only, whose likeliest part of
    speech is one of `kinds`."""
    words: list[re.Match[str]] = []
    for w in morph.WORD.finditer(sentence, position):
        if sentence[position : w.start()].strip() or len(words) == most:
            break
        readings = morph.parses(w.group())
        if (
            w.group().lower() in _ITEM_JOINS
            or not readings
            or readings[0][morph.POS] not in kinds
            or "Apro" in readings[0][morph.TAG]  # "моя", "той": no thing
        ):
            break
        words.append(w)
        position = w.end()
    return words


_LIST_JOIN = re.compile(
    r"\s*(?:,\s*(?:(?:и|й|і|та|а\s+также|а\s+ще)\s+)?|\s(?:и|й|і|та)\s+)", re.IGNORECASE
)


_OPEN_STOP = frozenset(
    """to it that this when how being having getting going doing making the a an my your
    his her their our its being so very really too much lot lots""".split()
)


FINDERS: tuple[Callable[[str], list[Proposal]], ...] = (
    items,
    open_items,
    played,
    open_items_cyrillic,
    health,
    diet,
    language,
    budget,
    spice,
    format_,
    tone,
    schedule,
)
