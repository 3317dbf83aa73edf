"""English rules. Same order as the Russian table: negations and diets first,
single-valued fields next, item lists after, the generic "I love X" last."""

from __future__ import annotations

from aniso.profile.rules import (
    ITEMS,
    Rule,
    blocks,
    const,
    health,
    items,
    level,
    name,
    prefers,
    rule,
    schedule,
)

_I_AM = r"\bI(?:'m|’m|\s+am)"
_DIET = r"(?:vegetarian|vegan|pesc[ae]tarian|veggie)(?![\w-])"
_FILLER = r"(?:now|a|an|strictly|fully|totally|mostly|also|still|actually|officially|really)"
_ITEMS_BEFORE = r"(?P<items>(?:[\w'-]+\s+){0,2}[\w'-]+)"
_FMT = (
    r"(?:tables?|tabular\s+form|bullet(?:\s+points?|\s+lists?|s)?|numbered\s+(?:lists?|steps)"
    r"|short\s+paragraphs|paragraphs|plain\s+text|step[- ]by[- ]step(?:\s+lists?)?)"
)
_FMTS = rf"(?P<v>{_FMT}(?:\s*(?:,|or|and)\s*(?:a\s+)?{_FMT})*)"
_TONE = (
    r"(?:brief(?:ly)?|short|concise(?:ly)?|terse|succinct(?:ly)?|to\s+the\s+point|warm(?:er)?"
    r"|detailed|in\s+detail|thorough|formal|informal|casual|friendly|reserved)"
)
_TONES = rf"(?P<v>{_TONE}(?:(?:\s*,\s*(?:but\s+|and\s+)?|\s+and\s+|\s+but\s+)(?:more\s+)?{_TONE})*)"
_LEVEL = (
    r"(?:minimal|minimum|shoestring|low|tight|small|limited|modest|medium|moderate|average"
    r"|high|large|big|generous|flexible|unlimited)"
)
_SICK = (
    r"(?:(?:'m|’m|\s+am|\s+got|\s+feel)\s+(?:sick|ill|unwell)|(?:'ve|\s+have)\s+(?:got\s+)?"
    r"(?:a\s+cold|the\s+flu|flu|covid|a\s+fever)|\s+caught\s+a\s+cold"
    r"|\s+(?:hurt|injured|sprained|broke)\s+my\s+\w+)"
)

