"""The memory as a Python library: `aniso.open()` gives a `Memory`.

For developers who embed Aniso's memory in their own program, and for the MCP
server (`aniso.api.mcp`), which exposes the same calls to other assistants. It is a
thin layer over the composition root (`aniso.services`): the same controller stores
a message (privacy guard, profile learning, the hot tier), the same recall ranks,
the same erasure forgets. Nothing here wires a store of its own.

Every text that leaves a `Memory` is what memory keeps, which is already redacted:
a card number, a passport or a secret was replaced by a typed placeholder before it
was first written, so no call can hand it back.

    import aniso

    with aniso.open(data_dir="~/my-memory") as memory:
        memory.remember("I'm vegetarian, and I prefer short answers")
        for item in memory.recall("what do I eat?"):
            print(item["tier"], item["text"])
        print(memory.profile()["diet"])

A `Memory` serialises its calls with a lock, so threads may share one; two
processes may open the same data dir (the second recalls lexically while the first
owns the vector index, and its index writes wait in the outbox).
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from aniso.core.errors import InputError
from aniso.core.settings import load_settings
from aniso.data import forget as erasure
from aniso.profile.notice import change_dict
from aniso.prompt import fit_memories
from aniso.services import Services, build
from aniso.tiers import gist
from aniso.tiers.model import MemoryItem

__all__ = ["Memory", "open"]


def open(data_dir: str | Path | None = None, **settings: Any) -> Memory:  # noqa: A001
    """Open the memory in `data_dir` (default: the configured one). Any setting of
    `aniso config` may be given by name, e.g. `timezone="Europe/Berlin"`; settings
    not given come from the environment and the config file, as for the CLI."""
    overrides = dict(settings)
    if data_dir is not None:
        overrides["data_dir"] = str(Path(data_dir).expanduser())
    services = build(load_settings(overrides))
    return Memory(services)


def item_dict(item: MemoryItem, *, now: Any) -> dict[str, Any]:
    """One recalled item with its provenance: tier, form, age and where it came from."""
    return {
        "block_id": item.block_id,
        "episode_id": item.episode_id,
        "tier": item.tier,
        "form": item.form,  # full | incomplete (warm) | gist (cold)
        "date": item.at.isoformat(),
        "age_days": max(0, (now - item.at).days),
        "outdated": item.outdated,
        "tokens": item.tokens,
        "score": round(item.score, 4),
        "text": item.text,
        # The archived turns a warm or cold item quotes in its text: a gist can
        # answer while its block stays packed. Added beside the older keys.
        "quotes": [
            {"episode_id": quote.episode_id, "date": quote.at.isoformat()} for quote in item.quotes
        ],
        # An archived turn shown at its own rank, apart from its block's gist.
        "alone": item.alone,
    }


class Memory:
    """Remember, recall, read and edit the profile, forget, export and compact."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._lock = threading.RLock()
        self._closed = False

    # ---- writing ----------------------------------------------------------------

    def remember(self, text: str) -> dict[str, Any]:
        """Store `text` as the user said it: through the privacy guard, profile
        learning and the hot tier, exactly like a chat message (with no reply)."""
        with self._lock:
            controller = self._services().controller
            observation = controller.observe(text)
            controller.memory.store_reply(observation.episode_id, "")
            controller.write_behind()
            return {
                "episode_id": observation.episode_id,
                "stored": observation.stored_text,
                "withheld": sorted(set(observation.pii_types)),
                "notices": observation.notices,
                "profile_changes": [change_dict(c) for c in observation.profile_changes],
            }

    # ---- reading ----------------------------------------------------------------

    def recall(self, query: str, *, budget_tokens: int | None = None) -> list[dict[str, Any]]:
        """The memories that would be injected for `query`, best first, within the
        token budget (the configured one by default)."""
        return self.recall_report(query, budget_tokens=budget_tokens)["items"]

    def recall_report(self, query: str, *, budget_tokens: int | None = None) -> dict[str, Any]:
        """`recall` with its context, in the shape of `aniso memory recall --json`:
        the items, the budget, the tokens they take, and warnings (such as recall
        being lexical only while another process owns the vector index)."""
        if not query.strip():
            raise InputError("recall needs a query: some words to look for")
        with self._lock:
            services = self._services()
            controller = services.controller
            now = services.clock()
            result = controller.memory.recall(
                query,
                now=now,
                is_outdated=controller.profile.outdated_check() if controller.profile else None,
            )
            budget = budget_tokens or services.settings.prompt_budget_tokens
            items = fit_memories(
                gist.present(services.db, query, result.items),
                budget_tokens=budget,
                profile_text=controller.profile_text(),
            )
            return {
                "query": query,
                "budget_tokens": budget,
                "injected_tokens": sum(item.tokens for item in items),
                "items": [item_dict(item, now=now) for item in items],
                "warnings": list(result.warnings),
            }

    def profile(self) -> dict[str, Any]:
        """The current profile: each field's values, with what was said and when."""
        with self._lock:
            current = self._services().profile.current()
            return current.model_dump(mode="json")

    def profile_set(self, field: str, value: str) -> list[str]:
        """Set a field by hand (for a list field: add the value); returns the changes."""
        with self._lock:
            services = self._services()
            stored, _, _ = services.controller.redact(value)
            changes = services.profile.set(field, stored)
            return [f"{c.kind} {c.field} = {c.value}" for c in changes]

    def profile_unset(self, field: str, value: str | None = None) -> list[str]:
        """Remove a field (or one value of a list field); returns the changes."""
        with self._lock:
            changes = self._services().profile.unset(field, value)
            return [f"{c.kind} {c.field} = {c.value}" for c in changes]

    def profile_undo(self) -> dict[str, Any]:
        """Take back what the last message that changed the profile changed (values
        it set end as "undone", values it ended hold again); call again to go one
        message further back. The shape of `aniso profile undo --json`."""
        from aniso.profile.notice import undo_dict

        with self._lock:
            return dict(undo_dict(self._services().profile.undo_last()))

    def digest(self) -> str:
        """What is still open, what changed in the profile since the last session and
        which memories moved between tiers (Markdown); it does not use up the
        once-a-day digest that the chat shows."""
        with self._lock:
            return self._services().assistant.digest(claim=False) or "nothing to report"

    def threads(self) -> list[dict[str, Any]]:
        """Open problems, most urgent first: urgency `u`, refresh interval `tau_hours`,
        the last refresh and the brief of what moved since the user last looked (due
        briefs are written first). The shape of `aniso memory threads --json`."""
        with self._lock:
            return [thread.as_dict() for thread in self._services().refresher.listing()]

    def procedures(self) -> list[dict[str, Any]]:
        """Accepted answers kept for reuse, heaviest first (rejected ones last, never
        reused), with `uses` and `weight`. The shape of `aniso memory procedures --json`."""
        from aniso.tiers import procedures

        with self._lock:
            services = self._services()
            return [p.as_dict() for p in procedures.listing(services.db, now=services.clock())]

    def unpack(self, block_id: int) -> dict[str, Any]:
        """Restore a warm or cold block's archived episodes into a new hot block."""
        from aniso.tiers import unpack

        with self._lock:
            services = self._services()
            restored = unpack.deep(services.memory, block_id, now=services.clock())
            if restored is None:
                return {"block_id": block_id, "restored": False}
            return {
                "block_id": block_id,
                "restored": True,
                "new_block": restored.new_block,
                "episodes": restored.episodes,
            }

    # ---- owning the data ----------------------------------------------------------

    def forget(self, search: str, *, confirm: bool = False) -> dict[str, Any]:
        """What mentions `search`: a preview, or with `confirm` the erasure and its
        receipt (`verified` only when no byte of it is left under the data dir)."""
        with self._lock:
            services = self._services()
            plan = erasure.plan_search(services.db, search)
            if not confirm or plan.selection.empty() and not plan.selection.profile:
                return {
                    "preview": True,
                    "matches": [m.as_dict() for m in plan.matches],
                    "confirm": "call again with confirm=true to erase these for good",
                }
            return erasure.forget(services, plan, remove_profile=True)

    def export(self, path: str | Path, *, format: str = "json") -> dict[str, Any]:  # noqa: A002
        """Everything, schema-versioned (`json`), or a readable digest (`md`)."""
        from aniso.data.export import export_json
        from aniso.data.markdown import export_markdown

        if format not in ("json", "md"):
            raise InputError(f"unknown export format {format!r}: use json or md")
        with self._lock:
            services = self._services()
            if format == "md":
                report = export_markdown(services.db, Path(path), redact=services.redact_text)
            else:
                report = export_json(services.db, Path(path))  # the store is already guarded
            return report.as_dict()

    def compact(self) -> dict[str, Any]:
        """Run the nightly compactor now."""
        with self._lock:
            services = self._services()
            return services.compactor().run(services.clock()).as_dict()

    # ---- lifetime -----------------------------------------------------------------

    def close(self) -> None:
        """Release the vector index and the database; the memory is unusable after."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self.services.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _services(self) -> Services:
        if self._closed:
            raise InputError("this memory is closed: open it again with aniso.open()")
        return self.services
