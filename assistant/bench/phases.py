"""Where a turn's time goes: exclusive wall and CPU time per phase, for `bench scale`.

The phases are the seams a turn passes through (DESIGN §2): the privacy guard, the
embedding model, the profile (learning, the snapshot and every staleness check),
the tiers' store and recall, and `other` for the controller's own glue. Time is
exclusive: the embedding inside `store` counts as `embed`, the staleness checks
inside `recall` as `profile`, so the phases add up to the turn.

The bench wraps the built services' callables on their instances; nothing in the
app knows it is being measured.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from aniso.services import Services

PHASES = ("guard", "embed", "profile", "store", "recall", "other")
F = TypeVar("F", bound=Callable[..., Any])


class PhaseClock:
    """A stack of phases; time between two switches is charged to the innermost one."""

    def __init__(self) -> None:
        self._stack: list[str] = []
        self._mark = (0.0, 0.0)
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def _switch(self) -> None:
        now = (time.perf_counter(), time.process_time())
        if self._stack:
            top = self._stack[-1]
            self.wall[top] = self.wall.get(top, 0.0) + now[0] - self._mark[0]
            self.cpu[top] = self.cpu.get(top, 0.0) + now[1] - self._mark[1]
        self._mark = now

    def wrap(self, phase: str, function: F) -> F:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self._stack:  # outside a measured turn: no bookkeeping
                return function(*args, **kwargs)
            self._switch()
            self._stack.append(phase)
            try:
                return function(*args, **kwargs)
            finally:
                self._switch()
                self._stack.pop()

        return timed  # type: ignore[return-value]

    def begin(self) -> None:
        self.wall, self.cpu = {}, {}
        self._stack = ["other"]
        self._mark = (time.perf_counter(), time.process_time())

    def end(self) -> tuple[dict[str, float], dict[str, float]]:
        """Milliseconds per phase (wall, CPU) since `begin`, every phase present."""
        self._switch()
        self._stack = []
        return (
            {phase: self.wall.get(phase, 0.0) * 1000 for phase in PHASES},
            {phase: self.cpu.get(phase, 0.0) * 1000 for phase in PHASES},
        )


def instrument(services: Services) -> PhaseClock:
    """Wrap the seams of `services` so that a PhaseClock sees every phase of a turn."""
    clock = PhaseClock()
    controller = services.controller
    memory = controller.memory
    controller.redact = clock.wrap("guard", controller.redact)
    embedder = memory.dense.embedder
    embedder.embed = clock.wrap("embed", embedder.embed)  # type: ignore[method-assign]
    memory.store = clock.wrap("store", memory.store)  # type: ignore[method-assign]
    memory.recall = clock.wrap("recall", memory.recall)  # type: ignore[method-assign]
    profile = controller.profile
    if profile is not None:
        profile.learn = clock.wrap("profile", profile.learn)  # type: ignore[method-assign]
        snapshot = clock.wrap("profile", profile.outdated_check)

        def outdated_check() -> Callable[..., bool]:
            return clock.wrap("profile", snapshot())

        profile.outdated_check = outdated_check  # type: ignore[method-assign]
    return clock
