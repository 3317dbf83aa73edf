"""The privacy guard: every write to memory passes through `Guard.scan` first.

It must never be the reason a message is lost or a write crashes, and it must never be
the reason a secret is stored. So `scan` does not raise: if presidio fails it falls back
to calling the recognizers directly, and if that fails too it fails closed, replacing
the whole message rather than letting it through unchecked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from aniso.privacy.findings import Finding, ScanResult, redact, resolve, types_of
from aniso.privacy.screen import could_hold

log = logging.getLogger(__name__)

UNSCANNED = "UNSCANNED"


class Guard:
    """Finds and redacts sensitive data. Cheap to construct; the engine loads on first scan."""

    def scan(self, text: str) -> ScanResult:
        """Redact every sensitive span in `text` into a typed placeholder."""
        return _scan(text, _detect)

    def scan_many(self, texts: Sequence[str]) -> list[ScanResult]:
        """`scan` for a batch (an import's texts): the same verdicts, a fraction of the time.

        Each distinct text is scanned once, by the recognizers called directly
        (`engine.analyze_without_nlp`): presidio's tokenizing and NLP artifacts feed
        none of them. A text that fails is withheld whole, as in `scan`; the others
        are unaffected.
        """
        done: dict[str, ScanResult] = {}
        for text in texts:
            if text not in done:
                done[text] = _scan(text, _detect_directly)
        return [done[text] for text in texts]

    def redact(self, text: str) -> str:
        """Just the redacted text."""
        return self.scan(text).text


def _scan(text: str, detect: Callable[[str], list[Finding]]) -> ScanResult:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if not text:
        return ScanResult(text="", findings=(), types=())
    try:
        # A text no recognizer could match is left alone without building presidio.
        findings = resolve(detect(text) if could_hold(text) else [])
        return ScanResult(redact(text, findings), findings, types_of(findings))
    except Exception:  # noqa: BLE001 - failing closed is the whole point
        log.exception("privacy scan failed; withholding the whole message")
        finding = Finding(UNSCANNED, 0, len(text), 0.0)
        return ScanResult(redact(text, (finding,)), (finding,), (UNSCANNED,))


def _detect(text: str) -> list[Finding]:
    from aniso.privacy import engine

    try:
        return engine.analyze(text)
    except Exception:  # noqa: BLE001 - e.g. text beyond spaCy's max_length
        log.warning("presidio engine failed; scanning with the recognizers directly")
        return engine.analyze_without_nlp(text)


def _detect_directly(text: str) -> list[Finding]:
    from aniso.privacy import engine

    return engine.analyze_without_nlp(text)
