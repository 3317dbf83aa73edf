"""The injectable clock.

Everything that needs "now" takes a `Clock`, so tests and scenarios can simulate
months in seconds. Times are timezone-aware UTC internally; the user's timezone is a
setting applied only at the edges (display, the nightly schedule).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from aniso.core.errors import ConfigError

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The real time, in UTC."""
    return datetime.now(UTC)


def parse_instant(text: str) -> datetime:
    """Parse an ISO 8601 instant; a naive one is taken as UTC.

    Raises ConfigError naming the bad value, because it comes from `--now` or
    `ANISO_NOW`, which the user typed.
    """
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(
            f"cannot read the time {text!r}: use ISO 8601, e.g. 2026-01-05T19:00:00"
        ) from None
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC)


@dataclass
class SimulatedClock:
    """A clock that stands still until told to move: for tests, scenarios and benches."""

    now: datetime = field(default_factory=system_clock)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now = self.now + delta

    def set(self, instant: datetime) -> None:
        self.now = instant if instant.tzinfo else instant.replace(tzinfo=UTC)
