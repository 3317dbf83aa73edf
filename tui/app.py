"""`AnisoApp`: the chat, the memory panel, the profile view and the actions, wired.

Every core call runs in a thread worker (`background`), so the interface stays
responsive while the model generates; results come back with `call_from_thread`.
Any failure, from a dead LLM to a locked database or a full disk, becomes a message
in the app, never a crash. Services are built in a worker after the first paint.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer

from aniso.core.errors import AnisoError
from aniso.tui.backend import Backend, Turn
from aniso.tui.chat import ChatMessage, ChatPane, Composer
from aniso.tui.commands import AnisoCommands
from aniso.tui.dialogs import ConfirmScreen, PromptScreen
from aniso.tui.memory_panel import MemoryPanel
from aniso.tui.status import Status, StatusBar

log = logging.getLogger(__name__)
T = TypeVar("T")


def describe(error: BaseException) -> str:
    """One line for the user: the message of an AnisoError, else type and message."""
    if isinstance(error, AnisoError):
        return str(error)
    text = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def short_path(path: Path) -> str:
    """The data dir as the user thinks of it: under ~ when inside the home folder."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


class AnisoApp(App[None]):
    TITLE = "Aniso"
    COMMANDS = App.COMMANDS | {AnisoCommands}
    BINDINGS = [
        Binding("escape", "cancel", "Cancel reply", show=False),
        Binding("f2", "toggle_memory", "Memory"),
        Binding("f3", "profile", "Profile"),
        Binding("f4", "toggle_temporary", "Temporary"),
        Binding("f5", "compact", "Compact"),
        # The composer binds F6/F7 to line and text selection; the app's actions win.
        Binding("f6", "export", "Export", priority=True),
        Binding("f7", "forget_search", "Forget...", priority=True),
        Binding("f8", "switch_model", "Model"),
        Binding("f9", "undo_profile", "Undo"),
        Binding("f10", "procedures", "Procedures", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    CSS = """
    #main { height: 1fr; }
    """

    def __init__(
        self, backend: Backend, *, schedule: bool = False, notices: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.backend = backend
        self.schedule = schedule
        self.startup_notices = notices
        """Start-up warnings (e.g. a data dir open to other users), shown once mounted."""
        self.generating = False
        self._cancel = threading.Event()
        self._redacted: list[str] = []
        self._busy = ""
        self._profile_line = ""
        self._triage = 0.0

    # ---- layout and start-up -----------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield ChatPane(id="chat")
            yield MemoryPanel(id="memory")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        for notice in self.startup_notices:
            self.notify(notice, severity="warning", timeout=30)
        self.refresh_status()
        self.query_one(Composer).focus()
        self._busy = "loading memory..."
        self.refresh_status()
        # Heavy imports in a thread still hold the GIL: start them once the first
        # frame is on the screen, not while it is being drawn.
        self.call_after_refresh(self.background, self._boot, self._booted, what="start-up")

    def _boot(self) -> str | None:
        self.backend.warm_up()
        if self.schedule and not self.backend.temporary:
            self.backend.start_schedule()
        return self.backend.digest()

    async def _booted(self, digest: str | None) -> None:
        if self._busy == "loading memory...":
            self._busy = ""
            self.refresh_status()
        if digest:  # the first session of the day opens with what is open and what moved
            await self.chat.add("aniso", digest, kind="digest")
        self.refresh_memory()

    def on_unmount(self) -> None:
        self._cancel.set()
        self.backend.stop()

    @property
    def chat(self) -> ChatPane:
        return self.query_one(ChatPane)

    @property
    def memory(self) -> MemoryPanel:
        return self.query_one(MemoryPanel)

    def refresh_status(self) -> None:
        next_run = None
        try:
            next_run = self.backend.next_compaction()
        except Exception:  # noqa: BLE001 - the status bar must never take the app down
            log.warning("cannot compute the next compaction time", exc_info=True)
        self.query_one(StatusBar).show(
            Status(
                model=self.backend.model,
                local=self.backend.is_local,
                data_dir=short_path(self.backend.settings.data_dir),
                next_compaction=next_run,
                redacted=self._redacted,
                temporary=self.backend.temporary,
                busy=self._busy,
                profile=self._profile_line,
                triage=self._triage,
            )
        )

    # ---- background work ---------------------------------------------------------

    def background(
        self,
        job: Callable[[], T],
        then: Callable[[T], Any] | None = None,
        *,
        what: str,
        on_error: Callable[[], Any] | None = None,
    ) -> None:
        """Run `job` in a thread; its result goes to `then` on the UI thread.

        Failures become one line in the chat (and the log), never an exception that
        would close the app.
        """

        def run() -> None:
            try:
                result = job()
            except Exception as error:  # noqa: BLE001 - shown in the app, never a crash
                if not isinstance(error, AnisoError):
                    log.exception("%s failed", what)
                if on_error is not None:  # before the worker ends: no window of stale state
                    self.call_from_thread(on_error)
                self.call_from_thread(self.show_error, f"{what}: {describe(error)}")
                return
            if then is not None:
                self.call_from_thread(then, result)

        self.run_worker(run, thread=True, group="core", exit_on_error=False)

    async def show_error(self, text: str) -> None:
        self._busy = ""
        self.refresh_status()
        self.notify(text, severity="error")  # seen on any screen; the chat keeps it
        await self.chat.add("error", text, kind="error")

    # ---- chat --------------------------------------------------------------------

    @on(Composer.Submitted)
    async def send(self, event: Composer.Submitted) -> None:
        if self.generating:
            self.notify("wait for the reply, or press Esc to stop it", severity="warning")
            return  # what the user typed stays in the composer
        self.query_one(Composer).accept()
        self.generating = True
        self._cancel.clear()
        await self.chat.add("user", event.text)
        target = await self.chat.add("assistant", "")
        self._busy = "thinking... (Esc stops)"
        self.refresh_status()

        def job() -> Turn:
            def on_token(piece: str) -> None:
                # post_message is thread-safe and does not wait: a busy screen never
                # slows the model down.
                target.post_message(ChatMessage.Piece(piece))

            return self.backend.send(event.text, on_token=on_token, cancelled=self._cancel.is_set)

        self.background(
            job,
            lambda turn: target.post_message(ChatMessage.Ended(target, turn)),
            what="chat",
            on_error=self._chat_failed,
        )
        self.set_timer(0.1, self._watch_generation)

    def _chat_failed(self) -> None:
        """The turn raised instead of answering: the composer takes a message again."""
        self.generating = False

    def _watch_generation(self) -> None:
        """Reset the busy flag if the chat worker ended without an answer (an error)."""
        if not any(w.is_running for w in self.workers if w.group == "core"):
            self.generating = False
        elif self.generating:
            self.set_timer(0.2, self._watch_generation)

    @on(ChatMessage.Ended)
    async def _answered(self, event: ChatMessage.Ended) -> None:
        target, turn = event.target, event.turn
        assert isinstance(turn, Turn)
        self.generating = False
        self._busy = ""
        reply = turn.reply
        await target.finish()
        if self._cancel.is_set():
            await target.set_text((target.text + " …").strip())
            await self.chat.add("notice", "reply stopped", kind="notice")
        elif reply.error:
            if not target.text.strip():
                target.remove()
            await self.chat.add("error", f"{reply.error} (your message was stored)", kind="error")
        elif target.text.strip() != reply.text.strip():
            await target.set_text(reply.text)
        for brief in reply.briefs:  # the reply starts from where the thread was left
            text = f"**Where we left off** on {brief.label}:\n\n{brief.text}"
            await self.chat.add("aniso", text, kind="digest", before=target)
        for notice in reply.notices:
            await self.chat.add("notice", notice, kind="notice")
        if reply.noted:
            self._profile_line = f"{reply.noted} (F9 undoes)"
            await self.chat.add("notice", self._profile_line, kind="notice")
        self._redacted = turn.redacted
        self._triage = turn.triage
        self.refresh_status()
        self.refresh_memory(reply.recalled)

    def action_cancel(self) -> None:
        if self.generating:
            self._cancel.set()
            self.notify("stopping the reply")

    # ---- memory panel -------------------------------------------------------------

    def refresh_memory(self, items: list[Any] | None = None) -> None:
        """Counts per tier (and, when given, the items recalled for the last answer)."""

        def job() -> tuple[Any, set[int]]:
            pinned = {i.block_id for i in items or [] if self.backend.pinned(i.block_id)}
            return self.backend.counts(), pinned

        def show(result: tuple[Any, set[int]]) -> None:
            counts, pinned = result
            self.memory.show_counts(counts)
            if items is not None:
                self.memory.show_items(items, self.backend.now(), pinned=pinned)

        self.background(job, show, what="memory panel")

    def action_toggle_memory(self) -> None:
        self.memory.display = not self.memory.display
        if self.memory.display:
            self.memory.query_one("#recalled").focus()
        else:
            self.query_one(Composer).focus()

    @on(MemoryPanel.Act)
    def act_on_memory(self, event: MemoryPanel.Act) -> None:
        item = event.item
        if event.action == "unpack":
            self.background(
                lambda: self.backend.unpack(item), self._done_with_memory, what="unpack"
            )
        elif event.action == "pin":

            def pin() -> str:
                now_pinned = not self.backend.pinned(item.block_id)
                self.backend.pin(item.block_id, now_pinned)
                return f"block {item.block_id} {'pinned' if now_pinned else 'unpinned'}"

            self.background(pin, self._done_with_memory, what="pin")
        elif event.action == "clear":

            def clear() -> str:
                if not self.backend.clear_markers(item.block_id):
                    return f"block {item.block_id} has no marker to clear"
                return f"block {item.block_id}: no longer important or open"

            self.background(clear, self._done_with_memory, what="clear markers")
        elif event.action == "forget":
            self.push_screen(
                ConfirmScreen(
                    f"Forget block {item.block_id} everywhere? This cannot be undone.",
                    " ".join(item.text.split())[:400],
                    yes="Forget",
                ),
                lambda yes: self._forget([item.block_id]) if yes else None,
            )

    def _done_with_memory(self, message: str) -> None:
        self.notify(message)
        items = self.memory.items
        self.refresh_memory(items)

    def _forget(self, block_ids: list[int]) -> None:
        def done(count: int) -> None:
            self.notify(f"forgot {count} block{'s' if count != 1 else ''}")
            gone = set(block_ids)
            self.refresh_memory([i for i in self.memory.items if i.block_id not in gone])

        self.background(lambda: self.backend.forget(block_ids), done, what="forget")

    # ---- actions --------------------------------------------------------------------

    def action_export(self) -> None:
        def chosen(path: str | None) -> None:
            if not path or not path.strip():
                return
            self.background(
                lambda: self.backend.export(Path(path.strip())),
                lambda written: self.notify(f"exported to {written}"),
                what="export",
            )

        self.push_screen(
            PromptScreen("Export everything to (path):", value="aniso-export.json"), chosen
        )

    def action_forget_search(self) -> None:
        def confirm(query: str, previews: list[Any]) -> None:
            if not previews:
                self.notify(f"nothing in memory matches {query!r}")
                return
            detail = "\n".join(
                f"block {p.block_id} [{p.tier}] {p.last_at} · {p.episodes} ep · {p.text}"
                for p in previews
            )
            self.push_screen(
                ConfirmScreen(
                    f"Forget these {len(previews)} blocks matching {query!r}?", detail, yes="Forget"
                ),
                lambda yes: self._forget([p.block_id for p in previews]) if yes else None,
            )

        def searched(query: str | None) -> None:
            if query is None or not query.strip():
                return
            self.background(
                lambda: self.backend.preview_forget(query),
                lambda previews: confirm(query, previews),
                what="forget",
            )

        self.push_screen(PromptScreen("Forget memories matching:"), searched)

    def action_compact(self) -> None:
        def done(report: dict[str, Any]) -> None:
            self.notify(
                f"compaction: moved {len(report['moved'])}, compressed "
                f"{len(report['compressed'])}, archived {report['archived_episodes']} episodes"
            )
            self.refresh_memory()

        self.notify("compacting...")
        self.background(self.backend.compact, done, what="compaction")

    async def action_toggle_temporary(self) -> None:
        if self.generating:
            self.notify("wait for the reply first", severity="warning")
            return
        self.backend.set_temporary(not self.backend.temporary)
        self.refresh_status()
        text = (
            "Temporary chat: from now on nothing is read from or written to memory."
            if self.backend.temporary
            else "Temporary chat ended: memory is on again."
        )
        await self.chat.add("notice", text, kind="notice")
        self.background(self.backend.warm_up, what="start-up")

    def action_switch_model(self) -> None:
        def chosen(model: str | None) -> None:
            if not model or not model.strip():
                return

            def done(_: None) -> None:
                self.refresh_status()
                self.notify(f"now using {self.backend.model}")

            self.background(lambda: self.backend.switch_model(model), done, what="switch model")

        self.push_screen(
            PromptScreen("Model (a litellm model string):", value=self.backend.model), chosen
        )

    # ---- profile ----------------------------------------------------------------------

    def action_undo_profile(self) -> None:
        """Take back the last profile change learned from a message: one keystroke."""
        if self.generating:
            self.notify("wait for the reply first", severity="warning")
            return

        def done(line: str) -> None:
            self._profile_line = line
            self.refresh_status()
            self.notify(line)

        self.background(self.backend.profile_undo, done, what="undo profile")

    def action_procedures(self) -> None:
        from aniso.tui.procedures_screen import ProceduresScreen

        self.background(
            self.backend.procedures,
            lambda rows: self.push_screen(ProceduresScreen(rows)),
            what="procedures",
        )

    def action_profile(self) -> None:
        from aniso.tui.profile_screen import ProfileScreen

        self.background(
            self.backend.profile_history,
            lambda rows: self.push_screen(ProfileScreen(rows)),
            what="profile",
        )
