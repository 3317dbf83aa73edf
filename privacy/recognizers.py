"""Presidio recognizers for the identifiers our users actually paste.

Presidio's predefined set is US/EU-centric (SSN, NHS, ...) and half of it leans on an NER
model we cannot download. So every recognizer here is ours: regex patterns with check
digits for the national identifiers, libphonenumber for phones, and detector functions
for IBANs and secrets.

Scores encode how much the *shape* alone proves. Distinctive shapes (a Luhn-valid card,
"123-456-789 01" with its checksum, a vendor token) pass on their own; ambiguous ones
(ten bare digits) start below the engine threshold and only cross it when a cue word in
any of en/ru/uk labels them (see cues.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import regex
from presidio_analyzer import EntityRecognizer, Pattern, PatternRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from aniso.privacy.checksums import digits_of, inn_ok, luhn_ok, snils_ok
from aniso.privacy.credentials import find_secrets
from aniso.privacy.cues import CUES, has_anti_cue, has_cue
from aniso.privacy.hits import Hit
from aniso.privacy.iban import find_ibans
from aniso.privacy.offline import has_public_suffix
from aniso.privacy.phones import find_phones
from aniso.privacy.screen import digit_count

THRESHOLD = 0.5  # what the engine reports; below it a match is only a suspicion
CUE_BOOST = 0.35  # a labelled weak match (0.3) ends up at 0.65, safely over the threshold
WEAK = 0.3

CASE_SENSITIVE = regex.DOTALL | regex.MULTILINE
DEFAULT_FLAGS = CASE_SENSITIVE | regex.IGNORECASE

Validator = Callable[[str], bool]
Finder = Callable[[str], list[Hit]]


def _boost(
    text: str, results: list[RecognizerResult], cue: re.Pattern[str] | None, anti: bool = True
) -> None:
    """Move scores by context: up for a cue word of this type, down (if `anti`) for a word
    that labels the number as something else. Marked as enhanced so presidio's own
    enhancer skips it."""
    for result in results:
        shift = 0.0
        if cue is not None and has_cue(text, result.start, result.end, cue):
            shift += CUE_BOOST
        if anti and has_anti_cue(text, result.start):
            shift -= CUE_BOOST
        if shift:
            score = min(EntityRecognizer.MAX_SCORE, max(0.0, result.score + shift))
            result.score = score
            result.recognition_metadata[RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY] = True


class CuedPatternRecognizer(PatternRecognizer):
    """A presidio PatternRecognizer with a check-digit validator and en/ru/uk cue words.

    A failed check drops the match; a passed check keeps the pattern's own score (presidio
    would otherwise jump it to 1.0, and one random number in ten passes a mod-11 check).
    """

    def __init__(
        self,
        entity: str,
        patterns: list[Pattern],
        *,
        language: str,
        validator: Validator | None = None,
        flags: int = DEFAULT_FLAGS,
        min_digits: int = 0,
        needs: str = "",
    ) -> None:
        self._validator = validator
        self._cue = CUES.get(entity)
        self.min_digits = min_digits
        self.needs = needs
        super().__init__(
            supported_entity=entity,
            name=f"{entity}_{language}",
            supported_language=language,
            patterns=patterns,
            global_regex_flags=flags,
        )

    def could_match(self, text: str) -> bool:
        """False when no pattern can match: fewer digits than the shortest pattern holds,
        or a character every pattern needs ("@") is missing. Skipping such texts keeps
        every verdict and saves most of the scan of ordinary prose."""
        if self.needs and self.needs not in text:
            return False
        return self.min_digits == 0 or digit_count(text) >= self.min_digits

    def analyze(  # noqa: D102
        self,
        text: str,
        entities: list[str],
        nlp_artifacts: NlpArtifacts | None = None,
        regex_flags: int | None = None,
    ) -> list[RecognizerResult]:
        if not self.could_match(text):
            return []
        return super().analyze(text, entities, nlp_artifacts, regex_flags)

    def validate_result(self, pattern_text: str) -> bool | None:  # noqa: D102
        if self._validator is not None and not self._validator(pattern_text):
            return False
        return None

    def enhance_using_context(  # noqa: D102
        self,
        text: str,
        raw_recognizer_results: list[RecognizerResult],
        other_raw_recognizer_results: list[RecognizerResult],
        nlp_artifacts: NlpArtifacts | None,
        context: list[str] | None = None,
    ) -> list[RecognizerResult]:
        _boost(text, raw_recognizer_results, self._cue)
        return raw_recognizer_results


class FinderRecognizer(EntityRecognizer):
    """Adapts a plain detector function (phones, IBANs, secrets) to presidio.

    `anti_cues=False` for detectors whose own evidence (mod-97, an explicit "password:"
    label) outweighs a nearby "order" or "account" word.
    """

    def __init__(
        self, entity: str, finder: Finder, *, language: str, anti_cues: bool = True
    ) -> None:
        self._finder = finder
        self._cue = CUES.get(entity)
        self._anti_cues = anti_cues
        super().__init__(
            supported_entities=[entity], name=f"{entity}_{language}", supported_language=language
        )

    def load(self) -> None:  # noqa: D102 - nothing to load, by design
        pass

    def analyze(  # noqa: D102
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        metadata = {
            RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
        }
        return [
            RecognizerResult(
                self.supported_entities[0], hit.start, hit.end, hit.score, None, dict(metadata)
            )
            for hit in self._finder(text)
        ]

    def enhance_using_context(  # noqa: D102
        self,
        text: str,
        raw_recognizer_results: list[RecognizerResult],
        other_raw_recognizer_results: list[RecognizerResult],
        nlp_artifacts: NlpArtifacts | None,
        context: list[str] | None = None,
    ) -> list[RecognizerResult]:
        _boost(text, raw_recognizer_results, self._cue, self._anti_cues)
        return raw_recognizer_results


def _not_repetitive(value: str) -> bool:
    digits = digits_of(value)
    return len(set(digits)) > 2


def _card_length_ok(digits: str) -> bool:
    """Whether the length fits the scheme the prefix names.

    Prefix and length rule out most look-alikes that happen to pass Luhn, e.g. Nova
    Poshta waybills (14 digits starting 2045 or 5900) and 20-digit bank accounts.
    """
    n, two, four = len(digits), digits[:2], digits[:4]
    if digits[0] == "4":  # Visa (13-digit Visas are long gone; EAN-13 barcodes are not)
        return n in (16, 19)
    if two in ("34", "37"):  # American Express
        return n == 15
    if two in ("30", "36", "38", "39"):  # Diners Club
        return 14 <= n <= 19
    if "2200" <= four <= "2204":  # Mir
        return 16 <= n <= 19
    if "2221" <= four <= "2720" or "51" <= two <= "55":  # Mastercard
        return n == 16
    if two in ("35", "50", "56", "57", "58") or digits[0] == "6":  # JCB, Maestro, UnionPay...
        return 16 <= n <= 19
    return False


def _card_ok(value: str) -> bool:
    """A real scheme prefix and length, a Luhn check, and not one digit repeated."""
    digits = digits_of(value)
    return (
        13 <= len(digits) <= 19
        and _card_length_ok(digits)
        and luhn_ok(digits)
        and len(set(digits)) > 1
    )


def _ru_passport_ok(value: str) -> bool:
    digits = digits_of(value)
    return len(digits) == 10 and digits[:2] != "00" and _not_repetitive(digits)


def _email_ok(value: str) -> bool:
    return has_public_suffix(value.rsplit("@", 1)[-1])


# Cyrillic capitals used in Ukrainian passport series (no Ь, Ъ, Ы, Э, Ё).
_UA_LETTERS = "АБВГҐДЕЄЖЗИІЇЙКЛМНОПРСТУФХЦЧШЩЮЯ"
# Latin letters that look Cyrillic, typed by people on an English layout.
_LOOKALIKES = "ABCEHIKMOPTX"
# What may sit between series and number: "МК 123456", "МК №123456", "МК номер 123456".
_UA_NUMBER = r" ?(?:(?:№|номер|N) ?)?\d{6}(?!\d)"

_EMAIL = (
    r"\b[\w!#$%&'*+\-/=?^`{|}~](?:[\w!#$%&'*+\-/=?^`{|}~.]*[\w!#$%&'*+\-/=?^`{|}~])?"
    r"@\w+(?:-+\w+)*(?:\.\w+(?:-+\w+)*)+\b"
)


def build_recognizers(language: str) -> list[EntityRecognizer]:
    """Every recognizer, bound to `language` (presidio filters recognizers by language, and
    we want all of them to run whatever language the text is in)."""

    def cued(
        entity: str,
        patterns: list[Pattern],
        validator: Validator | None = None,
        flags: int = DEFAULT_FLAGS,
        *,
        min_digits: int = 0,
        needs: str = "",
    ) -> CuedPatternRecognizer:
        return CuedPatternRecognizer(
            entity,
            patterns,
            language=language,
            validator=validator,
            flags=flags,
            min_digits=min_digits,
            needs=needs,
        )

    # `min_digits`: the fewest digits any one of the recognizer's patterns can match.

    return [
        cued(
            "CREDIT_CARD",
            [
                Pattern(
                    "card",
                    r"(?<![\d-])(?:\d{4}[ -]?\d{6}[ -]?\d{5}"
                    r"|\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{13,19})(?!\d)",
                    0.9,
                )
            ],
            validator=_card_ok,
            min_digits=12,  # 4 + 4 + 4 in the grouped form
        ),
        cued(
            "RU_PASSPORT",
            [
                Pattern(
                    "series_no_number",
                    r"(?<!\d)\d{2} ?\d{2}[ ,]*(?:№|N|No\.?|номер|number) ?\d{6}(?!\d)",
                    0.5,
                ),
                Pattern("spaced", r"(?<![\d-])\d{2} ?\d{2}[ -]\d{6}(?![\d-])", WEAK),
                Pattern("bare", r"(?<![\d-])\d{10}(?![\d-])", WEAK),
            ],
            validator=_ru_passport_ok,
            min_digits=10,
        ),
        cued(
            "RU_INN",
            # A shade above WEAK: ten digits after "паспорт и ИНН:" that pass the INN
            # checksum are more likely the INN than the passport.
            [Pattern("inn", r"(?<![\d-])(?:\d{10}|\d{12})(?![\d-])", WEAK + 0.05)],
            validator=inn_ok,
            min_digits=10,
        ),
        cued(
            "RU_SNILS",
            [
                Pattern("dashed", r"(?<!\d)\d{3}-\d{3}-\d{3}[ -]\d{2}(?!\d)", 0.85),
                Pattern("spaced", r"(?<!\d)\d{3} \d{3} \d{3} \d{2}(?!\d)", WEAK),
                Pattern("bare", r"(?<![\d-])\d{11}(?![\d-])", WEAK),
            ],
            validator=snils_ok,
            min_digits=11,
        ),
        cued(
            "UA_PASSPORT",
            [
                Pattern("cyrillic", rf"(?<!\w)[{_UA_LETTERS}]{{2}}{_UA_NUMBER}", 0.55),
                Pattern("lower", rf"(?<!\w)[{_UA_LETTERS.lower()}]{{2}}{_UA_NUMBER}", WEAK),
                Pattern("lookalike", rf"(?<!\w)[{_LOOKALIKES}]{{2}}{_UA_NUMBER}", WEAK),
            ],
            flags=CASE_SENSITIVE,
            min_digits=6,
        ),
        cued(
            "UA_ID_CARD",
            [Pattern("id_card", r"(?<![\d-])\d{9}(?![\d-])", WEAK)],
            validator=_not_repetitive,
            min_digits=9,
        ),
        cued("EMAIL", [Pattern("email", _EMAIL, 0.85)], validator=_email_ok, needs="@"),
        FinderRecognizer("PHONE", find_phones, language=language),
        FinderRecognizer("IBAN", find_ibans, language=language, anti_cues=False),
        FinderRecognizer("SECRET", find_secrets, language=language, anti_cues=False),
    ]