RULES: tuple[Rule, ...] = (
    # Diet.
    rule(
        "en-diet-not",
        rf"(?:{_I_AM}\s+(?:not|no\s+longer)|\bI(?:'m|\s+am)\s+not\s+a)\s+(?:{_FILLER}\s+)*(?P<v>{_DIET})",
        level("diet", kind="remove"),
    ),
    rule(
        "en-diet-pescatarian",
        r"\bI\s+(?:don't|do\s+not|no\s+longer)\s+eat\s+meat\s*,?\s+but\s+(?:I\s+)?(?:still\s+)?eat\s+fish"
        r"|\bI\s+eat\s+fish\s*,?\s+but\s+not\s+meat",
        const("set", "diet", "pescatarian"),
    ),
    rule(
        "en-diet-vegan",
        r"\bI\s+(?:don't|do\s+not|no\s+longer|never)\s+eat\s+(?P<said>(?:any\s+)?animal\s+products)"
        r"|\bI\s+(?:stopped|quit)\s+eating\s+(?P<said2>animal\s+products)",
        const("set", "diet", "vegan"),
    ),
    rule(
        "en-diet-no-meat",
        r"\bI\s+(?:(?:don't|do\s+not|no\s+longer|never)\s+eat|(?:have\s+|'ve\s+)?(?:stopped|quit)"
        r"\s+eating|(?:have\s+|'ve\s+)?gave\s+up|(?:have\s+|'ve\s+)?given\s+up|cut\s+out)\s+"
        r"meat\b",
        const("set", "diet", "vegetarian"),
    ),
    rule(
        "en-diet-meat-again",
        r"\bI\s+(?:eat|am\s+eating|'m\s+eating|started\s+eating)\s+meat\s+again"
        r"|\bI\s+eat\s+(?:everything|anything)\b",
        const("set", "diet", "omnivore"),
    ),
    rule("en-diet-i-am", rf"{_I_AM}\s+(?:{_FILLER}\s+)*(?P<v>{_DIET})", level("diet")),
    rule(
        "en-diet-became",
        r"\bI(?:\s+have|'ve)?\s+(?:became|become|went|gone|turned|switched\s+to\s+being|been)\s+"
        rf"(?:{_FILLER}\s+)*(?P<v>{_DIET})",
        level("diet"),
    ),
    rule(
        "en-diet-follow",
        rf"\bI\s+(?:follow|eat|keep|am\s+on|'m\s+on)\s+an?\s+(?P<v>{_DIET})\s+diet",
        level("diet"),
    ),
    # Food the user can no longer eat, said with the food first.
    rule(
        "en-avoid-free",
        r"\b(?P<items>[\w]+)[- ]free\b",
        items("add", "avoid", known_only=True),
    ),
    rule("en-lactose", r"\b(?P<said>lactose[- ]intolerant)", const("add", "allergies", "lactose")),
    rule("en-celiac", r"\b(?P<said>c[o]?eliac)", const("add", "avoid", "gluten")),
    rule(
        "en-unlike-after",
        rf"{_ITEMS_BEFORE}\s+(?:is|are)\s+(?:no\s+longer|not)\s+(?:for\s+me|ok|okay|an\s+option"
        r"|good\s+for\s+me)(?:\s+any\s*more)?",
        items("remove", "likes", known_only=True),
    ),
    rule(
        "en-unlike-suits",
        rf"{_ITEMS_BEFORE}\s+(?:no\s+longer|doesn't|don't|does\s+not|do\s+not)\s+"
        r"(?:works?|suits?|agrees?)\s+(?:for\s+|with\s+)?me",
        items("remove", "likes", known_only=True),
    ),
    rule(
        "en-unlike",
        r"\bI\s+no\s+longer\s+(?:like|love|enjoy|want)\s+" + ITEMS,
        items("remove", "likes"),
    ),
    rule(
        "en-unlike-anymore",
        r"\bI\s+(?:don't|do\s+not)\s+(?:really\s+)?(?:like|love|enjoy)\s+"
        r"(?P<items>[^.;!?|]+?)\s+any\s*more\b",
        items("remove", "likes"),
    ),
    rule(
        "en-unlike-not-into",
        r"\bI(?:'m|\s+am)\s+(?:not\s+into|done\s+with|over)\s+" + ITEMS,
        items("remove", "likes"),
    ),
    # Who the user is and how to talk to them.
    rule(
        "en-name",
        r"\b(?:call\s+me|my\s+name\s+is|my\s+name's|I(?:'m|\s+am)\s+called|name's)\s+"
        r"(?P<v>[\w'-]+(?-i:\s+[A-Z][\w'-]+)?)",
        name,
    ),
    rule(
        "en-language",
        r"\b(?:answer|reply|respond|talk|speak|write)(?:\s+to\s+me)?\s+(?:always\s+|only\s+)?"
        r"in\s+(?P<v>English|Russian|Ukrainian)\b",
        level("language"),
    ),
    rule(
        "en-timezone",
        r"\bmy\s+time\s*zone\s+is\s+(?P<v>[A-Za-z_]+/[A-Za-z_]+|(?:UTC|GMT)\s*[+-]\s*\d{1,2}|\w+)"
        r"|\bI\s+(?:live|am\s+based|'m\s+based|moved)\s+(?:now\s+)?(?:in|to)\s+"
        r"(?P<v2>(?-i:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?))",
        level("timezone"),
    ),
    # Budget.
    rule(
        "en-budget-any",
        r"\b(?P<said>money\s+is\s+no\s+object|budget\s+(?:doesn't|does\s+not)\s+matter"
        r"|no\s+budget\s+limit)",
        const("set", "budget", "flexible"),
    ),
    rule(
        "en-budget-is",
        r"\bbudget\s*(?:is|'s|:|-)?\s*(?:now\s+|still\s+|very\s+|pretty\s+|quite\s+|rather\s+)*"
        rf"(?P<v>{_LEVEL})\b",
        level("budget"),
    ),
    rule(
        "en-budget-keep",
        # "keep it tight", "keep it minimal", "keep it low-key" are about length or mood:
        # after a bare "it" only "cheap" says money on its own.
        rf"\bkeep\s+(?:the\s+|my\s+|it\s+)?(?:budget|costs?|it(?=\s+cheap\b))"
        rf"\s+(?P<v>{_LEVEL}|cheap)\b",
        level("budget"),
    ),
    rule(
        "en-budget-adj",
        rf"\b(?:on|have|with|got)\s+an?\s+(?:very\s+)?(?P<v>{_LEVEL}|shoestring)\s+budget",
        level("budget"),
    ),
    # Reply format.
    rule(
        "en-format",
        rf"\b(?:answer|reply|respond|write|format|show|give|put|make|present|use|using|prefer"
        rf"|like)\b(?:\s+[^\s.;!?|]+){{0,6}}?\s+(?P<ev>(?:in|as|with|using)?\s*(?:an?\s+)?{_FMTS})",
        level("format"),
    ),
    rule(
        "en-format-as",
        rf"(?P<ev>\b(?:as|in)\s+(?:an?\s+)?{_FMTS})\s+(?:please|always)",
        level("format"),
    ),
    # Tone.
    rule(
        "en-tone",
        # An ask, not what someone does: "i write short fiction" is no tone.
        r"(?<!\bi\s)(?<!\bwe\s)(?<!\bhe\s)(?<!\bshe\s)(?<!\bthey\s)"
        r"\b(?:be|answer|reply|respond|write|talk|explain|keep\s+(?:it|your\s+answers|answers"
        r"|replies|responses))\s+(?:(?:always|more|very|a\s+bit|please)\s+)*" + _TONES,
        level("tone"),
    ),
    rule(
        "en-tone-answers",
        rf"\bI\s+(?:prefer|like|want|need)\s+(?P<ev>{_TONES})\s+(?:answers|replies|responses)",
        level("tone"),
    ),
    # When the user has time, and how they are.
    rule("en-schedule", r"^.+$", schedule),
    rule(
        "en-recovered",
        r"\bI(?:'m|\s+am)\s+(?:better|well|healthy|fine)\s+(?:now|again)|\bI(?:'ve|\s+have)\s+"
        r"recovered|\bI(?:'m|\s+am)\s+no\s+longer\s+(?:sick|ill)",
        const("remove", "health", ""),
    ),
    rule("en-health", rf"\bI(?P<c>{_SICK})", health.state),
    rule(
        "en-health-limit",
        r"\bI\s+(?:can|need\s+to|should)\s+only\s+[^,.;!?|]+|\bonly\s+light\s+[^,.;!?|]+",
        health.limit_only,
    ),
    rule(
        "en-blocks",
        r"\b(?:short\s+)?(?:blocks|sessions|chunks|intervals)\s+of\s+(?P<n>\d+\s*(?:[-–—]\s*\d+)?)"
        r"\s*min\w*",
        blocks,
    ),
    # Food to leave out, and allergies.
    rule(
        "en-no", r"\b(?:no|without|still\s+no)\s+" + ITEMS, items("add", "avoid", known_only=True)
    ),
    rule(
        "en-avoid",
        r"\b(?:avoid(?:ing)?|skip|leave\s+out|I\s+(?:can't|cannot|can\s+not|don't|do\s+not|never"
        r"|no\s+longer)\s+(?:eat|have|tolerate))\s+" + ITEMS,
        items("add", "avoid", known_only=True),
    ),
    rule(
        "en-allergy",
        rf"(?:{_I_AM}\s+allergic\s+to|\ballerg(?:y|ies)\s*(?:to|:))\s+" + ITEMS,
        items("add", "allergies"),
    ),
    # Dislikes, then likes.
    rule(
        "en-dislike",
        r"\bI\s+(?:(?:really\s+)?(?:don't|do\s+not)\s+(?:like|enjoy|love)|hate|dislike|can't\s+stand"
        r"|cannot\s+stand)\s+" + ITEMS,
        items("add", "dislikes"),
    ),
    rule(
        "en-that-i-love",
        r"\babout\s+(?P<items>[^.;!?|,]+?)\s*[,—–-]\s*(?:I\s+)?(?:love|like|enjoy)\s+(?:it|them|that)",
        items("add", "likes"),
    ),
    rule(
        "en-hobby",
        r"\bmy\s+(?:hobbies|hobby|interests)\s+(?:is|are|include)\s+" + ITEMS,
        items("add", "interests"),
    ),
    rule(
        "en-interested",
        rf"(?:{_I_AM}\s+(?:really\s+|very\s+)?(?:into|interested\s+in|a\s+(?:big\s+)?fan\s+of))\s+"
        + ITEMS,
        items("add", "interests"),
    ),
    rule(
        "en-love",
        r"\bI\s+(?:(?:really|also|absolutely|just|do)\s+)*(?:love|like|enjoy|adore)\s+" + ITEMS,
        items("add", "likes"),
    ),
    rule("en-prefers", r"\bI\s+(?:prefer|would\s+rather\s+have)\s+" + ITEMS, prefers),
)
