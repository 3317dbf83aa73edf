"""One error family, so every layer can turn failures into a one-line message.

Misuse (`ConfigError`, `InputError`) is kept apart from runtime failures
(`ModelError`, `StoreError`): the first asks the user to change something, the
second says what broke. Messages say how to fix the problem, never only what failed.
"""

from __future__ import annotations


class AnisoError(Exception):
    """Base of every error Aniso shows to a user as one line."""


class ConfigError(AnisoError):
    """Settings are wrong: a bad value, an unreadable settings file, an unknown model."""


class InputError(AnisoError):
    """The user's input cannot be used: empty, too large or not text."""


class ModelError(AnisoError):
    """The LLM or embedding model failed at run time (down, timed out, bad output)."""


class StoreError(AnisoError):
    """Storage failed: the data dir is unwritable, the database is locked or corrupt."""
