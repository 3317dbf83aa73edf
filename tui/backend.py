"""The TUI's one handle on the core: lazy services, one lock, plain results.

Widgets never touch stores or models. They call these methods from thread workers;
the lock serialises every core call, because the SQLite connection and the model are
shared by the chat worker, the panels and the nightly compactor. Services are built
on first use (in a worker, after the first paint), so heavy imports never delay start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aniso.tui import data_actions

if TYPE_CHECKING:
    from aniso.chat import Reply
    from aniso.core.clock import Clock
    from aniso.core.settings import Settings
    from aniso.profile.model import ProfileValue
    from aniso.services import Services
    from aniso.tiers.model import MemoryItem


@dataclass(frozen=True)
class TierCounts:
    hot: int = 0
    warm: int = 0
    cold: int = 0
    archive: int = 0


@dataclass(frozen=True)
class Turn:
    """One answered message, with what the panels show about it."""

    reply: Reply
    redacted: list[str] = field(default_factory=list)
    """Kinds of private data withheld from memory in this message (never values)."""
    triage: float = 0.0
    """Busy-day triage weight α after this message (`aniso.tiers.triage`)."""


class Backend:
    """Owns the services for one TUI session; every method is synchronous."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        temporary: bool = False,
        exporter: Callable[[Services, Path], Path] = data_actions.export,
    ) -> None:
        from aniso.core.clock import SimulatedClock, parse_instant, system_clock

        self.settings = settings
        self.temporary = temporary
        # The clock is known before the services exist: the status bar needs it for
        # the first paint, and building the services then would delay that paint.
        self._clock: Clock = clock or (
            SimulatedClock(parse_instant(settings.now)) if settings.now else system_clock
        )
        self._exporter = exporter
        self._services: Services | None = None
        self._lock = threading.RLock()
        self._scheduler: Any = None

    # ---- lifecycle -------------------------------------------------------------

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def is_local(self) -> bool:
        from aniso.core.settings import EMBEDDED_MODEL

        return self.model == EMBEDDED_MODEL or self.model.startswith(("ollama/", "ollama_chat/"))

    def services(self) -> Services:
        with self._lock:
            if self._services is None:
                from aniso.services import build

                self._services = build(self.settings, clock=self._clock, temporary=self.temporary)
            return self._services

    def now(self) -> datetime:
        return self._clock()

    def warm_up(self) -> None:
        """Build services, load the model and the guard's engine now, so the first
        reply is quick."""
        from aniso import warmup

        self.services()
        warmup.prepare_model(self.settings)  # in-process, without litellm
        warmup.warm(self.settings)
        if not self.settings.is_embedded_model:
            from aniso.llm.gateway import litellm_module

            litellm_module()
        warmup.settle()

    def digest(self) -> str | None:
        """The start-of-session digest, once per local day (None otherwise)."""
        with self._lock:
            return self.services().assistant.pending_digest()

    def set_temporary(self, temporary: bool) -> None:
        """Switch between a normal and a temporary chat (memory neither read nor written).

        Called on the UI thread, so it never waits for the lock: a call in flight keeps
        the services it holds, the next call builds the new ones. The old services are
        closed on a worker thread once that call is done, so their vector index pushes
        what it holds and releases its folder lock (another Aniso process, or the next
        normal chat, can own the index at once).
        """
        if temporary == self.temporary:
            return
        self.temporary = temporary
        retired, self._services = self._services, None
        if retired is not None:
            threading.Thread(
                target=self._close_retired, args=(retired,), name="aniso-close", daemon=True
            ).start()

    def _close_retired(self, services: Services) -> None:
        """Close services that a switch replaced, after any call still using them."""
        with self._lock:
            services.close()

    def switch_model(self, model: str) -> None:
        """Use another litellm model from the next message on; ConfigError if unknown."""
        from aniso.llm.gateway import LLMGateway

        model = model.strip()
        candidate = replace_settings(self.settings, model=model)
        LLMGateway(candidate).check_model()
        with self._lock:
            self.settings = candidate
            if self._services is not None:
                self._services.close()
            self._services = None

    def start_schedule(self) -> None:
        """The nightly compactor, in the user's timezone, with catch-up at start."""
        from aniso import scheduler
        from aniso.tiers.compaction import last_report

        services = self.services()
        with self._lock:
            report = last_report(services.db)
        last_run = datetime.fromisoformat(report["now"]) if report else None
        self._scheduler = scheduler.start(
            self.settings,
            self.compact,
            last_run=last_run,
            now=self.now(),
            refresh=self.refresh_threads,
            catch_up=self.catch_up,
        )

    def stop(self) -> None:
        """The app is closing: stop the schedule, then release the stores (after any
        call in flight), so another Aniso process can own the vector index at once.
        A later call builds the services again."""
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        with self._lock:
            if self._services is not None:
                self._services.close()
                self._services = None

    def next_compaction(self) -> datetime:
        from aniso.scheduler import last_scheduled

        return last_scheduled(self.settings, self.now()) + timedelta(days=1)

    # ---- chat ------------------------------------------------------------------

    def send(
        self,
        text: str,
        *,
        on_token: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Turn:
        with self._lock:
            services = self.services()
            reply = services.assistant.send(text, on_token=on_token, cancelled=cancelled)
            return Turn(
                reply=reply,
                redacted=self._redacted_kinds(services, reply),
                triage=self._triage(services),
            )

    def _triage(self, services: Services) -> float:
        from aniso.tiers.triage import load

        if services.controller.temporary:
            return 0.0
        return load(services.db, now=self.now()).alpha

    def _redacted_kinds(self, services: Services, reply: Reply) -> list[str]:
        from aniso.tiers.episodes import pii_types

        if not reply.episode_id:
            return ["private data"] if reply.notices and not services.controller.warnings else []
        return pii_types(services.db, reply.episode_id)

    # ---- memory ----------------------------------------------------------------

    def counts(self) -> TierCounts:
        from aniso.tiers.archive import count_archived
        from aniso.tiers.blocks import counts_by_tier

        with self._lock:
            db = self.services().db
            tiers = counts_by_tier(db)
            archived = count_archived(db)
        return TierCounts(tiers["hot"], tiers["warm"], tiers["cold"], archived)

    def unpack(self, item: MemoryItem) -> str:
        """Deep-unpack a warm or cold item; hot items are already in full detail."""
        from aniso.tiers import unpack

        if item.tier == "hot":
            return f"block {item.block_id} is hot: it is already in full detail"
        with self._lock:
            services = self.services()
            restored = unpack.deep(services.controller.memory, item.block_id, now=self.now())
        if restored is None:
            return f"block {item.block_id} cannot be unpacked (already restored or forgotten)"
        return (
            f"restored block {item.block_id} into hot block {restored.new_block} "
            f"({restored.episodes} episodes)"
        )

    def pinned(self, block_id: int) -> bool:
        from aniso.tiers.blocks import is_pinned

        with self._lock:
            return is_pinned(self.services().db, block_id)

    def pin(self, block_id: int, value: bool = True) -> None:
        from aniso.core.db import transaction
        from aniso.tiers.blocks import set_marker

        with self._lock:
            db = self.services().db
            with transaction(db):
                set_marker(db, block_id, "pinned", value)

    def clear_markers(self, block_id: int) -> bool:
        """Take back "important" and "open problem" (the user's `c`, as "that's done"
        in words); False when the block held neither."""
        from aniso.core.db import transaction
        from aniso.tiers.blocks import clear_markers

        with self._lock:
            db = self.services().db
            with transaction(db):
                return clear_markers(db, block_id)

    def forget(self, block_ids: list[int]) -> int:
        with self._lock:
            return data_actions.forget_blocks(self.services(), block_ids)

    def preview_forget(self, query: str) -> list[data_actions.BlockPreview]:
        with self._lock:
            return data_actions.preview_search(self.services(), query)

    def export(self, path: Path) -> Path:
        with self._lock:
            return self._exporter(self.services(), path.expanduser())

    def compact(self) -> dict[str, Any]:
        from aniso.services import make_compactor

        with self._lock:
            services = self.services()
            return make_compactor(services).run(self.now()).as_dict()

    def catch_up(self) -> int:
        """The nights missed while the app was closed, one by one (the start-up job)."""
        from aniso import nightly

        with self._lock:
            services = self.services()
            if services.controller.temporary:
                return 0
            return nightly.catch_up(services.compactor(), self.now()).nights

    def refresh_threads(self) -> int:
        """Write the thread briefs that are due (the scheduler's hourly job)."""
        with self._lock:
            services = self.services()
            if services.controller.temporary:
                return 0
            return services.refresher.run(self.now())

    def threads(self) -> list[Any]:
        """Open threads, most urgent first, with their briefs."""
        with self._lock:
            return self.services().refresher.listing(self.now())

    def procedures(self) -> list[Any]:
        """Procedures, the one reused first at the top."""
        from aniso.tiers.procedures import listing

        with self._lock:
            return listing(self.services().db, now=self.now())

    def pin_procedure(self, procedure_id: int, value: bool) -> list[Any]:
        from aniso.tiers.procedures import set_pinned

        with self._lock:
            set_pinned(self.services().db, procedure_id, value)
        return self.procedures()

    def forget_procedure(self, procedure_id: int) -> list[Any]:
        from aniso.tiers.procedures import forget

        with self._lock:
            forget(self.services().db, [procedure_id])
        return self.procedures()

    # ---- profile ---------------------------------------------------------------

    def profile_history(self) -> list[ProfileValue]:
        with self._lock:
            return self._profile().history()

    def profile_set(self, field_name: str, value: str) -> list[str]:
        """A hand edit, redacted like every write; returns notices for the user."""
        with self._lock:
            services = self.services()
            value, _, withheld = services.controller.redact(value)
            changes = self._profile().set(field_name, value)
        notes = [withheld] if withheld else []
        return notes + [f"{c.kind} {c.field} = {c.value}" for c in changes]

    def profile_unset(self, field_name: str, item: str | None = None) -> list[str]:
        with self._lock:
            changes = self._profile().unset(field_name, item)
        return [f"{c.kind} {c.field} = {c.value}" for c in changes]

    def profile_undo(self) -> str:
        """Take back the last learned profile change; one line saying what happened."""
        from aniso.profile.notice import undone

        if self.temporary:
            return "Nothing to undo: a temporary chat does not change the profile."
        with self._lock:
            return undone(self._profile().undo_last())

    def _profile(self) -> Any:
        return self.services().profile


def replace_settings(settings: Settings, **changes: Any) -> Settings:
    """A copy of the settings with some fields changed."""
    return settings.model_copy(update=changes)
