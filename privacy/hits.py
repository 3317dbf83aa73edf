"""The raw candidate a detector function yields before presidio wraps it."""

from __future__ import annotations

from typing import NamedTuple


class Hit(NamedTuple):
    """A span a detector believes is sensitive, with its confidence before context.

    Detectors are plain functions returning these so they can be tested, and run, without
    presidio (the guard falls back to them if the engine fails).
    """

    start: int
    end: int
    score: float
