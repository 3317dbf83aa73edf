"""The composition root: builds every adapter from the settings, once.

Nothing else constructs stores or gateways, so tests swap a piece by passing it in.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass

import sqlite_utils

from aniso import nightly
from aniso.chat import Assistant
from aniso.controller import MemoryController
from aniso.core.clock import Clock, SimulatedClock, parse_instant, system_clock
from aniso.core.db import PRIVATE_UMASK, open_db
from aniso.core.errors import ConfigError
from aniso.core.ports import Embedder, Progress
from aniso.core.runtime import wipe_freed_memory
from aniso.core.settings import LOCAL_EMBEDDING, Settings
from aniso.llm.gateway import LLMGateway
from aniso.privacy.redactor import AuditedRedactor
from aniso.profile.learner import ProfileLearner
from aniso.profile.store import ProfileStore
from aniso.refresh import Refresher, changes_since
from aniso.reuse import Reuse
from aniso.tiers.compaction import Compactor
from aniso.tiers.index import reindex
from aniso.tiers.index.dense import DenseMemory
from aniso.tiers.index.embeddings import LocalMiniLM
from aniso.tiers.index.vector_host import HostedIndex
from aniso.tiers.index.vectors import ChromaIndex, VectorIndex
from aniso.tiers.memory import TieredMemory

log = logging.getLogger(__name__)


@dataclass
class Services:
    settings: Settings
    db: sqlite_utils.Database
    clock: Clock
    gateway: LLMGateway
    controller: MemoryController
    assistant: Assistant
    profile: ProfileStore
    refresher: Refresher
    redactor: AuditedRedactor
    """The same redactor as `controller.redact`, for its batch form."""

    @property
    def memory(self) -> TieredMemory:
        return self.controller.memory

    def compactor(
        self,
        *,
        on_block: Callable[[], None] | None = None,
        before_commit: Callable[[int], None] | None = None,
    ) -> Compactor:
        """The nightly compactor over this memory, wired like the app."""
        return make_compactor(self, on_block=on_block, before_commit=before_commit)

    def close(self) -> None:
        """Release the vector index (folder lock, files) and the database connection;
        the object is unusable after."""
        self.controller.memory.dense.close()
        self.db.conn.close()

    def catch_up(
        self,
        *,
        start_progress: Callable[[int], Progress] | None = None,
        notice: Callable[[str], None] = log.info,
    ) -> None:
        """What a command does first, as the app does at start: run the nights missed,
        one by one, then write the thread briefs that fell due while nothing ran (a
        temporary chat writes nothing)."""
        if self.controller.temporary:
            return
        try:
            done = nightly.catch_up(self.compactor(), self.clock(), start_progress=start_progress)
        except Exception as error:  # noqa: BLE001 - maintenance must not stop a command
            # Each night commits on its own, so the next command resumes where this one
            # stopped. A full disk or a locked store is then reported by the command's
            # own write, with what it means for the user's message, in one line.
            log.warning("catching up on the nights missed failed: %s", error)
        else:
            if done.busy:
                notice(nightly.BUSY)
        try:
            self.refresher.run()
        except Exception as error:  # noqa: BLE001 - a late brief must not stop a command
            log.warning("thread refresh failed: %s", type(error).__name__)

    def redact_text(self, text: str) -> str:
        """Redact text on a write path other than chat (summaries, imports, exports)."""
        return self.controller.redact(text)[0]

    def redact_texts(self, texts: list[str]) -> list[str]:
        """`redact_text` for a batch (an import): the same verdicts and audit, far faster."""
        return self.redactor.many(texts)


def make_embedder(spec: str) -> Embedder:
    """The `embedding` setting as an Embedder: the local MiniLM, else a litellm model."""
    spec = spec.strip()
    if spec == LOCAL_EMBEDDING:
        return LocalMiniLM()
    if not spec or spec.startswith("local/"):
        raise ConfigError(
            f"unknown embedding model {spec!r}: use {LOCAL_EMBEDDING} "
            "or a litellm embedding model such as text-embedding-3-small"
        )
    from aniso.llm.embeddings import LiteLLMEmbedder

    return LiteLLMEmbedder(spec)


def make_compactor(
    services: Services,
    *,
    on_block: Callable[[], None] | None = None,
    before_commit: Callable[[int], None] | None = None,
) -> Compactor:
    """The compactor wired like the app: the guard on summaries, the LLM when capable."""
    return Compactor(
        services.db,
        services.controller.memory,
        services.settings,
        redact=services.redact_text,
        complete=services.gateway.complete if services.settings.use_llm_extraction else None,
        on_block=on_block,
        before_commit=before_commit,
    )


def make_clock(settings: Settings) -> Clock:
    """The real clock, or a simulated one standing at `settings.now`."""
    if settings.now:
        return SimulatedClock(parse_instant(settings.now))
    return system_clock


def make_memory(
    settings: Settings,
    db: sqlite_utils.Database,
    *,
    warn: Callable[[str], None] = log.warning,
    hosted: HostedIndex | None = None,
) -> TieredMemory:
    """The tiers over this data dir: local or litellm embeddings, embedded or server Chroma,
    or the embedded index a child process opened (`hosted`, see `vector_host`)."""
    embedder = make_embedder(settings.embedding)

    def open_index() -> VectorIndex:
        # An index found broken and rebuilt is worth telling the user, not only the log.
        if hosted is not None:
            return hosted.open(on_warning=dense.note)
        return ChromaIndex.open(
            path=settings.data_dir / "chroma", url=settings.chroma_url, on_warning=dense.note
        )

    dense = DenseMemory(db, embedder, open_index, warn=warn)
    memory = TieredMemory(db, dense, fusion=settings.recall_fusion)
    reindex.derive_pending(db)  # what a migration could not derive without the stemmer
    return memory


def build(
    settings: Settings,
    *,
    clock: Clock | None = None,
    gateway: LLMGateway | None = None,
    temporary: bool = False,
    hosted_index: HostedIndex | None = None,
) -> Services:
    """Everything a command uses, wired once. `hosted_index` is the vector index a child
    process is already opening (`warmup.host_index`), used in place of opening one here."""
    wipe_freed_memory()  # freed heap holds no memory a later buffer could write out
    clock = clock or make_clock(settings)
    # Stores that create files later on their own (Chroma's folder, SQLite's WAL) follow
    # the process umask: from here on, whatever this process creates is private.
    os.umask(PRIVATE_UMASK)
    db = open_db(settings.data_dir)
    gateway = gateway or LLMGateway(settings)
    session = f"{clock():%Y%m%dT%H%M%S}-{os.getpid()}"
    profile = ProfileStore(db, clock=clock)
    redactor = AuditedRedactor(db, clock, audit=not temporary)
    controller = MemoryController(
        db,
        settings=settings,
        clock=clock,
        session=session,
        memory=make_memory(settings, db, hosted=hosted_index),
        redact=redactor,
        profile=ProfileLearner(
            profile,
            complete=gateway.complete if settings.use_llm_extraction else None,
        ),
        llm_is_local=gateway.is_local,
        temporary=temporary,
    )
    refresher = make_refresher(settings, db, clock, controller, gateway, profile)
    return Services(
        settings=settings,
        db=db,
        clock=clock,
        gateway=gateway,
        controller=controller,
        assistant=Assistant(
            controller,
            gateway,
            refresher=refresher,
            reuse=Reuse(
                db,
                clock=clock,
                redact=lambda text: controller.redact(text)[0],
                profile_values=lambda: profile.current().as_values(),
                from_steps=settings.procedure_from_steps,
            ),
        ),
        profile=profile,
        refresher=refresher,
        redactor=redactor,
    )


def make_refresher(
    settings: Settings,
    db: sqlite_utils.Database,
    clock: Clock,
    controller: MemoryController,
    gateway: LLMGateway,
    profile: ProfileStore,
) -> Refresher:
    """Push refresh of open threads: briefs pass the guard; a capable model may write them."""
    return Refresher(
        db,
        clock=clock,
        timezone=settings.timezone,
        redact=lambda text: controller.redact(text)[0],
        profile_changes=lambda since: changes_since(profile.history(), since),
        complete=gateway.complete if settings.use_llm_extraction else None,
    )
