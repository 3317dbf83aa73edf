"""The presidio AnalyzerEngine, built offline, once per process, on first use.

Presidio's default engine loads en_core_web_lg and, when it is missing, calls
`spacy.cli.download` - fatal offline. Our recognizers need no NER at all (a blank
pipeline has none to offer), only tokenization, so the engine gets blank spaCy pipelines
for en/ru/uk. Importing presidio and spaCy costs about two seconds, which is why nothing
here runs until the first scan.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import TYPE_CHECKING

from aniso.privacy.findings import Finding
from aniso.privacy.normalize import fold

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine, EntityRecognizer

LANGUAGES = ("en", "ru", "uk")

_UKRAINIAN_ONLY = frozenset("іїєґІЇЄҐ")
_RUSSIAN_ONLY = frozenset("ыэъёЫЭЪЁ")
_SAMPLE = 4000
# Strings a blank pipeline may learn before it is renewed (see _bound_vocabulary).
VOCABULARY_LIMIT = 10_000
_WARM_UP = "паспорт 4510 123456, card 4111 1111 1111 1111, +7 912 345-67-89, a@b.com pass: x1"

_lock = threading.Lock()
_analyzer: AnalyzerEngine | None = None

log = logging.getLogger(__name__)


def pick_language(text: str) -> str:
    """Choose the tokenizer: Ukrainian, Russian or English, by the letters used.

    Only tokenization depends on it; every recognizer runs for every language.
    """
    sample = text[:_SAMPLE]
    cyrillic = latin = 0
    ukrainian = russian = 0
    for ch in sample:
        if "\u0400" <= ch <= "\u04ff":
            cyrillic += 1
            ukrainian += ch in _UKRAINIAN_ONLY
            russian += ch in _RUSSIAN_ONLY
        elif ch.isascii() and ch.isalpha():
            latin += 1
    if cyrillic <= latin:
        return "en"
    return "uk" if ukrainian > russian else "ru"


def _build() -> AnalyzerEngine:
    import spacy
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    from aniso.privacy.offline import install_offline_default
    from aniso.privacy.recognizers import THRESHOLD, build_recognizers

    class BlankSpacyNlpEngine(SpacyNlpEngine):
        """SpacyNlpEngine over blank pipelines: tokenizer only, nothing to download."""

        def load(self) -> None:
            self.nlp = {lang: spacy.blank(lang) for lang in LANGUAGES}

    install_offline_default()
    nlp_engine = BlankSpacyNlpEngine(
        models=[{"lang_code": lang, "model_name": f"blank:{lang}"} for lang in LANGUAGES]
    )
    nlp_engine.load()
    registry = RecognizerRegistry(
        recognizers=[rec for lang in LANGUAGES for rec in build_recognizers(lang)],
        supported_languages=list(LANGUAGES),
    )
    analyzer = AnalyzerEngine(
        registry=registry,
        nlp_engine=nlp_engine,
        supported_languages=list(LANGUAGES),
        default_score_threshold=THRESHOLD,
    )
    # Presidio compiles each recognizer's regexes on its first use; pay that here, in
    # start-up, rather than in the first message of each language (~30 ms each).
    for lang in LANGUAGES:
        analyzer.analyze(text=_WARM_UP, language=lang)
    return analyzer


def shared_analyzer() -> AnalyzerEngine:
    """The process-wide engine; the first caller pays for building it."""
    global _analyzer
    if _analyzer is None:
        with _lock:
            if _analyzer is None:
                _analyzer = _build()
    return _analyzer


def is_built() -> bool:
    """Whether the engine has been built in this process (for latency reports and tests)."""
    return _analyzer is not None


def analyze(text: str) -> list[Finding]:
    """Run every recognizer through presidio and return findings above the threshold.

    Offsets refer to `text` itself: recognizers read a same-length folded copy.
    """
    analyzer = shared_analyzer()
    text = fold(text)
    language = pick_language(text)
    results = analyzer.analyze(text=text, language=language)
    _bound_vocabulary(analyzer, language)
    return [Finding(r.entity_type, r.start, r.end, r.score) for r in results]


def _bound_vocabulary(analyzer: AnalyzerEngine, language: str) -> None:
    """Renew a pipeline whose vocabulary passed VOCABULARY_LIMIT strings.

    spaCy's StringStore keeps every string it has tokenized, for good, so over a long
    session each new number, name and typo stays in memory. Scanning the soak's
    20,000 messages added one string each and 9.5 MB of RSS; renewing at 10,000
    strings, 3.2 MB. Tokenization needs none of it (the pipelines are blank), so a
    fresh pipeline (about 60 ms to build) replaces a full one. A scan running in
    another thread keeps the old one until it is done.
    """
    pipelines = analyzer.nlp_engine.nlp
    nlp = pipelines.get(language)
    if nlp is None or len(nlp.vocab.strings) <= VOCABULARY_LIMIT:
        return
    import spacy

    with _lock:
        if pipelines.get(language) is nlp:
            pipelines[language] = spacy.blank(language)
            log.debug("renewed the %s tokenizer after %d strings", language, len(nlp.vocab.strings))


def analyze_without_nlp(text: str) -> list[Finding]:
    """The same recognizers, called directly, skipping presidio's engine and tokenization.

    Same findings as `analyze`: no recognizer of ours reads the NLP artifacts (the
    pipelines are blank, cues are matched on the raw text, none declares presidio
    context words), and the steps after the recognizers (threshold, dropping a span
    held inside another of its type) are presidio's own. Tokenizing and building those
    artifacts was over half of `analyze`'s time, so bulk paths (`Guard.scan_many`) use
    this; so does the guard when the engine itself fails (a text longer than spaCy's
    max_length, a broken install).
    """
    from presidio_analyzer import EntityRecognizer

    from aniso.privacy.recognizers import THRESHOLD

    text = fold(text)
    results = []
    for recognizer, entities in _direct_recognizers():
        found = recognizer.analyze(text, entities, None)
        if found:
            found = recognizer.enhance_using_context(text, found, [], None, None)
            results += [r for r in found if r.score >= THRESHOLD]
    return [
        Finding(r.entity_type, r.start, r.end, r.score)
        for r in EntityRecognizer.remove_duplicates(results)
    ]


@functools.cache
def _direct_recognizers() -> list[tuple[EntityRecognizer, list[str]]]:
    from aniso.privacy.recognizers import build_recognizers

    return [(rec, rec.get_supported_entities()) for rec in build_recognizers(LANGUAGES[0])]
